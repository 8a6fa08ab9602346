"""The critics' thread pool: a review's critics are independent, so they run at the same time
when their backend waits on a server."""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor, wait
from typing import Any


class CriticPool:
    """Threads kept for the critics (starting new ones at every review costs more than an
    offline critic); their number grows to the largest panel seen, less one (the first critic
    runs in the calling thread)."""

    def __init__(self, *, parallel: bool) -> None:
        self.parallel = parallel
        """False for a backend that computes in process (the offline one): under the GIL,
        threads cannot overlap its critics and only add hand-offs."""
        self._pool: ThreadPoolExecutor | None = None
        self._size = 0
        self._lock = threading.Lock()

    def run_all(self, calls: list[Callable[[], Any]]) -> list[Future[Any]]:
        """Run every call; each future holds its result or its error, in the calls' order.
        Every call ends (and is recorded) before this returns, whichever failed."""
        rest = (
            [self._threads(len(calls) - 1).submit(c) for c in calls[1:]]
            if self.parallel and len(calls) > 1
            else []
        )
        here: list[Future[Any]] = []
        try:
            for call in calls[:1] if rest else calls:
                here.append(Future())
                try:
                    here[-1].set_result(call())
                except Exception as exc:  # raised by the caller, in the critics' order
                    here[-1].set_exception(exc)
        finally:
            wait(rest)
        return here + rest

    def _threads(self, n: int) -> ThreadPoolExecutor:
        with self._lock:
            if self._pool is None or self._size < n:
                if self._pool is not None:
                    self._pool.shutdown(wait=False)
                self._size = max(1, n)
                self._pool = ThreadPoolExecutor(max_workers=self._size,
                                                thread_name_prefix="critic")
            return self._pool


__all__ = ["CriticPool"]

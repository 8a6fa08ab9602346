"""Start `streamlit run app.py` on a free localhost port with its own database, and stop it.
Used by the browser tests (and handy by hand: `python -m testkit.app_server`)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync"]


def playwright_expect(timeout_ms: int = 30_000):  # type: ignore[no-untyped-def]
    """Playwright's `expect` with a timeout a loaded CI machine can meet; the calling module
    is skipped when Playwright is not installed."""
    import pytest

    api = pytest.importorskip("playwright.sync_api")
    api.expect.set_options(timeout=timeout_ms)
    return api.expect


@dataclass(frozen=True)
class AppServer:
    url: str
    database_url: str
    log: Path


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait_healthy(url: str, proc: subprocess.Popen[bytes], log: Path, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            tail = log.read_text()[-3000:]
            raise RuntimeError(f"streamlit exited with {proc.returncode}:\n{tail}")
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=1) as r:
                if r.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.2)
    raise TimeoutError(f"streamlit not healthy after {timeout}s:\n{log.read_text()[-3000:]}")


@contextmanager
def serve(script: Path, database_url: str, log: Path, *, env: dict[str, str] | None = None,
          timeout: float = 60,
          port: int | None = None) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """`streamlit run script` on a free localhost port (or `port`: the pages bench restarts
    the server on one address so a browser's cache is kept) over `database_url`, offline,
    until the block ends: (its address, its process)."""
    port = port or free_port()
    full_env = {k: v for k, v in os.environ.items()
                if k not in ("OPENAI_API_KEY", "OPENAI_BASE_URL")}  # never a real model ...
    full_env.update({"DATABASE_URL": database_url, "DRAFTROOM_BACKEND": "offline",
                     **(env or {})})  # ... unless the caller names one (a fake server)
    cmd = [sys.executable, "-m", "streamlit", "run", str(script),
           "--server.port", str(port), "--server.address", "127.0.0.1",
           "--server.headless", "true", "--browser.gatherUsageStats", "false",
           "--server.fileWatcherType", "none"]
    with log.open("wb") as out:
        proc = subprocess.Popen(cmd, cwd=ROOT, env=full_env, stdout=out, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_healthy(url, proc, log, timeout)
        yield url, proc
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=5)


@contextmanager
def streamlit_app(tmp: Path, *, env: dict[str, str] | None = None,
                  timeout: float = 60) -> Iterator[AppServer]:
    """The app on a free port, with the in-app worker and a fresh SQLite database in `tmp`."""
    db = f"sqlite:///{tmp / 'e2e.db'}"
    log = tmp / "streamlit.log"
    with serve(ROOT / "app.py", db, log, env={"DRAFTROOM_INAPP_WORKER": "1", **(env or {})},
               timeout=timeout) as (url, _proc):
        yield AppServer(url=url, database_url=db, log=log)


@contextmanager
def using_database(url: str) -> Iterator[None]:
    """Point this test process at `url` (the app's database, to seed and check it)."""
    from db.session import reset_engines

    old = os.environ.get("DATABASE_URL")
    os.environ["DATABASE_URL"] = url
    reset_engines()
    try:
        yield
    finally:
        if old is None:
            os.environ.pop("DATABASE_URL", None)
        else:
            os.environ["DATABASE_URL"] = old
        reset_engines()


@contextmanager
def app_sharing_database(tmp: Path, *, env: dict[str, str] | None = None) -> Iterator[AppServer]:
    """A started app whose database this test process reads and writes too."""
    with streamlit_app(tmp, env=env) as server, using_database(server.database_url):
        yield server


def wait_status(run_id: int, status: str, timeout: float = 60) -> None:
    """Poll the shared database until the run has `status`."""
    from engine.views import get_run

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if get_run(run_id).status == status:
            return
        time.sleep(0.2)
    raise AssertionError(f"run {run_id} is {get_run(run_id).status}, not {status}")


if __name__ == "__main__":
    import tempfile

    with tempfile.TemporaryDirectory() as d, streamlit_app(Path(d)) as app:
        print(f"Draftroom at {app.url} (database {app.database_url}); Ctrl-C stops it")
        try:
            while True:
                time.sleep(1)
        except KeyboardInterrupt:
            pass

"""A fake OpenAI-compatible HTTP server for tests, benchmarks and manual runs.

The openai SDK (3.x, on httpx2) cannot be intercepted by respx, so tests talk to this server
over real HTTP on 127.0.0.1. It serves POST /v1/chat/completions (and /chat/completions) and
GET /v1/models.

What it answers, in order:
1. the next scripted reply, if any (`server.script([Reply.rate_limit(), Reply.ok()])`);
2. else `server.responder(request_json)`, if set and it returns something;
3. else a valid object generated from the request's JSON schema (response_format.json_schema,
   response_format.schema, or a schema embedded in the messages for JSON mode).

In a test module:

    from testkit.fake_openai import Reply

    def test_x(fake_openai_server):
        fake_openai_server.script([Reply.status(500), Reply.ok({"answer": "hi"})])
        backend = OpenAIBackend(base_url=fake_openai_server.url, api_key="sk-test")

or `with FakeOpenAI() as server: ...`. From a shell:

    python -m testkit.fake_openai --port 8089 [--latency 0.3] [--no-json-schema]
    OPENAI_BASE_URL=http://127.0.0.1:8089/v1 make run
"""

from __future__ import annotations

import argparse
import json
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from http.server import ThreadingHTTPServer
from typing import Any

from testkit.fake_openai.handler import Handler, RecordedRequest
from testkit.fake_openai.replies import Plan, as_plan
from testkit.fake_openai.schemas import estimate_tokens, example_from_schema, find_schema

Responder = Callable[[dict[str, Any]], Any]


class FakeOpenAI:
    """A scripted OpenAI-compatible server on 127.0.0.1 (port 0 = any free port)."""

    def __init__(
        self,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        latency: float = 0.0,
        api_key: str | None = None,
        models: Iterable[str] | None = None,
        json_schema_supported: bool = True,
        json_object_supported: bool = True,
        responder: Responder | None = None,
        verbose: bool = False,
    ) -> None:
        self.host = host
        self._port = port
        self.latency = latency
        """Seconds added before every chat completion answer (for benchmarks)."""
        self.api_key = api_key
        """When set, any other bearer token gets a 401."""
        self.models: set[str] | None = set(models) if models is not None else None
        """When set, other model names get a 404 (model_not_found)."""
        self.json_schema_supported = json_schema_supported
        """False: every response_format=json_schema request gets a 400, like many servers."""
        self.json_object_supported = json_object_supported
        self.responder = responder
        self.cached_tokens: int | None = None
        """Force this cached-token count; None simulates prefix caching across requests."""
        self.verbose = verbose
        self.requests: list[RecordedRequest] = []
        self.log: list[str] = []
        """One line per request (method, path, model, status); never headers or keys."""
        self._queue: deque[Plan] = deque()
        self._lock = threading.Lock()
        self._seen_prefixes: set[str] = set()
        self._stopping = threading.Event()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._counter = 0

    # -- lifecycle --

    def start(self) -> FakeOpenAI:
        handler = type("Handler", (Handler,), {"fake": self})
        self._httpd = ThreadingHTTPServer((self.host, self._port), handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(
            target=self._httpd.serve_forever,
            kwargs={"poll_interval": 0.05},
            name="fake-openai",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> FakeOpenAI:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        assert self._httpd is not None, "server not started"
        return self._httpd.server_address[1]

    @property
    def url(self) -> str:
        """The base_url for the openai client (ends in /v1)."""
        return f"http://{self.host}:{self.port}/v1"

    # -- scripting --

    def script(self, plans: Iterable[Plan | str]) -> FakeOpenAI:
        """Queue replies for the next chat completion requests, in order."""
        with self._lock:
            self._queue.extend(as_plan(p) for p in plans)
        return self

    @property
    def pending(self) -> int:
        with self._lock:
            return len(self._queue)

    def clear(self) -> None:
        with self._lock:
            self._queue.clear()
            self.requests.clear()
            self.log.clear()
            self._seen_prefixes.clear()

    @property
    def chat_requests(self) -> list[RecordedRequest]:
        return [r for r in self.requests if r.path.rstrip("/").endswith("chat/completions")]

    def _next_plan(self) -> Plan | None:
        with self._lock:
            return self._queue.popleft() if self._queue else None

    def _log(self, line: str) -> None:
        self.log.append(line)
        if self.verbose:
            print(line, flush=True)

    # -- answering --

    def _usage(self, request: dict[str, Any], content: str, plan: Plan) -> dict[str, Any] | None:
        if not plan.usage:
            return None
        messages = [json.dumps(m, sort_keys=True) for m in request.get("messages") or []]
        fmt = json.dumps(request.get("response_format") or {}, sort_keys=True)
        prompt = estimate_tokens(fmt) + sum(estimate_tokens(m) for m in messages)
        if plan.cached_tokens is not None:
            cached = plan.cached_tokens
        elif self.cached_tokens is not None:
            cached = self.cached_tokens
        else:
            # Prefix caching: the longest run of leading messages seen in an earlier request.
            cached = 0
            prefix = fmt
            with self._lock:
                for i, m in enumerate(messages):
                    prefix += "\x1e" + m
                    if prefix in self._seen_prefixes:
                        cached = estimate_tokens(fmt) + sum(
                            estimate_tokens(x) for x in messages[: i + 1]
                        )
                    self._seen_prefixes.add(prefix)
        completion = estimate_tokens(content or "")
        return {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
            "prompt_tokens_details": {"cached_tokens": min(cached, prompt), "audio_tokens": 0},
            "completion_tokens_details": {"reasoning_tokens": 0, "audio_tokens": 0},
        }

    def _object_for(self, request: dict[str, Any], plan: Plan) -> Any:
        obj = plan.obj
        if obj is None:
            schema = find_schema(request)
            if schema is not None:
                obj = example_from_schema(schema)
            elif (request.get("response_format") or {}).get("type") == "json_object":
                obj = {"answer": "Example answer"}
        return obj

    def completion(
        self, request: dict[str, Any], message: dict[str, Any], finish: str, plan: Plan
    ) -> dict[str, Any]:
        with self._lock:
            self._counter += 1
            n = self._counter
        body: dict[str, Any] = {
            "id": f"chatcmpl-fake-{n}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": request.get("model", "fake-model"),
            "system_fingerprint": "fp_fake",
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "refusal": None, **message},
                    "finish_reason": finish,
                    "logprobs": None,
                }
            ],
        }
        usage = self._usage(request, message.get("content") or "", plan)
        if usage is not None:
            body["usage"] = usage
        return body


# ---------------------------------------------------------------- CLI


@contextmanager
def running(**kwargs: Any) -> Iterator[FakeOpenAI]:
    """`with running(latency=0.3) as server:` — a started server, stopped on exit."""
    server = FakeOpenAI(**kwargs).start()
    try:
        yield server
    finally:
        server.stop()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="A fake OpenAI-compatible server.")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8089)
    parser.add_argument("--latency", type=float, default=0.0, help="seconds added per answer")
    parser.add_argument("--api-key", default=None, help="reject other keys with 401")
    parser.add_argument(
        "--model", action="append", dest="models", help="known model (repeatable); others get 404"
    )
    parser.add_argument(
        "--no-json-schema",
        action="store_true",
        help="reject response_format=json_schema with 400, like many servers",
    )
    parser.add_argument("--quiet", action="store_true")
    args = parser.parse_args(argv)
    server = FakeOpenAI(
        host=args.host,
        port=args.port,
        latency=args.latency,
        api_key=args.api_key,
        models=args.models,
        json_schema_supported=not args.no_json_schema,
        verbose=not args.quiet,
    )
    server.start()
    print(f"Fake OpenAI server on {server.url}\n  export OPENAI_BASE_URL={server.url}", flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()


if __name__ == "__main__":
    main()

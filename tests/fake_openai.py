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

    from fake_openai import FakeOpenAI, Reply, fake_openai_server  # noqa: F401  (fixture)

    def test_x(fake_openai_server):
        fake_openai_server.script([Reply.status(500), Reply.ok({"answer": "hi"})])
        backend = OpenAIBackend(base_url=fake_openai_server.url, api_key="sk-test")

or `with FakeOpenAI() as server: ...`. From a shell:

    python tests/fake_openai.py --port 8089 [--latency 0.3] [--no-json-schema]
    OPENAI_BASE_URL=http://127.0.0.1:8089/v1 make run
"""

from __future__ import annotations

import argparse
import json
import math
import socket
import struct
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

try:
    import pytest
except ImportError:  # the CLI works without pytest
    pytest = None  # type: ignore[assignment]

DEFAULT_MODELS = ("gpt-4.1-mini", "gpt-4.1", "gpt-4.1-nano", "gpt-4o-mini", "fake-model")


# ---------------------------------------------------------------- scripted replies


@dataclass(frozen=True)
class Plan:
    """One planned answer. Build them with the `Reply` helpers."""

    kind: str
    """ok | content | refusal | finish | status | reset | hang | delay"""
    obj: Any = None
    text: str | None = None
    status: int = 200
    message: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    seconds: float = 0.0
    then: Plan | None = None
    finish_reason: str = "stop"
    cached_tokens: int | None = None
    usage: bool = True
    error_type: str | None = None
    error_code: str | None = None


class Reply:
    """Constructors for scripted replies."""

    @staticmethod
    def ok(obj: Any = None, *, cached_tokens: int | None = None, usage: bool = True) -> Plan:
        """A valid answer: `obj` (dict or pydantic model) as JSON, else one made from the schema.
        `usage=False` leaves the usage block out, as some servers do."""
        return Plan("ok", obj=obj, cached_tokens=cached_tokens, usage=usage)

    @staticmethod
    def content(text: str | None, *, finish_reason: str = "stop") -> Plan:
        """Exactly this message content (None for a null content)."""
        return Plan("content", text=text, finish_reason=finish_reason)

    @staticmethod
    def malformed() -> Plan:
        """JSON cut off half-way."""
        return Plan("content", text='{"scores": [{"name": "safety", "value": 0.9}, {"na')

    @staticmethod
    def not_json() -> Plan:
        return Plan("content", text="Sure! Here is my review: the draft looks great.")

    @staticmethod
    def empty() -> Plan:
        return Plan("content", text="")

    @staticmethod
    def schema_violation() -> Plan:
        """Well-formed JSON of the wrong shape."""
        return Plan("content", text='{"unexpected": "field", "scores": "high"}')

    @staticmethod
    def control_chars(obj: Any = None) -> Plan:
        """A valid object whose first string holds a raw newline, tab and BEL (invalid JSON)."""
        return Plan("control_chars", obj=obj)

    @staticmethod
    def refusal(text: str = "I'm sorry, but I can't help with that.") -> Plan:
        return Plan("refusal", text=text)

    @staticmethod
    def length() -> Plan:
        """finish_reason=length: the answer was cut at the token limit."""
        return Plan(
            "content",
            text='{"scores": [{"name": "a", "value": 0.9}, {"name": "a"',
            finish_reason="length",
        )

    @staticmethod
    def content_filter() -> Plan:
        return Plan("content", text=None, finish_reason="content_filter")

    @staticmethod
    def status(
        code: int,
        message: str | None = None,
        *,
        headers: dict[str, str] | None = None,
        error_type: str | None = None,
        error_code: str | None = None,
    ) -> Plan:
        """An HTTP error with an OpenAI-style error body."""
        return Plan(
            "status",
            status=code,
            message=message or f"Fake error {code}",
            headers=dict(headers or {}),
            error_type=error_type,
            error_code=error_code,
        )

    @staticmethod
    def rate_limit(retry_after: float | str | None = 0) -> Plan:
        """HTTP 429; `retry_after` (seconds) becomes the Retry-After header unless None."""
        headers = {} if retry_after is None else {"Retry-After": str(retry_after)}
        return Reply.status(
            429,
            "Rate limit reached for requests. Please try again shortly.",
            headers=headers,
            error_type="requests",
            error_code="rate_limit_exceeded",
        )

    @staticmethod
    def server_error(code: int = 500, message: str = "The server had an error.") -> Plan:
        return Reply.status(code, message, error_type="server_error")

    @staticmethod
    def reject_json_schema(code: int = 400) -> Plan:
        """What servers without structured outputs say to response_format=json_schema."""
        return Reply.status(
            code,
            "Invalid parameter: 'response_format' of type 'json_schema' is not supported "
            "with this model.",
            error_type="invalid_request_error",
            error_code="unsupported_response_format",
        )

    @staticmethod
    def unauthorized() -> Plan:
        return Reply.status(
            401,
            "Incorrect API key provided.",
            error_type="invalid_request_error",
            error_code="invalid_api_key",
        )

    @staticmethod
    def unknown_model(model: str = "unknown") -> Plan:
        return Reply.status(
            404,
            f"The model `{model}` does not exist or you do not have access to it.",
            error_type="invalid_request_error",
            error_code="model_not_found",
        )

    @staticmethod
    def reset() -> Plan:
        """Close the socket without answering (TCP RST)."""
        return Plan("reset")

    @staticmethod
    def hang(seconds: float = 30.0) -> Plan:
        """Say nothing for `seconds` (or until the server stops), then close the socket."""
        return Plan("hang", seconds=seconds)

    @staticmethod
    def delay(seconds: float, then: Plan | None = None) -> Plan:
        """Wait, then answer with `then` (default: a valid answer)."""
        return Plan("delay", seconds=seconds, then=then or Reply.ok())


_SHORTHAND: dict[str, Callable[[], Plan]] = {
    "ok": Reply.ok,
    "429": Reply.rate_limit,
    "rate_limit": Reply.rate_limit,
    "500": Reply.server_error,
    "server_error": Reply.server_error,
    "400_json_schema": Reply.reject_json_schema,
    "reject_json_schema": Reply.reject_json_schema,
    "401": Reply.unauthorized,
    "404": Reply.unknown_model,
    "reset": Reply.reset,
    "hang": Reply.hang,
    "malformed": Reply.malformed,
    "not_json": Reply.not_json,
    "empty": Reply.empty,
    "schema_violation": Reply.schema_violation,
    "control_chars": Reply.control_chars,
    "refusal": Reply.refusal,
    "length": Reply.length,
    "content_filter": Reply.content_filter,
}


def _as_plan(p: Plan | str) -> Plan:
    if isinstance(p, Plan):
        return p
    try:
        return _SHORTHAND[p]()
    except KeyError:
        raise ValueError(f"unknown reply {p!r}; one of {sorted(_SHORTHAND)}") from None


# ---------------------------------------------------------------- schema -> example


def example_from_schema(
    schema: dict[str, Any],
    *,
    root: dict[str, Any] | None = None,
    name: str = "value",
    index: int = 0,
    depth: int = 0,
) -> Any:
    """A plausible instance of a JSON schema: every property filled, numbers near the top of
    their range (0.9 in [0, 1]), arrays of two items, the first enum value, non-null options."""
    root = root if root is not None else schema
    if depth > 8:
        return None
    if "$ref" in schema:
        target: Any = root
        for part in schema["$ref"].lstrip("#/").split("/"):
            target = target.get(part, {}) if part else target
        merged = {**target, **{k: v for k, v in schema.items() if k != "$ref"}}
        return example_from_schema(merged, root=root, name=name, index=index, depth=depth + 1)
    if "const" in schema:
        return schema["const"]
    if schema.get("enum"):
        return schema["enum"][0]
    if "default" in schema and schema["default"] is not None:
        return schema["default"]
    for key in ("anyOf", "oneOf"):
        if key in schema:
            options = schema[key]
            chosen = next((o for o in options if o.get("type") != "null"), options[0])
            return example_from_schema(chosen, root=root, name=name, index=index, depth=depth + 1)
    if "allOf" in schema and schema["allOf"]:
        merged = {}
        for part in schema["allOf"]:
            merged.update(part)
        return example_from_schema(merged, root=root, name=name, index=index, depth=depth + 1)

    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    if kind is None:
        kind = "object" if "properties" in schema else "string"

    if kind == "object":
        props = schema.get("properties", {})
        return {
            k: example_from_schema(v, root=root, name=k, depth=depth + 1) for k, v in props.items()
        }
    if kind == "array":
        lo = schema.get("minItems", 1)
        hi = schema.get("maxItems", 3)
        n = max(lo, min(2, hi))
        items = schema.get("items", {"type": "string"})
        singular = name[:-1] if name.endswith("s") else name
        return [
            example_from_schema(items, root=root, name=singular, index=i, depth=depth + 1)
            for i in range(n)
        ]
    if kind in ("number", "integer"):
        lo = schema.get("minimum", schema.get("exclusiveMinimum"))
        hi = schema.get("maximum", schema.get("exclusiveMaximum"))
        if lo is not None and hi is not None:
            value = lo + 0.9 * (hi - lo)
        elif hi is not None:
            value = min(0.9, hi)
        elif lo is not None:
            value = max(0.9, lo)
        else:
            value = 0.9
        if kind == "integer":
            value = int(round(value)) if (lo is not None or hi is not None) else 3
        return value
    if kind == "boolean":
        return True
    if kind == "null":
        return None
    # string
    fmt = schema.get("format")
    if fmt == "date-time":
        return "2025-01-01T09:00:00Z"
    if fmt == "date":
        return "2025-01-01"
    words = name.replace("_", " ").strip() or "value"
    text = f"Example {words}" + (f" {index + 1}" if index else "")
    if len(text) < schema.get("minLength", 0):
        text = text + " …" * schema["minLength"]
    if "maxLength" in schema:
        text = text[: schema["maxLength"]]
    return text


def _looks_like_schema(obj: Any) -> bool:
    return isinstance(obj, dict) and (
        "properties" in obj or "$defs" in obj or obj.get("type") == "object"
    )


def find_schema(request: dict[str, Any]) -> dict[str, Any] | None:
    """The JSON schema the client asked for, wherever the client put it."""
    fmt = request.get("response_format") or {}
    if isinstance(fmt, dict):
        if fmt.get("type") == "json_schema":
            return (fmt.get("json_schema") or {}).get("schema")
        if _looks_like_schema(fmt.get("schema")):
            return fmt["schema"]
    decoder = json.JSONDecoder()
    for message in request.get("messages") or []:
        content = message.get("content") if isinstance(message, dict) else None
        if not isinstance(content, str):
            continue
        start = content.find("{")
        while start != -1:
            try:
                obj, _ = decoder.raw_decode(content, start)
            except json.JSONDecodeError:
                obj = None
            if _looks_like_schema(obj):
                return obj
            start = content.find("{", start + 1)
    return None


def estimate_tokens(text: str) -> int:
    return math.ceil(len(text) / 4)


# ---------------------------------------------------------------- the server


@dataclass
class RecordedRequest:
    method: str
    path: str
    headers: dict[str, str]
    """Lower-case header names."""
    body: Any
    at: float

    @property
    def model(self) -> str | None:
        return self.body.get("model") if isinstance(self.body, dict) else None

    @property
    def messages(self) -> list[dict[str, Any]]:
        return (self.body or {}).get("messages") or [] if isinstance(self.body, dict) else []

    @property
    def response_format_type(self) -> str | None:
        fmt = self.body.get("response_format") if isinstance(self.body, dict) else None
        return fmt.get("type") if isinstance(fmt, dict) else None


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
        handler = type("Handler", (_Handler,), {"fake": self})
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
            self._queue.extend(_as_plan(p) for p in plans)
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


def _to_content(obj: Any) -> str:
    if hasattr(obj, "model_dump_json"):
        return obj.model_dump_json()
    if isinstance(obj, str):
        return obj
    return json.dumps(obj, ensure_ascii=False)


def _first_string_path(obj: Any) -> list[Any] | None:
    if isinstance(obj, str):
        return []
    items = (
        obj.items() if isinstance(obj, dict) else enumerate(obj) if isinstance(obj, list) else ()
    )
    for k, v in items:
        sub = _first_string_path(v)
        if sub is not None:
            return [k, *sub]
    return None


def _with_control_chars(obj: Any) -> str:
    marker = "@@CONTROL@@"
    path = _first_string_path(obj)
    if path is None:
        return _to_content(obj)
    obj = json.loads(json.dumps(obj))
    target = obj
    for k in path[:-1]:
        target = target[k]
    if path:
        target[path[-1]] = f"{target[path[-1]]}{marker}"
    else:
        obj = f"{obj}{marker}"
    return json.dumps(obj, ensure_ascii=False).replace(marker, "\nsecond line\tafter a tab\x07")


class _Handler(BaseHTTPRequestHandler):
    fake: FakeOpenAI
    protocol_version = "HTTP/1.1"
    server_version = "FakeOpenAI/1.0"
    timeout = 60  # idle keep-alive connections
    _line = ""

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        pass  # our own log (self.fake.log) never prints headers

    def setup(self) -> None:
        super().setup()
        # Headers and body go out in two writes; without NODELAY, Nagle + delayed ACK add 40 ms.
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def finish(self) -> None:
        try:
            super().finish()
        except OSError:
            pass

    # -- plumbing --

    def _read_json(self) -> Any:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        if not raw:
            return None
        try:
            return json.loads(raw)
        except json.JSONDecodeError:
            return {"__invalid__": raw.decode("utf-8", "replace")}

    def _outcome(self, what: str) -> None:
        # Logged before the client sees anything, so a test can read the log right after a call.
        self.fake._log(f"{self._line} -> {what}")

    def _send(
        self, status: int, payload: Any, headers: dict[str, str] | None = None, note: str = ""
    ) -> None:
        self._outcome(f"{status} ({note})" if note else str(status))
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("x-request-id", f"req_fake_{int(time.time() * 1000)}")
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()

    def _error(
        self,
        status: int,
        message: str,
        *,
        error_type: str | None = None,
        code: str | None = None,
        headers: dict[str, str] | None = None,
        note: str = "",
    ) -> None:
        self._send(
            status,
            {
                "error": {
                    "message": message,
                    "type": error_type or "error",
                    "param": None,
                    "code": code,
                }
            },
            headers,
            note,
        )

    def _record(self, body: Any) -> RecordedRequest:
        rec = RecordedRequest(
            self.command,
            self.path,
            {k.lower(): v for k, v in self.headers.items()},
            body,
            time.time(),
        )
        self.fake.requests.append(rec)
        return rec

    def _reset(self, note: str = "reset") -> None:
        self._outcome(note)
        self.close_connection = True
        try:
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.connection.close()
        except OSError:
            pass

    # -- routes --

    def do_GET(self) -> None:  # noqa: N802
        self._record(None)
        path = self.path.split("?")[0].rstrip("/")
        self._line = f"GET {path}"
        if path in ("/v1/models", "/models"):
            names = (
                sorted(self.fake.models) if self.fake.models is not None else list(DEFAULT_MODELS)
            )
            self._send(
                200,
                {
                    "object": "list",
                    "data": [
                        {"id": m, "object": "model", "created": 0, "owned_by": "fake"}
                        for m in names
                    ],
                },
            )
        else:
            self._error(404, f"Unknown path {path}", error_type="invalid_request_error")

    def do_POST(self) -> None:  # noqa: N802
        body = self._read_json()
        self._record(body)
        path = self.path.split("?")[0].rstrip("/")
        self._line = f"POST {path}"
        if path not in ("/v1/chat/completions", "/chat/completions"):
            self._error(404, f"Unknown path {path}", error_type="invalid_request_error")
            return
        request = body if isinstance(body, dict) else {}
        self._line += f" model={request.get('model', '?')}"
        self._answer(request)

    def _answer(self, request: dict[str, Any]) -> None:
        fake = self.fake
        if fake.latency > 0 and fake._stopping.wait(fake.latency):
            return self._reset("closed (server stopping)")
        if "__invalid__" in request or not request:
            return self._error(
                400,
                "We could not parse the JSON body of your request.",
                error_type="invalid_request_error",
                note="bad json",
            )
        if fake.api_key is not None:
            auth = self.headers.get("Authorization", "")
            if auth != f"Bearer {fake.api_key}":
                return self._error(
                    401,
                    "Incorrect API key provided.",
                    error_type="invalid_request_error",
                    code="invalid_api_key",
                )
        model = request.get("model")
        if fake.models is not None and model not in fake.models:
            return self._error(
                404,
                f"The model `{model}` does not exist or you do not have access to it.",
                error_type="invalid_request_error",
                code="model_not_found",
                note="unknown model",
            )
        fmt = request.get("response_format") or {}
        fmt_type = fmt.get("type") if isinstance(fmt, dict) else None
        if fmt_type == "json_schema" and not fake.json_schema_supported:
            p = Reply.reject_json_schema()
            return self._error(
                400,
                p.message or "",
                error_type=p.error_type,
                code=p.error_code,
                note="json_schema unsupported",
            )
        if fmt_type == "json_object" and not fake.json_object_supported:
            return self._error(
                400,
                "Invalid parameter: 'response_format' of type 'json_object' is not supported.",
                error_type="invalid_request_error",
                note="json_object unsupported",
            )
        self._play(fake._next_plan() or Reply.ok(), request)

    def _play(self, plan: Plan, request: dict[str, Any], *, ask_responder: bool = True) -> None:
        fake = self.fake
        if (
            plan.kind in ("ok", "control_chars")
            and plan.obj is None
            and ask_responder
            and fake.responder is not None
        ):
            answer = fake.responder(request)
            if isinstance(answer, Plan) or (isinstance(answer, str) and answer in _SHORTHAND):
                return self._play(_as_plan(answer), request, ask_responder=False)
            if answer is not None:
                plan = Plan(
                    plan.kind, obj=answer, cached_tokens=plan.cached_tokens, usage=plan.usage
                )
        if plan.kind == "delay":
            if fake._stopping.wait(plan.seconds):
                return self._reset("closed (server stopping)")
            self._line += f" (after {plan.seconds:g}s)"
            return self._play(plan.then or Reply.ok(), request, ask_responder=ask_responder)
        if plan.kind == "reset":
            return self._reset()
        if plan.kind == "hang":
            self._outcome(f"hang (no answer for {plan.seconds:g}s)")
            fake._stopping.wait(plan.seconds)
            self.close_connection = True
            try:
                self.connection.close()
            except OSError:
                pass
            return None
        if plan.kind == "status":
            return self._error(
                plan.status,
                plan.message or "",
                error_type=plan.error_type,
                code=plan.error_code,
                headers=plan.headers,
            )
        if plan.kind == "refusal":
            msg = {"content": None, "refusal": plan.text}
            return self._send(200, fake.completion(request, msg, "stop", plan), note="refusal")
        if plan.kind == "content":
            msg = {"content": plan.text}
            return self._send(
                200,
                fake.completion(request, msg, plan.finish_reason, plan),
                note=f"scripted content, finish_reason={plan.finish_reason}",
            )
        obj = fake._object_for(request, plan)
        if plan.kind == "control_chars":
            content = _with_control_chars(obj if obj is not None else {"text": "x"})
        elif obj is None:
            content = "This is a reply from the fake OpenAI server."
        else:
            content = _to_content(obj)
        note = "control chars" if plan.kind == "control_chars" else ""
        return self._send(
            200, fake.completion(request, {"content": content}, "stop", plan), note=note
        )


# ---------------------------------------------------------------- pytest and CLI


@contextmanager
def running(**kwargs: Any) -> Iterator[FakeOpenAI]:
    """`with running(latency=0.3) as server:` — a started server, stopped on exit."""
    server = FakeOpenAI(**kwargs).start()
    try:
        yield server
    finally:
        server.stop()


if pytest is not None:

    @pytest.fixture
    def fake_openai_server() -> Iterator[FakeOpenAI]:
        """A started FakeOpenAI; import this name into a test module to use it."""
        with running() as server:
            yield server


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

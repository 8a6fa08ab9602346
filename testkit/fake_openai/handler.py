"""The HTTP side of the fake OpenAI server: one request handler per connection, which reads the
request, records it, and plays the planned answer (or the responder's, or a schema example)."""

from __future__ import annotations

import json
import socket
import struct
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from typing import TYPE_CHECKING, Any

from testkit.fake_openai.replies import SHORTHAND, Plan, Reply, as_plan

if TYPE_CHECKING:
    from testkit.fake_openai.server import FakeOpenAI

DEFAULT_MODELS = ("gpt-4.1-mini", "gpt-4.1", "gpt-4.1-nano", "gpt-4o-mini", "fake-model")


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


class Handler(BaseHTTPRequestHandler):
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
            if isinstance(answer, Plan) or (isinstance(answer, str) and answer in SHORTHAND):
                return self._play(as_plan(answer), request, ask_responder=False)
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

"""The fake OpenAI server streaming its answers (SSE) at a set rate, as a real server does, and
recording when it sent each piece: the streaming bench measures from that send time to the
text in Chromium's DOM. A request with stream=true gets `chunk` characters every `gap`
seconds, the usage in the last chunk when asked (stream_options.include_usage); answers to
requests without it come whole. `hold`, when set, makes streamed answers wait for it first (so
a browser can be ready before the first piece is sent)."""

from __future__ import annotations

import json
import threading
import time
from http.server import ThreadingHTTPServer
from typing import Any

from testkit.fake_openai.handler import Handler
from testkit.fake_openai.server import FakeOpenAI


class StreamingFakeOpenAI(FakeOpenAI):
    def __init__(self, *, chunk: int = 12, gap: float = 0.02,
                 hold: threading.Event | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.chunk, self.gap, self.hold = chunk, gap, hold
        self.sent: list[tuple[float, str]] = []
        """(wall-clock time a piece was flushed, the answer's text up to and with it)."""
        self.streams_done = 0

    def start(self) -> FakeOpenAI:
        handler = type("StreamingHandler", (_Streaming,), {"fake": self})
        self._httpd = ThreadingHTTPServer((self.host, self._port), handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever,
                                        kwargs={"poll_interval": 0.05}, daemon=True,
                                        name="fake-openai-streaming")
        self._thread.start()
        return self


class _Streaming(Handler):
    fake: StreamingFakeOpenAI

    def _answer(self, request: dict[str, Any]) -> None:
        self._streamed = bool(request.get("stream"))
        self._usage = bool((request.get("stream_options") or {}).get("include_usage"))
        super()._answer(request)

    def _send(self, status: int, payload: Any, headers: dict[str, str] | None = None,
              note: str = "") -> None:
        if not (getattr(self, "_streamed", False) and status == 200
                and isinstance(payload, dict) and "choices" in payload):
            return super()._send(status, payload, headers, note)
        fake = self.fake
        if fake.hold is not None:
            fake.hold.wait()
        self._outcome("200 (streamed)")
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        content = payload["choices"][0]["message"].get("content") or ""
        base = {k: payload[k] for k in ("id", "object", "created", "model")}
        base["object"] = "chat.completion.chunk"
        for i in range(0, len(content), fake.chunk):
            self._event({**base, "choices": [{"index": 0, "delta": {
                "content": content[i:i + fake.chunk]}, "finish_reason": None}]})
            fake.sent.append((time.time(), content[:i + fake.chunk]))
            time.sleep(fake.gap)
        self._event({**base, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
        if self._usage and "usage" in payload:
            self._event({**base, "choices": [], "usage": payload["usage"]})
        self.wfile.write(b"data: [DONE]\n\n")
        self.wfile.flush()
        fake.streams_done += 1

    def _event(self, obj: dict[str, Any]) -> None:
        self.wfile.write(f"data: {json.dumps(obj)}\n\n".encode())
        self.wfile.flush()

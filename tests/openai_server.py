"""A real local HTTP server speaking the OpenAI chat-completions protocol, with scripted replies.

It plays the replies in order (streamed as SSE or as one JSON body), and records every request so tests
assert on what was sent as well as on what came back. Used by the LLM answer tests and the eval judge tests.
"""
from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Reply:
    text: str | Callable[[dict[str, Any]], str] = ""  # a callable sees the request body
    status: int = 200
    delay: float = 0.0  # seconds before answering (timeouts)


@dataclass
class FakeOpenAI:
    url: str = ""
    replies: list[Reply] = field(default_factory=list)
    requests: list[dict[str, Any]] = field(default_factory=list)

    def script(self, *replies: Reply | str) -> None:
        self.replies = [r if isinstance(r, Reply) else Reply(r) for r in replies]

    @property
    def prompts(self) -> list[str]:
        """The user message of each request."""
        return [next(m["content"] for m in r["messages"] if m["role"] == "user") for r in self.requests]


def _handler(fake: FakeOpenAI) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            if self.path != "/v1/chat/completions":
                return self._json(404, {"error": {"message": f"no route {self.path}"}})
            fake.requests.append(body)
            reply = fake.replies.pop(0) if fake.replies else Reply("no scripted reply", status=500)
            time.sleep(reply.delay)
            text = reply.text(body) if callable(reply.text) else reply.text
            if reply.status != 200:
                # retry-after-ms is what OpenAI sends; small here so the client's backoff stays fast
                return self._json(reply.status, {"error": {"message": text or "overloaded", "type": "server"}},
                                  {"retry-after-ms": "20"})
            if body.get("stream"):
                return self._sse(body["model"], text)
            self._json(200, {"id": "c1", "object": "chat.completion", "created": 0, "model": body["model"],
                             "choices": [{"index": 0, "finish_reason": "stop",
                                          "message": {"role": "assistant", "content": text}}],
                             "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}})

        def _json(self, status: int, payload: dict[str, Any], headers: dict[str, str] | None = None) -> None:
            data = json.dumps(payload).encode()
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):  # the client gave up (timeout test)
                pass

        def _sse(self, model: str, text: str) -> None:
            try:
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.end_headers()
                for piece in re.findall(r"\S+\s*|\s+", text):  # word by word, as a model streams
                    self._event({"content": piece}, None, model)
                self._event({}, "stop", model)
                self.wfile.write(b"data: [DONE]\n\n")
            except (BrokenPipeError, ConnectionResetError):
                pass

        def _event(self, delta: dict[str, str], finish: str | None, model: str) -> None:
            chunk = {"id": "c1", "object": "chat.completion.chunk", "created": 0, "model": model,
                     "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
            self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
            self.wfile.flush()

    return Handler


@contextmanager
def serve() -> Iterator[FakeOpenAI]:
    """A FakeOpenAI listening on a free local port (its `url` ends in /v1), stopped on exit."""
    fake = FakeOpenAI()
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(fake))
    httpd.daemon_threads = True
    httpd.block_on_close = False
    fake.url = f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    thread = threading.Thread(target=httpd.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield fake
    finally:
        httpd.shutdown()
        httpd.server_close()

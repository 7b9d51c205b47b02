"""uvicorn's HTTP/1.1 protocol with a deadline for request headers, and the options `kotae serve` runs it with.

uvicorn times out only idle keep-alive connections: a client that connects and sends its headers slowly, or
never, holds a connection (and counts against the connection limit) forever. `TimedH11Protocol` closes a
connection on which no request has started HEADER_TIMEOUT seconds after it opened or after the last
response; a request in progress is left alone (its body is the Guard's: 408 after 20 s of silence).
"""
from __future__ import annotations

import asyncio
from typing import Any

from uvicorn.protocols.http.h11_impl import H11Protocol

HEADER_TIMEOUT = 20.0  # seconds for a request's line and headers to arrive


class TimedH11Protocol(H11Protocol):
    _header_timer: asyncio.TimerHandle | None = None
    _armed_cycle: Any = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None
        super().connection_lost(exc)

    def _arm(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
        self._armed_cycle = getattr(self, "cycle", None)
        self._header_timer = self.loop.call_later(HEADER_TIMEOUT, self._expire)

    def _expire(self) -> None:
        self._header_timer = None
        cycle = getattr(self, "cycle", None)
        idle = cycle is None or getattr(cycle, "response_complete", False)
        if cycle is self._armed_cycle and idle and not self.transport.is_closing():
            self.transport.close()  # no request began in time


def uvicorn_options() -> dict[str, Any]:
    """The uvicorn settings every kotae server runs with (`kotae serve` and `serve_in_thread`)."""
    return {"http": TimedH11Protocol, "timeout_keep_alive": 5, "h11_max_incomplete_event_size": 64 * 1024}

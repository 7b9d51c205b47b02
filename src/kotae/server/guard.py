"""The gate every request passes before any body is read: the API key, the upload count, the body limits.

The key comes in the X-API-Key header, or as `Authorization: Bearer KEY` (what OpenAI and MCP clients send).

The checks run in front of the routes so an unauthorised or oversized upload is refused before it is
spooled to disk; the body limit is enforced on the bytes as they arrive (a missing or false
Content-Length does not get past it). A body that stalls (no byte for BODY_IDLE seconds) or takes over
BODY_TOTAL seconds is answered 408 and its connection closed, and at most `max_uploads` uploads are
received at once (503 with Retry-After beyond), so stalled clients cannot hold the server's memory or
every connection.
"""
from __future__ import annotations

import asyncio
import secrets
import time

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from kotae.server.errors import ApiError, Watching, error_response

API_KEY_HEADER = "X-API-Key"
COLLECTION_KEY_HEADER = "X-Collection-Key"  # a collection's own key, on top of the server's
# The page shell, its static files and the API description hold no data, and a browser cannot send a
# header when it navigates; every data route needs the key.
PUBLIC = ("/health", "/", "/docs", "/docs/oauth2-redirect", "/redoc", "/openapi.json", "/favicon.ico")
PUBLIC_PREFIXES = ("/static/",)
DRAIN = 16 * 1024 * 1024  # bytes of a refused body read and dropped so the client sees the 413
BODY_IDLE = 20.0  # seconds without a byte of the body before the request is given up
BODY_TOTAL = 600.0  # seconds for a whole body (50 MB at 85 KB/s)


def bearer(authorization: str) -> str:
    """The token of an `Authorization: Bearer TOKEN` header (how OpenAI and MCP clients send a key), else ""."""
    scheme, _, token = authorization.partition(" ")
    return token.strip() if scheme.lower() == "bearer" else ""


def presented_keys(headers: dict[str, str], *extra: str) -> tuple[str, ...]:
    """The keys a request carries (lower-cased `headers`): X-API-Key, the Bearer token, the `extra` headers."""
    found = [headers.get(API_KEY_HEADER.lower(), ""), bearer(headers.get("authorization", "")),
             *(headers.get(h.lower(), "") for h in extra)]
    return tuple(k for k in found if k)


def is_upload(path: str, method: str) -> bool:
    """POST /documents, or POST /collections/{name}/documents."""
    return method == "POST" and (path == "/documents" or (
        path.startswith("/collections/") and path.endswith("/documents") and path.count("/") == 3))


def is_public(path: str) -> bool:
    return path in PUBLIC or path.startswith(PUBLIC_PREFIXES)


class Guard:
    """ASGI middleware: 401 without the configured API key; 413 when a body passes its limit."""

    def __init__(self, app: ASGIApp, *, api_key: str | None, upload_limit: int, body_limit: int,
                 upload_shown: int | None = None, max_uploads: int = 4, body_idle: float = BODY_IDLE,
                 body_total: float = BODY_TOTAL) -> None:
        self.app = app
        self.api_key = api_key
        self.upload_limit = upload_limit  # bytes of a POST /documents body (the file plus form overhead)
        self.upload_shown = upload_shown or upload_limit  # the configured file limit, as the message names it
        self.body_limit = body_limit  # bytes of any other body
        self.max_uploads = max_uploads
        self.uploads = 0  # being received now (one event loop: no lock needed)
        self.body_idle, self.body_total = body_idle, body_total

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path: str = scope["path"]
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        if self.api_key and not is_public(path):
            given = presented_keys(headers)  # either header may carry it (the other: a collection's key)
            if not any(secrets.compare_digest(k.encode(), self.api_key.encode()) for k in given):
                why = "wrong API key" if given else "missing API key"
                await error_response(401, "unauthorized", f"{why}; send it in the {API_KEY_HEADER} header "
                                     "or as Authorization: Bearer KEY",
                                     {"WWW-Authenticate": API_KEY_HEADER})(scope, receive, send)
                return
        upload = is_upload(path, scope["method"])
        limit = self.upload_limit if upload else self.body_limit
        what = "upload" if upload else "request body"
        message = f"{what} is over the {_size(self.upload_shown if upload else limit)} limit"
        if upload:
            message += "; split the file or ask the operator to raise --max-upload-mb"
        length = headers.get("content-length", "")
        if length.isdigit() and int(length) > limit:
            if int(length) <= DRAIN:
                await _drain(receive)
            await error_response(413, "too_large", message, {"Connection": "close"})(scope, receive, send)
            return

        if upload and self.uploads >= self.max_uploads:
            await error_response(503, "busy", f"{self.uploads} uploads are being received; try again in a "
                                 "few seconds", {"Retry-After": "5", "Connection": "close"})(scope, receive, send)
            return
        received = 0
        deadline = time.monotonic() + self.body_total

        async def counting() -> Message:
            nonlocal received
            wait = min(self.body_idle, deadline - time.monotonic())
            try:
                msg = await asyncio.wait_for(receive(), max(0.0, wait))
            except TimeoutError:
                stalled = wait >= self.body_idle
                raise ApiError(408, "timeout", f"the {what} " + (
                    f"sent nothing for {self.body_idle:g} s" if stalled else
                    f"took over {self.body_total:g} s") + "; send it again on a faster connection",
                               {"Connection": "close"}) from None
            if msg["type"] == "http.request":
                received += len(msg.get("body", b""))
                if received > limit:
                    if msg.get("more_body", False):
                        await _drain(receive)
                    raise ApiError(413, "too_large", message, {"Connection": "close"})
            return msg

        watching = Watching(send)
        self.uploads += upload
        try:
            await self.app(scope, counting, watching)
        except ApiError as e:  # raised while the body streamed in, outside any route's handler
            if watching.started:
                raise
            await error_response(e.status_code, e.code, str(e.detail), dict(e.headers or {}))(scope, receive, send)
        finally:
            self.uploads -= upload


async def _drain(receive: Receive) -> None:
    """Read and drop up to DRAIN more body bytes: a client still sending when the 413 comes back and the
    connection closes would otherwise see a reset instead of the answer."""
    dropped = 0
    while dropped <= DRAIN:
        msg = await receive()
        if msg["type"] != "http.request":
            return
        dropped += len(msg.get("body", b""))
        if not msg.get("more_body", False):
            return


def _size(n: int) -> str:
    return f"{n / (1024 * 1024):.4g} MB" if n >= 1024 * 1024 else f"{n / 1024:.4g} KB"

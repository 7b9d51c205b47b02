"""The gate every request passes before any body is read: the API key, then the body size limit.

The key comes in the X-API-Key header, or as `Authorization: Bearer KEY` (what OpenAI and MCP clients send).

Both checks run in front of the routes so an unauthorised or oversized upload is refused before it is
spooled to disk; the body limit is enforced on the bytes as they arrive (a missing or false
Content-Length does not get past it).
"""
from __future__ import annotations

import secrets

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from kotae.server.errors import ApiError, Watching, error_response

API_KEY_HEADER = "X-API-Key"
# The page shell, its static files and the API description hold no data, and a browser cannot send a
# header when it navigates; every data route needs the key.
PUBLIC = ("/health", "/", "/docs", "/docs/oauth2-redirect", "/redoc", "/openapi.json", "/favicon.ico")
PUBLIC_PREFIXES = ("/static/",)
DRAIN = 16 * 1024 * 1024  # bytes of a refused body read and dropped so the client sees the 413


def bearer(authorization: str) -> str:
    """The token of an `Authorization: Bearer TOKEN` header (how OpenAI and MCP clients send a key), else ""."""
    scheme, _, token = authorization.partition(" ")
    return token.strip() if scheme.lower() == "bearer" else ""


def is_public(path: str) -> bool:
    return path in PUBLIC or path.startswith(PUBLIC_PREFIXES)


class Guard:
    """ASGI middleware: 401 without the configured API key; 413 when a body passes its limit."""

    def __init__(self, app: ASGIApp, *, api_key: str | None, upload_limit: int, body_limit: int) -> None:
        self.app = app
        self.api_key = api_key
        self.upload_limit = upload_limit  # bytes of a POST /documents body (the file plus form overhead)
        self.body_limit = body_limit  # bytes of any other body

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path: str = scope["path"]
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        if self.api_key and not is_public(path):
            given = headers.get(API_KEY_HEADER.lower(), "") or bearer(headers.get("authorization", ""))
            if not secrets.compare_digest(given.encode(), self.api_key.encode()):
                why = "wrong API key" if given else "missing API key"
                await error_response(401, "unauthorized", f"{why}; send it in the {API_KEY_HEADER} header "
                                     "or as Authorization: Bearer KEY",
                                     {"WWW-Authenticate": API_KEY_HEADER})(scope, receive, send)
                return
        upload = path == "/documents" and scope["method"] == "POST"
        limit = self.upload_limit if upload else self.body_limit
        what = "upload" if upload else "request body"
        message = f"{what} is over the {_size(limit)} limit"
        if upload:
            message += "; split the file or ask the operator to raise --max-upload-mb"
        length = headers.get("content-length", "")
        if length.isdigit() and int(length) > limit:
            if int(length) <= DRAIN:
                await _drain(receive)
            await error_response(413, "too_large", message, {"Connection": "close"})(scope, receive, send)
            return

        received = 0

        async def counting() -> Message:
            nonlocal received
            msg = await receive()
            if msg["type"] == "http.request":
                received += len(msg.get("body", b""))
                if received > limit:
                    if msg.get("more_body", False):
                        await _drain(receive)
                    raise ApiError(413, "too_large", message)
            return msg

        watching = Watching(send)
        try:
            await self.app(scope, counting, watching)
        except ApiError as e:  # raised while the body streamed in, outside any route's handler
            if watching.started:
                raise
            await error_response(e.status_code, e.code, str(e.detail))(scope, receive, send)


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

"""One JSON error shape for every failure: `{"error": {"code": "...", "message": "..."}}`.

FastAPI's own errors (unknown route, validation) and kotae's exceptions are translated here, so a
client handles one shape whatever failed.
"""
from __future__ import annotations

import logging

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel
from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from kotae.errors import (
    ConfigError,
    Conflict,
    DocumentError,
    KotaeError,
    NotFound,
    Unauthorized,
    UnsupportedType,
)

log = logging.getLogger("kotae.server")

# The code each status gets when the raiser named none (FastAPI's and Starlette's own errors).
CODES = {400: "bad_request", 401: "unauthorized", 403: "forbidden", 404: "not_found",
         405: "method_not_allowed", 408: "timeout", 409: "conflict", 413: "too_large", 415: "unsupported_type", 422: "invalid_request",
         500: "internal_error"}


class ErrorBody(BaseModel):
    code: str
    message: str


class ErrorOut(BaseModel):
    """The body of every error response."""

    error: ErrorBody


class ApiError(HTTPException):
    """An error with a machine-readable code and a one-line message that says how to fix it."""

    def __init__(self, status: int, code: str, message: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(status_code=status, detail=message, headers=headers)
        self.code = code


def error_response(status: int, code: str, message: str,
                   headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse({"error": {"code": code, "message": message}}, status_code=status, headers=headers)


def status_of(e: KotaeError) -> tuple[int, str]:
    """The HTTP status and code for a library exception."""
    if isinstance(e, UnsupportedType):
        return 415, "unsupported_type"
    if isinstance(e, DocumentError):
        return 422, "unreadable_document"
    if isinstance(e, ConfigError):
        return 400, "bad_request"
    if isinstance(e, NotFound):
        return 404, e.code
    if isinstance(e, Conflict):
        return 409, "conflict"
    if isinstance(e, Unauthorized):
        return 401, "unauthorized"
    return 500, "internal_error"


class Watching:
    """An ASGI `send` that remembers whether the response has started (after that, no error body can be sent)."""

    def __init__(self, send: Send) -> None:
        self.send = send
        self.started = False

    async def __call__(self, msg: Message) -> None:
        self.started = self.started or msg["type"] == "http.response.start"
        await self.send(msg)


class CatchAll:
    """ASGI middleware, the last resort: an unexpected exception becomes a logged 500 in the error shape.
    (Starlette's own handler re-raises after answering, and the server then drops the keep-alive
    connection under the client's next request.)"""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        watching = Watching(send)
        try:
            await self.app(scope, receive, watching)
        except Exception as e:
            if watching.started:
                raise
            log.exception("%s %s failed", scope["method"], scope["path"], exc_info=e)
            await _internal(e)(scope, receive, send)


def _internal(e: Exception) -> JSONResponse:
    return error_response(500, "internal_error", f"internal error ({type(e).__name__}); see the server log")


def install(app: FastAPI) -> None:
    """Register the handlers that turn every exception into the one error shape."""
    app.add_middleware(CatchAll)

    async def http_error(request: Request, e: Exception) -> JSONResponse:
        assert isinstance(e, HTTPException)
        code = getattr(e, "code", None) or CODES.get(e.status_code, f"http_{e.status_code}")
        message = str(e.detail)
        if e.status_code == 404 and code == "not_found":
            message = f"no route {request.method} {request.url.path}; see /docs"
        elif e.status_code == 405 and code == "method_not_allowed":
            message = f"{request.method} is not allowed on {request.url.path}; see /docs"
        return error_response(e.status_code, code, message, getattr(e, "headers", None))

    async def validation_error(request: Request, e: Exception) -> JSONResponse:
        assert isinstance(e, RequestValidationError)
        parts = []
        for err in e.errors():
            where = ".".join(str(x) for x in err.get("loc", ()) if x != "body") or "body"
            parts.append(f"{where}: {err.get('msg', 'invalid')}")
        return error_response(422, "invalid_request", "; ".join(parts) or "invalid request")

    async def kotae_error(request: Request, e: Exception) -> JSONResponse:
        assert isinstance(e, KotaeError)
        status, code = status_of(e)
        return error_response(status, code, str(e))

    async def unexpected(request: Request, e: Exception) -> JSONResponse:
        log.exception("%s %s failed", request.method, request.url.path, exc_info=e)
        return _internal(e)

    app.add_exception_handler(HTTPException, http_error)
    app.add_exception_handler(RequestValidationError, validation_error)
    app.add_exception_handler(KotaeError, kotae_error)
    app.add_exception_handler(Exception, unexpected)

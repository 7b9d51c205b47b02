"""The HTTP API and the web UI in one FastAPI app. Dependencies come in; nothing is built from config here."""
from __future__ import annotations

import hashlib
import logging
import os
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from importlib.resources import files
from typing import Annotated

from fastapi import FastAPI, Security
from fastapi.concurrency import run_in_threadpool
from fastapi.middleware.cors import CORSMiddleware
from fastapi.responses import HTMLResponse
from fastapi.security import APIKeyHeader
from fastapi.staticfiles import StaticFiles
from starlette.routing import Mount
from starlette.types import ASGIApp

from kotae import __version__
from kotae.collections import Collections
from kotae.facade import Kotae, supported_types
from kotae.server import (
    apidocs,
    collections,
    conversations,
    documents,
    errors,
    feedback,
    mcp_server,
    openai_api,
    query,
)
from kotae.server.context import DEFAULT_COLLECTION, AnswerStream, Context
from kotae.server.guard import API_KEY_HEADER, BODY_IDLE, Guard
from kotae.server.schemas import HealthOut
from kotae.server.worker import IndexWorker

log = logging.getLogger("kotae.server")
WEB = files("kotae.server") / "web"
QUERY_BODY_LIMIT = 1024 * 1024  # bytes of any request but an upload
FORM_OVERHEAD = 1024 * 1024  # multipart boundaries and headers around the uploaded file
# The routes of one collection, each `router(ctx)` over its Context: served at /… for the collection served by
# default and at /collections/{name}/… for every collection.
INDEX_ROUTERS = (documents.router, query.router, conversations.router, feedback.router)


def create_app(kotae: Kotae, *, upload_dir: str, api_key: str | None = None, cors_origins: Sequence[str] = (),
               max_upload_mb: float = 50, answer_stream: AnswerStream | None = None, max_uploads: int = 4,
               body_idle: float = BODY_IDLE, collections_of: Collections | None = None,
               name: str = DEFAULT_COLLECTION) -> FastAPI:
    """The app serving the API (documented at /docs) and the UI at /, over one `Kotae` (the collection `name`,
    which the unprefixed routes serve) and the collections beside it (`collections_of`, default: those
    beside `kotae`'s index), each at /collections/{name}/….

    Answers come from `kotae.ask_stream` (with the LLM of its settings, if any), or from `answer_stream`,
    anything with its signature and events. Uploads are saved in `upload_dir` and indexed by one background
    thread through `kotae.index`, so they are chunked like the rest of the index, each read in a child
    process under `index.limits` (a crashing or runaway parser fails that upload alone). At most
    `max_uploads` bodies are received at once; one that sends nothing for `body_idle` seconds gets a 408.
    """
    max_upload = int(max_upload_mb * 1024 * 1024)
    os.makedirs(upload_dir, exist_ok=True)
    ctx = Context(kotae=kotae, worker=IndexWorker(kotae), answer_stream=answer_stream or kotae.ask_stream,
                  upload_dir=os.path.abspath(upload_dir), max_upload_bytes=max_upload, name=name)
    served = collections.Served(ctx, collections_of or Collections(kotae.settings, home=kotae), start=_start)

    mcp = mcp_server.build(ctx.door)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        await run_in_threadpool(kotae.warm_up_isolation)  # uploads are read in a child process
        _resume(ctx)
        ctx.worker.start()
        try:
            async with mcp.session_manager.run():
                yield
        finally:
            ctx.worker.stop()
            await run_in_threadpool(served.close)

    app = FastAPI(title="kotae", version=__version__,
                  description="Answers only from your documents, with page-accurate citations. "
                              "Errors: `{\"error\": {\"code\", \"message\"}}`.",
                  lifespan=lifespan, docs_url=None, redoc_url=None)  # /docs: apidocs, offline
    app.state.kotae = ctx
    errors.install(app)
    for make in INDEX_ROUTERS:
        app.include_router(make(ctx), dependencies=[Security(documented_key)])
    app.include_router(openai_api.router(ctx), dependencies=[Security(documented_key)])
    app.include_router(collections.router(served), dependencies=[Security(documented_key)])
    app.router.routes.append(Mount("/collections/{name}", app=collections.Dispatch(served, _index_app)))
    app.router.routes.extend(mcp_server.http_routes(mcp))  # MCP over streamable HTTP at /mcp

    @app.get("/health", response_model=HealthOut, tags=["meta"])
    def health() -> HealthOut:
        """Liveness and a summary; never needs the API key."""
        state = kotae.calibration()
        return HealthOut(documents=len(kotae.documents()), indexing=ctx.worker.busy(),
                         index_version=kotae.index_version(),
                         calibration={**state.to_dict(), "summary": state.describe()})

    page = _page(api_key is not None, max_upload_mb)

    @app.get("/", response_class=HTMLResponse, include_in_schema=False)
    def ui() -> HTMLResponse:
        return HTMLResponse(page)

    apidocs.install(app)
    app.mount("/static", StaticFiles(directory=str(WEB / "static")), name="static")
    app.add_middleware(mcp_server.Origins, allowed=tuple(cors_origins))
    # Last added runs first: CORS answers preflights and decorates even the Guard's 401 and 413.
    app.add_middleware(Guard, api_key=api_key, upload_limit=max_upload + FORM_OVERHEAD,
                       upload_shown=max_upload, body_limit=QUERY_BODY_LIMIT, max_uploads=max_uploads,
                       body_idle=body_idle)
    if cors_origins:
        app.add_middleware(CORSMiddleware, allow_origins=list(cors_origins), allow_methods=["*"],
                           allow_headers=["*"], expose_headers=["X-Kotae-Highlights"])
    return app


_KEY_SCHEME = APIKeyHeader(name=API_KEY_HEADER, auto_error=False,
                           description="required on every route but /health when the server has a key")


def documented_key(_: Annotated[str | None, Security(_KEY_SCHEME)]) -> None:
    """Only describes the key in the OpenAPI schema: `Guard` checks it, before any body is read."""


def _page(needs_key: bool, max_upload_mb: float) -> str:
    html = (WEB / "index.html").read_text(encoding="utf-8")
    return (html.replace("{{needs_key}}", "true" if needs_key else "false")
                .replace("{{max_upload_mb}}", f"{max_upload_mb:g}")
                .replace("{{accept}}", ",".join(supported_types())))  # the reader registry decides the picker


def _index_app(ctx: Context) -> ASGIApp:
    """The per-index routes of one collection, as an app of their own (mounted at /collections/{name})."""
    sub = FastAPI(docs_url=None, redoc_url=None, openapi_url=None)
    errors.install(sub)
    for make in INDEX_ROUTERS:
        sub.include_router(make(ctx))
    return sub


def _start(ctx: Context) -> None:
    """Ready a collection opened while serving: queue the uploads it had not indexed, start its indexer."""
    _resume(ctx)
    ctx.worker.start()


def _resume(ctx: Context) -> None:
    """Queue uploads a previous run saved but did not index; drop half-written ones."""
    if not os.path.isdir(ctx.upload_dir):
        return
    for entry in sorted(os.scandir(ctx.upload_dir), key=lambda e: e.name):
        if not entry.is_file():
            continue
        if entry.name.startswith(".upload-"):
            os.remove(entry.path)
        elif not entry.name.startswith(".") and ctx.kotae.document(os.path.abspath(entry.path)) is None:
            with open(entry.path, "rb") as f:
                digest = hashlib.file_digest(f, "sha256").hexdigest()
            log.info("indexing %s, saved but not indexed by an earlier run", entry.name)
            ctx.worker.submit(entry.path, entry.name, digest)

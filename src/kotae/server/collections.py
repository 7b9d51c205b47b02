"""Many collections on one server: `GET/POST/DELETE /collections`, and every per-index route again under
`/collections/{name}/…`.

Each collection gets a `Context` of its own (its `Kotae`, upload folder and indexing thread), opened at its
first request; the per-index routers (`INDEX_ROUTERS` in app.py) are built over it in an app of its own,
which `Dispatch` forwards `/collections/{name}/…` to. A collection with its own API key answers only a
request that presents it (X-Collection-Key, or X-API-Key / Bearer), on top of the server's key.
"""
from __future__ import annotations

import os
import shutil
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Annotated, Any

from fastapi import APIRouter, Body, Request
from fastapi.concurrency import run_in_threadpool
from pydantic import BaseModel, Field
from starlette.types import ASGIApp, Receive, Scope, Send

from kotae.collections import DEFAULT, Collections, admits, read_own
from kotae.errors import ConfigError, KotaeError, NotFound, Unauthorized
from kotae.facade import Kotae
from kotae.server.context import AnswerStream, Context
from kotae.server.errors import ErrorOut, error_response, status_of
from kotae.server.guard import COLLECTION_KEY_HEADER, presented_keys
from kotae.server.worker import IndexWorker


class CollectionIn(BaseModel):
    name: str = Field(description="1–40 lowercase letters, digits, - or _")
    api_key: str | None = Field(None, description="a key of its own, asked for on top of the server's")
    settings: dict[str, Any] = Field({}, description="its own index.* and search.* settings, e.g. "
                                                     '{"search.top_k": 3}')


class CollectionOut(BaseModel):
    name: str
    documents: int
    default: bool  # the collection the unprefixed routes serve
    protected: bool  # it has an API key of its own
    settings: dict[str, Any] = {}
    calibration: dict[str, Any] = {}  # the gate's state, with a one-line "summary"


class Served:
    """The collections one server answers from: the one it serves by default (`home`) and the others,
    each opened at first use. `start` readies a new collection's context (resumes its uploads, starts its
    indexing thread)."""

    def __init__(self, home: Context, collections: Collections, start: Callable[[Context], None]) -> None:
        self.home = home
        self.collections = collections
        self.start = start
        self._contexts: dict[str, Context] = {home.name: home}
        self._lock = threading.RLock()
        home.served = self

    def names(self) -> list[str]:
        return self.collections.names()

    def context(self, name: str | None) -> Context:
        """The context of collection `name` (None or "": the default), opened now if it was not yet."""
        name = name or self.home.name
        with self._lock:
            ctx = self._contexts.get(name)
            if ctx is None:
                ctx = self._open(name, self.collections.open(name))
            return ctx

    def door(self, collection: str | None, keys: Sequence[str] | None) -> tuple[Kotae, AnswerStream]:
        ctx = self.context(collection)
        if keys is not None:
            self.check_key(ctx, keys)
        return ctx.kotae, ctx.answer_stream

    def check_key(self, ctx: Context, keys: Sequence[str]) -> None:
        if ctx is not self.home and not admits(read_own(ctx.kotae), keys):
            raise Unauthorized(f'the collection "{ctx.name}" has an API key of its own; send it in the '
                               f"{COLLECTION_KEY_HEADER} header (or as X-API-Key / Bearer)")

    def create(self, name: str, api_key: str | None, settings: Mapping[str, Any]) -> Context:
        with self._lock:
            return self._open(name, self.collections.create(name, api_key=api_key, settings=settings))

    def delete(self, name: str) -> None:
        """Delete collection `name`: its index (documents, chunks, vectors, calibration and all else its
        store holds) and its uploads."""
        with self._lock:
            if name == self.home.name:
                raise ConfigError(f'"{name}" is the collection this server serves by default; serve another '
                                  "one (kotae serve --collection NAME) to delete it")
            if name == DEFAULT:
                self.collections.delete(name)  # refused, with the reason
            ctx = self._contexts.pop(name, None)
            if ctx is None and not self.collections.exists(name):
                raise NotFound(f'no collection "{name}"; see GET /collections', code="collection_not_found")
            if ctx is None:
                ctx = self._open(name, self.collections.open(name), start=False)
            ctx.worker.stop()
            upload_dir = ctx.upload_dir
            self.collections.delete(name, opened=ctx.kotae)
            shutil.rmtree(upload_dir, ignore_errors=True)

    def close(self) -> None:
        """Stop and close every collection opened here (not the home one: its opener closes it)."""
        with self._lock:
            others = [c for c in self._contexts.values() if c is not self.home]
            self._contexts = {self.home.name: self.home}
        for ctx in others:
            ctx.worker.stop()
            ctx.kotae.close()

    def _open(self, name: str, k: Kotae, start: bool = True) -> Context:
        location = self.collections.location(name)
        if "://" in location:  # a PostgreSQL collection: its uploads in a folder of its own beside the home's
            upload_dir = os.path.join(self.home.upload_dir, "collections", name)
        else:
            upload_dir = os.path.join(os.path.abspath(location), "uploads")
        os.makedirs(upload_dir, exist_ok=True)
        ctx = Context(kotae=k, worker=IndexWorker(k), answer_stream=k.ask_stream, upload_dir=upload_dir,
                      max_upload_bytes=self.home.max_upload_bytes, name=name, served=self)
        if start:
            self.start(ctx)
            self._contexts[name] = ctx
        return ctx

    def describe(self, ctx: Context) -> CollectionOut:
        k = ctx.kotae
        state = k.calibration()
        return CollectionOut(name=ctx.name, documents=len(k.documents()), default=ctx is self.home,
                             protected=read_own(k).protected, settings=dict(read_own(k).settings),
                             calibration={**state.to_dict(), "summary": state.describe()})


def router(served: Served) -> APIRouter:
    r = APIRouter(tags=["collections"], responses={401: {"model": ErrorOut}})
    errors: dict[int | str, dict[str, Any]] = {c: {"model": ErrorOut} for c in (400, 404, 409)}

    @r.get("/collections", response_model=list[CollectionOut])
    def list_collections() -> list[CollectionOut]:
        """Every collection: the default one first. Each also answers at `/collections/{name}/…` every
        per-index route (`/documents…`, `/query`, `/query/stream`, …) as the unprefixed routes do for the
        default one."""
        return [served.describe(served.context(name)) for name in served.names()]

    @r.post("/collections", status_code=201, response_model=CollectionOut, responses=errors)
    def create_collection(body: Annotated[CollectionIn, Body()]) -> CollectionOut:
        """A new, empty collection (an index of its own), optionally with its own API key and settings."""
        return served.describe(served.create(body.name, body.api_key, body.settings))

    @r.get("/collections/{name}", response_model=CollectionOut, responses=errors)
    def get_collection(name: str, request: Request) -> CollectionOut:
        """One collection."""
        return served.describe(_keyed(served, name, request))

    @r.delete("/collections/{name}", responses=errors)
    def delete_collection(name: str, request: Request) -> dict[str, str]:
        """Delete a collection with everything in it: documents, chunks, vectors, calibration, uploads
        (one with its own key: only with that key)."""
        _keyed(served, name, request)
        served.delete(name)
        return {"deleted": name}

    return r


def _keyed(served: Served, name: str, request: Request) -> Context:
    """The context of collection `name`, when the request holds its key (if it has one)."""
    ctx = served.context(name)
    served.check_key(ctx, presented_keys({k.lower(): v for k, v in request.headers.items()}, COLLECTION_KEY_HEADER))
    return ctx


class Dispatch:
    """The ASGI app at `/collections/{name}`: the request goes to the app of that collection's routes
    (built by `build` over its context, once), after its own key is checked."""

    def __init__(self, served: Served, build: Callable[[Context], ASGIApp]) -> None:
        self.served, self.build = served, build
        self._apps: dict[str, tuple[Context, ASGIApp]] = {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        name = scope["path_params"]["name"]
        try:
            ctx = await run_in_threadpool(self.served.context, name)
            if scope["type"] == "http":
                headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
                keys = presented_keys(headers, COLLECTION_KEY_HEADER)
                await run_in_threadpool(self.served.check_key, ctx, keys)
        except KotaeError as e:
            status, code = status_of(e)
            await error_response(status, code, str(e))(scope, receive, send)
            return
        built = self._apps.get(name)
        if built is None or built[0] is not ctx:  # a collection deleted and created again is new
            built = self._apps[name] = (ctx, self.build(ctx))
        await built[1](scope, receive, send)

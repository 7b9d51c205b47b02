"""What the routes share: the `Kotae` of one collection and what `create_app` built around it.

Every per-index router is `router(ctx: Context)`: it serves the collection of its `ctx`. The server builds
one `Context` per collection (server/collections.py), so the same routers answer at `/…` (the collection the
server serves by default) and at `/collections/{name}/…`.
"""
from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Protocol

from kotae.errors import NotFound
from kotae.facade import Filter, Kotae
from kotae.server.worker import IndexWorker

# `Kotae.ask_stream`, or anything with its signature and event contract:
# ("retrieval", SearchResult) once, ("token", str) pieces, ("answer", Answer) once.
AnswerStream = Callable[..., Iterator[tuple[str, object]]]
# The name of the default collection (the index itself): the OpenAI model id and the MCP `collection`.
DEFAULT_COLLECTION = "kotae"
# collection name (None: the default) and the API keys the caller presented (None: a local caller, not
# checked) → its index and its answer stream; NotFound for a collection not served, Unauthorized without its key
Door = Callable[[str | None, Sequence[str] | None], tuple[Kotae, AnswerStream]]


class Served(Protocol):
    """The collections of a server that serves several (server/collections.py)."""

    def names(self) -> list[str]: ...

    def door(self, collection: str | None, keys: Sequence[str] | None) -> tuple[Kotae, AnswerStream]: ...


@dataclass
class Context:
    kotae: Kotae
    worker: IndexWorker
    answer_stream: AnswerStream
    upload_dir: str
    max_upload_bytes: int
    name: str = DEFAULT_COLLECTION  # the collection this context serves
    served: Served | None = None  # every collection of the server, when it serves several

    def stream(self, question: str, mode: str, top_k: int,
               flt: Filter | None) -> Iterator[tuple[str, object]]:
        return self.answer_stream(question, mode=mode, top_k=top_k, filters=flt)

    def collections(self) -> list[str]:
        """The collections this server answers from (the doors that name one: /v1 models, MCP tools)."""
        return self.served.names() if self.served is not None else [self.name]

    def door(self, collection: str | None, keys: Sequence[str] | None = ()) -> tuple[Kotae, AnswerStream]:
        """The index of `collection` (None or "": the default) and its answer stream, for a caller who
        presented `keys`."""
        if self.served is not None:
            return self.served.door(collection, keys)
        return one_collection(self.kotae, self.answer_stream, self.name)(collection, keys)


def one_collection(kotae: Kotae, answer_stream: AnswerStream, name: str = DEFAULT_COLLECTION) -> Door:
    """The door of one index: its name, or none, opens it; another name is refused."""

    def door(collection: str | None, keys: Sequence[str] | None = None) -> tuple[Kotae, AnswerStream]:
        if not collection or collection == name:
            return kotae, answer_stream
        raise NotFound(f'no collection "{collection}": this server serves one, "{name}"; '
                       f"name it or leave the collection out", code="collection_not_found")

    return door

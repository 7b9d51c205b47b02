"""What the routes share: the `Kotae` the app was made with, and what `create_app` built around it."""
from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

from kotae.errors import NotFound
from kotae.facade import Filter, Kotae
from kotae.server.worker import IndexWorker

# `Kotae.ask_stream`, or anything with its signature and event contract:
# ("retrieval", SearchResult) once, ("token", str) pieces, ("answer", Answer) once.
AnswerStream = Callable[..., Iterator[tuple[str, object]]]
# The name of the one collection a server serves today: the OpenAI model id and the MCP `collection`.
DEFAULT_COLLECTION = "kotae"


@dataclass
class Context:
    kotae: Kotae
    worker: IndexWorker
    answer_stream: AnswerStream
    upload_dir: str
    max_upload_bytes: int

    def stream(self, question: str, mode: str, top_k: int,
               flt: Filter | None) -> Iterator[tuple[str, object]]:
        return self.answer_stream(question, mode=mode, top_k=top_k, filters=flt)

    def collections(self) -> list[str]:
        """The collections this server answers from (the doors that name one: /v1 models, MCP tools)."""
        return [DEFAULT_COLLECTION]

    def door(self, collection: str | None) -> tuple[Kotae, AnswerStream]:
        """The index of `collection` (None or "": the default) and its answer stream."""
        return one_collection(self.kotae, self.answer_stream)(collection)


def one_collection(kotae: Kotae, answer_stream: AnswerStream) -> Callable[[str | None], tuple[Kotae, AnswerStream]]:
    """The door of a server that serves one index: its name, or none, opens it; another name is refused."""

    def door(collection: str | None) -> tuple[Kotae, AnswerStream]:
        if not collection or collection == DEFAULT_COLLECTION:
            return kotae, answer_stream
        raise NotFound(f'no collection "{collection}": this server serves one, "{DEFAULT_COLLECTION}"; '
                       f"name it or leave the collection out", code="collection_not_found")

    return door

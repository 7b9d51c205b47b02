"""What the routes share: the dependencies `create_app` was given, and what it built from them."""
from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

from kotae.embed.base import Embedder
from kotae.search.searcher import Searcher
from kotae.server.render import PageImages
from kotae.server.worker import IndexWorker
from kotae.store.base import Filter, Store

# `kotae.answer.ask_stream`, or anything with its signature and event contract:
# ("retrieval", SearchResult) once, ("token", str) pieces, ("answer", Answer) once.
AnswerStream = Callable[..., Iterator[tuple[str, object]]]


@dataclass
class Context:
    store: Store
    embedder: Embedder
    searcher: Searcher
    worker: IndexWorker
    pages: PageImages
    answer_stream: AnswerStream
    upload_dir: str
    max_upload_bytes: int

    def stream(self, question: str, mode: str, top_k: int,
               flt: Filter | None) -> Iterator[tuple[str, object]]:
        return self.answer_stream(question, self.searcher, mode=mode, top_k=top_k, flt=flt)

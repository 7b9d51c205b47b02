"""What the routes share: the `Kotae` the app was made with, and what `create_app` built around it."""
from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

from kotae.facade import Filter, Kotae
from kotae.server.worker import IndexWorker

# `Kotae.ask_stream`, or anything with its signature and event contract:
# ("retrieval", SearchResult) once, ("token", str) pieces, ("answer", Answer) once.
AnswerStream = Callable[..., Iterator[tuple[str, object]]]


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

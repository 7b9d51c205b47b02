"""Routes for questions: one JSON answer, or the same answer as server-sent events while it is made."""
from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from dataclasses import asdict
from typing import Any

from fastapi import APIRouter
from fastapi.responses import StreamingResponse

from kotae.errors import KotaeError
from kotae.facade import SearchResult, readable
from kotae.server.context import Context
from kotae.server.errors import ErrorOut, status_of
from kotae.server.schemas import AnswerOut, QueryIn
from kotae.types import Answer, Hit

log = logging.getLogger("kotae.server")
_ERRORS: dict[int | str, dict[str, Any]] = {code: {"model": ErrorOut} for code in (400, 401, 413, 422)}
_STREAM_DOC = """Events, in this order:

- `retrieval` once: `{"query", "hits": [{rank, chunk_id, doc_id, file, page, heading, text, ocr, similarity,
  bm25, fused, rerank, dense_rank, keyword_rank}], "gate": {found, similarity, margin, coverage, reason},
  "timings_ms", "notices"}` (`ocr`: the text was read by OCR and may hold misread characters)
- `token` for each piece of answer text: `{"text": "..."}`
- `answer` once: the same JSON as `POST /query` (with the numbered sources)
- `error` instead, if answering fails after the stream began: `{"error": {"code", "message"}}`
"""


def router(ctx: Context) -> APIRouter:
    r = APIRouter(tags=["query"], responses=_ERRORS)

    @r.post("/query", response_model=AnswerOut)
    def query(q: QueryIn) -> dict[str, Any]:
        """Answer a question from the indexed documents only, with numbered citations."""
        flt = q.filters.to_filter() if q.filters else None
        for kind, payload in ctx.stream(q.question, q.mode, q.top_k, flt):
            if kind == "answer":
                assert isinstance(payload, Answer)
                return payload.to_dict()
        raise RuntimeError("the answer stream ended without an answer")

    @r.post("/query/stream", response_class=StreamingResponse, description=_STREAM_DOC,
            responses={200: {"content": {"text/event-stream": {}}}})
    def query_stream(q: QueryIn) -> StreamingResponse:
        """The answer as server-sent events: retrieval results first, then answer tokens, then the answer."""
        events = ctx.stream(q.question, q.mode, q.top_k, q.filters.to_filter() if q.filters else None)
        first = next(events)  # the search runs here, so a bad request still gets its HTTP error status
        return StreamingResponse(sse_events(first, events), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})

    return r


def sse_events(first: tuple[str, object], rest: Iterator[tuple[str, object]]) -> Iterator[str]:
    """An answer stream's events as SSE frames; a failure after the first becomes an `error` event."""
    try:
        yield event(*first)
        for kind, payload in rest:
            yield event(kind, payload)
    except KotaeError as e:
        yield sse("error", {"error": {"code": status_of(e)[1], "message": str(e)}})
    except Exception as e:
        log.exception("answer stream failed")
        yield sse("error", {"error": {"code": "internal_error",
                                      "message": f"internal error ({type(e).__name__}); see the server log"}})


def event(kind: str, payload: object) -> str:
    """One answer-stream event as an SSE frame."""
    if kind == "retrieval" and isinstance(payload, SearchResult):
        return sse(kind, retrieval(payload))
    if kind == "answer" and isinstance(payload, Answer):
        return sse(kind, payload.to_dict())
    if kind == "token":
        return sse(kind, {"text": str(payload)})
    return sse(kind, payload if isinstance(payload, dict | list | str | int | float) else str(payload))


def sse(name: str, data: object) -> str:
    return f"event: {name}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n"


def retrieval(result: SearchResult) -> dict[str, Any]:
    """Every retrieved chunk with each stage's score, and the gate's decision."""
    gate = {k: (round(v, 4) if isinstance(v, float) else v) for k, v in asdict(result.gate).items()}
    return {"query": result.query, "hits": [_hit(i, h) for i, h in enumerate(result.hits, 1)], "gate": gate,
            "timings_ms": {k: round(v, 2) for k, v in result.timings_ms.items()},
            "notices": list(result.notices)}


def _hit(rank: int, h: Hit) -> dict[str, Any]:
    c = h.chunk
    return {"rank": rank, "chunk_id": c.id, "doc_id": c.doc_id, "file": c.file, "page": c.page,
            "heading": " › ".join(c.heading) or None, "text": readable(c.text, c.heading), "ocr": c.ocr,
            **{k: None if v is None else round(float(v), 4)
               for k, v in (("similarity", h.similarity), ("bm25", h.bm25), ("fused", h.fused),
                            ("rerank", h.rerank))},
            "dense_rank": h.dense_rank, "keyword_rank": h.keyword_rank}

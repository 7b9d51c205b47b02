"""The OpenAI-compatible door at /v1: chat clients (Open WebUI, LibreChat, the `openai` SDK) talk to kotae.

`GET /v1/models` lists one model per collection (the default one is `kotae`). `POST /v1/chat/completions` answers
the last user message from the documents, the earlier turns serving as the conversation (a follow-up is
searched as conversations search it: rewritten by the LLM, else with the previous turn's topic words). The
reply's text is the answer with its [n] markers and a "Sources" list; the structured citations ride along in a `citations`
field (on the response, or on the last chunk of a stream), and the refusal decision in a `kotae` field.
A refusal is a normal reply: its text is 「わからない」/"I don't know" and `kotae.found_in_docs` is false.
"""
from __future__ import annotations

import json
import logging
import re
import time
import uuid
from collections.abc import Iterator
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import StreamingResponse
from pydantic import BaseModel, ConfigDict, Field

from kotae.errors import KotaeError
from kotae.facade import SearchResult
from kotae.server.context import Context
from kotae.server.errors import ApiError, ErrorOut, status_of
from kotae.server.guard import COLLECTION_KEY_HEADER, presented_keys
from kotae.server.replies import citations, decision, sources_text
from kotae.types import Answer

log = logging.getLogger("kotae.server")
_SOURCES = re.compile(r"\n\n(?:Sources|出典):\n")
MAX_QUESTION = 2000  # characters, as POST /query allows
_ERRORS: dict[int | str, dict[str, Any]] = {code: {"model": ErrorOut} for code in (400, 401, 404, 413, 422)}


class ChatMessage(BaseModel):
    model_config = ConfigDict(extra="allow")
    role: str
    content: str | list[dict[str, Any]] | None = None

    def text(self) -> str:
        """The message's text (a list of content parts keeps its text parts)."""
        if isinstance(self.content, list):
            return " ".join(str(p.get("text", "")) for p in self.content if p.get("type") == "text")
        return self.content or ""


class ChatIn(BaseModel):
    """OpenAI's chat completion request; options kotae has no use for (temperature, max_tokens…) are ignored."""

    model_config = ConfigDict(extra="allow")
    model: str = Field("kotae", description="a collection, as GET /v1/models lists them")
    messages: list[ChatMessage] = Field(..., min_length=1)
    stream: bool = False


def router(ctx: Context) -> APIRouter:
    r = APIRouter(prefix="/v1", tags=["openai"], responses=_ERRORS)
    created = int(time.time())

    @r.get("/models")
    def models() -> dict[str, Any]:
        """One model per collection: pick it as the model in an OpenAI-compatible client."""
        return {"object": "list", "data": [{"id": name, "object": "model", "created": created, "owned_by": "kotae"}
                                           for name in ctx.collections()]}

    @r.post("/chat/completions", response_model=None)
    def chat(body: ChatIn, request: Request) -> dict[str, Any] | StreamingResponse:
        """Answer the conversation's last user message from the documents, with citations."""
        turns = [m.text() for m in body.messages if m.role == "user" and m.text().strip()]
        if not turns:
            raise ApiError(400, "bad_request", "messages hold no user message with text; "
                                               'send at least {"role": "user", "content": "QUESTION"}')
        if len(turns[-1]) > MAX_QUESTION:
            raise ApiError(400, "bad_request", f"the last user message is {len(turns[-1])} characters, over the "
                                               f"{MAX_QUESTION} a question may have; ask a shorter question")
        headers = {k.lower(): v for k, v in request.headers.items()}
        kotae, answer_stream = ctx.door(body.model, presented_keys(headers, COLLECTION_KEY_HEADER))
        pairs = _pairs(body.messages)
        query, _ = kotae.follow_up(pairs[:-1], pairs[-1][0])  # as conversations do: LLM rewrite, else carried topic
        events = answer_stream(query)
        first = next(events)  # the search runs here, so a bad request still gets its HTTP error status
        reply_id = f"chatcmpl-{uuid.uuid4().hex[:24]}"
        if body.stream:
            return StreamingResponse(_chunks(reply_id, body.model, turns[-1], first, events),
                                     media_type="text/event-stream",
                                     headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})
        result = first[1] if isinstance(first[1], SearchResult) else None
        for kind, payload in events:
            if kind == "answer":
                assert isinstance(payload, Answer)
                return completion(reply_id, body.model, turns[-1], payload, result)
        raise RuntimeError("the answer stream ended without an answer")

    return r


def _pairs(messages: list[ChatMessage]) -> list[tuple[str, str]]:
    """The user turns with text, each with the assistant reply that followed it ("" when none)."""
    pairs: list[list[str]] = []
    for m in messages:
        if m.role == "user" and m.text().strip():
            pairs.append([m.text(), ""])
        elif m.role == "assistant" and pairs:
            pairs[-1][1] = _SOURCES.split(m.text(), 1)[0]  # the answer, without the sources list kotae put under it
    return [(q, a) for q, a in pairs]


def completion(reply_id: str, model: str, question: str, answer: Answer,
               result: SearchResult | None) -> dict[str, Any]:
    """The whole reply as an OpenAI `chat.completion`, with kotae's `citations` and `kotae` fields."""
    text = answer.answer + sources_text(answer.sources, question)
    return {"id": reply_id, "object": "chat.completion", "created": int(time.time()), "model": model,
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
            "citations": citations(answer.sources), "kotae": decision(answer, result)}


def _chunks(reply_id: str, model: str, question: str, first: tuple[str, object],
            rest: Iterator[tuple[str, object]]) -> Iterator[str]:
    """OpenAI's stream: `data: {chat.completion.chunk}` frames, the last carrying the citations, then [DONE]."""
    created = int(time.time())

    def chunk(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> str:
        body = {"id": reply_id, "object": "chat.completion.chunk", "created": created, "model": model,
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}], **extra}
        return f"data: {json.dumps(body, ensure_ascii=False)}\n\n"

    result = first[1] if isinstance(first[1], SearchResult) else None
    try:
        yield chunk({"role": "assistant", "content": ""})
        for kind, payload in rest:
            if kind == "token":
                yield chunk({"content": str(payload)})
            elif kind == "answer" and isinstance(payload, Answer):
                if payload.sources:
                    yield chunk({"content": sources_text(payload.sources, question)})
                yield chunk({}, "stop", citations=citations(payload.sources), kotae=decision(payload, result))
    except KotaeError as e:
        yield f"data: {json.dumps({'error': {'code': status_of(e)[1], 'message': str(e)}}, ensure_ascii=False)}\n\n"
    except Exception as e:
        log.exception("chat completion stream failed")
        message = f"internal error ({type(e).__name__}); see the server log"
        yield f"data: {json.dumps({'error': {'code': 'internal_error', 'message': message}})}\n\n"
    yield "data: [DONE]\n\n"

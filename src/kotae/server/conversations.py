"""Routes for conversations: threads of questions kept in the index, each turn answered like POST /query.

A follow-up ("and for part-timers?") is searched as a question that stands alone: rewritten by the server's
LLM from the conversation, or, without one, with the previous turns' topic words carried along; the answer
says what was searched in `standalone`.
"""
from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from fastapi import APIRouter
from fastapi.responses import StreamingResponse
from pydantic import BaseModel, ConfigDict, Field

from kotae.facade import Conversation, Kotae, Message
from kotae.server.context import AnswerStream, Context
from kotae.server.errors import ErrorOut
from kotae.server.query import sse_events
from kotae.server.schemas import QueryIn
from kotae.types import Answer

_ERRORS: dict[int | str, dict[str, Any]] = {code: {"model": ErrorOut} for code in (400, 401, 404, 413, 422)}
_STREAM_DOC = """The events of `POST /query/stream` (`retrieval`, `token`…, `answer` or `error`); the `answer`
event's data also carries `message_id`, `conversation_id` and `standalone`."""


class ConversationIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    title: str = Field("", max_length=200, description="empty: the first question titles it")


class RenameIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    title: str = Field(..., min_length=1, max_length=200)


class ConversationOut(BaseModel):
    id: str
    title: str
    created: str
    updated: str
    turns: int


class MessageOut(BaseModel):
    id: str
    question: str = Field(description="as asked")
    standalone: str = Field(description="as retrieval searched it, after follow-up handling")
    answer: dict[str, Any] = Field(description="the JSON POST /query returned")
    created: str


class ConversationDetailOut(ConversationOut):
    messages: list[MessageOut]


class DeletedConversationOut(BaseModel):
    deleted: str


def router(ctx: Context) -> APIRouter:
    r = APIRouter(prefix="/conversations", tags=["conversations"], responses=_ERRORS)

    def door() -> tuple[Kotae, AnswerStream]:  # the collection this context serves (/… or /collections/{name}/…)
        return ctx.kotae, ctx.answer_stream

    @r.get("", response_model=list[ConversationOut])
    def conversations() -> list[dict[str, Any]]:
        """Every conversation, the most recently active first."""
        return [c.to_dict() for c in door()[0].conversations()]

    @r.post("", status_code=201, response_model=ConversationOut)
    def new(body: ConversationIn | None = None) -> dict[str, Any]:
        """Start a conversation (untitled, its first question titles it)."""
        return door()[0].new_conversation(body.title if body else "").to_dict()

    @r.get("/{conversation_id}", response_model=ConversationDetailOut)
    def one(conversation_id: str) -> dict[str, Any]:
        """A conversation with its turns, earliest first."""
        conv, messages = door()[0].conversation(conversation_id)
        return detail(conv, messages)

    @r.patch("/{conversation_id}", response_model=ConversationOut)
    def rename(conversation_id: str, body: RenameIn) -> dict[str, Any]:
        return door()[0].rename_conversation(conversation_id, body.title).to_dict()

    @r.delete("/{conversation_id}", response_model=DeletedConversationOut)
    def delete(conversation_id: str) -> dict[str, str]:
        """Delete a conversation and its turns."""
        door()[0].delete_conversation(conversation_id)
        return {"deleted": conversation_id}

    @r.post("/{conversation_id}/messages")
    def ask(conversation_id: str, q: QueryIn) -> dict[str, Any]:
        """Ask the next question of the conversation: the POST /query answer, with `message_id`,
        `conversation_id` and `standalone` (the question as searched)."""
        for kind, payload in turn(conversation_id, q):
            if kind == "answer":
                assert isinstance(payload, dict)
                return payload
        raise RuntimeError("the answer stream ended without an answer")

    @r.post("/{conversation_id}/messages/stream", response_class=StreamingResponse, description=_STREAM_DOC,
            responses={200: {"content": {"text/event-stream": {}}}})
    def ask_stream(conversation_id: str, q: QueryIn) -> StreamingResponse:
        """The next question's answer as server-sent events, like POST /query/stream."""
        events = turn(conversation_id, q)
        first = next(events)  # the conversation is looked up and the search runs here: errors keep their status
        return StreamingResponse(sse_events(first, events), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})

    def turn(conversation_id: str, q: QueryIn) -> Iterator[tuple[str, object]]:
        kotae, answer_stream = door()
        flt = q.filters.to_filter() if q.filters else None
        events = kotae.ask_in_stream(conversation_id, q.question, mode=q.mode, top_k=q.top_k, filters=flt,
                                     stream=answer_stream)
        return with_message(events)

    return r


def with_message(events: Iterator[tuple[str, object]]) -> Iterator[tuple[str, object]]:
    """The turn's events with its stored message folded into the answer: ("answer", dict)."""
    message = None
    for kind, payload in events:
        if kind == "message" and isinstance(payload, Message):
            message = payload
        elif kind == "answer" and isinstance(payload, Answer) and message is not None:
            yield "answer", reply(message)
        else:
            yield kind, payload


def reply(message: Message) -> dict[str, Any]:
    return {**message.answer, "message_id": message.id, "conversation_id": message.conversation_id,
            "standalone": message.standalone}


def detail(conv: Conversation, messages: list[Message]) -> dict[str, Any]:
    return {**conv.to_dict(), "messages": [m.to_dict() for m in messages]}

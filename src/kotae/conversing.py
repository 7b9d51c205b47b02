"""Conversations and feedback on `Kotae` (mixed into it): threads of questions kept in the index's store, each
follow-up searched as a question that stands alone, and 👍/👎 that `kotae eval export-feedback` turns into a
golden set. The CLI, the HTTP routes and /v1 share these methods.

A follow-up is made to stand alone by the LLM of the settings, when there is one (from the conversation's
last turns), else by carrying the previous turns' topic words (`kotae.answer.followup`); bench/followup.py
measures both.
"""
from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any, Protocol

from kotae.answer.followup import clean_rewrite, retrieval_question, rewrite_messages
from kotae.answer.llm import LLM, LLMError
from kotae.errors import ConfigError, NotFound
from kotae.store.base import Filter, Store
from kotae.store.conversations import RATINGS, Conversation, Feedback, History, Message
from kotae.types import Answer, Chunk

_UNSET: Any = object()
Turn = tuple[str, str]  # (question, answer text)
REWRITE_TOKENS = 120  # the most a rewritten question may take
CARRIED = "the previous turns' topic words were added to the search instead"
REWRITE_FAILED = f"the LLM's rewrite of the follow-up was no question; {CARRIED}"


class _Door(Protocol):
    """What these methods need of `Kotae`."""

    store: Store

    @property
    def llm(self) -> LLM | None: ...

    @property
    def ask_stream(self) -> Callable[..., Iterator[tuple[str, object]]]: ...

    @property
    def passage(self) -> Callable[[str], Chunk | None]: ...

    @property
    def index_version(self) -> Callable[[], str]: ...


class Conversations:
    """The conversation and feedback methods of `Kotae`."""

    def history(self: _Door) -> History:
        """The store's conversations and feedback, for what these methods do not cover."""
        return self.store.history()

    # --- threads ------------------------------------------------------------------------------
    def conversations(self: _Door) -> list[Conversation]:
        """Every conversation of this index, the most recently active first."""
        return self.store.history().conversations()

    def new_conversation(self: _Door, title: str = "") -> Conversation:
        """A new, empty conversation (untitled: its first question titles it)."""
        return self.store.history().create(title)

    def conversation(self: _Door, conversation_id: str) -> tuple[Conversation, list[Message]]:
        """A conversation and its turns, earliest first."""
        conv = self.store.history().get(conversation_id)
        if conv is None:
            raise _missing(conversation_id)
        return conv, self.store.history().messages(conversation_id)

    def rename_conversation(self: _Door, conversation_id: str, title: str) -> Conversation:
        if not title.strip():
            raise ConfigError("a conversation's title cannot be empty; give it a few words")
        conv = self.store.history().rename(conversation_id, title)
        if conv is None:
            raise _missing(conversation_id)
        return conv

    def delete_conversation(self: _Door, conversation_id: str) -> None:
        """Delete a conversation and its turns (feedback on its answers stays)."""
        if not self.store.history().delete(conversation_id):
            raise _missing(conversation_id)

    # --- follow-ups ---------------------------------------------------------------------------
    def follow_up(self: _Door, history: Sequence[Turn], question: str, *, llm: LLM | None = _UNSET) -> tuple[str, tuple[str, ...]]:
        """`question` as retrieval should search it after the (question, answer) turns of `history`, and
        notices: rewritten by `llm` (default: the settings' LLM) into a question that stands alone, or, without
        one (or when it fails), with the previous turns' topic words carried into an elliptical question."""
        if not history:
            return question, ()
        model = self.llm if llm is _UNSET else llm
        carried = retrieval_question([q for q, _ in history] + [question])
        if model is None:
            return carried, ()
        try:
            reply = model.complete(rewrite_messages(history, question), temperature=0.0, max_tokens=REWRITE_TOKENS)
        except LLMError as e:
            notice = f"the follow-up was not rewritten by the LLM ({e}); {CARRIED}"
            return carried, (notice,)
        rewritten = clean_rewrite(reply, question)
        if rewritten is None:
            return carried, (REWRITE_FAILED,)
        return rewritten, ()

    def ask_in(self: _Door, conversation_id: str, question: str, *, mode: str | None = None, top_k: int | None = None,
               filters: Filter | None = None, llm: LLM | None = _UNSET) -> tuple[Answer, Message]:
        """Ask `question` as the next turn of a conversation; the turn is stored with its answer."""
        message = None
        for kind, payload in Conversations.ask_in_stream(self, conversation_id, question, mode=mode, top_k=top_k, filters=filters,
                                                llm=llm):
            if kind == "message":
                assert isinstance(payload, Message)
                message = payload
            elif kind == "answer":
                assert isinstance(payload, Answer) and message is not None
                return payload, message
        raise AssertionError("ask_in_stream ended without an answer")

    def ask_in_stream(self: _Door, conversation_id: str, question: str, *, mode: str | None = None,
                      top_k: int | None = None, filters: Filter | None = None, llm: LLM | None = _UNSET,
                      stream: Callable[..., Iterator[tuple[str, object]]] | None = None,
                      ) -> Iterator[tuple[str, object]]:
        """`ask_stream`'s events for the next turn of a conversation, the stored turn ("message", Message) just
        before ("answer", Answer). `stream` answers (default `self.ask_stream`; the server passes its own)."""
        conv, messages = Conversations.conversation(self, conversation_id)  # a missing conversation fails before any search
        turns = [(m.question, str(m.answer.get("answer", ""))) for m in messages]
        standalone, notices = Conversations.follow_up(self, turns, question, llm=llm)
        answer_stream = stream or self.ask_stream
        options: dict[str, Any] = {"mode": mode, "top_k": top_k, "filters": filters}
        if llm is not _UNSET:
            options["llm"] = llm
        for kind, payload in answer_stream(standalone, **options):
            if kind == "answer" and isinstance(payload, Answer):
                if notices:
                    payload = _with_notices(payload, notices)
                yield "message", self.store.history().add_message(conv.id, question, standalone, payload.to_dict())
            yield kind, payload

    # --- feedback -----------------------------------------------------------------------------
    def add_feedback(self: _Door, question: str, rating: str, *, message_id: str | None = None,
                     cited: Sequence[str] = (), right_chunk: str | None = None,
                     corrected: str | None = None) -> Feedback:
        """Store 👍/👎 ("up"/"down") on an answer, with the passage that holds the right answer (`right_chunk`, a
        chunk id) and a corrected answer, and the index version; on a stored turn (`message_id`), the question
        as retrieval searched it and the chunks it cited come from the turn."""
        if rating not in RATINGS:
            raise ConfigError(f'rating must be "up" or "down", not {rating!r}')
        standalone, found, cited = question, True, tuple(cited)
        if message_id:
            msg = self.store.history().message(message_id)
            if msg is None:
                raise NotFound(f"no message {message_id} in this index; use the message_id an answer in a "
                               "conversation gave, or leave it out", code="message_not_found")
            standalone, found = msg.standalone, bool(msg.answer.get("found_in_docs", True))
            cited = cited or tuple(str(s.get("chunk_id")) for s in msg.answer.get("sources", ()))
        evidence = _evidence(self, right_chunk, cited if rating == "up" and found else ())
        return self.store.history().add_feedback(Feedback(
            question=question, rating=rating, standalone=standalone, message_id=message_id or None, cited=cited,
            right_chunk=right_chunk or None, corrected=(corrected or "").strip() or None, evidence=evidence,
            found_in_docs=found, index_version=self.index_version()))

    def feedback(self: _Door) -> list[Feedback]:
        """Every feedback stored in this index, oldest first."""
        return self.store.history().feedback()


def _evidence(door: _Door, right_chunk: str | None, cited: Sequence[str]) -> dict[str, Any]:
    """Where the answer lies: the picked passage's file and page, else the cited passages' (first file)."""
    if right_chunk:
        chunk = door.passage(right_chunk)
        if chunk is None:
            raise NotFound(f"no passage {right_chunk} in this index; pick a chunk_id from the sources or the "
                           "retrieved passages", code="chunk_not_found")
        return {"file": chunk.file, "pages": [chunk.page], "chunk_id": chunk.id}
    chunks = [c for c in (door.passage(cid) for cid in cited) if c is not None]
    if not chunks:
        return {}
    pages = sorted({c.page for c in chunks if c.file == chunks[0].file})
    return {"file": chunks[0].file, "pages": pages}


def _missing(conversation_id: str) -> NotFound:
    return NotFound(f"no conversation {conversation_id} in this index; see GET /conversations or kotae conversations",
                    code="conversation_not_found")


def _with_notices(answer: Answer, notices: Sequence[str]) -> Answer:
    from dataclasses import replace

    return replace(answer, notices=(*answer.notices, *notices))

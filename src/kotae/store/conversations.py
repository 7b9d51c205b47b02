"""Conversations and answer feedback, kept in the index's own store (SQLite or PostgreSQL).

One implementation for both backends: the SQL is plain (TEXT and INTEGER columns, `?` placeholders turned
into `%s` for psycopg), each store lends it a way to read and a way to write in one transaction. Answers are
stored as the JSON `/query` returns, so a conversation reads back exactly as it was shown.
"""
from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from typing import Any, Protocol

# Applied by SQLite when a store first lends its history, and as PostgreSQL's schema migration 2.
SCHEMA = """
CREATE TABLE IF NOT EXISTS conversations(
  id TEXT PRIMARY KEY, title TEXT NOT NULL, created TEXT NOT NULL, updated TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS conversation_messages(
  id TEXT PRIMARY KEY, conversation_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
  seq INTEGER NOT NULL, question TEXT NOT NULL, standalone TEXT NOT NULL, answer TEXT NOT NULL,
  created TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS conversation_messages_seq ON conversation_messages(conversation_id, seq);
CREATE TABLE IF NOT EXISTS feedback(
  id TEXT PRIMARY KEY, created TEXT NOT NULL, question TEXT NOT NULL, standalone TEXT NOT NULL,
  rating TEXT NOT NULL, message_id TEXT, cited TEXT NOT NULL, right_chunk TEXT, corrected TEXT,
  evidence TEXT NOT NULL, found_in_docs INTEGER NOT NULL, index_version TEXT NOT NULL);
"""
TITLE_CHARS = 40  # an untitled conversation is titled by its first question, cut to this length
RATINGS = ("up", "down")


class Cursor(Protocol):
    def fetchall(self) -> list[tuple[Any, ...]]: ...


class Sql(Protocol):
    """A connection (sqlite3's or psycopg's): `execute(sql, args)` returns a cursor."""

    def execute(self, sql: str, args: Sequence[Any] = ...) -> Cursor: ...


Lend = Callable[[], AbstractContextManager[Sql]]


@dataclass(frozen=True)
class Conversation:
    id: str
    title: str
    created: str
    updated: str
    turns: int = 0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Message:
    """One turn: the question as asked, as retrieval used it (`standalone`), and the answer as `/query` gives it."""

    id: str
    conversation_id: str
    question: str
    standalone: str
    answer: dict[str, Any]
    created: str

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "question": self.question, "standalone": self.standalone, "answer": self.answer,
                "created": self.created}


@dataclass(frozen=True)
class Feedback:
    """👍/👎 on an answer, with the passage the user says holds the answer and a corrected answer, if given.
    `evidence` is where that passage (or, for a 👍, the cited ones) lay: {"file", "pages"}."""

    question: str
    rating: str
    standalone: str = ""
    message_id: str | None = None
    cited: tuple[str, ...] = ()
    right_chunk: str | None = None
    corrected: str | None = None
    evidence: dict[str, Any] = field(default_factory=dict)
    found_in_docs: bool = True
    index_version: str = ""
    id: str = ""
    created: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "cited": list(self.cited)}


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds")


def title_of(question: str) -> str:
    """A conversation's title from its first question: one line, at most TITLE_CHARS characters."""
    line = " ".join(question.split())
    return line if len(line) <= TITLE_CHARS else line[: TITLE_CHARS - 1].rstrip() + "…"


class History:
    """The conversations and feedback of one index. `read` and `write` lend a connection (write: inside one
    transaction); `marker` is the driver's placeholder."""

    def __init__(self, read: Lend, write: Lend, marker: str = "?") -> None:
        self._read, self._write, self._marker = read, write, marker

    @contextmanager
    def _tx(self, write: bool) -> Iterator[Callable[..., list[tuple[Any, ...]]]]:
        with (self._write if write else self._read)() as conn:
            def run(sql: str, *args: Any) -> list[tuple[Any, ...]]:
                cur = conn.execute(sql.replace("?", self._marker), args)
                return cur.fetchall() if sql.lstrip().upper().startswith("SELECT") else []

            yield run

    # --- conversations ------------------------------------------------------------------------
    _CONV = ("SELECT c.id, c.title, c.created, c.updated, "
             "(SELECT count(*) FROM conversation_messages m WHERE m.conversation_id = c.id) FROM conversations c")

    def create(self, title: str = "") -> Conversation:
        at = now()
        conv = Conversation(uuid.uuid4().hex, title.strip(), at, at, 0)
        with self._tx(True) as run:
            run("INSERT INTO conversations VALUES (?, ?, ?, ?)", conv.id, conv.title, at, at)
        return conv

    def conversations(self) -> list[Conversation]:
        """Every conversation, the most recently active first."""
        with self._tx(False) as run:
            return [Conversation(*r) for r in run(self._CONV + " ORDER BY c.updated DESC, c.id")]

    def get(self, conversation_id: str) -> Conversation | None:
        with self._tx(False) as run:
            rows = run(self._CONV + " WHERE c.id = ?", conversation_id)
        return Conversation(*rows[0]) if rows else None

    def messages(self, conversation_id: str) -> list[Message]:
        with self._tx(False) as run:
            rows = run("SELECT id, conversation_id, question, standalone, answer, created FROM conversation_messages "
                       "WHERE conversation_id = ? ORDER BY seq, created, id", conversation_id)
        return [Message(r[0], r[1], r[2], r[3], json.loads(r[4]), r[5]) for r in rows]

    def message(self, message_id: str) -> Message | None:
        with self._tx(False) as run:
            rows = run("SELECT id, conversation_id, question, standalone, answer, created FROM conversation_messages "
                       "WHERE id = ?", message_id)
        return Message(rows[0][0], rows[0][1], rows[0][2], rows[0][3], json.loads(rows[0][4]), rows[0][5]) \
            if rows else None

    def rename(self, conversation_id: str, title: str) -> Conversation | None:
        with self._tx(True) as run:
            run("UPDATE conversations SET title = ?, updated = ? WHERE id = ?", title.strip(), now(), conversation_id)
        return self.get(conversation_id)

    def delete(self, conversation_id: str) -> bool:
        """Delete a conversation and its messages; False when there was none."""
        with self._tx(True) as run:
            found = run("SELECT 1 FROM conversations WHERE id = ?", conversation_id)
            run("DELETE FROM conversation_messages WHERE conversation_id = ?", conversation_id)
            run("DELETE FROM conversations WHERE id = ?", conversation_id)
        return bool(found)

    def add_message(self, conversation_id: str, question: str, standalone: str, answer: dict[str, Any]) -> Message:
        """Append a turn; the first one titles an untitled conversation."""
        at = now()
        msg = Message(uuid.uuid4().hex, conversation_id, question, standalone, answer, at)
        with self._tx(True) as run:
            rows = run("SELECT title, (SELECT coalesce(max(seq), 0) FROM conversation_messages "
                       "WHERE conversation_id = ?) FROM conversations WHERE id = ?", conversation_id, conversation_id)
            if not rows:
                raise KeyError(conversation_id)
            title, seq = rows[0]
            run("INSERT INTO conversation_messages VALUES (?, ?, ?, ?, ?, ?, ?)", msg.id, conversation_id,
                int(seq) + 1, question, standalone, json.dumps(answer, ensure_ascii=False), at)
            run("UPDATE conversations SET title = ?, updated = ? WHERE id = ?",
                title or title_of(question), at, conversation_id)
        return msg

    def restore(self, conv: Conversation, messages: Sequence[Message]) -> None:
        """Write a conversation as it was (ids and times kept), replacing one with its id (kotae migrate)."""
        with self._tx(True) as run:
            run("DELETE FROM conversation_messages WHERE conversation_id = ?", conv.id)
            run("DELETE FROM conversations WHERE id = ?", conv.id)
            run("INSERT INTO conversations VALUES (?, ?, ?, ?)", conv.id, conv.title, conv.created, conv.updated)
            for seq, m in enumerate(messages, 1):
                run("INSERT INTO conversation_messages VALUES (?, ?, ?, ?, ?, ?, ?)", m.id, conv.id, seq, m.question,
                    m.standalone, json.dumps(m.answer, ensure_ascii=False), m.created)

    # --- feedback -----------------------------------------------------------------------------
    _FEEDBACK = ("id, created, question, standalone, rating, message_id, cited, right_chunk, corrected, evidence, "
                 "found_in_docs, index_version")

    def add_feedback(self, fb: Feedback) -> Feedback:
        stored = Feedback(**{**fb.__dict__, "id": fb.id or uuid.uuid4().hex, "created": fb.created or now()})
        with self._tx(True) as run:
            run(f"INSERT INTO feedback({self._FEEDBACK}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                stored.id, stored.created, stored.question, stored.standalone or stored.question, stored.rating,
                stored.message_id, json.dumps(list(stored.cited)), stored.right_chunk, stored.corrected,
                json.dumps(stored.evidence, ensure_ascii=False), int(stored.found_in_docs), stored.index_version)
        return stored

    def feedback(self) -> list[Feedback]:
        """Every feedback, oldest first."""
        with self._tx(False) as run:
            rows = run(f"SELECT {self._FEEDBACK} FROM feedback ORDER BY created, id")
        return [Feedback(id=r[0], created=r[1], question=r[2], standalone=r[3], rating=r[4], message_id=r[5],
                         cited=tuple(json.loads(r[6])), right_chunk=r[7], corrected=r[8], evidence=json.loads(r[9]),
                         found_in_docs=bool(r[10]), index_version=r[11]) for r in rows]

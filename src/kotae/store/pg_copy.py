"""COPY for the PostgreSQL store: chunks, their vectors included, in the binary format by default.

Binary COPY sends each vector as its 4-byte floats (pgvector's text form costs ~0.9 ms a 384-d vector
in Python and a float parse per element on the server) and each chunk's keywords as a tsvector in its
binary form. Text COPY is kept for measurement (bench/pg_copy.py compares the two in one run).
"""
from __future__ import annotations

import struct
from collections.abc import Sequence
from typing import Any

import numpy as np

from kotae.store import pg_keyword as kw

CHUNK_COLUMNS = ('id, doc_id, ordinal, file, page, heading, text, start, "end", lang, row_first, row_last, '
                 "tokens, text_hash, ocr, keywords, keyword_len, embedding")
# Binary COPY needs each value's type; tsvector and vector go as bytes already in the server's form.
CHUNK_TYPES = ["text", "text", "int4", "text", "int4", "text[]", "text", "int4", "int4", "text", "int4", "int4",
               "int4", "text", "bool", "bytea", "int4", "bytea"]
BINARY = True  # the format write_document uses; bench/pg_copy.py flips it to measure text COPY


def vector_binary(vecs: np.ndarray) -> list[bytes]:
    """pgvector's binary form of each row: uint16 dimension, uint16 unused, big-endian float32s."""
    head = struct.pack(">HH", vecs.shape[1], 0) if vecs.ndim == 2 else b""
    return [head + row.tobytes() for row in np.ascontiguousarray(vecs, dtype=">f4")]


def vector_text(vecs: np.ndarray) -> list[str]:
    """pgvector's text form of each row, `[0.1,0.2,…]` (float32 values printed in full)."""
    return ["[" + ",".join(map(str, row)) + "]" for row in np.asarray(vecs, dtype=np.float32).tolist()]


_ONE = struct.Struct(">HH")  # one position: the count (1) and the position
_ONE_AT = [_ONE.pack(1, p) for p in range(kw.MAX_POSITION + 1)]  # … packed once for every position


class _Lexemes(dict):  # type: ignore[type-arg]
    """Each term's UTF-8 and its NUL, encoded once (the vocabulary repeats from chunk to chunk)."""

    def __missing__(self, t: str) -> bytes:
        if len(self) >= 1 << 20:
            self.clear()
        b = self[t] = t.encode("utf-8") + b"\0"
        return b


_LEXEMES = _Lexemes()


def tsvector_binary(found: Sequence[str]) -> bytes:
    """tsvector's binary form (tsvectorrecv): uint32 lexeme count; per lexeme its UTF-8 text, a NUL, uint16
    position count and uint16 positions (strictly increasing, weight bits 0), as `tsvector_literal` has them."""
    pos: dict[str, Any] = {}
    repeated = False
    for i, t in enumerate(found, start=1):
        p = pos.get(t)
        if p is None:
            pos[t] = i  # one position (most terms): an int, a list only once the term repeats
        elif p.__class__ is int:
            pos[t], repeated = [p, i], True
        else:
            p.append(i)
    if len(found) > kw.MAX_POSITION or (repeated and any(
            p.__class__ is not int and len(p) > kw.MAX_POSITIONS for p in pos.values())):
        pos = kw.positions(found)  # type: ignore[assignment]  # PostgreSQL's caps (long chunks only)
    one, lexeme = _ONE_AT, _LEXEMES.__getitem__
    return struct.pack(">I", len(pos)) + b"".join(
        lexeme(t) + (one[p] if p.__class__ is int else
                     one[p[0]] if len(p) == 1 else struct.pack(f">H{len(p)}H", len(p), *p))
        for t, p in pos.items())


def chunk_rows(chunks: Sequence[Any], text_hashes: Sequence[str], found: Sequence[Sequence[str]],
               vecs: np.ndarray, binary: bool) -> list[tuple[Any, ...]]:
    """The COPY rows of a document's chunks (CHUNK_COLUMNS), in the format asked for."""
    keywords = [tsvector_binary(t) for t in found] if binary else [kw.tsvector_literal(t) for t in found]
    vectors: Sequence[Any] = vector_binary(vecs) if binary else vector_text(vecs)
    return [(c.id, c.doc_id, c.ordinal, c.file, c.page, list(c.heading), c.text, c.start, c.end, c.lang,
             c.rows[0] if c.rows else None, c.rows[1] if c.rows else None, c.tokens, h, c.ocr,
             keywords[i], len(found[i]), vectors[i])
            for i, (c, h) in enumerate(zip(chunks, text_hashes, strict=True))]


def copy_chunks(conn: Any, rows: Sequence[tuple[Any, ...]], binary: bool) -> None:
    with conn.cursor().copy(f"COPY chunks ({CHUNK_COLUMNS}) FROM STDIN" + (" (FORMAT BINARY)" if binary else "")) as cp:
        if binary:
            cp.set_types(CHUNK_TYPES)
        for row in rows:
            cp.write_row(row)

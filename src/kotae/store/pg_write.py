"""Writing on PostgreSQL: remove a document (its vectors kept in the cache), keep term counts and index totals in
step.

Every writer takes row locks in one order (embedding hashes sorted, then terms sorted, then the one
stats row), so concurrent writers queue rather than deadlock.
"""
from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np


class Totals:
    """What a document adds to (or takes from) the index-wide counts."""

    def __init__(self, chunks: int, tokens: int, terms: Counter[str], vector_sum: np.ndarray | None) -> None:
        self.chunks, self.tokens, self.terms, self.vector_sum = chunks, tokens, terms, vector_sum


def chunk_keys(conn: Any, doc_id: str) -> list[tuple[str, str]]:
    return [tuple(r) for r in conn.execute(  # type: ignore[misc]
        "SELECT id, text_hash FROM chunks WHERE doc_id = %s ORDER BY ordinal, rowid", (doc_id,))]


def remove(conn: Any, path: str, keep: list[str] | None = None) -> Totals | None:
    """Delete the document at `path` (pages and chunks cascade); return what it held. Its vectors go to the cache
    but those of `keep` (the text hashes of the version that replaces it: its chunks will hold them)."""
    row = conn.execute("SELECT id, vector_sum FROM documents WHERE path = %s", (path,)).fetchone()
    if row is None:
        return None
    doc_id, vector_sum = row
    terms = Counter({t: int(n) for t, n in conn.execute(
        "SELECT u.lexeme, count(*) FROM chunks c, unnest(c.keywords) u WHERE c.doc_id = %s GROUP BY 1", (doc_id,))})
    n, tokens = conn.execute("SELECT count(*), coalesce(sum(keyword_len), 0) FROM chunks WHERE doc_id = %s",
                             (doc_id,)).fetchone()
    # its vectors stay in the cache (the chunks hold the only other copy): re-adding the file, or a file with the
    # same passages, embeds nothing again
    conn.execute("INSERT INTO embeddings SELECT DISTINCT ON (text_hash) text_hash, embedding FROM chunks "
                 "WHERE doc_id = %s AND NOT text_hash = ANY(%s) ORDER BY text_hash ON CONFLICT (text_hash) DO NOTHING",
                 (doc_id, sorted(set(keep or ()))))
    conn.execute("DELETE FROM documents WHERE id = %s", (doc_id,))
    return Totals(int(n), int(tokens), terms,
                   None if vector_sum is None else array(vector_sum))


def uncache(conn: Any, text_hashes: list[str]) -> None:
    """Drop the cached copies of vectors the chunks now hold (a removed document's passages written again): one
    copy of each vector. Row locks in hash order, as every writer takes them."""
    if text_hashes:
        conn.execute("DELETE FROM embeddings WHERE text_hash IN (SELECT text_hash FROM embeddings WHERE "
                     "text_hash = ANY(%s) ORDER BY text_hash FOR UPDATE)", (sorted(set(text_hashes)),))


def apply(conn: Any, added: Totals | None, removed: Totals | None) -> None:
    """Bring term counts and index totals in step with a write; bump the generation (last: a hot row)."""
    if added is None and removed is None:
        return
    delta = Counter(added.terms if added else {})
    delta.subtract(removed.terms if removed else {})
    changes = sorted((t, n) for t, n in delta.items() if n)  # one lock order for every writer
    if changes:
        conn.execute("INSERT INTO keyword_terms(term, chunks) SELECT t, n FROM unnest(%s::text[], %s::int[]) "
                     "AS d(t, n) ORDER BY t ON CONFLICT (term) DO UPDATE SET chunks = keyword_terms.chunks + "
                     "excluded.chunks", ([t for t, _ in changes], [n for _, n in changes]))
        gone = [t for t, n in changes if n < 0]
        if gone:
            conn.execute("DELETE FROM keyword_terms WHERE term = ANY(%s) AND chunks <= 0", (gone,))
    chunks = (added.chunks if added else 0) - (removed.chunks if removed else 0)
    tokens = (added.tokens if added else 0) - (removed.tokens if removed else 0)
    vec = vector_delta(added.vector_sum if added else None, removed.vector_sum if removed else None)
    conn.execute("UPDATE kotae_stats SET generation = generation + 1, chunks = chunks + %s, "
                 "keyword_tokens = keyword_tokens + %s, vector_sum = CASE WHEN %s::vector IS NULL THEN vector_sum "
                 "WHEN vector_sum IS NULL THEN %s::vector ELSE vector_sum + %s::vector END",
                 (chunks, tokens, vec, vec, vec))


def vector_delta(add: np.ndarray | None, sub: np.ndarray | None) -> np.ndarray | None:
    if add is None:
        return None if sub is None else -sub
    return add if sub is None or sub.shape != add.shape else add - sub


def array(v: Any) -> np.ndarray:
    """A vector as read from the database (pgvector's Vector, or an array) as float32 numpy."""
    return np.asarray(v.to_numpy() if hasattr(v, "to_numpy") else v, dtype=np.float32)

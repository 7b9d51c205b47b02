"""Sections across pages: an article that runs on over a page break is two chunks with the same heading on
adjacent pages. A hit brings that neighbour in right behind it, so the continuation is read with it; each
stays its own hit, cited by its own page.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence

from kotae.types import Chunk


def continues(a: Chunk, b: Chunk) -> bool:
    """Whether `b` is `a`'s section continued (or begun) on the adjacent page: same document and heading
    path (not empty), consecutive chunks, pages one apart."""
    return (a.doc_id == b.doc_id and bool(a.heading) and a.heading == b.heading
            and abs(a.ordinal - b.ordinal) == 1 and abs(a.page - b.page) == 1)


def with_neighbours(ranked: Sequence[int], chunks: Mapping[int, Chunk], leaders: int) -> list[int]:
    """`ranked` with, behind each of its first `leaders` ids, the ids of `chunks` that continue its section
    (moved up when they were ranked further down); the order is otherwise kept."""
    out: list[int] = []
    placed: set[int] = set()
    for n, r in enumerate(ranked):
        if r in placed:
            continue
        out.append(r)
        placed.add(r)
        if n < leaders and r in chunks:
            for other, c in sorted(chunks.items()):
                if other not in placed and continues(chunks[r], c):
                    out.append(other)
                    placed.add(other)
    return out

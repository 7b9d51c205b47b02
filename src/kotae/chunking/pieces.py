"""Cutting one over-long sentence (or CSV row) into pieces that each fit the token budget.

Cut first after clause marks (、，,;；：:), then at spaces, then at a hard character cut; each level
is used only for the parts the previous one left too long. Every piece's cost is checked with the
real counter, so a piece never exceeds the budget (unless a single character does).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from kotae.chunking.sentences import trimmed

_LEVELS = (re.compile(r"[、，,;；：:]+"), re.compile(r"\s+"))


def _cut(text: str, start: int, end: int, pattern: re.Pattern[str]) -> list[tuple[int, int]]:
    """Parts of text[start:end] cut after each match of `pattern` (the mark stays with its clause)."""
    parts: list[tuple[int, int]] = []
    cur = start
    for m in pattern.finditer(text, start, end):
        if m.end() >= end:
            break
        span = trimmed(text, cur, m.end())
        if span:
            parts.append(span)
        cur = m.end()
    span = trimmed(text, cur, end)
    if span:
        parts.append(span)
    return parts


def _hard_cut(
    text: str, start: int, end: int, cost: int, count: Callable[[str], int], max_tokens: int
) -> list[tuple[int, int]]:
    overhead = count("")
    pieces: list[tuple[int, int]] = []
    chars_per_token = (end - start) / max(1, cost - overhead)
    while start < end:
        length = max(1, min(end - start, int((max_tokens - overhead) * chars_per_token * 0.95)))
        while length > 1 and count(text[start : start + length]) > max_tokens:
            length = max(1, int(length * 0.85))
        span = trimmed(text, start, start + length)
        if span:
            pieces.append(span)
        start += length
    return pieces


HUGE = 20_000  # characters of one sentence past which it is first cut into windows of about the budget


def _windows(text: str, start: int, end: int, chars: int) -> list[tuple[int, int]]:
    """text[start:end] in spans of at most `chars`, each ending at its last whitespace when it has one."""
    out = []
    while end - start > chars:
        cut = max(text.rfind(" ", start, start + chars), text.rfind("\n", start, start + chars))
        stop = cut if cut > start else start + chars
        span = trimmed(text, start, stop)
        if span:
            out.append(span)
        start = stop
    span = trimmed(text, start, end)
    if span:
        out.append(span)
    return out


def split_long(
    text: str, start: int, end: int, count: Callable[[str], int], max_tokens: int, level: int = 0
) -> list[tuple[int, int, int]]:
    """Pieces `(start, end, cost)` of text[start:end], each costing at most `max_tokens` by `count`.

    The pieces are small (one clause each); the caller packs neighbours back together.
    """
    cost = count(text[start:end])
    if cost <= max_tokens:
        return [(start, end, cost)]
    if end - start > HUGE and level == 0:  # cut into windows near the budget first: one unit per word of a
        chars = max(1, int(max_tokens * (end - start) / cost * 0.9))  # 10 MB "sentence" took GBs
        return [p for s, e in _windows(text, start, end, chars)
                for p in split_long(text, s, e, count, max_tokens, 0 if e - s <= HUGE else 1)]
    if level < len(_LEVELS):
        parts = _cut(text, start, end, _LEVELS[level])
        if len(parts) > 1:
            out: list[tuple[int, int, int]] = []
            for s, e in parts:
                out.extend(split_long(text, s, e, count, max_tokens, level + 1))
            return out
        return split_long(text, start, end, count, max_tokens, level + 1)
    return [(s, e, count(text[s:e])) for s, e in _hard_cut(text, start, end, cost, count, max_tokens)]

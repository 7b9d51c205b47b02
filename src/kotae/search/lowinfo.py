"""Low-information chunks: a table read out one cell (or one character) per line, a calendar, a block of bare
numbers. e5 places such text close to many short questions, so it can outrank the prose that answers them;
the dense ranking weighs it down by `information(text)` (the keyword ranking needs no help: it has no words
to match).
"""
from __future__ import annotations

import re
import unicodedata

_WORD = re.compile(r"[^\W\d_]+", re.UNICODE)  # a run of letters (kana, kanji, Latin): no digits, no symbols


def signals(text: str) -> dict[str, float]:
    """The measurements `information` combines: digit share of the visible characters, visible characters
    per non-empty line, and the number of distinct letter runs (words; a kanji/kana run counts once)."""
    text = unicodedata.normalize("NFKC", text)
    visible = [c for c in text if not c.isspace()]
    lines = [ln for ln in text.splitlines() if ln.strip()]
    digits = sum(c.isdigit() for c in visible)
    return {"digit_share": digits / len(visible) if visible else 0.0,
            "chars_per_line": len(visible) / len(lines) if lines else 0.0,
            "distinct_words": float(len(set(_WORD.findall(text.lower())))),
            "visible": float(len(visible))}


def information(text: str) -> float:
    """1.0 for prose, down to 0.0 for text that carries almost no words: the lowest of three scores, each 1
    above its threshold and falling linearly below it. Short chunks (< 40 visible characters) stay 1: a
    one-line answer ("SSID: SAMPLE-STAFF") is not noise."""
    s = signals(text)
    if s["visible"] < 40:
        return 1.0
    per_line = min(1.0, s["chars_per_line"] / 6.0)  # one cell per line: 1–3 characters a line
    digits = min(1.0, max(0.0, (0.85 - s["digit_share"]) / 0.35))  # ≥ 85 % digits: 0; ≤ 50 %: 1
    words = min(1.0, s["distinct_words"] / max(4.0, min(12.0, s["visible"] / 20.0)))
    return round(min(per_line, digits, words), 3)


def demote(ranked: list[tuple[int, float]], info: dict[int, float], penalty: float) -> list[tuple[int, float]]:
    """A dense ranking re-sorted with each similarity lowered by `penalty` × (1 − information); the scores
    returned stay the raw similarities (the gate and the hits report those)."""
    if penalty <= 0:
        return ranked
    order = sorted(ranked, key=lambda p: -(p[1] - penalty * (1.0 - info.get(p[0], 1.0))))
    return order

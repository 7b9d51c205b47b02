"""Right-to-left pages (Arabic, Persian, Hebrew): words of a line read right to left, runs of
left-to-right words (numbers, Latin) kept in their own order; lam-alef ligatures put back in logical
order. Pure functions over `Char`s (kotae.ingest.pdf_chars)."""

from __future__ import annotations

import re
from collections.abc import Callable

from kotae.ingest.pdf_chars import Char

RTL_SHARE = 0.5  # a page whose letters are at least this share right-to-left reads right to left
_RTL = re.compile(r"[\u0590-\u08FF\uFB1D-\uFDFF\uFE70-\uFEFF]")
_LETTER = re.compile(r"[^\W\d_]")
# one glyph (the lam-alef ligature) that a font's ToUnicode maps in visual order: alef then lam
_ALEF_LAM = re.compile(r"[\u0622\u0623\u0625\u0627]\u0644")


def is_rtl(chars: list[Char]) -> bool:
    text = "".join(c.text for c in chars)
    letters = len(_LETTER.findall(text))
    return letters > 0 and len(_RTL.findall(text)) >= RTL_SHARE * letters


def fix_ligatures(text: str, same_glyph: Callable[[int, int], bool]) -> str:
    """`text` with each alef+lam pair that is one glyph (`same_glyph(i, i + 1)`: the two characters share
    one box) turned into lam+alef, the ligature's logical order."""
    spots = [m.start() for m in _ALEF_LAM.finditer(text) if same_glyph(m.start(), m.start() + 1)]
    if not spots:
        return text
    out = list(text)
    for i in spots:
        out[i], out[i + 1] = out[i + 1], out[i]
    return "".join(out)


def _ltr(word: str) -> bool:
    return not _RTL.search(word)


def rtl_text(chars: list[Char]) -> str:
    """The page's words grouped into lines by baseline (top down), each line's words right to left, a run
    of left-to-right words between them in reading order left to right."""
    words = [c for c in chars if c.text.strip() and (c.x1 > c.x0 or c.y1 > c.y0)]
    words.sort(key=lambda c: -(c.y0 + c.y1) / 2)
    lines: list[list[Char]] = []
    for w in words:
        mid, height = (w.y0 + w.y1) / 2, max(1.0, w.y1 - w.y0)
        if lines:
            last = lines[-1]
            lmid = sum((c.y0 + c.y1) / 2 for c in last) / len(last)
            if abs(mid - lmid) < 0.5 * height:
                last.append(w)
                continue
        lines.append([w])
    out = []
    for line in lines:
        line.sort(key=lambda c: -c.x1)
        texts: list[str] = []
        run: list[str] = []
        for c in line:
            if _ltr(c.text):
                run.append(c.text)
                continue
            texts += reversed(run)
            run = []
            texts.append(c.text)
        texts += reversed(run)
        out.append(" ".join(t.strip() for t in texts))
    return "\n".join(out)

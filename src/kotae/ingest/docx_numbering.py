"""Word's automatic numbering: the label a numbered paragraph shows ("1.2", "第3条", "（ア）", "•").

Word does not store these labels in the text: a paragraph (or its style) names a list (`w:numPr`: numId, level)
and numbering.xml says how each level counts (`w:start`, `w:numFmt`) and shows (`w:lvlText`, e.g. "第%1条",
"%1.%2"). Without them a regulation's 「第32条（賃金の支払）」 reads 「（賃金の支払）」 and a numbered heading loses
its number. `Numbering` replays the counters in document order: a level counts up, the levels under it start
again; lists sharing an abstract definition share their counters unless one restarts (`w:startOverride`).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

__all__ = ["Numbering", "format_number"]

W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
MAX_LEVELS = 9


@dataclass(frozen=True)
class Level:
    start: int
    fmt: str
    text: str
    legal: bool  # isLgl: every level's number shown in decimal ("1.2.3" under roman chapters)
    joined: bool = False  # w:suff "nothing": the text follows the number directly (「第3条（目的）」)


_KANJI = "〇一二三四五六七八九"
_AIUEO = ("アイウエオカキクケコサシスセソタチツテトナニヌネノハヒフヘホマミムメモヤユヨラリルレロワヲン")
_IROHA = ("イロハニホヘトチリヌルヲワカヨタレソツネナラムウヰノオクヤマケフコエテアサキユメミシヱヒモセスン")
_TRADITIONAL = "甲乙丙丁戊己庚辛壬癸"
_CIRCLED = "①②③④⑤⑥⑦⑧⑨⑩⑪⑫⑬⑭⑮⑯⑰⑱⑲⑳"
_FULL = str.maketrans("0123456789", "０１２３４５６７８９")
_ROMAN = ((1000, "m"), (900, "cm"), (500, "d"), (400, "cd"), (100, "c"), (90, "xc"), (50, "l"), (40, "xl"),
          (10, "x"), (9, "ix"), (5, "v"), (4, "iv"), (1, "i"))


def _kanji(n: int) -> str:
    """一, 十, 十一, 二十三, 百五 (Japanese counting)."""
    if n <= 0:
        return _KANJI[0]
    out = ""
    for unit, name in ((1000, "千"), (100, "百"), (10, "十")):
        d, n = divmod(n, unit)
        if d:
            out += ("" if d == 1 else _KANJI[d]) + name
    return out + (_KANJI[n] if n else "")


def _roman(n: int) -> str:
    out = ""
    for value, letters in _ROMAN:
        while n >= value:
            out, n = out + letters, n - value
    return out


def _letters(n: int) -> str:
    """a … z, then aa, bb … as Word counts."""
    return chr(ord("a") + (n - 1) % 26) * ((n - 1) // 26 + 1) if n > 0 else ""


def _cycle(chars: str, n: int) -> str:
    return chars[(n - 1) % len(chars)] if n > 0 else ""


MAX_SPELLED = 3999  # past this a number is written in digits whatever its format (a hostile start value of 10⁹
# would otherwise spell a million-letter "aaaa…" or roman "mmmm…")


def _int(value: str | None, default: int) -> int:
    try:
        return int(value) if value is not None else default
    except ValueError:
        return default


def format_number(n: int, fmt: str) -> str:
    """`n` written in Word's number format `fmt` (decimal when the format is unknown or `n` is too large)."""
    if not 0 < n <= MAX_SPELLED and fmt not in ("decimalZero",):
        return str(n)
    if fmt in ("decimalZero",):
        return f"{n:02d}"
    if fmt in ("decimalFullWidth", "decimalFullWidth2"):
        return str(n).translate(_FULL)
    if fmt == "lowerLetter":
        return _letters(n)
    if fmt == "upperLetter":
        return _letters(n).upper()
    if fmt == "lowerRoman":
        return _roman(n)
    if fmt == "upperRoman":
        return _roman(n).upper()
    if fmt in ("japaneseCounting", "japaneseLegal", "japaneseDigitalTenThousand", "chineseCounting",
               "chineseCountingThousand", "ideographDigital", "koreanCounting"):
        return _kanji(n)
    if fmt in ("aiueo", "aiueoFullWidth"):
        return _cycle(_AIUEO, n)
    if fmt in ("iroha", "irohaFullWidth"):
        return _cycle(_IROHA, n)
    if fmt in ("ideographTraditional", "ideographZodiac"):
        return _cycle(_TRADITIONAL, n)
    if fmt in ("decimalEnclosedCircle", "decimalEnclosedCircleChinese", "ideographEnclosedCircle"):
        return _CIRCLED[n - 1] if 1 <= n <= len(_CIRCLED) else f"({n})"
    if fmt == "decimalEnclosedParen":
        return f"({n})"
    if fmt == "decimalEnclosedFullstop":
        return f"{n}."
    if fmt == "none":
        return ""
    return str(n)


_PLACEHOLDER = re.compile(r"%([1-9])")


def _val(element: Any, tag: str) -> str | None:
    child = element.find(W + tag) if element is not None else None
    return child.get(W + "val") if child is not None else None


class Numbering:
    """The labels of a document's numbered paragraphs, computed in reading order (`label`)."""

    def __init__(self, numbering: Any | None, styles: Any | None) -> None:
        self.abstract: dict[str, dict[int, Level]] = {}
        self.styled_level: dict[tuple[str, str], int] = {}  # (abstractNumId, styleId) → the level it numbers
        self.nums: dict[str, tuple[str, dict[int, int]]] = {}
        self.style_num: dict[str, tuple[str | None, int | None]] = {}
        self.based_on: dict[str, str] = {}
        self.counters: dict[str, list[int | None]] = {}
        self.restarted: set[str] = set()
        if numbering is not None:
            self._read_numbering(numbering)
        if styles is not None:
            self._read_styles(styles)

    def _read_numbering(self, root: Any) -> None:
        for an in root.iterfind(W + "abstractNum"):
            aid = an.get(W + "abstractNumId")
            levels: dict[int, Level] = {}
            for lvl in an.iterfind(W + "lvl"):
                ilvl = _int(lvl.get(W + "ilvl"), 0)
                levels[ilvl] = Level(_int(_val(lvl, "start"), 1),
                                     _val(lvl, "numFmt") or "decimal", _val(lvl, "lvlText") or "",
                                     lvl.find(W + "isLgl") is not None, _val(lvl, "suff") == "nothing")
                style = _val(lvl, "pStyle")
                if style:
                    self.styled_level[aid, style] = ilvl
            self.abstract[aid] = levels
        for num in root.iterfind(W + "num"):
            overrides: dict[int, int] = {}
            for o in num.iterfind(W + "lvlOverride"):
                start = _val(o, "startOverride")
                if start is not None:
                    overrides[_int(o.get(W + "ilvl"), 0)] = _int(start, 1)
            self.nums[num.get(W + "numId")] = (_val(num, "abstractNumId") or "", overrides)

    def _read_styles(self, root: Any) -> None:
        for style in root.iterfind(W + "style"):
            sid = style.get(W + "styleId")
            based = _val(style, "basedOn")
            if based:
                self.based_on[sid] = based
            ppr = style.find(W + "pPr")
            numpr = ppr.find(W + "numPr") if ppr is not None else None
            if numpr is not None:
                ilvl = _val(numpr, "ilvl")
                self.style_num[sid] = (_val(numpr, "numId"), _int(ilvl, 0) if ilvl is not None else None)

    def _of_style(self, style: str | None) -> tuple[str | None, int | None]:
        seen = set()
        while style and style not in seen:
            seen.add(style)
            if style in self.style_num:
                return self.style_num[style]
            style = self.based_on.get(style)
        return None, None

    def label(self, p: Any) -> str:
        """What Word shows before paragraph `p` (a w:p element): its number and the space after it ("第3条 ",
        "1.2 ", "• "; no space where the level says so), "" when it is not numbered; counts it."""
        ppr = p.find(W + "pPr")
        style = _val(ppr, "pStyle")
        numpr = ppr.find(W + "numPr") if ppr is not None else None
        num_id, ilvl = _val(numpr, "numId"), _val(numpr, "ilvl")
        level = _int(ilvl, 0) if ilvl is not None else None
        if num_id is None:
            num_id, level = self._of_style(style)
        if not num_id or num_id == "0" or num_id not in self.nums:
            return ""
        aid, overrides = self.nums[num_id]
        levels = self.abstract.get(aid)
        if not levels:
            return ""
        if level is None:
            level = self.styled_level.get((aid, style or ""), 0)
        level = min(max(level, 0), MAX_LEVELS - 1)
        counts = self.counters.setdefault(aid, [None] * MAX_LEVELS)
        if overrides and num_id not in self.restarted:  # a list that starts again from its own numbers
            self.restarted.add(num_id)
            for i, start in overrides.items():
                if 0 <= i < MAX_LEVELS:
                    counts[i] = start - 1
            for i in range(MAX_LEVELS):
                if i not in overrides and i > min(overrides):
                    counts[i] = None
        lvl = levels.get(level)
        if lvl is None:
            return ""
        for i in range(level):  # a level shown before the levels above it ever counted: Word takes their start
            if counts[i] is None and i in levels:
                counts[i] = levels[i].start
        counts[level] = lvl.start if counts[level] is None else (counts[level] or 0) + 1
        for i in range(level + 1, MAX_LEVELS):
            counts[i] = None
        if lvl.fmt == "bullet":  # Symbol/Wingdings glyphs, Courier's "o": one bullet kotae's list rules know
            return "• "

        def number(m: re.Match[str]) -> str:
            i = int(m.group(1)) - 1
            at = levels.get(i)
            if at is None:
                return ""
            count = counts[i]
            n = count if count is not None else at.start
            return format_number(n, "decimal" if lvl.legal and i < level else at.fmt)

        shown = _PLACEHOLDER.sub(number, lvl.text).strip()
        return shown + ("" if lvl.joined or not shown else " ")

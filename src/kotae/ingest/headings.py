"""Heading detection for text without styles (PDF pages, plain text): pure functions over lines.

Levels form one scale so a heading stack can mix schemes:
編/Part 0 · 章/Chapter 1 · 節/Section 2 · 款 3 · 目 4 · 条/Article 5;
numbered headings "1" / "1.2" / "1.2.3" take their depth (1, 2, 3); ALL-CAPS titles are level 1.
"""

from __future__ import annotations

import re

Heading = tuple[int, str]  # (level, label shown in the heading path)

_NUM = r"[0-9０-９〇零一二三四五六七八九十百千]+"
_JA = re.compile(rf"第{_NUM}(編|章|節|款|目|条)(?:の[0-9０-９一二三四五六七八九十]+)*(?=[\s\u3000（(]|$)")

# "Figure 3-5 Special registers and adopted authority", "Table 5: Hurricane table (…)", 「図2　処理の流れ」, 「表1：付与日数」: a
# label and number, then a title (capitalised, or after a colon or a space in Japanese); "Figure 3-5 shows …" and
# 「表1のとおり…」 are sentences
_FIGURE_CAPTION = re.compile(r"^(?:(?:Figure|Fig\.|Table|Chart|Exhibit|Diagram|Listing)\s+[A-Z]?\d+(?:[-.]\d+)*[a-z]?\s*[:.\-–—]?\s+"
                             r"(?=[A-Z“\"(]|[^\x00-\x7f])|[図表]\s*[0-9０-９]+(?:[-‐－.．][0-9０-９]+)*(?:[\s\u3000]+|\s*[:：.．]\s*)(?![のにでをはが]))")


def is_caption(line: str) -> bool:
    """Whether a line is a figure's or table's caption: it names what a figure or table shows, it does not say it."""
    return bool(_FIGURE_CAPTION.match(line.strip()))

_JA_LEVEL = {"編": 0, "章": 1, "節": 2, "款": 3, "目": 4, "条": 5}
_CAPTION = re.compile(r"[（(][^（）()]{1,30}[）)]")
_EN_KEYWORD = re.compile(
    r"(part|chapter|section|article|appendix)\s+(\d{1,3}|[ivxlc]{1,6}|[a-z])\b(.*)", re.IGNORECASE
)
_EN_LEVEL = {"part": 0, "chapter": 1, "appendix": 1, "section": 2, "article": 5}
_NUMBERED = re.compile(r"(\d{1,3}(?:\.\d{1,3}){0,5})(\.?)\s+(\S.*)")
_ALL_CAPS = re.compile(r"[A-Z][A-Z0-9 &,'’/:()\-]*")
_UNITS = set("年月日時分秒円人件回歳倍個台枚本号週か％%ヶケ箇")
_RUNNING_NUMBER = re.compile(r"\D\s+\d{1,4}$")
SHORT = 60  # English headings are short lines
JA_LABEL_MAX = 40
JA_TITLE_MAX = 20  # a numbered Japanese title ("1. はじめに") is short and has no 、  # longer 章/節 lines are cut to their marker in the heading path


def _title_like(rest: str) -> bool:
    """The words after a heading number: empty, or starting with a capital or a CJK character."""
    rest = rest.strip()
    if not rest:
        return True
    if rest[0] in ".:–—-":
        rest = rest[1:].strip()
    return not rest or rest[0].isupper() or ord(rest[0]) >= 0x3000


def _ja_clause(rest: str, dotted: bool) -> bool:
    """Japanese text after a number that reads as a numbered clause (2　前項の…、), not a title.

    A wrapped PDF line has no final 。, so length and the clause comma tell them apart; legal 項
    numbers carry no dot, so an undotted number allows only a very short title ("1 はじめに").
    """
    cjk = sum(ord(c) >= 0x3000 for c in rest)
    limit = JA_TITLE_MAX if dotted else JA_TITLE_MAX // 2
    return cjk > 0 and (len(rest) > limit or any(p in rest for p in "、，。"))


def _japanese(line: str) -> Heading | None:
    m = _JA.match(line)
    if not m:
        return None
    kind = m.group(1)
    if kind == "条":
        caption = _CAPTION.match(line, m.end()) or _CAPTION.match(line, m.end() + 1)
        label = m.group(0) + (
            caption.group(0) if caption and line[m.end() : caption.start()].strip() == "" else ""
        )
    else:
        label = line if len(line) <= JA_LABEL_MAX else m.group(0)
    return _JA_LEVEL[kind], label


def _cell_like(rest: str) -> bool:
    """Words after a number that read as a table cell or a sentence, not a title.

    「７ 時 間」「6 か月」 (a unit after the number), 「41 年～ 25.0」 (more numbers),
    "More than 2,000 National Guard troops were put on" (a long line with figures).
    """
    rest = rest.strip()
    words = rest.split()
    if rest[:1] in _UNITS or any(c.isdigit() for c in rest) and (ord(rest[0]) >= 0x3000 or len(words) > 4):
        return True
    if len(words) >= 2 and _RUNNING_NUMBER.search(rest):
        return True  # "20 Unemployment compensation 20": a form line with its box number
    return len(words) > 8 or (len(words) >= 2 and sum(len(w) == 1 for w in words) > 0.6 * len(words))


def _english(line: str) -> Heading | None:
    if len(line) > SHORT or line.endswith((".", "。", ",", ";")):
        return None
    m = _EN_KEYWORD.fullmatch(line)
    if m and _title_like(m.group(3)):
        if _RUNNING_NUMBER.search(m.group(3)) and len(m.group(3).split()) >= 3:
            return None  # "Chapter 2. Roles and separation of duties 11": a running header with its page
        return _EN_LEVEL[m.group(1).lower()], line
    m = _NUMBERED.fullmatch(line)
    if (m and _title_like(m.group(3)) and not m.group(3)[0].isdigit() and not _cell_like(m.group(3))
            and not _ja_clause(m.group(3), bool(m.group(2)) or "." in m.group(1))):
        return m.group(1).count(".") + 1, line
    letters = sum(c.isalpha() for c in line)
    if letters >= 4 and _ALL_CAPS.fullmatch(line) and len(line.split()) <= 10:
        return 1, line
    return None


def heading_of(line: str) -> Heading | None:
    """Return (level, label) when `line` is a structural heading, else None.

    Japanese: 第N章 / 第N節 / 第N条（見出し） / 第N条 … at line start (N in ASCII, full-width or
    kanji digits). English: "Chapter 3", "Section 4 Scope", "1. Introduction", "1.2 Scope"
    (short, no final period, title capitalised), or a short ALL-CAPS title.
    """
    line = line.strip().strip("\u3000")
    if not line:
        return None
    return _japanese(line) or _english(line)


def is_structural(line: str) -> bool:
    """The line starts with a Japanese structural marker (第N編/章/節/款/目/条)."""
    return _JA.match(line.strip().strip("\u3000")) is not None


def _continues(line: str) -> bool:
    """The line goes on a sentence (starts with a lower-case letter): the line above it is body text."""
    line = line.strip()
    return bool(line) and line[0].islower()


def classify_lines(lines: list[str]) -> list[Heading | None]:
    """`heading_of` for each line, plus Japanese statute captions.

    In statutes the caption sits on its own line above the article ("（目的）" then "第一条　…"):
    the caption line then starts the heading, labelled "第一条（目的）". An English heading line
    followed by a line that starts in lower case is a wrapped sentence, not a heading.
    """
    found = [heading_of(line) for line in lines]
    for i in range(len(lines) - 1):
        if found[i] is not None and not is_structural(lines[i]) and _continues(lines[i + 1]):
            found[i] = None
    for i in range(len(lines) - 1):
        nxt = found[i + 1]
        if found[i] is not None or nxt is None or nxt[0] != _JA_LEVEL["条"] or _CAPTION.search(nxt[1]):
            continue
        caption = lines[i].strip().strip("\u3000")
        if _CAPTION.fullmatch(caption):
            found[i], found[i + 1] = (nxt[0], nxt[1] + caption), None
    return found


def push(stack: list[Heading], heading: Heading) -> list[Heading]:
    """The heading stack after `heading`: headings at the same or a deeper level are closed."""
    level = heading[0]
    return [h for h in stack if h[0] < level] + [heading]

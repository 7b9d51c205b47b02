"""Sentence spans for Japanese and English text (and a mix of both), by rules, no model.

Two passes: the text is first cut into segments at hard line breaks (blank lines; the line breaks
before and after a list item or a heading such as 第3条), then each segment is cut after sentence-final
punctuation. A line break inside a segment (a wrapped line) does not end a sentence.
"""

from __future__ import annotations

import re

# Lines that start a list item: （1） (a) 1. 1) １． ・ - * ① ⑴ 一、 ア． ※
_LIST_ITEM = re.compile(
    r"""[ \t\u3000]*(?:
        [（(](?:[0-9０-９]{1,3}|[a-zA-Zａ-ｚＡ-Ｚ]|[ivxIVX]{1,4}|[一二三四五六七八九十]{1,3}|[ア-ン])[）)]
      | [0-9０-９]{1,3}[.．)）](?![0-9０-９])
      | [a-zA-Z][.)](?=[ \t\u3000])
      | [・•●○■□◆◇▪‣※]
      | [-*+–](?=[ \t\u3000])
      | [\u2460-\u2473\u3251-\u325F\u32B1-\u32BF\u2474-\u249B\u2776-\u277F]
      | [一二三四五六七八九十]{1,3}[、．.\u3000 ]
      | [ア-ン][.．、)）]
    )""",
    re.VERBOSE,
)

# Lines that are headings: 第N条/章/節…, Markdown #, 附則, 別表, Chapter/Section/Article N
_HEADING = re.compile(
    r"""[ \t\u3000]*(?:
        第[0-9０-９一二三四五六七八九十百千〇]+[編章節款項条]
      | \#{1,6}[ \t]
      | 附[ \t\u3000]*則
      | 別表
      | (?:Chapter|CHAPTER|Section|SECTION|Article|ARTICLE)[ \t]+[0-9IVX]
    )""",
    re.VERBOSE,
)

_TERMINATORS = re.compile(r"[。｡！？!?．.]+")
_STRONG = frozenset("。｡！？")  # always end a sentence (full width)
_CLOSERS = frozenset("」』）)】〕]］〉》〙〗\"'”’")
_OPENERS = frozenset("\"'“‘(（「『[［【〈《")
# Lower-cased words that a "." follows without ending the sentence.
_ABBREVIATIONS = frozenset(
    (
        "e.g",
        "i.e",
        "mr",
        "mrs",
        "ms",
        "dr",
        "prof",
        "sr",
        "jr",
        "st",
        "etc",
        "fig",
        "figs",
        "no",
        "nos",
        "vs",
        "cf",
        "al",
        "eq",
        "eqs",
        "approx",
        "ca",
        "vol",
        "vols",
        "pp",
        "p",
        "ch",
        "sec",
        "ref",
        "refs",
        "dept",
        "est",
        "op",
        "u.s",
        "a.m",
        "p.m",
        "jan",
        "feb",
        "mar",
        "apr",
        "jun",
        "jul",
        "aug",
        "sep",
        "sept",
        "oct",
        "nov",
        "dec",
    )
)
_LIST_PREFIX = re.compile(r"[0-9０-９]{1,3}|[a-zA-Z]|[ivxIVX]{1,4}")
_QUOTATIVE = ("と", "って", "など")  # 「…。」と言った: the quote goes on


def _is_japanese(ch: str) -> bool:
    o = ord(ch)
    return 0x3040 <= o <= 0x30FF or 0x4E00 <= o <= 0x9FFF or 0x3400 <= o <= 0x4DBF or 0xFF66 <= o <= 0xFF9F


def _starts_item(line: str) -> bool:
    return bool(_LIST_ITEM.match(line) or _HEADING.match(line))


# A list item wrapped onto the next line (an English PDF column: "2. Estimated tax paid with Form" over
# "1040-ES or Form 1040-ES (NR)."): the item line is long, ends inside its sentence (a letter, digit, comma,
# hyphen or opening bracket) and the next line starts with ASCII text.
_WRAP_MIN = 25
_OPEN_END = re.compile(r"[A-Za-z0-9,(\-]$")


def _continues(item_line: str, line: str) -> bool:
    """Whether `line` carries on the list item `item_line` (a wrapped English item), not a new segment."""
    head = item_line.rstrip()
    return len(head) >= _WRAP_MIN and bool(_OPEN_END.search(head)) and line.lstrip()[:1].isascii() \
        and line.lstrip()[:1].isalnum() and not _starts_item(line)


def _segments(text: str) -> list[tuple[int, int]]:
    """Cut `text` at hard line breaks: blank lines, and the breaks before and after a list/heading line (but not
    inside a wrapped English list item: `_continues`)."""
    segments: list[tuple[int, int]] = []
    seg_start = -1
    prev_end = 0
    prev_item = False
    prev_line = ""
    pos = 0
    for line in text.split("\n"):
        start, end = pos, pos + len(line)
        pos = end + 1
        if not line.strip():
            if seg_start >= 0:
                segments.append((seg_start, prev_end))
                seg_start = -1
            prev_item = False
            continue
        item = _starts_item(line)
        wrapped = prev_item and not item and _continues(prev_line, line)
        if seg_start >= 0 and (item or prev_item) and not wrapped:
            segments.append((seg_start, prev_end))
            seg_start = -1
        if seg_start < 0:
            seg_start = start
        # a wrapped item's next line may wrap on as well: the item goes on while its lines end open
        prev_end, prev_item = end, item or (wrapped and bool(_OPEN_END.search(line.rstrip())))
        prev_line = line
    if seg_start >= 0:
        segments.append((seg_start, prev_end))
    return segments


def _ends_after_period(text: str, cur: int, dot: int) -> bool:
    """Whether a lone "." at `dot` ends an English sentence that began at `cur`."""
    word_start = dot
    while word_start > cur and not text[word_start - 1].isspace():
        word_start -= 1
    word = text[word_start:dot].lstrip("".join(_OPENERS))
    if word.lower() in _ABBREVIATIONS:
        return False
    if len(word) == 1 and word.isupper():  # an initial: J. Smith
        return False
    # "2. " opening a sentence is a list marker, inline or at the start of a line
    return not (not text[cur:word_start].strip() and _LIST_PREFIX.fullmatch(word))


def _is_end(text: str, cur: int, m: re.Match[str], after: int, seg_end: int) -> bool:
    """Whether the terminator run `m` (closers consumed up to `after`) ends the sentence begun at `cur`."""
    run = m.group()
    nxt = text[after] if after < seg_end else ""
    closed = after > m.end()
    if any(ch in _STRONG for ch in run) or (run == "．" and not _between_digits(text, m, seg_end)):
        if run == "．" and _LIST_PREFIX.fullmatch(text[cur : m.start()].strip()):
            return False  # "１．はじめに"
        return not (closed and text.startswith(_QUOTATIVE, after, seg_end))
    if run == "．":
        return False
    if not nxt:
        return run != "." or _ends_after_period(text, cur, m.start())
    if nxt.isspace():
        k = after
        while k < seg_end and text[k].isspace():
            k += 1
        if k < seg_end:
            c = text[k]
            if not (c.isupper() or c.isdigit() or c in _OPENERS or _is_japanese(c)):
                return False
    elif not (_is_japanese(nxt) or nxt in _OPENERS):
        return False  # 3.14, example.com, U.S.A
    return run != "." or _ends_after_period(text, cur, m.start())


def _between_digits(text: str, m: re.Match[str], seg_end: int) -> bool:
    return m.start() > 0 and text[m.start() - 1].isdigit() and m.end() < seg_end and text[m.end()].isdigit()


def trimmed(text: str, start: int, end: int) -> tuple[int, int] | None:
    """text[start:end] without its leading and trailing whitespace, as offsets; None when nothing is left."""
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return (start, end) if start < end else None


def split_sentences(text: str) -> list[tuple[int, int]]:
    """Character spans `(start, end)` of the sentences of `text`, in order.

    Every non-space character is in exactly one span; spans have no leading or trailing whitespace
    (whitespace between sentences belongs to none). Japanese sentences end at 。！？!? plus any closing
    brackets or quotes after them; English ones at . ! ? before a space and an upper-case letter, digit,
    quote or the end, but not after abbreviations (e.g., Mr., Fig., No., vs.) or inside 3.14. Blank
    lines and the line breaks around list items (（1）, 1., ・, -, ①) and headings (第N条) also end one.
    """
    spans: list[tuple[int, int]] = []
    for seg_start, seg_end in _segments(text):
        cur = seg_start
        for m in _TERMINATORS.finditer(text, seg_start, seg_end):
            if m.start() < cur:
                continue
            after = m.end()
            while after < seg_end and text[after] in _CLOSERS:
                after += 1
            if _is_end(text, cur, m, after, seg_end):
                span = trimmed(text, cur, after)
                if span:
                    spans.append(span)
                cur = after
        span = trimmed(text, cur, seg_end)
        if span:
            spans.append(span)
    return spans

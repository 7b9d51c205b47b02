"""Lists cut by a chunk boundary: the lead-in and items a passage lacks, taken from the page around it.

A chunk may end with a lead-in sentence (「次の割増率により…支払う。」, "as follows:") whose items are in the next
chunk, or begin inside a list whose lead-in is in the previous chunk (or at the foot of the previous page). An
answer that quotes such a lead-in, or an item, must come with the rest: `complete_lists` returns the text to put
before and after the chunk so that the list is whole. Pure: the page text around the chunk comes in.
"""
from __future__ import annotations

import re

from kotae.answer import extractive
from kotae.answer.extractive import ITEM, LEAD_IN, MAX_ITEMS, ROW, caption, names_table

__all__ = ["CONTEXT_CHARS", "complete_lists"]

CONTEXT_CHARS = 800  # how far before and after a chunk to look for the rest of its list
_ENDS = "。．.!?！？」』】）)"  # a line ending so (a sentence, a heading 第48条（解雇）) is complete; others may wrap

_STARTS = re.compile(r"^(?:[0-9０-９]{1,2}[ \u3000]|第[0-9０-９一二三四五六七八九十百]+[条章節]|#)")  # a clause, article, heading


def _logical(raw: str) -> list[str]:
    """Raw lines grouped into logical lines: a line that continues a wrapped one (no item mark, the one before
    not ending a sentence) joins it. Each logical line keeps its raw text (line breaks included)."""
    out: list[str] = []
    for line in raw.splitlines(keepends=True):
        body = line.strip()
        if out and body and not ITEM.match(body) and not _STARTS.match(body) and out[-1].strip() and out[-1].strip()[-1] not in _ENDS \
                and not LEAD_IN.search(out[-1].strip()) and not ROW.search(body) and not ROW.search(out[-1]):
            out[-1] += line
        else:
            out.append(line)
    return out


def _before(before: str, text: str) -> str:
    """The end of `before` from the lead-in of the list that `text` begins inside, or ""."""
    head = _logical(text)[:2]
    if not any(ITEM.match(x.strip()) for x in head):
        return ""
    lines = _logical(before)
    taken = 0
    for i in range(len(lines) - 1, -1, -1):
        body = " ".join(lines[i].split())
        if not body:
            return ""
        if ITEM.match(body) or (i == len(lines) - 1 and not before.endswith("\n")):
            taken += 1
            if taken > MAX_ITEMS:
                return ""
            continue
        return "".join(lines[i:]) if LEAD_IN.search(body) else ""
    return ""


def _after(text: str, after: str) -> str:
    """The start of `after` that completes the list `text` ends with (or ends announcing), or ""."""
    lines = [x for x in _logical(text) if x.strip()]
    if not lines:
        return ""
    last = " ".join(lines[-1].split())
    mid_line = not text.endswith("\n") and not after.startswith("\n")
    table = extractive.TABLE_ROWS and (names_table(last) or caption(last))  # the table's rows may follow (its caption between)
    if not (LEAD_IN.search(last) or ITEM.match(last) or table):
        return ""
    rows_may = extractive.TABLE_ROWS and not ITEM.match(last)  # rows after a lead-in or a table's name, not an item
    out: list[str] = []
    caption_line = ""  # a table's caption between the chunk and the table's rows
    kind = None  # ITEM or ROW, as the first item is
    taken = 0
    for n, line in enumerate(_logical(after)):
        body = line.strip()
        if n == 0 and mid_line and not ITEM.match(body) and not ROW.search(body):  # the rest of the chunk's last line
            out.append(line)
            continue
        if not body and not any(x.strip() for x in out):  # a blank line before the first item (Markdown's
            out.append(line)                              # "as follows:" + blank line, or the next page joined on)
            continue
        if table and not taken and not caption_line and caption(body):
            caption_line = line
            continue
        kind = kind or (ITEM if ITEM.match(body) else ROW if rows_may and ROW.search(body) else None)
        if not body or kind is None or not kind.search(body) or taken >= MAX_ITEMS:
            break
        if caption_line:
            out.append(caption_line)
            caption_line = ""
        out.append(line)
        taken += 1
    return "".join(out)


def complete_lists(before: str, text: str, after: str) -> tuple[str, str]:
    """(prefix, suffix) to put around the chunk `text`: the lead-in and items before it when it begins inside a
    list, the items after it when it ends with a lead-in or inside a list. `before`/`after` are the page text
    just before and after the chunk (the previous and next page's joined on with a line break)."""
    prefix = _before(before, text)
    suffix = _after(text, after)
    return prefix, suffix.rstrip()


"""Pure text-cleaning passes: plain strings (or lists of page strings) in, the same out.

Readers chain these; none of them opens a file. Display text keeps its original width;
`normalize_width` is for search text only.
"""

from __future__ import annotations

import itertools
import re
import unicodedata
from collections.abc import Callable

from kotae.ingest.headings import heading_of

# PDFium writes U+FFFE where a word was hyphenated at the end of a line and drops the line break.
_PDFIUM_HYPHEN = "\ufffe"
_SOFT_HYPHEN = "\u00ad"
# C0 controls except \t and \n, DEL, C1 controls, a stray BOM, and the other noncharacters.
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ufeff\ufffe\uffff]")
_SPACES = re.compile(r"[ \t\u00a0]+")
_BLANK_RUN = re.compile(r"\n{3,}")
_HYPHEN_BREAK = re.compile(r"([^\W\d_])-\n[ \t]*(?=([^\W\d_]))")
_DIGITS = re.compile(r"\d+")
_PAGE_NUMBER = re.compile(
    r"[-–—―‐ー~]*\s*\d{1,4}\s*[-–—―‐ー~]*"  # 3 · - 3 - · — 3 —
    r"|(?:page|pg\.?|p\.)\s*\d{1,4}(?:\s*(?:of|/)\s*\d{1,4})?"  # Page 3 · Page 3 of 10 · p. 3
    r"|\d{1,4}\s*/\s*\d{1,4}"  # 3 / 10
    r"|\d{1,4}\s*(?:ページ|頁)",  # 3ページ
    re.IGNORECASE,
)
_REFERENCES = re.compile(
    r"(?:#{1,6}\s*)?(?:(?:\d+|[IVX]+)\.?\s+)?"
    r"(?:references|bibliography|works cited|参考文献|引用文献)\s*[:：]?",
    re.IGNORECASE,
)
RUNNING_LINE_MAX = 60  # longer lines are body text, never running headers…
REPEATED_SHARE = 0.9  # …unless the very same line sits at the edge of this share of the pages (said once then)
EDGE_LINES = 3  # running headers/footers and page numbers live in the first/last lines of a page


def normalize_newlines(text: str) -> str:
    """Turn \\r\\n and lone \\r into \\n (PDFium separates lines with \\r\\n)."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


def mark_line_end_hyphens(text: str) -> str:
    """Restore PDFium's end-of-line hyphen marker (U+FFFE) and line-end soft hyphens as "-\\n".

    Soft hyphens elsewhere are invisible and removed. `rejoin_hyphens` then decides whether to join.
    """
    text = text.replace(_PDFIUM_HYPHEN, "-\n")
    text = re.sub(_SOFT_HYPHEN + r"[ \t]*\n", "-\n", text)
    return text.replace(_SOFT_HYPHEN, "")


def remove_control_chars(text: str) -> str:
    """Remove NUL, C0/C1 control characters (keeping \\t and \\n), stray BOMs and noncharacters."""
    return _CONTROL.sub("", text.replace("\f", "\n").replace("\v", "\n"))


def collapse_spaces(text: str) -> str:
    """Collapse runs of spaces/tabs inside each line to one space and strip each line's ends.

    Meant for layout text (PDF), where runs of spaces are positioning artefacts.
    Full-width spaces (U+3000) are kept: they are part of Japanese text.
    """
    return "\n".join(_SPACES.sub(" ", line).strip(" ") for line in text.split("\n"))


def strip_trailing_spaces(text: str) -> str:
    """Strip spaces and tabs at the end of every line, keeping indentation."""
    return "\n".join(line.rstrip(" \t") for line in text.split("\n"))


def squeeze_blank_lines(text: str) -> str:
    """Keep at most one blank line in a row and drop blank lines at both ends."""
    return _BLANK_RUN.sub("\n\n", text).strip("\n")


def rejoin_hyphens(text: str) -> str:
    """Join a word hyphenated across a line break when the next letter is lower case.

    "inter-\\nnational" → "international"; "Jean-\\nPaul" is kept as is.
    """

    def join(m: re.Match[str]) -> str:
        return m.group(1) if m.group(2).islower() else m.group(0)

    return _HYPHEN_BREAK.sub(join, text)


def normalize_width(text: str) -> str:
    """NFKC-normalise for search: "ＡＢＣ１２３" → "ABC123", half-width katakana → full width."""
    return unicodedata.normalize("NFKC", text)


def fix_mojibake(text: str) -> str:
    """Repair text decoded with the wrong codec ("Ã©" → "é"); correct text is left untouched.

    Only ftfy's encoding fixes run: quotes, widths, ligatures and entities stay as written.
    """
    import ftfy  # (here: 0.5 s to import, which a one-shot `kotae ask` need not pay)

    return ftfy.fix_encoding(text) if text else text


def _edges(page: str) -> list[tuple[int, bool]]:
    """(line index, outermost?) for the first and last EDGE_LINES non-blank lines of a page."""
    filled = [i for i, line in enumerate(page.split("\n")) if line.strip()]
    picked = sorted(set(filled[:EDGE_LINES] + filled[-EDGE_LINES:]))
    return [(i, i in (filled[0], filled[-1])) for i in picked]


def running_keys(line: str, outermost: bool) -> set[str]:
    """The forms in which a line is compared across pages (NFKC, stripped).

    The outermost line of each end is also compared with digit runs as "#", so "- 3 -" and
    "- 4 -" (or "Page 3 of 10") count as the same line; and, when it begins or ends with a page number (arabic
    or lower-case roman), also as its words without that number (`folio`; a heading line too: a book's "4 Row
    and Column Access Control …" reads as one, and only the same words on three pages with a rising number make
    it a running line). Other lines further in, and heading lines ("第1条" vs "第2条"), must repeat exactly: short
    body lines differing by a number are not headers.
    """
    exact = normalize_width(line).strip()
    split = folio(exact) if outermost else None  # "4 Row and Column Access Control …" reads as a numbered heading
    keys = {exact} | ({split[0]} if split else set())
    if outermost and not heading_of(exact):
        keys.add(_DIGITS.sub("#", exact))
    return keys


_NUMERAL = r"\d{1,4}|(?=[ivxlc])c{0,3}(?:xc|xl|l?x{0,3})(?:ix|iv|v?i{0,3})"  # arabic, or a lower-case roman numeral
_FOLIO_EDGE = re.compile(rf"(?P<n>{_NUMERAL})\s+(?P<rest>\S.*)|(?P<rest2>.*\S)\s+(?P<n2>{_NUMERAL})")
_ROMAN = {"i": 1, "v": 5, "x": 10, "l": 50, "c": 100}
FOLIO_PAGES = 3  # a running line with its page number: on at least this many pages, the number rising


def folio(line: str) -> tuple[str, str, int] | None:
    """(key, kind, number) of a line that begins or ends with a page number ("4 Row and Column Access Control
    Support in IBM DB2 for i", "Chapter 3. Row and Column Access Control 15", "… All rights reserved. xi"):
    the key is the rest of the line, marked with the number's side; kind "arabic" or "roman". None for other
    lines, and for a rest under three words (or eight characters without spaces: Japanese), which could be a
    caption or an item ("Figure 3", "Step 4")."""
    m = _FOLIO_EDGE.fullmatch(line)
    if not m:
        return None
    number, rest, side = (m["n"], m["rest"], "<") if m["n"] else (m["n2"], m["rest2"], ">")
    if len(rest.split()) < 3 and len(rest.replace(" ", "")) < 8:
        return None
    if number.isdigit():
        return f"{side}§{rest}", "arabic", int(number)
    values = [_ROMAN[c] for c in number]
    return f"{side}§{rest}", "roman", sum(-v if i + 1 < len(values) and v < values[i + 1] else v
                                           for i, v in enumerate(values))


def find_running_lines(pages: list[str]) -> set[str]:
    """Detect running headers/footers: short edge lines found on at least half of the pages.

    Needs at least 3 pages with text. Returns the matching forms (see `running_keys`),
    to be passed to `drop_running_lines`.
    """
    def keys(line: str, outermost: bool) -> set[str]:
        return running_keys(line, outermost) if len(line.strip()) <= RUNNING_LINE_MAX else set()

    return {k for k in _edge_lines_on(pages, keys, 0.5) if "§" not in k} | _folio_lines(pages)


def _folio_lines(pages: list[str]) -> set[str]:
    """The `folio` keys of outermost lines found on FOLIO_PAGES pages or more with a page number that rises with
    the page (within each kind: roman front matter, then arabic): a book's running header or footer, which
    alternates between left and right pages and changes with the chapter, so no one form is on half the pages."""
    seen: dict[str, list[tuple[int, str, int]]] = {}
    for p, page in enumerate(pages):
        lines = page.split("\n")
        for i, outermost in _edges(page):
            line = normalize_width(lines[i]).strip()
            if not outermost or len(line) > RUNNING_LINE_MAX:
                continue
            split = folio(line)
            if split:
                seen.setdefault(split[0], []).append((p, split[1], split[2]))
    out = set()
    for key, found in seen.items():
        pages_with = {p for p, _, _ in found}
        rising = all(all(a < b for a, b in itertools.pairwise(vals))
                     for kind in ("arabic", "roman") for vals in [[n for _, k, n in found if k == kind]])
        if len(pages_with) >= FOLIO_PAGES and len(pages_with) == len(found) and rising:
            out.add(key)
    return out


def _edge_lines_on(pages: list[str], keys: Callable[[str, bool], set[str]], share: float) -> set[str]:
    """The `keys` of the edge lines found on at least `share` of the pages with text (at least 3 of them)."""
    texts = [p for p in pages if p.strip()]
    if len(texts) < 3:
        return set()
    counts: dict[str, int] = {}
    for page in texts:
        lines = page.split("\n")
        for key in {k for i, outermost in _edges(page) for k in keys(lines[i], outermost)}:
            counts[key] = counts.get(key, 0) + 1
    return {key for key, n in counts.items() if n >= share * len(texts)}


def _drop_edge_lines(page: str, drop: Callable[[str, bool], bool]) -> str:
    lines = page.split("\n")
    gone = {i for i, outermost in _edges(page) if drop(lines[i].strip(), outermost)}
    return squeeze_blank_lines("\n".join(line for i, line in enumerate(lines) if i not in gone))


def drop_running_lines(pages: list[str], lines: set[str]) -> list[str]:
    """Remove, from the first/last lines of each page, the running lines found by `find_running_lines`."""
    if not lines:
        return list(pages)
    return [
        _drop_edge_lines(page, lambda line, outer: bool(running_keys(line, outer) & lines)) for page in pages
    ]


def find_repeated_lines(pages: list[str]) -> set[str]:
    """Edge lines too long for a running header (over RUNNING_LINE_MAX) found word for word on REPEATED_SHARE of
    the pages with text (at least 3): a printer's proof note, a notice on every page. `drop_repeats` keeps the
    first and drops the rest: said once, it is still found; said on every page, it crowds every chunk."""
    def keys(line: str, outermost: bool) -> set[str]:
        return {normalize_width(line).strip()} if len(line.strip()) > RUNNING_LINE_MAX else set()

    return _edge_lines_on(pages, keys, REPEATED_SHARE)


def drop_repeats(pages: list[str], lines: set[str]) -> list[str]:
    """Remove, from the first/last lines of each page, the lines found by `find_repeated_lines`, but for each
    line's first appearance."""
    if not lines:
        return list(pages)
    seen: set[str] = set()

    def drop(line: str, outermost: bool) -> bool:
        key = normalize_width(line).strip()
        if key not in lines:
            return False
        if key in seen:
            return True
        seen.add(key)
        return False

    return [_drop_edge_lines(page, drop) for page in pages]


def is_page_number(line: str) -> bool:
    """True for a bare page-number line: "3", "- 3 -", "— 3 —", "Page 3", "3 / 10", "p. 3"."""
    return bool(_PAGE_NUMBER.fullmatch(normalize_width(line).strip()))


def drop_page_numbers(page_text: str) -> str:
    """Remove bare page-number lines that are the first or last line of a page.

    Only the outermost lines: numbers further in are more likely table cells than page numbers.
    Run it after `drop_running_lines`, which takes away the headers that sit outside them.
    """
    return _drop_edge_lines(page_text, lambda line, outermost: outermost and is_page_number(line))


_FOLIO = re.compile(r"[-–—―‐]\s*(\d{1,4})\s*[-–—―‐]")


def drop_folios(page_text: str, number: int) -> str:
    """Remove the lines that are this page's own number between dashes ("-3-" on page 3), or a short line
    (a running header or footer) that begins or ends with it ("Instructions for Form 1040NR -17-"), wherever
    they are: a footer centred between two columns is read between them and would split a sentence ("the
    dividend\n-3-\npayments"). Another number between dashes ("enter\n-0-\non line 16b") is text and stays."""
    def folio(line: str) -> bool:
        line = normalize_width(line).strip()
        if len(line) > RUNNING_LINE_MAX:
            return False
        edges = [m for m in _FOLIO.finditer(line) if m.start() == 0 or m.end() == len(line)]
        return any(int(m.group(1)) == number for m in edges)

    lines = page_text.split("\n")
    kept = [line for line in lines if not folio(line)]
    return page_text if len(kept) == len(lines) else squeeze_blank_lines("\n".join(kept))


def is_references_heading(line: str) -> bool:
    """True for a heading line "References", "Bibliography", "参考文献" (optionally numbered)."""
    return bool(_REFERENCES.fullmatch(line.strip()))


def cut_references(pages: list[str]) -> list[str]:
    """Cut from the LAST references heading line to the end of the document.

    Later pages become empty strings (never removed), so page numbers stay right.
    """
    for p in range(len(pages) - 1, -1, -1):
        lines = pages[p].split("\n")
        for i in range(len(lines) - 1, -1, -1):
            if is_references_heading(lines[i]):
                head = "\n".join(lines[:i]).rstrip()
                return list(pages[:p]) + [head] + [""] * (len(pages) - p - 1)
    return list(pages)


SURROGATE = re.compile("[\ud800-\udfff]")


def join_surrogates(text: str) -> str:
    """PDFium gives a character outside the BMP (𠮷, 𝑥, a private-use glyph) as two UTF-16 halves, one per
    character index: each pair becomes its character, and a half without its partner U+FFFD. A string with
    halves in it cannot be stored (UTF-8 refuses them), so the whole document failed to index."""
    if not SURROGATE.search(text):
        return text
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


def clean_layout_text(text: str) -> str:
    """The per-page passes for layout text (PDF), in order.

    Mojibake is fixed before control characters go, because C1 controls are part of
    the mojibake that ftfy needs to see ("â\\x80\\x94" → "—").
    """
    text = mark_line_end_hyphens(normalize_newlines(join_surrogates(text)))
    text = remove_control_chars(fix_mojibake(text))
    return squeeze_blank_lines(collapse_spaces(text))


def clean_plain_text(text: str) -> str:
    """The passes for text formats: line endings, control characters, trailing spaces, mojibake."""
    text = remove_control_chars(fix_mojibake(normalize_newlines(text)))
    return strip_trailing_spaces(text)

"""HTML reader (BeautifulSoup + lxml): page chrome dropped, h1–h6 headings, blocks as lines, tables as rows."""

from __future__ import annotations

import re

from bs4 import BeautifulSoup, NavigableString, Tag
from bs4.element import PreformattedString

from kotae.ingest.clean import clean_plain_text
from kotae.ingest.encoding import decode_text
from kotae.ingest.layout import Block, assemble
from kotae.ingest.registry import register
from kotae.ingest.tables import render_table
from kotae.types import ParsedDocument

DROP = (
    "head",
    "title",
    "script",
    "style",
    "nav",
    "footer",
    "aside",
    "noscript",
    "template",
    "svg",
    "iframe",
    "select",
    "button",
)
BLOCK = {
    "address",
    "article",
    "blockquote",
    "body",
    "caption",
    "center",
    "dd",
    "details",
    "div",
    "dl",
    "dt",
    "fieldset",
    "figcaption",
    "figure",
    "form",
    "hr",
    "html",
    "legend",
    "li",
    "main",
    "ol",
    "p",
    "section",
    "summary",
    "ul",
    "br",
    "header",
}
_HEADING = re.compile(r"h([1-6])")
_CJK = "\u3000-\u9fff\uf900-\ufaff\uff00-\uffef"
_CJK_BREAK = re.compile(rf"(?<=[{_CJK}])[ \t\r\n]*\n[ \t\r\n]*(?=[{_CJK}])")
_WHITESPACE = re.compile(r"[ \t\r\n\f\u00a0]+")


def collapse(text: str) -> str:
    """HTML whitespace: runs become one space; a line break between two CJK characters disappears."""
    return _WHITESPACE.sub(" ", _CJK_BREAK.sub("", text)).strip()


def _drop_chrome(soup: BeautifulSoup) -> None:
    for tag in soup.find_all(DROP):
        tag.decompose()
    for tag in soup.find_all(lambda t: t.has_attr("hidden") or t.get("aria-hidden") == "true"):
        tag.decompose()
    # A site header goes; an article's own header (often holding its h1) stays.
    for tag in soup.find_all("header"):
        if tag.find_parent(["article", "main"]) is None:
            tag.decompose()


def _table_rows(table: Tag) -> list[list[str]]:
    rows = []
    for tr in table.find_all("tr"):
        if tr.find_parent("table") is table:
            rows.append([collapse(c.get_text(" ")) for c in tr.find_all(["th", "td"], recursive=False)])
    return rows


class _Walker:
    def __init__(self) -> None:
        self.blocks: list[Block] = []
        self.line: list[str] = []

    def flush(self) -> None:
        text = collapse("".join(self.line))
        if text:
            self.blocks.append(Block(text))
        self.line = []

    def walk(self, node: Tag) -> None:
        """Blocks of `node`'s content in document order; iterative, so 100,000 nested tags need no recursion."""
        todo: list[object] = list(reversed(list(node.children)))
        while todo:
            child = todo.pop()
            if child is _FLUSH:
                self.flush()
                continue
            if isinstance(child, NavigableString):
                if not isinstance(child, PreformattedString):  # comments, doctype, CDATA
                    self.line.append(str(child))
                continue
            if not isinstance(child, Tag):
                continue
            name = child.name
            heading = _HEADING.fullmatch(name)
            if heading or name in ("table", "pre"):
                self.flush()
                if heading:
                    text = collapse(child.get_text(" "))
                    block = Block(text, heading=(int(heading.group(1)), text)) if text else None
                elif name == "table":
                    block = Block(render_table(_table_rows(child)), kind="table")
                else:
                    block = Block(child.get_text().strip("\n"))
                if block and block.text.strip():
                    self.blocks.append(block)
            elif name in BLOCK or name in ("td", "th", "tr"):
                self.flush()
                todo.append(_FLUSH)
                todo.extend(reversed(list(child.children)))
            else:
                todo.extend(reversed(list(child.children)))


_FLUSH = object()  # in the walk's to-do list: the end of a block element


@register("html", extensions=(".html", ".htm"))
def read_html(path: str, data: bytes) -> ParsedDocument:
    """Read HTML as one page: headings h1–h6, block elements as lines, tables as "column: value" rows."""
    soup = BeautifulSoup(clean_plain_text(decode_text(path, data)), "lxml")
    title = collapse(soup.title.get_text()) if soup.title else ""
    _drop_chrome(soup)
    walker = _Walker()
    walker.walk(soup)
    walker.flush()
    pages, sections = assemble(walker.blocks)
    warnings = () if pages[0].strip() else ("the page has no text",)
    return ParsedDocument(
        path=path, kind="html", pages=tuple(pages), sections=tuple(sections), warnings=warnings, title=title
    )

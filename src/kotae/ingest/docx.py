"""DOCX reader (python-docx): body in document order, heading styles and Word's automatic numbers, tables (and
tables inside their cells), charts' figures, SmartArt, equations, footnotes after the paragraph that marks them,
page breaks."""

from __future__ import annotations

import io
import re
from collections.abc import Iterator
from dataclasses import dataclass, field

import docx
from docx.oxml.ns import qn
from docx.table import Table
from docx.text.paragraph import Paragraph

from kotae.errors import DocumentError
from kotae.ingest import ooxml_strict
from kotae.ingest.charts import C, chart_rows, chart_title, parse_part
from kotae.ingest.clean import clean_plain_text
from kotae.ingest.diagrams import REL_IDS, diagram_lines
from kotae.ingest.docx_numbering import Numbering
from kotae.ingest.layout import Block, assemble
from kotae.ingest.ocr import OcrOptions, as_options
from kotae.ingest.pictures import read_pictures
from kotae.ingest.registry import register
from kotae.ingest.tables import render_table
from kotae.types import ParsedDocument

_BREAK = None  # marker for a page break in a paragraph's pieces
_HEADING_STYLE = re.compile(r"heading (\d)", re.IGNORECASE)
_TEXT = {qn("w:tab"): "\t", qn("w:cr"): "\n", qn("w:noBreakHyphen"): "-"}
_FALLBACK = "{http://schemas.openxmlformats.org/markup-compatibility/2006}Fallback"
_SKIP = {_FALLBACK, qn("w:delText"), qn("w:instrText"), qn("w:pPr"), qn("w:rPr")}


def _pieces(element) -> Iterator[str | None]:  # type: ignore[no-untyped-def]
    """Text of an element in order, with `_BREAK` where a page ends; an equation as its linear text."""
    for child in element:
        tag = child.tag
        if tag in _SKIP:
            continue
        if tag == qn("w:t"):
            yield child.text or ""
        elif tag in _TEXT:
            yield _TEXT[tag]
        elif tag == qn("w:br"):
            kind = child.get(qn("w:type"))
            yield _BREAK if kind == "page" else ("" if kind == "column" else "\n")
        elif tag == qn("w:lastRenderedPageBreak"):
            yield _BREAK
        elif tag in (qn("w:footnoteReference"), qn("w:endnoteReference")):
            yield _note_mark(child)
        elif tag in (_MATH + "oMath", _MATH + "oMathPara"):
            yield _math(child).strip()
        else:
            yield from _pieces(child)


_MATH = "{http://schemas.openxmlformats.org/officeDocument/2006/math}"


def _note_mark(ref) -> str:  # type: ignore[no-untyped-def]
    """The mark a footnote (*1) or an endnote (**1) reference shows in the text, by the note's id."""
    return ("*" if ref.tag == qn("w:footnoteReference") else "**") + (ref.get(qn("w:id")) or "")


def _math(element) -> str:  # type: ignore[no-untyped-def]
    """An Office Math (OMML) element as linear text: A=πr^2, (−b±√(b^2−4ac))/(2a)."""
    tag = element.tag
    part = {c.tag: c for c in element}
    if tag == _MATH + "t":
        return element.text or ""
    if tag.endswith("Pr") and tag.startswith(_MATH):  # properties: no text
        return ""
    if tag == _MATH + "f" and _MATH + "num" in part and _MATH + "den" in part:
        return f"({_math(part[_MATH + 'num'])})/({_math(part[_MATH + 'den'])})"
    if tag in (_MATH + "sSup", _MATH + "sSub", _MATH + "sSubSup"):
        base = _math(part[_MATH + "e"]) if _MATH + "e" in part else ""
        sub = _group(_math(part[_MATH + "sub"])) if _MATH + "sub" in part else ""
        sup = _group(_math(part[_MATH + "sup"])) if _MATH + "sup" in part else ""
        return base + (f"_{sub}" if sub else "") + (f"^{sup}" if sup else "")
    if tag == _MATH + "nary":  # ∑, ∏, ∫ with their limits
        props = part.get(_MATH + "naryPr")
        sign = next((c.get(_MATH + "val") for c in (props if props is not None else ()) if c.tag == _MATH + "chr"), "∫")
        sub = _group(_math(part[_MATH + "sub"])) if _MATH + "sub" in part else ""
        sup = _group(_math(part[_MATH + "sup"])) if _MATH + "sup" in part else ""
        body = _math(part[_MATH + "e"]) if _MATH + "e" in part else ""
        return sign + (f"_{sub}" if sub else "") + (f"^{sup}" if sup else "") + " " + body
    if tag == _MATH + "func":  # cos(x)
        name = _math(part[_MATH + "fName"]) if _MATH + "fName" in part else ""
        e = part.get(_MATH + "e")
        arg = _math(e) if e is not None else ""
        bracketed = e is not None and [c.tag for c in e if not c.tag.endswith("Pr")] == [_MATH + "d"]
        return name + (arg if bracketed else f"({arg})")
    if tag == _MATH + "rad":
        return f"√({_math(part[_MATH + 'e'])})" if _MATH + "e" in part else ""
    if tag == _MATH + "d":
        props = part.get(_MATH + "dPr")
        begin = end = None
        if props is not None:
            for c in props:
                if c.tag == _MATH + "begChr":
                    begin = c.get(_MATH + "val")
                elif c.tag == _MATH + "endChr":
                    end = c.get(_MATH + "val")
        inner = ", ".join(_math(c) for c in element if c.tag == _MATH + "e")
        return f"{'(' if begin is None else begin}{inner}{')' if end is None else end}"
    if tag == qn("w:t"):
        return element.text or ""
    return "".join(_math(c) for c in element)


def _group(text: str) -> str:
    return text if len(text) <= 1 else f"({text})"


def _heading_level(paragraph: Paragraph) -> int | None:
    style = paragraph.style
    for _ in range(4):  # custom styles based on "Heading N" count as that level
        if style is None:
            return None
        name = style.name or ""
        if name == "Title":
            return 0
        m = _HEADING_STYLE.fullmatch(name)
        if m:
            return int(m.group(1))
        style = style.base_style
    return None


class _Pages:
    """Page counter that ignores a rendered break right after an explicit one (Word writes both)."""

    def __init__(self) -> None:
        self.page = 1
        self.text_since_break = True  # a break at the very start is a blank first page
        self.started = False

    def feed(self, piece: str | None) -> bool:
        """Count a piece; True when it started a new page."""
        if piece is _BREAK:
            if self.text_since_break:
                self.page += 1
                self.text_since_break = False
                return True
            return False
        if piece and piece.strip():
            self.text_since_break = self.started = True
        return False


def _paragraph_blocks(paragraph: Paragraph, pages: _Pages, doc: _Doc) -> Iterator[Block]:
    ppr = paragraph._p.pPr
    before = ppr.find(qn("w:pageBreakBefore")) if ppr is not None else None
    if pages.started and before is not None and before.get(qn("w:val")) not in ("0", "false"):
        pages.feed(_BREAK)
    level = _heading_level(paragraph)
    label = doc.numbering.label(paragraph._p)  # Word's automatic number: 「第3条」, "1.2", "•"
    text, page = label, pages.page
    for piece in _pieces(paragraph._p):
        if pages.feed(piece):
            if text.strip() and text.strip() != label.strip():  # a number alone goes on with its text, on the new page
                yield Block(text.strip(), page)
                text = ""
            page = pages.page
        elif piece:
            text += piece
    text = text.strip()
    if text and text != label.strip():  # an empty numbered paragraph shows a bare number or bullet: nothing to read
        heading = (level, " ".join(text.split())) if level is not None else None
        yield Block(text, page, heading=heading)
    for ref in paragraph._p.iter(qn("w:footnoteReference"), qn("w:endnoteReference")):  # its notes, right after it
        kind = "footnote" if ref.tag == qn("w:footnoteReference") else "endnote"
        note = doc.notes.get((kind, ref.get(qn("w:id")) or ""))
        if note:
            yield Block(f"{_note_mark(ref)} {note}", pages.page)
    yield from _chart_blocks(paragraph, pages.page)
    seen: set[str] = set()
    for blip in paragraph._p.iter(_BLIP, _VML_IMAGE):  # its pictures: read by OCR once all are known, or left out
        rid = blip.get(qn("r:embed") if blip.tag == _BLIP else qn("r:id")) or ""
        part = paragraph.part.related_parts.get(rid)
        if part is None or rid in seen or _in_fallback(blip):
            continue
        seen.add(rid)
        doc.pictures.append(part.blob)
        yield Block(str(len(doc.pictures) - 1), pages.page, kind=_PICTURE)


def _in_fallback(element) -> bool:  # type: ignore[no-untyped-def]
    """Whether `element` is inside an mc:Fallback (the copy of a drawing for older Word: read once, not twice)."""
    parent = element.getparent()
    while parent is not None:
        if parent.tag == _FALLBACK:
            return True
        parent = parent.getparent()
    return False


_BLIP = "{http://schemas.openxmlformats.org/drawingml/2006/main}blip"
_VML_IMAGE = "{urn:schemas-microsoft-com:vml}imagedata"  # a picture as older Word files (and their copies) hold it
_PICTURE = "picture"  # a placeholder block: its text is the picture's index in `_Doc.pictures`


def _chart_blocks(paragraph: Paragraph, page: int) -> Iterator[Block]:
    """The charts and SmartArt drawn in a paragraph: a chart's title, then its figures as rows
    (kotae.ingest.charts); a SmartArt graphic's boxes, a line each (kotae.ingest.diagrams)."""
    for ref in paragraph._p.iter(C + "chart", REL_IDS):
        rid = ref.get(qn("r:id") if ref.tag == C + "chart" else qn("r:dm")) or ""
        part = paragraph.part.related_parts.get(rid)
        space = parse_part(part.blob) if part is not None else None
        if space is None:
            continue
        if ref.tag == REL_IDS:
            lines = diagram_lines(space)
            if lines:
                yield Block("\n".join(lines), page)
            continue
        title, rows = chart_title(space), chart_rows(space)
        if title:
            yield Block(title, page)
        if len(rows) > 1:
            yield Block(render_table(rows), page, kind="table")


def _table_block(table: Table, pages: _Pages, doc: _Doc) -> Iterator[Block]:
    if len(table.rows) == 1 and len(table.columns) == 1:  # a box drawn round its content: read what it holds
        yield from _blocks(table._parent, pages, table.rows[0].cells[0]._tc, doc)
        return
    rows = []
    for row in table.rows:
        seen, cells = set(), []
        for cell in row.cells:
            if id(cell._tc) not in seen:  # merged cells repeat; keep each once
                seen.add(id(cell._tc))
                cells.append(" ".join(_cell_text(cell._tc, doc).split()))
        rows.append(cells)
    page = pages.page
    text = render_table(rows)
    if text:
        pages.text_since_break = pages.started = True
        yield Block(text, page, kind="table")
    for piece in _pieces(table._tbl):  # a table running over a page break moves what follows
        pages.feed(piece)


def _cell_text(tc, doc: _Doc) -> str:  # type: ignore[no-untyped-def]
    """A table cell's text as its paragraphs read (checkbox states and equations included), a table inside it as
    its rows, one after another."""
    out = []
    for child in tc.iterchildren():
        if child.tag == qn("w:p"):
            label, words = doc.numbering.label(child), "".join(p for p in _pieces(child) if p)
            out.append((label if words.strip() else "") + words)
        elif child.tag == qn("w:tbl"):
            out += ["; ".join(" ".join(_cell_text(c, doc).split()) for c in row.iterchildren(qn("w:tc")))
                    for row in child.iterchildren(qn("w:tr"))]
        elif child.tag == qn("w:sdt"):
            content = child.find(qn("w:sdtContent"))
            if content is not None:
                out.append(_cell_text(content, doc))
    return "\n".join(out)


def _blocks(document, pages: _Pages, container, doc: _Doc) -> Iterator[Block]:  # type: ignore[no-untyped-def]
    for child in container.iterchildren():
        if child.tag == qn("w:p"):
            yield from _paragraph_blocks(Paragraph(child, document), pages, doc)
        elif child.tag == qn("w:tbl"):
            yield from _table_block(Table(child, document), pages, doc)
        elif child.tag == qn("w:sdt"):  # content controls (e.g. a table of contents) hold body blocks
            content = child.find(qn("w:sdtContent"))
            if content is not None:
                yield from _blocks(document, pages, content, doc)


@dataclass(frozen=True)
class _Doc:
    """What reading a paragraph needs from the rest of the package: Word's list numbering, the footnotes' and
    endnotes' texts (by id)."""

    numbering: Numbering
    notes: dict[tuple[str, str], str]
    pictures: list[bytes] = field(default_factory=list)  # the pictures met so far, in reading order

    @classmethod
    def of(cls, document) -> _Doc:  # type: ignore[no-untyped-def]
        try:
            numbering = document.part.numbering_part.element
        except (KeyError, NotImplementedError):  # a document without numbering.xml numbers nothing
            numbering = None
        notes: dict[tuple[str, str], str] = {}
        for rel in document.part.rels.values():
            kind = rel.reltype.rsplit("/", 1)[-1]
            if kind not in ("footnotes", "endnotes") or rel.is_external:
                continue
            root = parse_part(rel.target_part.blob)
            for note in root.iterchildren(qn("w:footnote"), qn("w:endnote")) if root is not None else ():
                if note.get(qn("w:type")) in (None, "normal"):  # separators are no notes
                    text = " ".join("".join(p for p in _pieces(note) if p).split())
                    if text:
                        notes[kind[:-1], note.get(qn("w:id")) or ""] = text
        return cls(Numbering(numbering, document.styles.element), notes)


@register("docx", extensions=(".docx",))
def read_docx(path: str, data: bytes, *, ocr: str | OcrOptions = "auto") -> ParsedDocument:
    """Read a DOCX: page numbers follow explicit and rendered page breaks (page 1 without any); pictures that hold
    text are read by OCR where they stand (kotae.ingest.pictures)."""
    try:
        document = docx.Document(io.BytesIO(ooxml_strict.package(path, data)))
        pages = _Pages()
        doc = _Doc.of(document)
        found = list(_blocks(document, pages, document.element.body, doc))
        read, notes = read_pictures(doc.pictures, as_options(ocr))
        blocks = [
            Block(clean_plain_text(read[int(b.text)] if b.kind == _PICTURE else b.text), b.page, b.heading,
                  "text" if b.kind == _PICTURE else b.kind)
            for b in found if b.kind != _PICTURE or read[int(b.text)]
        ]
        title = document.core_properties.title or ""
    except DocumentError:
        raise
    except Exception as exc:  # python-docx raises KeyError, ValueError, lxml and zip errors alike
        raise DocumentError(
            path, f"not a valid DOCX file ({type(exc).__name__}: {exc})", "open it in Word and save it again"
        ) from exc
    texts, sections = assemble(blocks, page_count=pages.page)
    warnings = notes + (() if any(t.strip() for t in texts) else ("the document has no text",))
    return ParsedDocument(
        path=path,
        kind="docx",
        pages=tuple(texts),
        sections=tuple(sections),
        warnings=warnings,
        title=title.strip(),
    )

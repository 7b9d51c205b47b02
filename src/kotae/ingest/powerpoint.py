"""PowerPoint reader (python-pptx): each slide a page, its title the heading, then its text in reading order
(top to bottom, left to right; groups opened), tables as "column: value" rows, charts as their title and the
figures they plot (kotae.ingest.charts), SmartArt as its boxes' text, and the speaker notes last,
under a "Speaker notes" heading: "deck.pptx slide 3 › 売上見通し › Speaker notes".
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pptx
from pptx.enum.shapes import MSO_SHAPE_TYPE, PP_PLACEHOLDER
from pptx.oxml.ns import qn

from kotae.errors import DocumentError
from kotae.ingest import ooxml_strict
from kotae.ingest.charts import chart_rows, chart_title, parse_part
from kotae.ingest.clean import clean_plain_text
from kotae.ingest.diagrams import REL_IDS, diagram_lines
from kotae.ingest.layout import Block, assemble
from kotae.ingest.ocr import OcrOptions, as_options
from kotae.ingest.pictures import read_pictures
from kotae.ingest.registry import register
from kotae.ingest.tables import render_table
from kotae.types import ParsedDocument, Section

__all__ = ["NOTES", "read_pptx"]

NOTES = "Speaker notes"
_TITLES = (PP_PLACEHOLDER.TITLE, PP_PLACEHOLDER.CENTER_TITLE, PP_PLACEHOLDER.VERTICAL_TITLE)
_BANDS = 40  # shapes whose tops differ by less than 1/40 of the slide's height are on one line


def _text(frame: Any) -> str:
    lines = (" ".join(p.text.replace("\v", "\n").split(" ")) for p in frame.paragraphs)
    return clean_plain_text("\n".join(line for line in lines if line.strip())).strip()


def _table(shape: Any) -> str:
    rows = []
    for row in shape.table.rows:
        rows.append([" ".join(c.text.split()) for c in row.cells if not c.is_spanned])  # a merged cell once
    return render_table(rows)


def _shapes(shapes: Any, band: float) -> Iterator[Any]:
    """Shapes in reading order, the shapes of groups in their place."""
    def key(s: Any) -> tuple[float, float]:
        return ((s.top or 0) // band, s.left or 0)

    for shape in sorted(shapes, key=key):
        if shape.shape_type == MSO_SHAPE_TYPE.GROUP:
            yield from _shapes(shape.shapes, band)
        else:
            yield shape


def _is_title(shape: Any) -> bool:
    return bool(shape.is_placeholder and shape.placeholder_format.type in _TITLES)


_PICTURE = "picture"  # a placeholder block: its text is the picture's index in the deck's list of pictures


def _slide_blocks(slide: Any, band: float, pictures: list[bytes]) -> list[Block]:
    blocks: list[Block] = []
    title = next((s for s in slide.shapes if _is_title(s) and s.has_text_frame and _text(s.text_frame)), None)
    if title is not None:
        label = _text(title.text_frame)
        blocks.append(Block(label, heading=(1, " ".join(label.split()))))
    for shape in _shapes(slide.shapes, band):
        if title is not None and shape.shape_id == title.shape_id:  # proxies differ: compare ids
            continue
        if getattr(shape, "has_table", False) and shape.has_table:
            text = _table(shape)
            if text:
                blocks.append(Block(text, kind="table"))
        elif getattr(shape, "has_chart", False) and shape.has_chart:
            space = shape.chart._chartSpace  # the chart part's XML: its title and the figures it plots
            title, rows = chart_title(space), chart_rows(space)
            if title:
                blocks.append(Block(title))
            if len(rows) > 1:
                blocks.append(Block(render_table(rows), kind="table"))
        elif shape.has_text_frame:
            text = _text(shape.text_frame)
            if text:
                blocks.append(Block(text))
        elif shape.shape_type == MSO_SHAPE_TYPE.PICTURE or hasattr(shape, "image"):  # by OCR once all are known
            try:
                pictures.append(shape.image.blob)
            except (KeyError, ValueError, AttributeError):  # a linked picture: nothing in the file
                continue
            blocks.append(Block(str(len(pictures) - 1), kind=_PICTURE))
        elif (ref := shape._element.find(".//" + REL_IDS)) is not None:  # SmartArt: its boxes' text
            rid = ref.get(qn("r:dm")) or ""
            part = slide.part.rels[rid].target_part if rid in slide.part.rels else None
            model = parse_part(part.blob) if part is not None else None
            lines = diagram_lines(model) if model is not None else []
            if lines:
                blocks.append(Block("\n".join(lines)))
    if slide.has_notes_slide and slide.notes_slide.notes_text_frame is not None:
        notes = _text(slide.notes_slide.notes_text_frame)
        if notes:
            blocks += [Block(NOTES, heading=(2, NOTES)), Block(notes)]
    return blocks


@register("pptx", extensions=(".pptx",))
def read_pptx(path: str, data: bytes, *, ocr: str | OcrOptions = "auto") -> ParsedDocument:
    """Read a PowerPoint deck: page N is slide N (hidden slides too), headed by its title; pictures that hold text
    are read by OCR where they stand (kotae.ingest.pictures)."""
    try:
        deck = pptx.Presentation(io.BytesIO(ooxml_strict.package(path, data)))
        band = max(1.0, (deck.slide_height or 6858000) / _BANDS)
        pictures: list[bytes] = []
        raw = [_slide_blocks(slide, band, pictures) for slide in deck.slides]
        read, notes = read_pictures(pictures, as_options(ocr))
        slides = [[Block(read[int(b.text)]) if b.kind == _PICTURE else b
                   for b in blocks if b.kind != _PICTURE or read[int(b.text)]] for blocks in raw]
        title = deck.core_properties.title or ""
    except DocumentError:
        raise
    except Exception as exc:  # python-pptx raises KeyError, ValueError, lxml and zip errors alike
        raise DocumentError(path, f"not a valid PPTX file ({type(exc).__name__}: {exc})",
                            "open it in PowerPoint and save it again") from exc
    pages: list[str] = []
    sections: list[Section] = []
    for number, blocks in enumerate(slides, start=1):  # one slide at a time: a title never runs on
        texts, found = assemble(blocks, page_count=1)
        pages.append(texts[0])
        sections += [replace(s, page=number) for s in found]
    warnings = notes + (() if any(p.strip() for p in pages) else ("the presentation has no text",))
    return ParsedDocument(path=path, kind="pptx", pages=tuple(pages) or ("",), sections=tuple(sections),
                          warnings=warnings, title=title.strip())

"""Tables drawn on scanned pages: the rules OCR found on the page image and the words it read, put through the
drawn-table reader of text PDFs (kotae.ingest.pdf_ruled), so a scanned table's rows are rows whatever order
Tesseract read its cells in."""

from __future__ import annotations

from kotae.ingest.ocr import OcrPage
from kotae.ingest.pdf_ruled import Rule, grids, ruled_tables
from kotae.ingest.pdf_tables import Table, Word

__all__ = ["scanned_tables"]


def scanned_tables(page: OcrPage, scale: float) -> list[Table]:
    """The drawn tables of an OCR'd page, its pixels times `scale` (72 / dpi: points, the unit pdf_ruled's
    tolerances are in)."""
    if not page.rules:
        return []
    rules = [Rule(r.horizontal, r.at * scale, r.start * scale, r.end * scale) for r in page.rules]
    words = [Word(w.text, w.x0 * scale, w.y0 * scale, w.x1 * scale, w.y1 * scale, max(1.0, (w.y1 - w.y0) * scale))
             for w in page.words]
    return [table for _, table in ruled_tables(grids(rules), words)]

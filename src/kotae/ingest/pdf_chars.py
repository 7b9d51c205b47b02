"""A PDF character (or word) with its box: what kotae.ingest.pdf_layout and pdf_vertical work on."""

from __future__ import annotations

from typing import NamedTuple


class Char(NamedTuple):
    """One character with its loose box (points, y up) and its index in the text page."""

    text: str
    x0: float
    y0: float
    x1: float
    y1: float
    at: int = -1  # index in the text page

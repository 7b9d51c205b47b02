"""SmartArt (DrawingML diagrams, in DOCX and PPTX alike): the text of its boxes, in the diagram's order.

A SmartArt graphic keeps its text in a data part (`dgm:dataModel`), not in the slide's or the page's text, so a
process drawn as 「申請 → 承認 → 支払」 was invisible to search. Each node (`dgm:pt` of type "node", the default)
holds its text in `dgm:t`; connectors and presentation points hold none that matters. Pure: an lxml element
of the data part in, lines out (one per box, in document order).
"""
from __future__ import annotations

from typing import Any

__all__ = ["DGM", "REL_IDS", "diagram_lines"]

DGM = "{http://schemas.openxmlformats.org/drawingml/2006/diagram}"
A = "{http://schemas.openxmlformats.org/drawingml/2006/main}"
REL_IDS = DGM + "relIds"  # in the page or slide: r:dm names the data part
MAX_BOXES = 500


def diagram_lines(model: Any) -> list[str]:
    """The text of each box of a SmartArt data model, in order (boxes without text left out)."""
    lines: list[str] = []
    points = model.find(DGM + "ptLst")
    for pt in points.iter(DGM + "pt") if points is not None else ():
        if pt.get("type", "node") not in ("node", "asst"):
            continue
        body = pt.find(DGM + "t")
        if body is None:
            continue
        paragraphs = ("".join(t.text or "" for t in p.iter(A + "t")) for p in body.iter(A + "p"))
        text = " ".join(" ".join(p.split()) for p in paragraphs if p.strip())
        if text:
            lines.append(text)
        if len(lines) >= MAX_BOXES:
            break
    return lines

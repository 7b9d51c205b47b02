"""Reading order from layout regions (boxes a layout model found on the page image): pure functions.

A region is a box in PDF points (origin bottom left) with a label ("text", "title", "table", "header",
"footer", ...). Lines (kotae.ingest.pdf_layout.Line) are put in the region that holds most of them;
regions are read by recursive XY-cut: split top to bottom at horizontal gaps no region crosses, then
left to right at vertical gaps, again inside each part; a part that no gap splits is read top down.
The model that finds the regions is kotae.ingest.layout_model (optional).
"""

from __future__ import annotations

from dataclasses import dataclass

from kotae.ingest.pdf_layout import Line

CUT_MIN = 2.0  # points: the narrowest gap the XY-cut splits at


@dataclass(frozen=True, slots=True)
class Region:
    """A layout region in PDF points (y up)."""

    label: str
    x0: float
    y0: float
    x1: float
    y1: float


def _overlap(line: Line, r: Region) -> float:
    w = max(0.0, min(line.x1, r.x1) - max(line.x0, r.x0))
    h = max(0.0, min(line.y1, r.y1) - max(line.y0, r.y0))
    return w * h


def assign(lines: list[Line], regions: list[Region]) -> list[list[Line]]:
    """Each region's lines (in the regions' order), and one more region per line that no region touches
    (its own box): every line is kept exactly once."""
    groups: list[list[Line]] = [[] for _ in regions]
    loose: list[list[Line]] = []
    for ln in lines:
        best = max(range(len(regions)), key=lambda i: _overlap(ln, regions[i]), default=None)
        if best is not None and _overlap(ln, regions[best]) > 0:
            groups[best].append(ln)
        else:
            loose.append([ln])
    return groups + loose


def _box(group: list[Line]) -> tuple[float, float, float, float]:
    return (min(ln.x0 for ln in group), min(ln.y0 for ln in group),
            max(ln.x1 for ln in group), max(ln.y1 for ln in group))


def _cut(boxes: list[tuple[float, float, float, float]], axis: int) -> list[list[int]] | None:
    """Indices of boxes split at gaps along axis 0 (x: left to right) or 1 (y: top to bottom); None: no gap."""
    lo, hi = (0, 2) if axis == 0 else (1, 3)
    order = sorted(range(len(boxes)), key=lambda i: boxes[i][lo] if axis == 0 else -boxes[i][hi])
    parts: list[list[int]] = []
    edge = None
    for i in order:
        b = boxes[i]
        if axis == 0:
            if edge is not None and b[lo] - edge >= CUT_MIN:
                parts.append([])
            edge = b[hi] if edge is None else max(edge, b[hi])
        else:  # top to bottom: y decreases
            if edge is not None and edge - b[hi] >= CUT_MIN:
                parts.append([])
            edge = b[lo] if edge is None else min(edge, b[lo])
        if not parts:
            parts.append([])
        parts[-1].append(i)
    return parts if len(parts) > 1 else None


def xy_cut(boxes: list[tuple[float, float, float, float]]) -> list[int]:
    """Reading order of boxes (x0, y0, x1, y1; y up) by recursive XY-cut: columns first (left to right),
    else bands top to bottom, where consecutive bands that both split into columns stay one band (so
    paragraph gaps that happen to line up across two columns do not interleave them)."""
    def walk(ids: list[int]) -> list[int]:
        if len(ids) <= 1:
            return ids
        sub = [boxes[i] for i in ids]
        parts = _cut(sub, 0)
        if parts is None and (bands := _cut(sub, 1)):
            merged: list[list[int]] = []
            multi_last = False
            for band in bands:
                multi = len(band) > 1 and _cut([sub[j] for j in band], 0) is not None
                if merged and multi and multi_last and len(merged[-1]) + len(band) < len(ids):
                    merged[-1] += band
                else:
                    merged.append(list(band))
                multi_last = multi
            parts = merged
        if parts is None:
            return [ids[j] for j in sorted(range(len(sub)), key=lambda j: (-sub[j][3], sub[j][0]))]
        out: list[int] = []
        for part in parts:
            out += walk([ids[j] for j in part])
        return out

    return walk(list(range(len(boxes))))


def region_order(lines: list[Line], regions: list[Region]) -> list[Line]:
    """The lines in reading order: regions by XY-cut over the boxes of their lines, lines of a region top down."""
    groups = [g for g in assign(lines, regions) if g]
    ordered: list[Line] = []
    for i in xy_cut([_box(g) for g in groups]):
        ordered += sorted(groups[i], key=lambda ln: (-round((ln.y0 + ln.y1) / 2 / 3), ln.x0))
    return ordered


def region_text(ordered: list[Line]) -> str:
    """Lines joined, a space between consecutive segments of one baseline (a table row stays one line)."""
    out: list[str] = []
    last: Line | None = None
    for ln in ordered:
        if out and last is not None and abs(ln.y0 - last.y0) <= 1.5 and ln.x0 >= last.x1:
            out[-1] += " " + ln.text
        else:
            out.append(ln.text)
        last = ln
    return "\n".join(out)

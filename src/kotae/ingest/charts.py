"""Office charts (DrawingML, in DOCX, PPTX and XLSX alike): their title and the figures they plot, as a table.

A chart part keeps a cache of what it plots: for each series its name, its categories and its values
(`c:ser` → `c:tx`, `c:cat`, `c:val`; scatter charts `c:xVal`, `c:yVal`). Read as rows — one per category,
a column per series: "Category 1 | Series 1: 4.3 | Series 2: 2.4" — a question about a figure shown only in a
chart ("2023年度の売上は？") finds it. Pure: an lxml element of the chart part (`c:chartSpace`) in, text out.
"""
from __future__ import annotations

from typing import Any

from lxml import etree

from kotae.ingest.tables import render_table

__all__ = ["C", "chart_rows", "chart_text", "chart_title", "parse_part"]

C = "{http://schemas.openxmlformats.org/drawingml/2006/chart}"
A = "{http://schemas.openxmlformats.org/drawingml/2006/main}"
MAX_POINTS = 2000  # categories read per chart (a chart of a whole year's days is still read; a runaway one is cut)
MAX_SERIES = 100


def _points(element: Any) -> list[str]:
    """The cached points of a c:cat / c:val / c:tx (string, number or multi-level cache), in index order."""
    if element is None:
        return []
    found: dict[int, str] = {}
    for pt in element.iter(C + "pt"):
        v = pt.find(C + "v")
        idx = pt.get("idx")
        if v is not None and idx is not None and idx.isdigit() and int(idx) < MAX_POINTS:
            found.setdefault(int(idx), (v.text or "").strip())
    if not found:  # a literal value (c:v straight under c:tx)
        v = element.find(C + "v")
        return [(v.text or "").strip()] if v is not None else []
    return [found.get(i, "") for i in range(max(found) + 1)]


def _number(text: str) -> str:
    """A cached number as people write it: 4.3 stays, 4.2999999999999998 becomes 4.3, 2.0 becomes 2."""
    try:
        value = float(text)
    except ValueError:
        return text
    if value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    return f"{value:.10g}"


def chart_title(space: Any) -> str:
    """The chart's own title ("" when it has none or shows the single series' name)."""
    chart = space.find(C + "chart")
    title = chart.find(C + "title") if chart is not None else None
    if title is None:
        return ""
    return " ".join("".join(t.text or "" for t in title.iter(A + "t")).split())


def chart_rows(space: Any) -> list[list[str]]:
    """The chart's figures as a table: a header row (the category column unnamed, then each series' name), then a
    row per category. Empty when the chart caches no values."""
    chart = space.find(C + "chart")
    area = chart.find(C + "plotArea") if chart is not None else None
    if area is None:
        return []
    series: list[tuple[str, list[str]]] = []
    categories: list[str] = []
    for n, ser in enumerate(area.iter(C + "ser"), 1):
        if n > MAX_SERIES:
            break
        name = " ".join(_points(ser.find(C + "tx"))) or f"Series {n}"
        cats = _points(ser.find(C + "cat")) or _points(ser.find(C + "xVal"))
        values = _points(ser.find(C + "val")) or _points(ser.find(C + "yVal"))
        if not values:
            continue
        if len(cats) > len(categories):
            categories = cats
        series.append((name, [_number(v) for v in values]))
    if not series:
        return []
    width = max(len(categories), *(len(v) for _, v in series))
    categories = [_number(c) for c in categories] + [""] * (width - len(categories))
    header = ["", *(name for name, _ in series)]
    return [header, *([categories[i], *(v[i] if i < len(v) else "" for _, v in series)] for i in range(width))]


def chart_text(space: Any) -> str:
    """The chart as lines: its title, then its rows ("Category 1 | Series 1: 4.3 | …")."""
    title = chart_title(space)
    rows = chart_rows(space)
    table = render_table(rows) if len(rows) > 1 else ""
    return "\n".join(part for part in (title, table) if part)


_XML = etree.XMLParser(resolve_entities=False, no_network=True)


def parse_part(blob: bytes) -> Any | None:
    """A drawing part's XML (a chart, a SmartArt data model), or None when it is broken: a broken part loses
    its drawing, not the document. No entities, no network."""
    try:
        return etree.fromstring(blob, parser=_XML)
    except etree.XMLSyntaxError:
        return None

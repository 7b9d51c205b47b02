"""Reading order from layout regions (kotae.ingest.layout_regions): pure, on generated lines and boxes."""

import pytest

from kotae.ingest.layout_regions import Region, assign, region_order, region_text, xy_cut
from kotae.ingest.pdf_layout import Line


def _line(text: str, x0: float, top: float, width: float = 200.0) -> Line:
    return Line(text, x0, top - 10, x0 + width, top)


def _two_columns() -> tuple[list[Line], list[Region]]:
    """A full-width title, two columns whose paragraph gaps line up (at y 600), a full-width footer note."""
    title = _line("Title across both columns", 50, 750, 500)
    left = [_line(f"left {i}", 50, 700 - 14 * i) for i in range(4)] + \
        [_line(f"left {i}", 50, 580 - 14 * (i - 4)) for i in range(4, 8)]
    right = [_line(f"right {i}", 320, 700 - 14 * i) for i in range(4)] + \
        [_line(f"right {i}", 320, 580 - 14 * (i - 4)) for i in range(4, 8)]
    note = _line("A note across the page", 50, 400, 500)
    regions = [Region("title", 48, 738, 552, 752), Region("text", 48, 640, 252, 702),
               Region("text", 48, 520, 252, 582), Region("text", 318, 640, 522, 702),
               Region("text", 318, 520, 522, 582), Region("footer", 48, 388, 552, 402)]
    # PDFium's order interleaves the columns line by line
    mixed = [title] + [ln for pair in zip(left, right) for ln in pair] + [note]
    return mixed, regions


def test_columns_are_read_one_after_the_other_even_when_their_paragraph_gaps_line_up() -> None:
    lines, regions = _two_columns()
    text = region_text(region_order(lines, regions))
    expected = ["Title across both columns"] + [f"left {i}" for i in range(8)] + \
        [f"right {i}" for i in range(8)] + ["A note across the page"]
    assert text.split("\n") == expected


def test_every_line_is_kept_once_and_a_line_outside_all_regions_gets_its_own() -> None:
    lines, regions = _two_columns()
    stray = _line("stray margin note", 560, 300, 30)
    groups = assign(lines + [stray], regions)
    assert sorted(ln.text for g in groups for ln in g) == sorted(ln.text for ln in lines + [stray])
    assert [stray] in groups
    assert "stray margin note" in region_text(region_order(lines + [stray], regions))


def test_xy_cut_reads_bands_top_down_and_columns_left_to_right() -> None:
    # a band of two columns under a full-width box: indices 0 (top), 1 (right), 2 (left)
    boxes = [(0.0, 700.0, 500.0, 750.0), (260.0, 400.0, 500.0, 690.0), (0.0, 400.0, 240.0, 690.0)]
    assert xy_cut(boxes) == [0, 2, 1]


def test_a_table_row_on_one_baseline_stays_one_line() -> None:
    cells = [Line("Revenue", 50, 500, 120, 510), Line("1,200", 300, 500, 340, 510), Line("1,100", 400, 500, 440, 510)]
    assert region_text(region_order(cells, [Region("table", 40, 490, 460, 520)])) == "Revenue 1,200 1,100"


def test_the_layout_model_orders_a_generated_two_column_page(tmp_path) -> None:
    pytest.importorskip("rapid_layout")
    import pypdfium2 as pdfium
    from reportlab.lib.pagesizes import letter
    from reportlab.pdfgen import canvas

    from kotae.ingest.pdf import _page_text

    path = tmp_path / "two.pdf"
    c = canvas.Canvas(str(path), pagesize=letter)
    c.setFont("Helvetica-Bold", 16)
    c.drawString(72, 740, "A study of two columns")
    c.setFont("Helvetica", 10)
    for col, x in (("left", 72), ("right", 320)):
        for i in range(30):
            c.drawString(x, 700 - 13 * i, f"The {col} column says line {i} of its paragraph here.")
    c.showPage()
    c.save()
    doc = pdfium.PdfDocument(str(path))
    try:
        text, lines = _page_text(doc, 0, "model")
    finally:
        doc.close()
    assert text is not None and len(lines) == 61
    order = [ln for ln in text.split("\n") if "column says" in ln]
    assert order[0].startswith("The left column says line 0") and order[29].startswith("The left column says line 29")
    assert order[30].startswith("The right column says line 0")

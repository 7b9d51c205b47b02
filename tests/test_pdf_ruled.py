"""Ruled PDF tables: cells read whole from the drawn grid, however their lines wrap in the text layer."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from reportlab.lib.pagesizes import A4
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.cidfonts import UnicodeCIDFont
from reportlab.pdfgen import canvas

from kotae.ingest.pdf import read_pdf
from kotae.ingest.pdf_ruled import Rule, continued, grids, ruled_tables
from kotae.ingest.pdf_table_pages import place_tables
from kotae.ingest.pdf_tables import Table, Word

JA_FONT = "HeiseiMin-W3"
pdfmetrics.registerFont(UnicodeCIDFont(JA_FONT))

# (label, amount, remark lines): the remark wraps over two lines in its cell
ROWS = [("住宅手当", "月額20,000円", ("扶養家族がいる場合は", "月額30,000円")),
        ("通勤手当", "実費", ("上限は月額", "50,000円")),
        ("役職手当", "月額10,000円", ())]


def _allowances(c: canvas.Canvas) -> None:
    """A table with open sides (no outer vertical rules), the text written line by line across the row."""
    c.setFont(JA_FONT, 10)
    c.drawString(60, 730, "第5条の前に置く説明です。")
    c.drawString(60, 712, "表1 手当の支給額")
    for y in (700, 680, 640, 600, 580):
        c.line(60, y, 460, y)
    for x in (160, 300):
        c.line(x, 580, x, 700)
    c.drawString(65, 686, "区分")
    c.drawString(165, 686, "支給額")
    c.drawString(305, 686, "備考")
    c.drawString(305, 686, "備考")  # drawn twice on itself (a bold effect): read once
    for (label, amount, remark), top in zip(ROWS, (680, 640, 600)):
        line1, line2 = (remark + ("", ""))[:2]
        c.drawString(65, top - 14, label)
        c.drawString(165, top - 14, amount)
        c.drawString(305, top - 14, line1)
        if line2:
            c.drawString(305, top - 28, line2)
    c.drawString(60, 560, "手当は毎月の賃金と同時に支払う。")


def test_a_ruled_table_reads_each_cell_whole_under_its_caption(tmp_path: Path):
    path = tmp_path / "rules.pdf"
    c = canvas.Canvas(str(path), pagesize=A4)
    _allowances(c)
    c.showPage()
    c.save()
    doc = read_pdf(str(path), path.read_bytes())
    rows = [s for s in doc.sections if s.kind == "rows"]
    assert [s.text for s in rows] == [
        "区分: 住宅手当 | 支給額: 月額20,000円 | 備考: 扶養家族がいる場合は月額30,000円",
        "区分: 通勤手当 | 支給額: 実費 | 備考: 上限は月額50,000円",
        "区分: 役職手当 | 支給額: 月額10,000円",
    ]
    assert {s.heading[-1] for s in rows} == {"表1 手当の支給額"}
    assert [s.rows for s in rows] == [(1, 1), (2, 2), (3, 3)]
    page = doc.pages[0]
    assert page.index("第5条の前に置く説明です。") < page.index("区分: 住宅手当") < page.index("手当は毎月の賃金と同時に支払う。")
    assert "上限は月額\n" not in page


def _words(cells: dict[tuple[float, float], str]) -> list[Word]:
    return [Word(text, x, y, x + 8 * len(text), y + 10) for (x, y), text in cells.items()]


def test_a_label_spanning_rows_is_repeated_and_a_note_across_the_table_is_unnamed():
    rules = [Rule(True, y, 0, 300) for y in (0, 20, 40, 80, 100)]
    rules += [Rule(True, 60, 100, 300)]  # none under "Fees": its cell spans two rows
    rules += [Rule(False, 100, 0, 80), Rule(False, 200, 0, 80)]  # none through the note's row
    rules += [Rule(False, 0, 0, 100), Rule(False, 300, 0, 100)]
    words = _words({(5, 5): "Item", (105, 5): "Amount", (205, 5): "Due",
                    (5, 25): "Rent", (105, 25): "900", (205, 25): "monthly",
                    (5, 55): "Fees", (105, 45): "50", (205, 45): "yearly", (105, 65): "20", (205, 65): "once",
                    (5, 85): "Figures in yen"})
    [(_, table)] = ruled_tables(grids(rules), words)
    assert table.header == ("Item", "Amount", "Due")
    assert table.lines() == ["Item: Rent | Amount: 900 | Due: monthly", "Item: Fees | Amount: 50 | Due: yearly",
                             "Item: Fees | Amount: 20 | Due: once", "Figures in yen"]


def test_rows_without_rules_between_them_are_split_by_their_lines():
    rules = [Rule(True, y, 0, 200) for y in (0, 20, 80)] + [Rule(False, 100, 0, 80)]
    words = _words({(5, 5): "Year", (105, 5): "Sales",
                    (5, 25): "2021", (105, 25): "10", (5, 45): "2022", (105, 45): "12", (5, 65): "2023", (105, 65): "15"})
    [(_, table)] = ruled_tables(grids(rules), words)
    assert table.lines() == ["Year: 2021 | Sales: 10", "Year: 2022 | Sales: 12", "Year: 2023 | Sales: 15"]


def test_a_form_of_mostly_merged_boxes_and_a_single_box_are_no_tables():
    # a box around a paragraph: one cell
    box = [Rule(True, 0, 0, 300), Rule(True, 100, 0, 300), Rule(False, 0, 0, 100), Rule(False, 300, 0, 100)]
    assert grids(box) == []
    # a form: full-width rules with short vertical ticks in a few places, so most boxes merge
    form = [Rule(True, y, 0, 500) for y in range(0, 220, 20)]
    form += [Rule(False, 250, 0, 20), Rule(False, 400, 100, 120), Rule(False, 120, 180, 200)]
    assert grids(form) == []


def test_tables_side_by_side_whose_header_lines_the_text_reads_first_are_both_rows(tmp_path: Path):
    path = tmp_path / "side.pdf"
    c = canvas.Canvas(str(path), pagesize=A4)
    c.setFont(JA_FONT, 10)
    lefts = (40, 310)
    for x in lefts:
        for y in (700, 680, 660, 640):
            c.line(x, y, x + 240, y)
        c.line(x + 80, 640, x + 80, 700)
    for x in lefts:  # both header lines first, as a layout program writes a row of boxes
        c.drawString(x + 5, 686, "業種")
        c.drawString(x + 85, 686, "対象店舗")
    for x, rows in zip(lefts, ((("スーパー", "A店、B店"), ("ガソリン", "全店舗")),
                               (("カフェ", "C店、D店"), ("コンビニ", "E店、F店")))):
        for (kind, shops), y in zip(rows, (666, 646)):
            c.drawString(x + 5, y, kind)
            c.drawString(x + 85, y, shops)
    c.showPage()
    c.save()
    doc = read_pdf(str(path), path.read_bytes())
    assert [s.text for s in doc.sections if s.kind == "rows"] == [
        "業種: スーパー | 対象店舗: A店、B店", "業種: ガソリン | 対象店舗: 全店舗",
        "業種: カフェ | 対象店舗: C店、D店", "業種: コンビニ | 対象店舗: E店、F店"]


def _continued_table(c: canvas.Canvas, top: float, rows: list[tuple[str, str]]) -> None:
    for i in range(len(rows) + 1):
        c.line(60, top - 20 * i, 400, top - 20 * i)
    c.line(200, top, 200, top - 20 * len(rows))
    for i, (a, b) in enumerate(rows):
        c.drawString(65, top - 20 * i - 14, a)
        c.drawString(205, top - 20 * i - 14, b)


def test_a_drawn_table_that_goes_on_over_the_page_keeps_its_header_and_title(tmp_path: Path):
    path = tmp_path / "long.pdf"
    c = canvas.Canvas(str(path), pagesize=A4)
    c.setFont(JA_FONT, 10)
    c.drawString(60, 760, "別表1 勤務地手当")
    _continued_table(c, 750, [("勤務地", "月額"), ("東京", "20,000円"), ("大阪", "15,000円"), ("名古屋", "10,000円")])
    c.showPage()
    c.setFont(JA_FONT, 10)
    _continued_table(c, 780, [("福岡", "8,000円"), ("札幌", "8,000円"), ("仙台", "5,000円")])
    c.drawString(60, 700, "以上")
    c.showPage()
    c.save()
    doc = read_pdf(str(path), path.read_bytes())
    rows = [s for s in doc.sections if s.kind == "rows"]
    assert [(s.page, s.text) for s in rows] == [
        (1, "勤務地: 東京 | 月額: 20,000円"), (1, "勤務地: 大阪 | 月額: 15,000円"), (1, "勤務地: 名古屋 | 月額: 10,000円"),
        (2, "勤務地: 福岡 | 月額: 8,000円"), (2, "勤務地: 札幌 | 月額: 8,000円"), (2, "勤務地: 仙台 | 月額: 5,000円")]
    assert {s.heading[-1] for s in rows} == {"別表1 勤務地手当"}


def test_a_table_with_its_own_caption_or_other_columns_is_no_continuation():
    first = Table("別表1", ("勤務地", "月額"), (("東京", "20,000円"),), (), drawn=True, columns=(60.0, 200.0, 400.0),
                  head=(("勤務地", "月額"),))
    rest = Table("", ("福岡", "8,000円"), (("札幌", "8,000円"),), (), drawn=True, columns=(60.5, 199.0, 401.0),
                 head=(("福岡", "8,000円"),))
    assert continued(first, rest).lines() == ["勤務地: 福岡 | 月額: 8,000円", "勤務地: 札幌 | 月額: 8,000円"]
    repeated = Table("", ("勤務地", "月額"), (("札幌", "8,000円"),), (), drawn=True, columns=first.columns,
                     head=(("勤務地", "月額"),))
    assert continued(first, repeated).lines() == ["勤務地: 札幌 | 月額: 8,000円"]
    assert continued(first, repeated).title == "別表1"
    captioned = replace(rest, title="別表2 出張手当")
    assert continued(first, captioned) == captioned
    narrower = replace(rest, columns=(60.0, 150.0, 400.0))
    assert continued(first, narrower) == narrower


def test_turned_column_names_name_the_columns(tmp_path: Path):
    path = tmp_path / "turned.pdf"
    c = canvas.Canvas(str(path), pagesize=A4)
    c.setFont("Helvetica", 10)
    for y in (700, 640, 620, 600):
        c.line(60, y, 300, y)
    for x in (200, 250):
        c.line(x, 600, x, 700)
    c.drawString(65, 646, "Action")
    for x, name in ((220, "Admin"), (270, "Read only")):  # two words on one turned line
        c.saveState()
        c.translate(x, 645)
        c.rotate(90)
        c.drawString(0, 0, name)
        c.restoreState()
    for y, (action, a, v) in ((626, ("Create a report", "X", "")), (606, ("Read a report", "X", "X"))):
        c.drawString(65, y, action)
        c.drawString(215, y, a)
        c.drawString(265, y, v)
    c.showPage()
    c.save()
    doc = read_pdf(str(path), path.read_bytes())
    assert [s.text for s in doc.sections if s.kind == "rows"] == [
        "Action: Create a report | Admin: X", "Action: Read a report | Admin: X | Read only: X"]


def test_a_drawn_table_is_placed_where_the_text_runs_its_cells_together():
    table = Table("", ("Action", "Admin", "Viewer"), (("Read", "X", "X"), ("Write", "X", "X")),
                  ("Action Admin Viewer", "Read X X", "Write X X"), drawn=True)
    text = "Intro line.\nAction Admin Viewer\nRead XX\nWrite XX\nOutro line."
    pages, placed = place_tables([text], {1: [table]})
    assert len(placed) == 1 and len(placed[0].rows) == 2
    assert pages[0] == ("Intro line.\nAction: Read | Admin: X | Viewer: X\nAction: Write | Admin: X | Viewer: X\n"
                        "Outro line.")

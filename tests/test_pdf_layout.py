"""PDF reading order, headings from fonts and broken font maps, on PDFs generated with reportlab."""

from __future__ import annotations

import io
import os

from reportlab.lib.pagesizes import letter
from reportlab.pdfgen import canvas

from kotae.ingest.fontmap import broken_digits
from kotae.ingest.headings import classify_lines, heading_of
from kotae.ingest.ocr import needs_ocr
from kotae.ingest.pdf import read_pdf
from kotae.ingest.pdf_chars import Char
from kotae.ingest.pdf_vertical import vertical_text

LEFT = [f"Left column line {i} tells the first half of the story in order" for i in range(12)]
RIGHT = [f"Right column line {i} tells the second half of the story too" for i in range(12)]


def _two_columns() -> bytes:
    """Two columns whose lines are written row by row across the page (left, right, left, …)."""
    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=letter)
    c.setFont("Helvetica-Bold", 16)
    c.drawString(72, 720, "A Study of Two Columns")
    c.setFont("Helvetica", 9)
    for i, (left, right) in enumerate(zip(LEFT, RIGHT)):
        y = 680 - 12 * i
        c.drawString(72, y, left)
        c.drawString(320, y, right)
    c.drawString(280, 40, "Page 1")
    c.showPage()
    c.save()
    return buf.getvalue()


def test_two_columns_read_left_then_right():
    doc = read_pdf("two.pdf", _two_columns())
    text = doc.pages[0]
    positions = [text.index(line) for line in LEFT + RIGHT]
    assert positions == sorted(positions)
    assert text.index("A Study of Two Columns") < positions[0]


COLUMNS3 = [[f"Col{c} line {i} reads on in its column" for i in range(30)] for c in range(3)]


def _three_columns_under_a_title() -> bytes:
    """Three columns 10 points apart, written row by row across the page, under a title block set large
    whose lines cross the gutters (as on the first page of an IRS instructions booklet)."""
    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=letter)
    for size, x, y, title in ((26, 40, 745, "Instructions for"), (26, 150, 715, "Form 1040NR"),
                              (14, 120, 695, "U.S. Nonresident Alien"), (14, 330, 745, "Treasury 2007"),
                              (14, 300, 725, "Internal Revenue"), (14, 340, 700, "Service Return")):
        c.setFont("Helvetica-Bold", size)
        c.drawString(x, y, title)
    c.setFont("Helvetica", 9)
    for i in range(30):
        for col, x in enumerate((40, 223, 406)):  # 173-point columns, 10-point gutters
            c.drawString(x, 670 - 12 * i, COLUMNS3[col][i])
    c.showPage()
    c.save()
    return buf.getvalue()


def test_three_columns_under_a_large_title_read_column_by_column():
    text = read_pdf("i.pdf", _three_columns_under_a_title()).pages[0]
    positions = [text.index(line) for col in COLUMNS3 for line in col]
    assert positions == sorted(positions)
    assert text.index("Instructions for") < positions[0]


def test_a_heading_beside_the_next_columns_text_is_not_joined_to_it():
    """A left column's heading in a large font on the baseline of a right-column line, 12 points apart: the gap
    is wide for the body text, narrow for the heading's font; the two stay apart."""
    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=letter)
    for i, (left, right) in enumerate(zip(LEFT, RIGHT)):
        c.setFont("Helvetica", 9)
        c.drawString(72, 680 - 12 * i, left)
        c.drawString(307, 680 - 12 * i, right)
    c.setFont("Helvetica-Bold", 16)
    c.drawString(187.5, 680 - 12 * 12, "General Rules")  # ends 12 points before the right column
    c.setFont("Helvetica", 9)
    c.drawString(307, 680 - 12 * 12, "deduction. The rate for 2007 is 6%.")
    for i in range(13, 20):
        c.drawString(72, 680 - 12 * i, f"Left column line {i} tells the first half of the story in order")
        c.drawString(307, 680 - 12 * i, f"Right column line {i} tells the second half of the story too")
    c.showPage()
    c.save()
    text = read_pdf("h.pdf", buf.getvalue()).pages[0]
    assert "General Rules deduction" not in text
    assert text.index("General Rules") < text.index("Left column line 13") < text.index("Right column line 0")
    assert text.index("Right column line 11") < text.index("deduction. The rate") < text.index("Right column line 13")


def _report(pages: int = 4) -> bytes:
    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=letter)
    for n in range(1, pages + 1):
        c.setFont("Helvetica", 9)
        c.drawString(72, 750, f"Chapter 2. Roles and separation of duties {10 + n}")
        y = 700
        if n == 1:
            c.setFont("Helvetica-Bold", 16)
            c.drawString(72, y, "Revenue Overview")
            y -= 30
        if n == 3:
            c.setFont("Helvetica-Bold", 13)
            c.drawString(72, y, "Costs by Region")
            y -= 24
        c.setFont("Helvetica", 10)
        body = ["Net sales grew in every segment during the quarter.",
                "1. More than 2,000 National Guard troops were put on",
                "alert while the figures were counted by the team.",
                "SUMMARY OF OPERATIONS",
                "The company repeated its guidance for the year ahead."]
        for line in body * 3:
            c.drawString(72, y, line)
            y -= 14
        c.showPage()
    c.save()
    return buf.getvalue()


def test_font_headings_kept_body_and_running_lines_rejected():
    doc = read_pdf("report.pdf", _report())
    headings = {s.heading for s in doc.sections}
    assert ("Revenue Overview",) in headings
    assert ("Revenue Overview", "Costs by Region") in headings or ("Costs by Region",) in headings
    labels = {label for path in headings for label in path}
    assert not any(label.startswith("Chapter 2.") for label in labels)  # the running header
    assert not any(label.startswith("1. More than") for label in labels)  # a body line with a number
    assert "SUMMARY OF OPERATIONS" not in labels  # body-font capitals where the fonts tell headings
    # the chapter level carries over the page break
    page2 = [s for s in doc.sections if s.page == 2]
    assert page2 and page2[0].heading == ("Revenue Overview",)


def test_table_cells_and_sentences_are_not_headings():
    for line in ("７ 時 間", "6 か月", "41 年～ 25.0", "1. More than 2,000 National Guard troops were put on",
                 "Chapter 2. Roles and separation of duties 11"):
        assert heading_of(line) is None, line
    assert heading_of("1. Introduction") == (1, "1. Introduction")
    assert heading_of("1 はじめに") == (1, "1 はじめに")
    assert heading_of("第3章 賃金") == (1, "第3章 賃金")
    assert heading_of("Chapter 2 Roles") == (1, "Chapter 2 Roles")
    # a line followed by one in lower case is a wrapped sentence
    assert classify_lines(["2 Results", "were better than expected"]) == [None, None]


def test_vertical_text_reads_right_to_left():
    # two vertical lines of 12-pt characters: 「本日は」 on the right, 「晴天」 on the left
    def column(x: float, text: str) -> list[Char]:
        return [Char(ch, x, 700 - 12 * i, x + 12, 712 - 12 * i) for i, ch in enumerate(text)]

    chars = column(300, "晴天") + column(320, "本日は")  # PDFium may list the left line first
    assert vertical_text(chars) == "本日は\n晴天"


def test_broken_digit_font_map_detected():
    assert broken_digits("平成 ™— 年 › 月 ™œ 日") is not None
    assert broken_digits("第™œ号の改正") is None  # one number position is not enough
    assert broken_digits("平成20年3月20日 “quoted” — a dash") is None
    reason = needs_ocr("官報 平成 ™— 年 › 月 ™œ 日 政令第百四十九号 道路交通法施行令の一部を改正する政令", 90.0, None)
    assert reason is not None and reason.startswith("broken font mapping")


def test_a_run_in_heading_and_its_text_on_one_line_are_not_a_heading():
    """i1040nr.pdf: "Credit for taxes paid. You are" (bold, then the body font, no gap) became a heading."""
    import reportlab
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.ttfonts import TTFont

    fonts = os.path.join(os.path.dirname(reportlab.__file__), "fonts")  # embedded: PDFium reads their weights
    pdfmetrics.registerFont(TTFont("Vera", os.path.join(fonts, "Vera.ttf")))
    pdfmetrics.registerFont(TTFont("VeraBd", os.path.join(fonts, "VeraBd.ttf")))
    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=letter)
    c.setFont("VeraBd", 10)
    c.drawString(72, 720, "Income Tax Credits")
    c.drawString(72, 540, "Payments and Refunds")
    c.setFont("Vera", 10)
    for i in range(8):
        c.drawString(72, 700 - 14 * i, f"Body text of the credits section, line {i}, in the regular font.")
    t = c.beginText(72, 580)
    t.setFont("VeraBd", 10)
    t.textOut("Credit for taxes paid. ")
    t.setFont("Vera", 10)
    t.textOut("You are")  # the line's middle character is bold: its font said "heading"
    c.drawText(t)
    c.drawString(72, 566, "allowed a credit against your income tax for taxes withheld.")
    for i in range(6):
        c.drawString(72, 520 - 14 * i, f"Refunds are paid by check or direct deposit, line {i} of the body.")
    c.showPage()
    c.save()
    labels = {label for s in read_pdf("runin.pdf", buf.getvalue()).sections for label in s.heading}
    assert "Income Tax Credits" in labels and "Payments and Refunds" in labels
    assert not any(label.startswith("Credit for taxes paid") for label in labels)

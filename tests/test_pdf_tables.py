"""PDF tables: a ruled grid and an unruled financial statement become rows cited to their page."""

from __future__ import annotations

from pathlib import Path

import pytest
from reportlab.lib import colors
from reportlab.lib.pagesizes import letter
from reportlab.pdfgen import canvas
from reportlab.platypus import Table, TableStyle

from kotae.chunking import chunk_document
from kotae.ingest.cover import filing_context
from kotae.ingest.pdf import read_pdf
from kotae.ingest.pdf_table_pages import looks_tabular
from kotae.ingest.pdf_tables import Word, find_tables, is_number, lines_from_words
from kotae.pipeline import embed_text

TITLE = "CONDENSED CONSOLIDATED STATEMENTS OF OPERATIONS"
STATEMENT = [  # (label, indent, values) — a label without values heads the rows under it
    ("Net sales:", 0, None),
    ("Products", 10, ("$ 63,355", "$ 63,948", "$ 245,241", "$ 232,309")),
    ("Services", 10, ("19,604", "17,486", "58,941", "50,148")),
    ("Total net sales", 20, ("82,959", "81,434", "304,182", "282,457")),
    ("Operating income", 0, ("23,076", "24,126", "94,543", "85,163")),
    ("Other income/(expense), net", 0, ("(10)", "243", "(97)", "796")),
    ("Net income", 0, ("$ 19,442", "$ 21,744", "$ 79,082", "$ 74,129")),
]
RIGHTS = (340, 410, 480, 550)  # right edges of the four figure columns


def _statement(c: canvas.Canvas) -> None:
    c.setFont("Helvetica-Bold", 11)
    c.drawString(60, 720, TITLE)
    c.setFont("Helvetica", 9)
    c.drawString(60, 706, "(In millions, except per share amounts)")
    c.drawCentredString(RIGHTS[0] - 15 + 35, 684, "Three Months Ended")
    c.drawCentredString(RIGHTS[2] - 15 + 35, 684, "Nine Months Ended")
    for right, (day, year) in zip(RIGHTS, [("June 25,", "2022"), ("June 26,", "2021")] * 2):
        c.drawRightString(right, 672, day)
        c.drawRightString(right, 661, year)
    y = 645
    for label, indent, values in STATEMENT:
        c.drawString(60 + indent, y, label)
        for right, value in zip(RIGHTS, values or ()):
            if value.startswith("$ "):
                c.drawString(right - 62, y, "$")
                value = value[2:]
            c.drawRightString(right, y, value)
        y -= 13
    c.drawString(60, y - 20, "See accompanying Notes to Condensed Consolidated Financial Statements.")


def _grid(c: canvas.Canvas) -> None:
    c.setFont("Helvetica-Bold", 12)
    c.drawString(60, 720, "Office Locations")
    rows = [["City", "Staff", "Opened"], ["Tokyo", "120", "1998"], ["Osaka", "45", "2004"],
            ["Nagoya", "30", "2011"], ["Fukuoka", "12", "2019"]]
    table = Table(rows, colWidths=[120, 80, 80])
    table.setStyle(TableStyle([("GRID", (0, 0), (-1, -1), 0.5, colors.black),
                               ("FONT", (0, 0), (-1, -1), "Helvetica", 10)]))
    _, height = table.wrapOn(c, 400, 400)
    table.drawOn(c, 60, 700 - height)


@pytest.fixture()
def report_pdf(tmp_path: Path) -> Path:
    path = tmp_path / "report.pdf"
    c = canvas.Canvas(str(path), pagesize=letter)
    c.setFont("Helvetica", 11)
    prose = ("Revenue grew in every region during the quarter. The company opened two offices and hired "
             "staff for its new services, which customers adopted faster than planned.")
    text = c.beginText(60, 720)
    for i in range(0, len(prose), 80):
        text.textLine(prose[i : i + 80])
    c.drawText(text)
    c.showPage()
    _statement(c)
    c.showPage()
    _grid(c)
    c.showPage()
    c.save()
    return path


def test_an_unruled_statement_becomes_labelled_rows_under_its_title(report_pdf):
    doc = read_pdf(str(report_pdf), report_pdf.read_bytes())
    rows = [s for s in doc.sections if s.kind == "rows" and s.page == 2]
    assert rows[0].text == ("Net sales › Products | Three Months Ended June 25, 2022: $63,355 | "
                            "Three Months Ended June 26, 2021: $63,948 | Nine Months Ended June 25, 2022: $245,241 | "
                            "Nine Months Ended June 26, 2021: $232,309")
    assert [s.text.split(" | ")[0] for s in rows] == [
        "Net sales › Products", "Net sales › Services", "Net sales › Total net sales", "Operating income",
        "Other income/(expense), net", "Net income"]
    assert rows[4].text.split(" | ")[1] == "Three Months Ended June 25, 2022: (10)"
    assert {s.heading[-1] for s in rows} == {TITLE}
    assert [s.rows for s in rows] == [(n, n) for n in range(1, 7)]
    assert "See accompanying Notes" in doc.pages[1]  # the text around the table stays


def test_a_ruled_grid_names_its_columns_from_its_first_row(report_pdf):
    doc = read_pdf(str(report_pdf), report_pdf.read_bytes())
    rows = [s for s in doc.sections if s.kind == "rows" and s.page == 3]
    assert [s.text for s in rows] == ["City: Tokyo | Staff: 120 | Opened: 1998", "City: Osaka | Staff: 45 | Opened: 2004",
                                      "City: Nagoya | Staff: 30 | Opened: 2011", "City: Fukuoka | Staff: 12 | Opened: 2019"]
    assert rows[0].heading[-1] == "Office Locations"


def test_a_page_without_a_table_is_left_as_it_was(report_pdf):
    doc = read_pdf(str(report_pdf), report_pdf.read_bytes())
    assert all(s.kind == "text" for s in doc.sections if s.page == 1)
    assert doc.pages[0].startswith("Revenue grew in every region")


def test_row_chunks_carry_the_title_and_are_cited_to_the_page(report_pdf):
    doc = read_pdf(str(report_pdf), report_pdf.read_bytes())
    chunks = chunk_document(doc, "d", "report.pdf", count_tokens=lambda t: len(t.split()) + 4, max_tokens=90)
    table_chunks = [c for c in chunks if c.page == 2 and c.rows]
    assert len(table_chunks) >= 2  # row groups, not one blob
    for c in table_chunks:
        assert c.heading[-1].startswith(TITLE) and c.anchor.startswith("report.pdf p.2 ›")
        assert all(" | Three Months Ended June 25, 2022: " in line for line in c.text.split("\n"))


def test_figures_and_prose_lines():
    assert all(is_number(t) for t in ("63,355", "(10)", "$1.20", "12%", "—", "(1,972)"))
    assert not any(is_number(t) for t in ("Products", "June 25,", "Q3"))
    assert looks_tabular("Products $ 1 $ 2\nServices 3 4\nTotal 4 6")
    assert not looks_tabular("We sold 3 products in 2022.\nNothing else.")


def test_two_columns_of_prose_are_not_a_table():
    words = []
    for i in range(6):
        y = 100 + 14 * i
        for j, w in enumerate(["the", "quick", "brown", "fox", "jumps", "over", "the", "lazy", "dog", "again"]):
            words.append(Word(w, 50 + 25 * j, y, 72 + 25 * j, y + 10))
            words.append(Word(w, 320 + 25 * j, y, 342 + 25 * j, y + 10))
    assert find_tables(lines_from_words(words)) == []


def test_three_narrow_columns_of_prose_are_not_a_table():
    # i1040nr.pdf: three text columns of ~40 characters a line, each line short enough to pass for a cell
    column = ["Documentation. You must attach", "acceptable proof of the withholding for",
              "which you are claiming a refund. If you", "are claiming a refund of backup",
              "withholding tax based on your status as", "a nonresident alien, you must attach a"]
    words = []
    for i, text in enumerate(column):
        y = 100 + 12 * i
        for x in (40, 220, 400):
            for k, w in enumerate(text.split()):
                words.append(Word(w, x + 24 * k, y, x + 24 * k + 20, y + 9, 9.0))
    assert find_tables(lines_from_words(words)) == []


COVER = ["UNITED STATES", "SECURITIES AND EXCHANGE COMMISSION", "FORM 10-Q",
         "For the quarterly period ended June 25, 2022", "Commission File Number: 001-36743", "EXAMPLE WIDGETS, INC.",
         "(Exact name of Registrant as specified in its charter)"]


def test_a_filing_cover_names_the_registrant_form_and_period():
    assert filing_context(["\n".join(COVER), "page two"]) == (
        "Example Widgets, Inc. Form 10-Q, quarterly period ended June 25, 2022")
    no_note = [line for line in COVER if not line.startswith("(Exact")]  # the name follows the file number
    assert filing_context(["\n".join(no_note)]).startswith("Example Widgets, Inc. Form 10-Q")
    assert filing_context(["Annual report\nOur company had a good year."]) == ""
    assert filing_context(["FORM 10-Q\nFor the quarterly period ended June 25, 2022"]) == ""  # no registrant


def test_statement_rows_of_a_filing_carry_its_registrant_and_period_into_what_is_searched(tmp_path: Path):
    path = tmp_path / "filing.pdf"
    c = canvas.Canvas(str(path), pagesize=letter)
    c.setFont("Helvetica", 10)
    for i, line in enumerate(COVER):
        c.drawString(60, 720 - 14 * i, line)
    c.showPage()
    _statement(c)
    c.showPage()
    c.save()
    doc = read_pdf(str(path), path.read_bytes())
    context = "Example Widgets, Inc. Form 10-Q, quarterly period ended June 25, 2022"
    rows = [s for s in doc.sections if s.kind == "rows" and s.page == 2]
    assert rows and all(s.heading[0] == context and s.heading[-1] == TITLE for s in rows)
    assert all(s.heading[:1] != (context,) for s in doc.sections if s.kind != "rows")  # prose keeps its path
    chunks = chunk_document(doc, "d", "filing.pdf", count_tokens=lambda t: len(t.split()) + 4, max_tokens=90)
    row_chunk = next(ch for ch in chunks if ch.page == 2 and ch.rows)
    searched = embed_text(row_chunk)
    assert searched.startswith(f"{context} › ") and TITLE in searched.split("\n")[0]
    assert searched.endswith(row_chunk.text)
    prose = next(ch for ch in chunks if not ch.rows)
    assert embed_text(prose) == prose.text  # text chunks are searched as they read


def test_a_caption_that_names_a_header_word_is_kept_before_the_rows(tmp_path: Path):
    path = tmp_path / "caption.pdf"
    c = canvas.Canvas(str(path), pagesize=letter)
    c.setFont("Helvetica", 10)
    c.drawString(60, 730, "Table 2. The Staff of each office by the year it opened.")
    cities = ["Tokyo", "Osaka", "Nagoya", "Fukuoka", "Sapporo", "Sendai", "Kobe", "Kyoto", "Hiroshima", "Naha"]
    rows = [["City", "Staff", "Opened"]] + [[city, str(10 + 7 * i), str(1990 + 3 * i)] for i, city in enumerate(cities)]
    table = Table(rows, colWidths=[120, 80, 80])
    table.setStyle(TableStyle([("GRID", (0, 0), (-1, -1), 0.5, colors.black),
                               ("FONT", (0, 0), (-1, -1), "Helvetica", 10)]))
    _, height = table.wrapOn(c, 400, 400)
    table.drawOn(c, 60, 715 - height)
    c.showPage()
    c.save()
    doc = read_pdf(str(path), path.read_bytes())
    assert "Table 2. The Staff of each office by the year it opened." in doc.pages[0]
    assert next(s.text for s in doc.sections if s.kind == "rows") == "City: Tokyo | Staff: 10 | Opened: 1990"


def _spanned_table(c: canvas.Canvas) -> None:
    """A ruled results table as papers print them: a two-row header ("Scores" over three columns, "Layers"
    and "Format" centred across both rows, "Time" over its unit) and each "Layers" cell centred across the
    OTSL and HTML rows of its group."""
    c.setFont("Helvetica", 10)
    c.drawString(60, 730, "Table 1. Scores of each model size in two representations.")
    data = [["Layers", "Format", "Scores", "", "", "Time"], ["", "", "simple", "complex", "all", "(secs)"]]
    for layers, otsl, html in (("6", ("0.965", "0.934", "0.955", "2.73"), ("0.969", "0.927", "0.955", "5.39")),
                               ("4", ("0.938", "0.904", "0.927", "1.97"), ("0.952", "0.909", "0.938", "3.77")),
                               ("2", ("0.923", "0.897", "0.915", "1.91"), ("0.945", "0.901", "0.931", "3.81"))):
        data += [[layers, "OTSL", *otsl], ["", "HTML", *html]]
    style = [("FONT", (0, 0), (-1, -1), "Helvetica", 9), ("ALIGN", (0, 0), (-1, -1), "CENTER"),
             ("VALIGN", (0, 0), (-1, -1), "MIDDLE"), ("BOX", (0, 0), (-1, -1), 0.5, colors.black),
             ("LINEBELOW", (0, 1), (-1, 1), 0.5, colors.black), ("SPAN", (0, 0), (0, 1)), ("SPAN", (1, 0), (1, 1)),
             ("SPAN", (2, 0), (4, 0)), ("TOPPADDING", (0, 0), (-1, -1), 1), ("BOTTOMPADDING", (0, 0), (-1, -1), 1)]
    for r in (2, 4, 6):
        style += [("SPAN", (0, r), (0, r + 1)), ("LINEBELOW", (0, r + 1), (-1, r + 1), 0.5, colors.black)]
    table = Table(data, colWidths=[50, 50, 45, 50, 40, 50])
    table.setStyle(TableStyle(style))
    _, height = table.wrapOn(c, 400, 400)
    table.drawOn(c, 60, 715 - height)
    c.drawString(60, 690 - height, "The smaller models read complex tables better in both formats.")


def test_a_cell_centred_across_two_rows_groups_them_and_a_two_row_header_names_every_column(tmp_path: Path):
    path = tmp_path / "results.pdf"
    c = canvas.Canvas(str(path), pagesize=letter)
    _spanned_table(c)
    c.showPage()
    c.save()
    doc = read_pdf(str(path), path.read_bytes())
    rows = [s.text for s in doc.sections if s.kind == "rows"]
    # one row per ruled group, its values in the page's order (as docling's reference prints such a table);
    # the spanning cell is not taken for the label of the row below it ("6 › HTML")
    assert rows == [
        ("Layers: 6 | Format: OTSL HTML | Scores simple: 0.965 0.969 | Scores complex: 0.934 0.927 | "
         "Scores all: 0.955 0.955 | Time (secs): 2.73 5.39"),
        ("Layers: 4 | Format: OTSL HTML | Scores simple: 0.938 0.952 | Scores complex: 0.904 0.909 | "
         "Scores all: 0.927 0.938 | Time (secs): 1.97 3.77"),
        ("Layers: 2 | Format: OTSL HTML | Scores simple: 0.923 0.945 | Scores complex: 0.897 0.901 | "
         "Scores all: 0.915 0.931 | Time (secs): 1.91 3.81")]
    page = doc.pages[0]
    assert "Layers Format" not in page and "(secs)" not in page.replace("Time (secs)", "")  # header read once, as names
    assert page.index("Table 1. Scores") < page.index(rows[0]) < page.index("The smaller models")


def test_evenly_spaced_lines_are_no_spanning_cell():
    """A label line between two figure rows at the normal line pitch is a row of its own, not a centred cell."""
    words = []
    for i, (label, values) in enumerate([("Revenue", ("10", "20")), ("Other", ()), ("Costs", ("5", "7")),
                                         ("Profit", ("5", "13"))]):
        y = 100 + 14 * i
        words.append(Word(label, 50, y, 90, y + 10))
        words += [Word(v, 200 + 60 * j, y, 215 + 60 * j, y + 10) for j, v in enumerate(values)]
    table = find_tables(lines_from_words(words))[0]
    assert [row[0] for row in table.rows] == ["Revenue", "Other Costs", "Profit"]


def test_a_text_column_beside_a_table_is_left_out_of_it():
    # naacl06-shinyama.pdf: a two-column page whose right column holds a small table; the left column's lines
    # sat beside its rows and were read as their labels ("based on their NE tags and obtain | Source articles")
    prose = ["based on their NE tags and obtain", "parameterized patterns such as the", "coast of the state, the",
             "and the hit patterns of each"]
    table = [("Source articles", "28,009"), ("Basic clusters", "5,543"), ("Basic patterns", "643,767"),
             ("Metaclusters", "302")]
    words = []
    for i, (line, (label, value)) in enumerate(zip(prose, table, strict=True)):
        y = 100 + 14 * i
        x = 50.0
        for w in line.split():
            words.append(Word(w, x, y, x + 6 * len(w), y + 10))
            x += 6 * len(w) + 4
        x = 320.0
        for w in label.split():
            words.append(Word(w, x, y, x + 6 * len(w), y + 10))
            x += 6 * len(w) + 4
        words.append(Word(value, 480, y, 480 + 6 * len(value), y + 10))
    (found,) = find_tables(lines_from_words(words))
    assert [r[0] for r in found.rows] == [label for label, _ in table]
    assert [r[-1] for r in found.rows] == [value for _, value in table]
    assert not any("patterns such" in line for line in found.source)  # its place in the page text leaves them


def test_a_worked_example_beside_a_figures_table_is_left_out_of_it():
    # i1040nr.pdf's tax table: "25,200 25,250 | 3,393 …" rows, beside a few lines of a worked example that starts
    # in capitals ("Example. Mr. Green is filing …"): when four in five lines start with a figure, a wordy first
    # cell is the text column's
    prose = ["Example. Mr. Green is filing as a", "qualifying widower with taxable", *[""] * 8]
    words = []
    for i, text in enumerate(prose):
        y, x = 100 + 14 * i, 50.0
        for w in text.split():
            words.append(Word(w, x, y, x + 6 * len(w), y + 10))
            x += 6 * len(w) + 4
        low = 25200 + 50 * i
        words += [Word(f"{low:,}", 300, y, 330, y + 10), Word(f"{low + 50:,}", 340, y, 370, y + 10),
                  Word(f"{3393 + 8 * i:,}", 420, y, 450, y + 10), Word(f"{3001 + 8 * i:,}", 480, y, 510, y + 10)]
    (found,) = find_tables(lines_from_words(words))
    assert not any("Green" in cell or "widower" in cell for row in found.rows for cell in row)
    assert len(found.rows) == 10


def test_a_header_centred_between_two_columns_names_both():
    # Amazon's 10-Q: "Three Months Ended" / "March 31," centred over the gap between the 2022 and 2023 columns,
    # each overlapping one of them a little; before, both went to the first column and the second read "2023"
    def line(y, *cells):
        return [Word(t, x0, y, x1, y + 8) for t, x0, x1 in cells]

    words = (line(100, ("Three", 488, 506), ("Months", 508, 531), ("Ended", 533, 553))
             + line(110, ("March", 505, 524), ("31,", 526, 536))
             + line(120, ("2022", 475, 489), ("2023", 551, 565))
             + line(132, ("Cost", 25, 42), ("of", 44, 52), ("sales", 54, 70), ("$66,499", 449, 505), ("$67,791", 523, 582))
             + line(144, ("Fulfillment", 25, 65), ("20,271", 481, 504), ("20,905", 559, 583))
             + line(156, ("Technology", 25, 70), ("20,450", 481, 504), ("14,842", 559, 583)))
    (table,) = find_tables(lines_from_words(words))
    assert table.header == ("", "Three Months Ended March 31, 2022", "Three Months Ended March 31, 2023")


def test_a_running_footer_read_into_a_tables_region_does_not_keep_the_table_out():
    from kotae.ingest import clean
    from kotae.ingest.pdf_table_pages import place_tables
    from kotae.ingest.pdf_tables import Table as Found

    footer = "Financial Statements Notes to Financial Statements 11"  # dropped from the text: a running footer
    rows = (("Raw materials", "$1,284", "$1,517"), ("Work in process", "6,638", "7,565"),
            ("Total inventories", "$11,984", "$13,224"))
    source = ("(In Millions) Jul 1, 2023 Dec 31, 2022", "Raw materials $ 1,284 $ 1,517",
              "Work in process 6,638 7,565", "Total inventories $ 11,984 $ 13,224", footer)
    table = Found("Inventories (In Millions)", ("", "Jul 1, 2023", "Dec 31, 2022"), rows, source)
    page = "Note 5 : Inventories\n" + "\n".join(source[:-1]) + "\nOther accrued liabilities are listed below."
    running = {clean.folio(footer)[0]}
    assert place_tables([page], {1: [table]})[1] == []  # its last line is nowhere in the text: not placed
    text, placed = place_tables([page], {1: [table]}, running)
    assert len(placed) == 1 and "Work in process | Jul 1, 2023: 6,638 | Dec 31, 2022: 7,565" in text[0]
    assert text[0].startswith("Note 5 : Inventories\n") and text[0].endswith("listed below.")


def test_a_table_the_text_layer_gives_after_the_prose_below_it_goes_under_its_caption():
    """redp5110's Table 2-1: PDFium reads the table's cells last on the page, after the sections printed under it,
    so its rows took the later section's heading; they now follow their caption."""
    from kotae.ingest.pdf_table_pages import place_tables, row_sections
    from kotae.ingest.pdf_tables import Table as Found
    from kotae.types import Section

    caption = "Table 2-1 FUNCTION_USAGE view"
    rows = (("FUNCTION_ID", "VARCHAR(30)", "ID of the function."), ("USER_NAME", "VARCHAR(10)", "Name of the user."))
    source = ("Column name Data type Description", "FUNCTION_ID VARCHAR(30) ID of the function.",
              "USER_NAME VARCHAR(10) Name of the user.")
    table = Found(caption, ("Column name", "Data type", "Description"), rows, source)
    prose = ("To discover who has authorization to define and manage RCAC, you can use this query.\n"
             "2.2 Separation of duties\nSeparation of duties helps businesses comply with industry regulations.")
    page = "The FUNCTION_USAGE view holds the details.\n" + caption + "\n" + prose + "\n" + "\n".join(source)
    (text,), placed = place_tables([page], {1: [table]})
    first = "Column name: FUNCTION_ID | Data type: VARCHAR(30) | Description: ID of the function."
    assert text.index(caption) < text.index(first) < text.index("To discover") < text.index("2.2 Separation")
    assert text.endswith("comply with industry regulations.")
    a, b = placed[0].rows[0]
    assert text[a:b] == first  # the offsets follow the move
    whole = Section(1, ("2.1.7 Verifying function usage IDs",), text, 0)
    cut = row_sections([whole], [text], placed)
    assert [s.kind for s in cut] == ["text", "rows", "rows", "text"]
    assert cut[1].heading == ("2.1.7 Verifying function usage IDs", caption)
    # a Japanese caption with Japanese prose between
    ja = Found("表3 基本給", ("等級", "月額"), (("1級", "200,000"), ("2級", "250,000")), ("等級 月額", "1級 200,000", "2級 250,000"))
    page_ja = "表3 基本給\n基本給は、表3に定める等級に応じて月額で支払う。\n第32条（諸手当）\n等級 月額\n1級 200,000\n2級 250,000"
    (text_ja,), _ = place_tables([page_ja], {1: [ja]})
    assert text_ja.index("表3 基本給") < text_ja.index("1級 | 月額: 200,000") < text_ja.index("基本給は、")
    # a caption right above its table, with no prose between: the text stays as the text layer has it
    short = "Intro line.\n" + caption + "\n(In millions)\n" + "\n".join(source) + "\nAfter the table."
    (kept,), _ = place_tables([short], {1: [table]})
    assert kept.index("(In millions)") < kept.index(first) < kept.index("After the table.")


def test_a_statements_dates_above_its_group_labels_name_its_columns():
    # Amazon's balance sheet: "December 31, 2022  March 31, 2023" stands over "ASSETS" and "Current assets:" in the
    # label column; the header search stopped at those labels and the rows had no dates ("Total assets | $462,675")
    def line(y, *cells):
        return [Word(t, x0, y, x1, y + 8) for t, x0, x1 in cells]

    words = (line(100, ("December", 440, 475), ("31,", 477, 487), ("2022", 489, 505),
                  ("March", 530, 552), ("31,", 554, 564), ("2023", 566, 582))
             + line(112, ("ASSETS", 25, 60))
             + line(124, ("Current", 25, 55), ("assets:", 57, 85))
             + line(136, ("Cash", 35, 52), ("and", 54, 68), ("cash", 70, 87), ("$53,888", 455, 505), ("$49,343", 532, 582))
             + line(148, ("Inventories", 35, 80), ("34,405", 481, 505), ("34,170", 558, 582))
             + line(160, ("Total", 25, 45), ("assets", 47, 72), ("$462,675", 450, 505), ("$464,378", 527, 582)))
    (table,) = find_tables(lines_from_words(words))
    assert table.header == ("", "December 31, 2022", "March 31, 2023")
    assert "Total assets | December 31, 2022: $462,675 | March 31, 2023: $464,378" in table.lines()
    # without a header above them, the labels stay text and the table starts at its first row, as before
    (alone,) = find_tables(lines_from_words(words[6:]))
    assert alone.header[1:] == ("", "") and alone.source[0].startswith("Cash")

"""Every reader on real files built in tmp_path: content detection, cleaning, sections, errors."""

from __future__ import annotations

import re
import zipfile
from pathlib import Path

import docx
import pytest
from docx.enum.text import WD_BREAK
from docx.oxml import OxmlElement
from docx.oxml.ns import qn
from reportlab.lib.pdfencrypt import StandardEncryption
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.cidfonts import UnicodeCIDFont
from reportlab.pdfgen import canvas

from kotae.errors import DocumentError, EncryptedDocument, UnsupportedType
from kotae.ingest import READERS, is_supported, read_document, register, supported_extensions
from kotae.types import ParsedDocument, Section

JA_FONT = "HeiseiMin-W3"
pdfmetrics.registerFont(UnicodeCIDFont(JA_FONT))


def make_pdf(path: Path, pages, *, font="Helvetica", header="", footer="", title="", encrypt=None) -> Path:
    """One PDF page per entry of `pages` (a list of lines; None = an image-only page)."""
    c = canvas.Canvas(str(path), encrypt=encrypt)
    if title:
        c.setTitle(title)
    for number, lines in enumerate(pages, start=1):
        if lines is None:
            c.rect(72, 300, 300, 300, fill=1)
        else:
            c.setFont(font, 9)
            if header:
                c.drawString(72, 800, header)
            if footer:
                c.drawCentredString(297, 40, footer.format(n=number))
            c.setFont(font, 11)
            for i, line in enumerate(lines):
                c.drawString(72, 740 - 18 * i, line)
        c.showPage()
    c.save()
    return path


def assert_sections_tile(doc: ParsedDocument) -> None:
    """The offset invariant, and sections in page order without overlap."""
    assert doc.sections, "expected sections"
    for s in doc.sections:
        assert 1 <= s.page <= len(doc.pages)
        assert doc.pages[s.page - 1][s.start : s.start + len(s.text)] == s.text
    for a, b in zip(doc.sections, doc.sections[1:]):
        assert (a.page, a.start) < (b.page, b.start)
        if a.page == b.page:
            assert a.start + len(a.text) <= b.start


def message(path: Path, text: str) -> str:
    return "^" + re.escape(f"{path}: {text}") + "$"


# --- PDF ----------------------------------------------------------------------------------------

JA_PAGES = [
    [
        "第1章 総則",
        "第1条（目的）",
        "この規程は、社員の就業に関する事項を定める。",
        "第２条（適用範囲）",
        "この規程は、全ての社員に適用する。",
        "第3条（定義）",
        "この規程において、次の各号に掲げる用語の意義は、",
    ],
    ["当該各号に定めるところによる。", "第2章 勤務", "第4条（勤務時間）", "勤務時間は、1日8時間とする。"],
    [
        "第5条（休憩）",
        "休憩時間は60分とする。",
        "第3章 雑則",
        "第6条（改廃）",
        "この規程の改廃は、取締役会が行う。",
    ],
]


@pytest.fixture
def ja_pdf(tmp_path: Path) -> Path:
    return make_pdf(
        tmp_path / "就業規則.pdf",
        JA_PAGES,
        font=JA_FONT,
        header="社内規程集 2024年版",
        footer="- {n} -",
        title="就業規則",
    )


def test_japanese_pdf_loses_running_header_and_page_numbers(ja_pdf):
    doc = read_document(str(ja_pdf))
    assert doc.kind == "pdf" and doc.path == str(ja_pdf) and doc.title == "就業規則"
    assert len(doc.pages) == 3
    assert doc.warnings == ()
    for number, page in enumerate(doc.pages, start=1):
        assert "社内規程集" not in page
        assert f"- {number} -" not in page
    assert (
        doc.pages[1]
        == "当該各号に定めるところによる。\n第2章 勤務\n第4条（勤務時間）\n勤務時間は、1日8時間とする。"
    )
    assert_sections_tile(doc)


def test_japanese_pdf_heading_paths_and_pages(ja_pdf):
    doc = read_document(str(ja_pdf))
    got = [(s.page, s.heading, s.text.split("\n")[0]) for s in doc.sections]
    assert got == [
        (1, ("第1章 総則",), "第1章 総則"),
        (1, ("第1章 総則", "第1条（目的）"), "第1条（目的）"),
        (1, ("第1章 総則", "第２条（適用範囲）"), "第２条（適用範囲）"),  # original width kept
        (1, ("第1章 総則", "第3条（定義）"), "第3条（定義）"),
        (2, ("第1章 総則", "第3条（定義）"), "当該各号に定めるところによる。"),  # article carries over
        (2, ("第2章 勤務",), "第2章 勤務"),
        (2, ("第2章 勤務", "第4条（勤務時間）"), "第4条（勤務時間）"),
        (3, ("第2章 勤務", "第5条（休憩）"), "第5条（休憩）"),
        (3, ("第3章 雑則",), "第3章 雑則"),
        (3, ("第3章 雑則", "第6条（改廃）"), "第6条（改廃）"),
    ]
    assert doc.sections[1].text == "第1条（目的）\nこの規程は、社員の就業に関する事項を定める。"


def test_english_pdf_rejoins_hyphenated_words(tmp_path):
    lines = [
        "1. Introduction",
        "The committee discussed inter-",
        "national standards with Jean-",
        "Paul Sartre in mind.",
        "1.1 Scope",
        "Only data exchange is covered.",
    ]
    path = make_pdf(tmp_path / "report.pdf", [lines], footer="Page {n} of 1")
    doc = read_document(str(path))
    expected = (
        "1. Introduction\nThe committee discussed international standards with Jean-\nPaul Sartre in mind.\n"
        "1.1 Scope\nOnly data exchange is covered."
    )
    assert doc.pages == (expected,)
    assert [s.heading for s in doc.sections] == [("1. Introduction",), ("1. Introduction", "1.1 Scope")]
    assert_sections_tile(doc)


def test_pdf_with_empty_user_password_reads_normally(tmp_path):
    enc = StandardEncryption("", ownerPassword="owner")
    path = make_pdf(tmp_path / "locked-but-open.pdf", [["Section 1 Overview", "Readable text."]], encrypt=enc)
    doc = read_document(str(path))
    assert doc.pages == ("Section 1 Overview\nReadable text.",)
    assert_sections_tile(doc)


def test_pdf_with_user_password_is_refused(tmp_path):
    path = make_pdf(
        tmp_path / "secret.pdf", [["hidden"]], encrypt=StandardEncryption("secret", ownerPassword="o")
    )
    with pytest.raises(
        EncryptedDocument,
        match=message(
            path,
            "the PDF is protected by a password; remove the password "
            "(e.g. qpdf --decrypt --password=PASS in.pdf out.pdf) and index it again",
        ),
    ):
        read_document(str(path))


@pytest.mark.parametrize("damage", ["truncated", "garbage"])
def test_malformed_pdf(tmp_path, damage):
    good = make_pdf(tmp_path / "good.pdf", [["text"]]).read_bytes()
    path = tmp_path / "bad.pdf"
    path.write_bytes(
        good[: len(good) // 2] if damage == "truncated" else b"%PDF-1.7\n" + bytes(range(256)) * 8
    )
    with pytest.raises(
        DocumentError,
        match=message(
            path,
            "malformed PDF (PDFium: data format error); "
            "open it in a PDF viewer and save or print it to a new PDF, then index it again",
        ),
    ):
        read_document(str(path))


def test_image_only_page_gives_a_warning_and_keeps_numbering(tmp_path):
    path = make_pdf(tmp_path / "scan.pdf", [["Chapter 1", "First page."], None, ["Last page."]])
    doc = read_document(str(path), ocr="off")  # OCR itself: tests/test_ocr.py
    assert doc.pages == ("Chapter 1\nFirst page.", "", "Last page.")
    assert doc.warnings == (
        "page 2 has no text layer (scanned image?); the page was skipped (OCR is off; pass --ocr auto to read it)",
    )
    assert [(s.page, s.heading) for s in doc.sections] == [(1, ("Chapter 1",)), (3, ("Chapter 1",))]
    assert_sections_tile(doc)


def test_pdf_without_any_text_layer_is_an_error(tmp_path):
    path = make_pdf(tmp_path / "scan.pdf", [None, None])
    with pytest.raises(
        DocumentError,
        match=message(
            path,
            "no page has a text layer (scanned images?); "
            "pass --ocr auto to read it with OCR (needs tesseract)",
        ),
    ):
        read_document(str(path), ocr="off")


def test_cut_references_keeps_page_count(tmp_path):
    pages = [
        ["1. Introduction", "Body text."],
        ["2. Method", "More text.", "References", "[1] A. Author"],
        ["[2] B. Author"],
    ]
    path = make_pdf(tmp_path / "paper.pdf", pages)
    assert "[1] A. Author" in read_document(str(path)).pages[1]
    doc = read_document(str(path), cut_references=True)
    assert doc.pages == ("1. Introduction\nBody text.", "2. Method\nMore text.", "")
    assert doc.sections[-1].text == "2. Method\nMore text."
    assert doc.warnings == ("references cut from page 2 to the end (cut_references)",)
    assert_sections_tile(doc)


# --- file-level errors and detection --------------------------------------------------------------


def test_zero_byte_file(tmp_path):
    path = tmp_path / "empty.pdf"
    path.write_bytes(b"")
    with pytest.raises(
        DocumentError, match=message(path, "file is empty; check the file, or remove it from the folder")
    ):
        read_document(str(path))


def test_missing_file(tmp_path):
    path = tmp_path / "gone.txt"
    with pytest.raises(
        DocumentError,
        match=message(
            path, "file disappeared while being read; check that it still exists and index it again"
        ),
    ):
        read_document(str(path))


def test_file_over_the_size_limit(tmp_path):
    path = tmp_path / "huge.txt"
    with open(path, "wb") as f:
        f.truncate(201 * 1024 * 1024)  # sparse: nothing is written
    with pytest.raises(
        DocumentError,
        match=message(path, "file is 201 MB, over the 200 MB limit; split it into smaller files"),
    ):
        read_document(str(path))


SUPPORTED_FIX = (
    "supported types are .pdf, .docx, .xlsx, .xlsm, .pptx, .csv, .tsv, .txt, .md, .markdown, .html, .htm, .png, .jpg, .jpeg, .tif, "
    ".tiff; convert it to one of them"
)


def test_png_named_otherwise_is_unsupported(tmp_path):
    path = tmp_path / "photo.dat"  # images are read by OCR only when named as images
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + b"\x00\x00\x00\rIHDR" + bytes(40))
    with pytest.raises(
        UnsupportedType, match=message(path, f"unsupported file type (PNG image); {SUPPORTED_FIX}")
    ):
        read_document(str(path))


def test_random_zip_is_unsupported(tmp_path):
    path = tmp_path / "bundle.zip"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("notes.txt", "hello")
    with pytest.raises(
        UnsupportedType, match=message(path, f"unsupported file type (zip archive); {SUPPORTED_FIX}")
    ):
        read_document(str(path))


def test_unknown_binary_is_unsupported(tmp_path):
    path = tmp_path / "blob.bin"
    path.write_bytes(bytes(range(256)) * 4)
    with pytest.raises(
        UnsupportedType,
        match=message(path, f"unsupported file type (binary file of unknown type); {SUPPORTED_FIX}"),
    ):
        read_document(str(path))


def test_content_decides_over_extension(tmp_path, ja_pdf):
    renamed = tmp_path / "actually-a-pdf.txt"
    renamed.write_bytes(ja_pdf.read_bytes())
    assert read_document(str(renamed)).kind == "pdf"
    page = tmp_path / "saved.txt"
    page.write_text("\ufeff  <!DOCTYPE html><html><body><p>こんにちは</p></body></html>", encoding="utf-8")
    assert read_document(str(page)).kind == "html"
    notes = tmp_path / "notes.log"
    notes.write_text("plain words\n", encoding="utf-8")
    assert read_document(str(notes)).kind == "text"


def test_is_supported():
    assert supported_extensions() == (".pdf", ".docx", ".xlsx", ".xlsm", ".pptx", ".csv", ".tsv", ".txt", ".md",
                                      ".markdown", ".html", ".htm", ".png", ".jpg", ".jpeg", ".tif", ".tiff")
    assert is_supported("経費.xlsx") and is_supported("deck.PPTX") and not is_supported("old.xls")
    assert is_supported("a/Report.PDF") and is_supported("x.markdown") and is_supported("t.tsv")
    assert is_supported("scan.PNG") and not is_supported("anim.gif")
    assert not is_supported("~$report.docx") and not is_supported("noext")


def test_registry_holds_builtin_readers_and_takes_new_ones(tmp_path):
    assert {"pdf", "docx", "csv", "text", "markdown", "html"} <= set(READERS)

    @register("note")
    def read_note(path: str, data: bytes) -> ParsedDocument:
        text = data.decode().upper()
        return ParsedDocument(path, "note", (text,), (Section(1, (), text, 0),))

    try:
        path = tmp_path / "memo.note"
        path.write_text("hi", encoding="utf-8")
        assert read_document(str(path)).pages == ("HI",)
        assert supported_extensions()[-1] == ".note" and is_supported(str(path))  # folder walks take it too
    finally:
        del READERS["note"]
    assert ".note" not in supported_extensions() and not is_supported(str(path))


# --- DOCX -----------------------------------------------------------------------------------------


@pytest.fixture
def report_docx(tmp_path: Path) -> Path:
    d = docx.Document()
    d.add_heading("社員名簿", 0)
    d.add_heading("第1章 概要", 1)
    d.add_paragraph("この文書は社員の一覧である。")
    d.add_heading("1.1 一覧表", 2)
    table = d.add_table(rows=3, cols=3)
    for r, row in enumerate([["氏名", "部署", "内線"], ["山田", "総務", "1234"], ["佐藤", "", "5678"]]):
        for c, value in enumerate(row):
            table.cell(r, c).text = value
    p = d.add_paragraph("表の後の文。")
    p.add_run().add_break(WD_BREAK.PAGE)
    p.add_run("次のページの文。")
    d.add_heading("第2章 付録", 1)
    d.add_paragraph("付録の本文。")
    path = tmp_path / "名簿.docx"
    d.save(str(path))
    return path


def test_docx_headings_table_and_page_break(report_docx):
    doc = read_document(str(report_docx))
    assert doc.kind == "docx"
    page_1 = (
        "社員名簿\n第1章 概要\nこの文書は社員の一覧である。\n1.1 一覧表\n"
        "氏名: 山田 | 部署: 総務 | 内線: 1234\n氏名: 佐藤 | 内線: 5678\n表の後の文。"
    )
    assert doc.pages == (page_1, "次のページの文。\n第2章 付録\n付録の本文。")
    got = [(s.page, s.heading, s.kind, s.text) for s in doc.sections]
    assert got == [
        (1, ("社員名簿",), "text", "社員名簿"),
        (1, ("社員名簿", "第1章 概要"), "text", "第1章 概要\nこの文書は社員の一覧である。"),
        (1, ("社員名簿", "第1章 概要", "1.1 一覧表"), "text", "1.1 一覧表"),
        (
            1,
            ("社員名簿", "第1章 概要", "1.1 一覧表"),
            "table",
            "氏名: 山田 | 部署: 総務 | 内線: 1234\n氏名: 佐藤 | 内線: 5678",
        ),
        (1, ("社員名簿", "第1章 概要", "1.1 一覧表"), "text", "表の後の文。"),
        (2, ("社員名簿", "第1章 概要", "1.1 一覧表"), "text", "次のページの文。"),
        (2, ("社員名簿", "第2章 付録"), "text", "第2章 付録\n付録の本文。"),
    ]
    assert_sections_tile(doc)


def test_docx_rendered_page_breaks_count_once(tmp_path):
    d = docx.Document()
    d.add_paragraph("one")
    first = d.add_paragraph("still one")
    first.add_run().add_break(WD_BREAK.PAGE)
    second = d.add_paragraph()  # Word marks where it rendered the break it was told to make
    second.add_run()._r.append(OxmlElement("w:lastRenderedPageBreak"))
    second.add_run("two")
    third = d.add_paragraph("two, then a break Word made by itself: ")
    third.add_run()._r.append(OxmlElement("w:lastRenderedPageBreak"))
    third.add_run("three")
    path = tmp_path / "breaks.docx"
    d.save(str(path))
    doc = read_document(str(path))
    assert doc.pages == ("one\nstill one", "two\ntwo, then a break Word made by itself:", "three")
    assert [(s.page, s.text) for s in doc.sections] == [(1, doc.pages[0]), (2, doc.pages[1]), (3, "three")]



MATH_NS = "http://schemas.openxmlformats.org/officeDocument/2006/math"


def _omml(xml: str):  # type: ignore[no-untyped-def]
    from lxml import etree
    return etree.fromstring(f'<m:oMath xmlns:m="{MATH_NS}">{xml}</m:oMath>')


def test_docx_nested_tables_checkboxes_and_equations_are_read(tmp_path):
    d = docx.Document()
    d.add_paragraph("申請書")
    box = d.add_table(rows=1, cols=1)  # a box drawn round a table (Japanese forms do this)
    inner = box.cell(0, 0).add_table(rows=2, cols=2)
    for r, row in enumerate([["項目", "金額"], ["交通費", "1,200円"]]):
        for c, value in enumerate(row):
            inner.cell(r, c).text = value
    grid = d.add_table(rows=2, cols=2)
    grid.cell(0, 0).text, grid.cell(0, 1).text = "Service", "Options"
    grid.cell(1, 0).text = "Breakfast"
    cell = grid.cell(1, 1).paragraphs[0]
    cell.add_run("☒ Coffee ☐ Tea")  # the symbols Word's checkbox controls show
    inner_table = grid.cell(1, 0).add_table(rows=1, cols=2)
    inner_table.cell(0, 0).text, inner_table.cell(0, 1).text = "from", "7:00"
    p = d.add_paragraph("The area is ")
    p._p.append(_omml('<m:r><m:t>A=πr</m:t></m:r>'
                      '<m:sSup><m:e><m:r><m:t>r</m:t></m:r></m:e><m:sup><m:r><m:t>2</m:t></m:r></m:sup></m:sSup>'
                      '<m:r><m:t>+</m:t></m:r><m:f><m:num><m:r><m:t>b</m:t></m:r></m:num>'
                      '<m:den><m:r><m:t>2a</m:t></m:r></m:den></m:f>'))
    path = tmp_path / "form.docx"
    d.save(str(path))
    doc = read_document(str(path))
    assert doc.pages == (("申請書\n項目: 交通費 | 金額: 1,200円\n"
                         "Service: Breakfast from; 7:00 | Options: ☒ Coffee ☐ Tea\nThe area is A=πrr^2+(b)/(2a)"),)



ARTICLES = """<w:abstractNum xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" w:abstractNumId="90">
  <w:lvl w:ilvl="0"><w:start w:val="1"/><w:numFmt w:val="decimal"/><w:suff w:val="nothing"/><w:lvlText w:val="第%1条"/></w:lvl>
  <w:lvl w:ilvl="1"><w:start w:val="1"/><w:numFmt w:val="decimalFullWidth"/><w:lvlText w:val="（%2）"/></w:lvl>
</w:abstractNum>"""


def _numbered(paragraph, num_id: int, level: int = 0) -> None:  # type: ignore[no-untyped-def]
    numpr = OxmlElement("w:numPr")
    ilvl, nid = OxmlElement("w:ilvl"), OxmlElement("w:numId")
    ilvl.set(qn("w:val"), str(level))
    nid.set(qn("w:val"), str(num_id))
    numpr.append(ilvl)
    numpr.append(nid)
    paragraph._p.get_or_add_pPr().append(numpr)


def test_docx_automatic_numbers_are_read(tmp_path):
    from lxml import etree
    d = docx.Document()
    numbering = d.part.numbering_part.element
    numbering.insert(0, etree.fromstring(ARTICLES))  # abstract definitions come before the w:num entries
    num = etree.fromstring('<w:num xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" '
                           'w:numId="90"><w:abstractNumId w:val="90"/></w:num>')
    numbering.append(num)
    for text, level in [("（目的）この規則は…", 0), ("（賃金）賃金は月給制とする。", 0), ("基本給", 1), ("諸手当", 1),
                        ("（支払日）毎月25日に支払う。", 0), ("", 1)]:
        _numbered(d.add_paragraph(text), 90, level)
    d.add_paragraph("first", style="List Number")  # python-docx's template: Word's own numbered and bullet styles
    d.add_paragraph("second", style="List Number")
    d.add_paragraph("a point", style="List Bullet")
    path = tmp_path / "rules.docx"
    d.save(str(path))
    doc = read_document(str(path))
    # 第%1条 is followed by nothing (w:suff), （%2） by Word's default tab: a space
    assert doc.pages == (("第1条（目的）この規則は…\n第2条（賃金）賃金は月給制とする。\n（１） 基本給\n（２） 諸手当\n"
                         "第3条（支払日）毎月25日に支払う。\n1. first\n2. second\n• a point"),)



FOOTNOTES = ("""<w:footnotes xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">"""
             """<w:footnote w:type="separator" w:id="-1"><w:p><w:r><w:separator/></w:r></w:p></w:footnote>"""
             """<w:footnote w:id="1"><w:p><w:r><w:footnoteRef/></w:r><w:r><w:t xml:space="preserve"> """
             """パートタイマーには別の規程を適用する。</w:t></w:r></w:p></w:footnote></w:footnotes>""").encode()


def test_docx_footnotes_follow_the_paragraph_that_marks_them(tmp_path):
    from docx.opc.constants import RELATIONSHIP_TYPE as RT
    from docx.opc.packuri import PackURI
    from docx.opc.part import Part
    d = docx.Document()
    p = d.add_paragraph("この規則は全従業員に適用する")
    ref = OxmlElement("w:footnoteReference")
    ref.set(qn("w:id"), "1")
    p.add_run()._r.append(ref)
    p.add_run("。")
    d.add_paragraph("次の段落。")
    part = Part(PackURI("/word/footnotes.xml"),
                "application/vnd.openxmlformats-officedocument.wordprocessingml.footnotes+xml", FOOTNOTES, d.part.package)
    d.part.relate_to(part, RT.FOOTNOTES)
    path = tmp_path / "rules.docx"
    d.save(str(path))
    doc = read_document(str(path))
    assert doc.pages == ("この規則は全従業員に適用する*1。\n*1 パートタイマーには別の規程を適用する。\n次の段落。",)

@pytest.mark.parametrize(("n", "fmt", "shown"), [
    (3, "decimal", "3"), (12, "decimalFullWidth", "１２"), (28, "lowerLetter", "bb"), (14, "upperRoman", "XIV"),
    (23, "japaneseCounting", "二十三"), (2, "aiueo", "イ"), (3, "iroha", "ハ"), (2, "ideographTraditional", "乙"),
    (4, "decimalEnclosedCircle", "④"), (5, "decimalZero", "05"), (7, "someNewFormat", "7"),
    (10**9, "lowerLetter", "1000000000"), (0, "upperRoman", "0"),  # a hostile start is written in digits
])
def test_word_number_formats(n, fmt, shown):
    from kotae.ingest.docx_numbering import format_number
    assert format_number(n, fmt) == shown


def test_docx_that_is_plain_text(tmp_path):
    path = tmp_path / "notes.docx"
    path.write_text("just some text", encoding="utf-8")
    with pytest.raises(
        DocumentError,
        match=message(
            path,
            "not a valid DOCX file (it is not a zip archive); open it in Word and save it as .docx again",
        ),
    ):
        read_document(str(path))


def test_docx_with_corrupt_zip(tmp_path, report_docx):
    path = tmp_path / "broken.docx"
    path.write_bytes(report_docx.read_bytes()[:2000])
    with pytest.raises(
        DocumentError, match=r"^" + re.escape(f"{path}: not a valid DOCX file (corrupt zip archive: ")
    ):
        read_document(str(path))


# --- CSV / TSV --------------------------------------------------------------------------------------

STAFF = "氏名,部署,内線\n山田太郎,総務部,1234\n佐藤花子,,5678\n"
STAFF_PAGE = "氏名: 山田太郎 | 部署: 総務部 | 内線: 1234\n氏名: 佐藤花子 | 内線: 5678"


@pytest.mark.parametrize(
    "encoded",
    [
        STAFF.encode("utf-8"),
        STAFF.encode("utf-8-sig"),
        STAFF.encode("utf-16"),
        STAFF.encode("cp932"),
        STAFF.replace("\n", "\r\n").encode("cp932"),
    ],
    ids=["utf-8", "utf-8-bom", "utf-16", "cp932", "cp932-crlf"],
)
def test_csv_encodings(tmp_path, encoded):
    path = tmp_path / "staff.csv"
    path.write_bytes(encoded)
    doc = read_document(str(path))
    assert doc.kind == "csv" and doc.pages == (STAFF_PAGE,)
    assert [(s.rows, s.kind, s.heading, s.page) for s in doc.sections] == [
        ((1, 1), "rows", (), 1),
        ((2, 2), "rows", (), 1),
    ]
    assert_sections_tile(doc)


def test_semicolon_csv_with_quoted_fields(tmp_path):
    path = tmp_path / "prices.csv"
    path.write_text('item;price;note\napple;120;"red; sweet"\npear;90;\n', encoding="utf-8")
    doc = read_document(str(path))
    assert doc.pages == ("item: apple | price: 120 | note: red; sweet\nitem: pear | price: 90",)


def test_tsv(tmp_path):
    path = tmp_path / "codes.tsv"
    path.write_text("code\tname\n1\t東京\n\n2\t大阪\n", encoding="utf-8")
    doc = read_document(str(path))
    assert doc.pages == ("code: 1 | name: 東京\ncode: 2 | name: 大阪",)
    assert [s.rows for s in doc.sections] == [(1, 1), (3, 3)]  # the blank row keeps its number
    assert_sections_tile(doc)


def test_csv_with_undecodable_bytes(tmp_path):
    path = tmp_path / "broken.csv"
    path.write_bytes(b"name,value\n" + bytes([0x80, 0x81, 0xFD, 0xFE, 0xFF, 0x85, 0x90]) * 5 + b"\n")
    with pytest.raises(
        DocumentError,
        match=message(
            path,
            "cannot decode the text (not UTF-8, UTF-16, Shift_JIS/CP932, EUC-JP or Windows-1252); save it as UTF-8",
        ),
    ):
        read_document(str(path))


def test_valid_utf8_holding_c1_controls_is_read(tmp_path):
    # text copied out of a PDF keeps a checkbox glyph as U+0084 (docling's table_mislabeled_as_picture.md):
    # valid UTF-8 throughout is UTF-8; the control itself does not stay (ftfy reads it as cp1252's „)
    path = tmp_path / "survey.md"
    path.write_bytes("- \x84 They work in parallel\n- \x84 Not applicable\n".encode())
    (page,) = read_document(str(path)).pages
    assert "They work in parallel" in page and "Not applicable" in page
    assert not any("\x80" <= ch <= "\x9f" for ch in page)


# --- text, Markdown, HTML -----------------------------------------------------------------------------


def test_markdown_headings_and_code_fences(tmp_path):
    path = tmp_path / "guide.md"
    path.write_text(
        "# 利用ガイド\n\nはじめに。\n\n## Install\n\n```sh\n# not a heading\npip install kotae\n```\n\n"
        "## 使い方\n\nRun it.  \n\n### Options\n",
        encoding="utf-8",
    )
    doc = read_document(str(path))
    assert doc.kind == "markdown" and doc.title == "利用ガイド"
    assert [s.heading for s in doc.sections] == [
        ("利用ガイド",),
        ("利用ガイド", "Install"),
        ("利用ガイド", "使い方"),
        ("利用ガイド", "使い方", "Options"),
    ]
    assert doc.sections[1].text == "## Install\n\n```sh\n# not a heading\npip install kotae\n```"
    assert_sections_tile(doc)


def test_markdown_comments_are_not_read(tmp_path):
    # docling's reference markdown marks every picture "<!-- image -->"; editors leave notes in comments: a reader
    # of the rendered page sees neither. A comment inside a code block is code and stays.
    path = tmp_path / "notes.md"
    path.write_text("# Figures\n\n<!-- image -->\n\nThe rate is 5%.<!-- TODO: check\nwith finance -->\n\n"
                    "```html\n<!-- kept -->\n```\n", encoding="utf-8")
    (page,) = read_document(str(path)).pages
    assert "image" not in page and "TODO" not in page and "finance" not in page
    assert "The rate is 5%." in page and "<!-- kept -->" in page


def test_markdown_with_unclosed_comments_keeps_its_text(tmp_path):
    # a hostile file: 200,000 comment openers and no closer (a regex retried at each took minutes); nothing is lost
    path = tmp_path / "open.md"
    path.write_text("# Notes\n\nThe rate is 5%. " + "<!-- " * 200_000, encoding="utf-8")
    (page,) = read_document(str(path)).pages
    assert "The rate is 5%." in page and page.count("<!--") == 200_000


def test_plain_text_statute_headings(tmp_path):
    path = tmp_path / "rules.txt"
    path.write_bytes(
        "前文。\r\n\r\n第1条（目的）\r\nこの規程は…\r\n第2条\u3000適用する。\r\n".encode("cp932")
    )
    doc = read_document(str(path))
    assert doc.kind == "text"
    assert doc.pages == ("前文。\n\n第1条（目的）\nこの規程は…\n第2条\u3000適用する。",)
    assert [(s.heading, s.text) for s in doc.sections] == [
        ((), "前文。"),
        (("第1条（目的）",), "第1条（目的）\nこの規程は…"),
        (("第2条",), "第2条\u3000適用する。"),
    ]
    assert_sections_tile(doc)


HTML = """<!doctype html>
<html><head><title>お知らせ</title><style>p { color: red }</style><script>var x = "script noise";</script></head>
<body>
<header><a href="/">Site header noise</a></header>
<nav><ul><li>Home</li><li>Menu noise</li></ul></nav>
<main>
  <h1>営業時間のお知らせ</h1>
  <p>当店の営業時間は
     以下のとおりです。</p>
  <h2>Hours</h2>
  <table><tr><th>曜日</th><th>時間</th></tr><tr><td>月〜金</td><td>9:00-18:00</td></tr></table>
  <p>Closed on <b>holidays</b>.</p>
  <aside>Related links noise</aside>
</main>
<footer>Footer noise</footer><noscript>Enable JS noise</noscript>
</body></html>"""


def test_html_drops_page_chrome(tmp_path):
    path = tmp_path / "notice.html"
    path.write_text(HTML, encoding="utf-8")
    doc = read_document(str(path))
    assert doc.kind == "html" and doc.title == "お知らせ"
    expected = (
        "営業時間のお知らせ\n当店の営業時間は以下のとおりです。\nHours\n曜日: 月〜金 | 時間: 9:00-18:00\n"
        "Closed on holidays."
    )
    assert doc.pages == (expected,)
    assert "noise" not in doc.pages[0]
    assert [(s.heading, s.kind) for s in doc.sections] == [
        (("営業時間のお知らせ",), "text"),
        (("営業時間のお知らせ", "Hours"), "text"),
        (("営業時間のお知らせ", "Hours"), "table"),
        (("営業時間のお知らせ", "Hours"), "text"),
    ]
    assert_sections_tile(doc)


def test_text_that_mentions_the_pdf_header_is_text(tmp_path):
    path = tmp_path / "notes.md"
    path.write_text("# PDF notes\n\nEvery PDF starts with `%PDF-1.7`.\n", encoding="utf-8")
    doc = read_document(path)  # a PathLike works too; the path is reported as a string
    assert doc.kind == "markdown" and doc.path == str(path)


def test_office_zip_that_is_a_broken_workbook_is_named(tmp_path):
    path = tmp_path / "book.xlsx"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("xl/workbook.xml", "<workbook/>")
    with pytest.raises(DocumentError, match=r"^" + re.escape(f"{path}: not a valid XLSX file (")) as err:
        read_document(str(path))
    assert str(err.value).endswith("; open it in Excel and save it again")


def test_docx_with_broken_xml(tmp_path, report_docx):
    path = tmp_path / "damaged.docx"
    with zipfile.ZipFile(report_docx) as src, zipfile.ZipFile(path, "w") as dst:
        for item in src.infolist():
            data = b"<w:document><unclosed" if item.filename == "word/document.xml" else src.read(item)
            dst.writestr(item, data)
    with pytest.raises(DocumentError, match=r"^" + re.escape(f"{path}: not a valid DOCX file (")) as err:
        read_document(str(path))
    assert str(err.value).endswith("; open it in Word and save it again")


def test_euc_jp_text_and_statute_captions(tmp_path):
    path = tmp_path / "law.txt"
    path.write_bytes("（目的）\n第一条　この法律は、公共の福祉に資することを目的とする。\n".encode("euc_jp"))
    doc = read_document(str(path))
    assert doc.pages == ("（目的）\n第一条\u3000この法律は、公共の福祉に資することを目的とする。",)
    assert [s.heading for s in doc.sections] == [("第一条（目的）",)]
    assert doc.sections[0].start == 0


def test_markdown_setext_headings_and_front_matter(tmp_path):
    path = tmp_path / "setext.md"
    path.write_text(
        "---\ntitle: x\n---\nGuide\n=====\n\nIntro.\n\nDetails\n-------\nMore.\n", encoding="utf-8"
    )
    doc = read_document(str(path))
    assert [(s.heading, s.text) for s in doc.sections] == [
        ((), "---\ntitle: x\n---"),
        (("Guide",), "Guide\n=====\n\nIntro."),
        (("Guide", "Details"), "Details\n-------\nMore."),
    ]
    assert_sections_tile(doc)


def test_markdown_cut_references(tmp_path):
    path = tmp_path / "paper.md"
    path.write_text("# Paper\n\nBody.\n\n## References\n\n1. Someone, 2020.\n", encoding="utf-8")
    doc = read_document(str(path), cut_references=True)
    assert doc.pages == ("# Paper\n\nBody.",)
    assert [s.text for s in doc.sections] == ["# Paper\n\nBody."]


def test_numbered_japanese_clause_is_not_a_heading():
    from kotae.ingest.headings import heading_of

    assert heading_of("3　従業員が出産、疾病、災害その他非常の場合の費用に充てるために請求したときは、第1項の支") is None
    assert heading_of("2　前項の規定により従業員を解雇する場合は") is None
    assert heading_of("1. はじめに") == (1, "1. はじめに")
    assert heading_of("第32条（賃金の計算期間及び支払日）賃金は、毎月末日に締め切り") == (5, "第32条（賃金の計算期間及び支払日）")


def test_markdown_pipe_tables_are_read_as_rows(tmp_path):
    # GitHub-flavoured tables read as every other format's tables: one "column: value" line a row, a section of
    # kind "table" under the heading path; a table inside a code block stays code
    path = tmp_path / "views.md"
    path.write_text("# FUNCTION_USAGE\n\nThe view's columns:\n\n| **Column name** | Data type | Description |\n"
                    "| --- | :-: | ---: |\n| FUNCTION_ID | VARCHAR(30) | ID of the function. |\n"
                    "USER\\_NAME | VARCHAR(10) | Name \\| alias\n\nAfter the table.\n\n```\n| a | b |\n| - | - |\n```\n",
                    encoding="utf-8")
    doc = read_document(str(path))
    (page,) = doc.pages
    assert "Column name: FUNCTION_ID | Data type: VARCHAR(30) | Description: ID of the function." in page
    assert "Column name: USER_NAME | Data type: VARCHAR(10) | Description: Name | alias" in page
    assert "| --- |" not in page and "```\n| a | b |\n| - | - |\n```" in page
    table = [s for s in doc.sections if s.kind == "table"]
    assert len(table) == 1 and table[0].heading == ("FUNCTION_USAGE",) and table[0].text.count("\n") == 1
    assert_sections_tile(doc)
    # no delimiter row, or a delimiter row of another width: text, as before
    path.write_text("a | b\nc | d\n\n| x | y |\n| - |\n| 1 | 2 |\n", encoding="utf-8")
    assert read_document(str(path)).pages[0] == "a | b\nc | d\n\n| x | y |\n| - |\n| 1 | 2 |"


def test_a_markdown_tables_second_header_row_names_its_columns(tmp_path):
    path = tmp_path / "hpo.md"
    path.write_text("| # layers | Language | TEDs | TEDs |\n| - | - | - | - |\n| # layers | Language | simple | complex |\n"
                    "| 6 | OTSL | 0.965 | 0.934 |\n", encoding="utf-8")
    assert read_document(str(path)).pages[0] == "# layers: 6 | Language: OTSL | TEDs simple: 0.965 | TEDs complex: 0.934"


def test_markdown_backslash_escapes_read_as_the_page_shows_them(tmp_path):
    path = tmp_path / "rcac.md"
    path.write_text("## The QIBM\\_DB\\_SECADM ID\n\nGrant QIBM\\_DB\\_SECADM to \\*one\\* user.\n\n```\nQIBM\\_KEPT\n```\n",
                    encoding="utf-8")
    doc = read_document(str(path))
    assert doc.pages[0] == "## The QIBM_DB_SECADM ID\n\nGrant QIBM_DB_SECADM to *one* user.\n\n```\nQIBM\\_KEPT\n```"
    assert doc.sections[0].heading == ("The QIBM_DB_SECADM ID",)
    assert_sections_tile(doc)

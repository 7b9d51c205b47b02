"""Excel and PowerPoint readers, CSV title rows and decoding, and zip containers capped before inflating."""
from __future__ import annotations

import os
import re
import zipfile
from pathlib import Path

import docx
import openpyxl
import pytest
from pptx import Presentation
from pptx.util import Inches

from conftest import FakeEmbedder
from kotae.chunking import chunk_document
from kotae.cli.docs import passed_over_lines
from kotae.errors import DocumentError
from kotae.facade import Kotae
from kotae.ingest import read_document
from kotae.ingest.zipcap import ZipLimits
from kotae.store import open_store
from kotae.types import ParsedDocument


def assert_tiles(doc: ParsedDocument) -> None:
    for s in doc.sections:
        assert doc.pages[s.page - 1][s.start : s.start + len(s.text)] == s.text


def with_cached_values(path: Path, values: dict[str, str]) -> None:
    """Give formula cells the values Excel would have saved (openpyxl writes formulas without them)."""
    with zipfile.ZipFile(path) as z:
        parts = {n: z.read(n) for n in z.namelist()}
    xml = parts["xl/worksheets/sheet1.xml"].decode()
    for ref, value in values.items():
        xml = re.sub(rf'(<c r="{ref}"[^>]*><f>[^<]*</f>)<v\s*/?>(?:</v>)?', rf"\g<1><v>{value}</v>", xml)
    parts["xl/worksheets/sheet1.xml"] = xml.encode()
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in parts.items():
            z.writestr(name, data)


@pytest.fixture
def expenses_xlsx(tmp_path: Path) -> Path:
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "経費コード"
    sheet["A1"] = "2024年度 経費コード一覧"
    sheet.merge_cells("A1:E1")
    sheet.append([])
    sheet.append(["区分", "コード", None, "科目", "上限(円)"])  # column C stays empty
    sheet.append(["旅費", "T01", None, "交通費", 30000])
    sheet.append([None, "T02", None, "宿泊費", 15000])
    sheet.merge_cells("A4:A5")  # 旅費 spans both rows
    sheet.append(["会議費", "M01", None, "会議費", 5000.5])
    sheet.append(["合計", None, None, None, "=SUM(E4:E6)"])
    other = book.create_sheet("メモ")
    other["B2"] = "承認は部長が行う。"
    path = tmp_path / "経費.xlsx"
    book.save(path)
    with_cached_values(path, {"E7": "50000.5"})
    return path


def test_xlsx_sheets_are_pages_with_title_header_merges_and_cached_values(expenses_xlsx):
    doc = read_document(str(expenses_xlsx))
    assert doc.kind == "xlsx" and len(doc.pages) == 2 and doc.warnings == ()
    assert doc.pages[0].split("\n") == [
        "区分: 旅費 | コード: T01 | 科目: 交通費 | 上限(円): 30000",
        "区分: 旅費 | コード: T02 | 科目: 宿泊費 | 上限(円): 15000",
        "区分: 会議費 | コード: M01 | 科目: 会議費 | 上限(円): 5000.5",
        "区分: 合計 | 上限(円): 50000.5",
    ]
    assert [(s.page, s.heading, s.rows, s.kind) for s in doc.sections] == [
        (1, ("経費コード", "2024年度 経費コード一覧"), (4, 4), "rows"),
        (1, ("経費コード", "2024年度 経費コード一覧"), (5, 5), "rows"),
        (1, ("経費コード", "2024年度 経費コード一覧"), (6, 6), "rows"),
        (1, ("経費コード", "2024年度 経費コード一覧"), (7, 7), "rows"),
        (2, ("メモ",), None, "text"),  # a lone cell is a note
    ]
    assert_tiles(doc)
    chunks = chunk_document(doc, "d", "経費.xlsx", count_tokens=lambda t: len(t.split()) + 4)
    assert chunks[0].anchor == "経費.xlsx sheet 1 › 経費コード › 2024年度 経費コード一覧"
    assert chunks[0].rows == (4, 7) and chunks[-1].anchor == "経費.xlsx sheet 2 › メモ"


def test_xlsx_formulas_without_saved_values_are_named(tmp_path):
    book = openpyxl.Workbook()
    book.active.append(["品目", "金額"])
    book.active.append(["合計", "=1+1"])
    path = tmp_path / "calc.xlsx"
    book.save(path)  # openpyxl saves no cached value
    doc = read_document(str(path))
    assert doc.pages == ("品目: 合計",)
    assert doc.warnings == (("sheet 1 (Sheet): 1 of 1 formulas have no saved value (the program that wrote the "
                            "file did not calculate them); open and save it in Excel"),)


def test_xlsx_tables_one_under_another_and_notes(tmp_path):
    book = openpyxl.Workbook()
    sheet = book.active
    rows = [["売上"], ["地域", "金額"], ["東京", 100], ["大阪", 80], [], ["大阪", 70], [], ["費用"],
            ["地域", "金額"], ["東京", 30], [], ["注記: 単位は百万円"]]
    for row in rows:
        sheet.append(row)
    path = tmp_path / "report.xlsx"
    book.save(path)
    doc = read_document(str(path))
    assert [(s.heading, s.text) for s in doc.sections] == [
        (("Sheet", "売上"), "地域: 東京 | 金額: 100"),
        (("Sheet", "売上"), "地域: 大阪 | 金額: 80"),
        (("Sheet", "売上"), "地域: 大阪 | 金額: 70"),  # a blank row inside a table does not end it
        (("Sheet", "費用"), "地域: 東京 | 金額: 30"),
        (("Sheet", "費用"), "注記: 単位は百万円"),
    ]
    assert doc.sections[-1].kind == "text"


def test_big_xlsx_chunks_carry_their_rows(tmp_path):
    book = openpyxl.Workbook(write_only=True)
    sheet = book.create_sheet("台帳")
    sheet.append(["番号", "品名", "数量"])
    for i in range(1, 2001):
        sheet.append([i, f"部品{i}", i % 7])
    path = tmp_path / "ledger.xlsx"
    book.save(path)
    doc = read_document(str(path))
    assert len(doc.sections) == 2000 and doc.sections[0].text == "番号: 1 | 品名: 部品1 | 数量: 1"
    chunks = chunk_document(doc, "d", "ledger.xlsx", count_tokens=lambda t: len(t.split()) + 4, max_tokens=64)
    assert chunks[0].rows[0] == 2 and chunks[-1].rows[1] == 2001
    covered = [r for c in chunks for r in range(c.rows[0], c.rows[1] + 1)]
    assert covered == list(range(2, 2002))  # every row once, in order, no overlap


@pytest.fixture
def deck_pptx(tmp_path: Path) -> Path:
    deck = Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[1])  # title and content
    slide.shapes.title.text = "売上見通し"
    body = slide.placeholders[1].text_frame
    body.text = "第3四半期は前年比12%増"
    body.add_paragraph().text = "新製品の寄与が大きい"
    box = slide.shapes.add_textbox(Inches(1), Inches(6.5), Inches(4), Inches(0.5))
    box.text_frame.text = "出典: 営業部"
    slide.notes_slide.notes_text_frame.text = "質問が出たら在庫の話をする"
    slide = deck.slides.add_slide(deck.slide_layouts[5])  # title only
    slide.shapes.title.text = "地域別"
    table = slide.shapes.add_table(3, 2, Inches(1), Inches(2), Inches(6), Inches(1.5)).table
    for r, row in enumerate([["地域", "売上"], ["東京", "120"], ["大阪", "90"]]):
        for c, value in enumerate(row):
            table.cell(r, c).text = value
    slide = deck.slides.add_slide(deck.slide_layouts[6])  # blank: no title
    slide.shapes.add_textbox(Inches(1), Inches(1), Inches(4), Inches(1)).text_frame.text = "ご清聴ありがとうございました"
    path = tmp_path / "deck.pptx"
    deck.save(path)
    return path


def test_pptx_slides_titles_tables_notes(deck_pptx):
    doc = read_document(str(deck_pptx))
    assert doc.kind == "pptx" and len(doc.pages) == 3
    assert doc.pages[0] == ("売上見通し\n第3四半期は前年比12%増\n新製品の寄与が大きい\n出典: 営業部\n"
                            "Speaker notes\n質問が出たら在庫の話をする")
    assert doc.pages[1] == "地域別\n地域: 東京 | 売上: 120\n地域: 大阪 | 売上: 90"
    assert doc.pages[2] == "ご清聴ありがとうございました"
    assert [(s.page, s.heading, s.kind) for s in doc.sections] == [
        (1, ("売上見通し",), "text"),
        (1, ("売上見通し", "Speaker notes"), "text"),
        (2, ("地域別",), "text"),
        (2, ("地域別",), "table"),
        (3, (), "text"),  # an untitled slide does not inherit the title before it
    ]
    assert_tiles(doc)
    chunks = chunk_document(doc, "d", "deck.pptx", count_tokens=lambda t: len(t) // 2 + 4, min_tokens=0)
    assert chunks[1].anchor == "deck.pptx slide 1 › 売上見通し › Speaker notes"



def test_xlsx_cell_notes_are_read_after_the_cells(tmp_path):
    from openpyxl.comments import Comment
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "経費"
    sheet.append(["項目", "上限"])
    sheet.append(["交通費", 30000])
    sheet["B2"].comment = Comment("税抜金額。超える場合は部長承認", "山田")
    path = tmp_path / "notes.xlsx"
    book.save(path)
    doc = read_document(str(path))
    assert doc.pages == ("項目: 交通費 | 上限: 30000\nB2: 税抜金額。超える場合は部長承認",)
    assert [(s.heading, s.kind) for s in doc.sections] == [(("経費",), "rows"), (("経費", "Cell notes"), "text")]
    assert_tiles(doc)


def _sales_chart(slide):  # type: ignore[no-untyped-def]
    from pptx.chart.data import CategoryChartData
    from pptx.enum.chart import XL_CHART_TYPE
    data = CategoryChartData()
    data.categories = ["2022年度", "2023年度"]
    data.add_series("売上（億円）", (120.5, 134))
    data.add_series("利益", (10, 12.25))
    frame = slide.shapes.add_chart(XL_CHART_TYPE.COLUMN_CLUSTERED, Inches(1), Inches(1.5), Inches(6), Inches(4), data)
    frame.chart.has_title = True
    frame.chart.chart_title.text_frame.text = "業績推移"
    return frame


CHART_ROWS = "2022年度 | 売上（億円）: 120.5 | 利益: 10\n2023年度 | 売上（億円）: 134 | 利益: 12.25"


def test_a_charts_figures_are_read_in_pptx_and_docx(tmp_path):
    deck = Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[5])
    slide.shapes.title.text = "業績"
    frame = _sales_chart(slide)
    path = tmp_path / "deck.pptx"
    deck.save(path)
    doc = read_document(str(path))
    assert doc.pages == (f"業績\n業績推移\n{CHART_ROWS}",)
    assert [s.kind for s in doc.sections] == ["text", "table"]
    # the same chart part inside a Word document (python-docx cannot draw one: the part and its drawing are added)
    from docx.opc.constants import RELATIONSHIP_TYPE as RT
    from docx.opc.packuri import PackURI
    from docx.opc.part import Part
    from docx.oxml import parse_xml
    d = docx.Document()
    d.add_paragraph("業績は次のとおり。")
    part = Part(PackURI("/word/charts/chart1.xml"),
                "application/vnd.openxmlformats-officedocument.drawingml.chart+xml", frame.chart.part.blob, d.part.package)
    rid = d.part.relate_to(part, RT.CHART)
    run = d.add_paragraph().add_run()
    run._r.append(parse_xml(
        '<w:drawing xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" '
        'xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing" '
        'xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" '
        'xmlns:c="http://schemas.openxmlformats.org/drawingml/2006/chart" '
        'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">'
        '<wp:inline><wp:extent cx="5486400" cy="3200400"/><wp:docPr id="1" name="Chart 1"/>'
        '<a:graphic><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/chart">'
        f'<c:chart r:id="{rid}"/></a:graphicData></a:graphic></wp:inline></w:drawing>'))
    path = tmp_path / "report.docx"
    d.save(str(path))
    doc = read_document(str(path))
    assert doc.pages == (f"業績は次のとおり。\n業績推移\n{CHART_ROWS}",)
    # and in a workbook (openpyxl writes a chart without the cached figures Excel saves: the part is swapped in)
    from openpyxl.chart import BarChart, Reference
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "実績"
    sheet.append(["メモ"])
    chart = BarChart()
    chart.add_data(Reference(sheet, min_col=1, min_row=1, max_row=1))
    sheet.add_chart(chart, "C2")
    plain = tmp_path / "plain.xlsx"
    book.save(plain)
    path = tmp_path / "book.xlsx"
    with zipfile.ZipFile(plain) as src, zipfile.ZipFile(path, "w") as out:
        for item in src.infolist():
            out.writestr(item, frame.chart.part.blob if item.filename == "xl/charts/chart1.xml" else src.read(item))
    doc = read_document(str(path))
    assert doc.pages == (f"メモ\n業績推移\n{CHART_ROWS}",)
    assert [(s.kind, s.start) for s in doc.sections][-1] == ("table", len("メモ\n"))


SMARTART = ("""<dgm:dataModel xmlns:dgm="http://schemas.openxmlformats.org/drawingml/2006/diagram" """
            """xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main"><dgm:ptLst>"""
            """<dgm:pt modelId="0" type="doc"><dgm:t><a:p><a:r><a:t>doc</a:t></a:r></a:p></dgm:t></dgm:pt>"""
            """<dgm:pt modelId="1"><dgm:t><a:bodyPr/><a:p><a:r><a:t>申請</a:t></a:r></a:p></dgm:t></dgm:pt>"""
            """<dgm:pt modelId="2"><dgm:t><a:p><a:r><a:t>上長の</a:t></a:r><a:r><a:t>承認</a:t></a:r></a:p></dgm:t></dgm:pt>"""
            """<dgm:pt modelId="3" type="parTrans"><dgm:t><a:p><a:r><a:t>x</a:t></a:r></a:p></dgm:t></dgm:pt>"""
            """<dgm:pt modelId="4"><dgm:t><a:p><a:r><a:t>経理部が支払</a:t></a:r></a:p></dgm:t></dgm:pt>"""
            """</dgm:ptLst><dgm:cxnLst/></dgm:dataModel>""").encode()
DIAGRAM_DATA = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/diagramData"
RELS = ('xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" '
        'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" '
        'xmlns:dgm="http://schemas.openxmlformats.org/drawingml/2006/diagram"')


def test_smartart_boxes_are_read_in_pptx_and_docx(tmp_path):
    from lxml import etree
    from pptx.opc.package import Part as SlidePart
    from pptx.opc.packuri import PackURI as SlideURI
    deck = Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[5])
    slide.shapes.title.text = "経費精算の流れ"
    part = SlidePart(SlideURI("/ppt/diagrams/data1.xml"),
                     "application/vnd.openxmlformats-officedocument.drawingml.diagramData+xml", deck.part.package, SMARTART)
    rid = slide.part.relate_to(part, DIAGRAM_DATA)
    slide.shapes._spTree.append(etree.fromstring(
        f'<p:graphicFrame xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main" {RELS}>'
        '<p:nvGraphicFramePr><p:cNvPr id="10" name="Diagram 1"/><p:cNvGraphicFramePr/><p:nvPr/></p:nvGraphicFramePr>'
        '<p:xfrm><a:off x="0" y="1800000"/><a:ext cx="100" cy="100"/></p:xfrm><a:graphic>'
        '<a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/diagram">'
        f'<dgm:relIds r:dm="{rid}" r:lo="" r:qs="" r:cs=""/></a:graphicData></a:graphic></p:graphicFrame>'))
    path = tmp_path / "flow.pptx"
    deck.save(path)
    assert read_document(str(path)).pages == ("経費精算の流れ\n申請\n上長の承認\n経理部が支払",)
    from docx.opc.packuri import PackURI
    from docx.opc.part import Part
    from docx.oxml import parse_xml
    d = docx.Document()
    d.add_paragraph("経費精算の流れ")
    part = Part(PackURI("/word/diagrams/data1.xml"),
                "application/vnd.openxmlformats-officedocument.drawingml.diagramData+xml", SMARTART, d.part.package)
    rid = d.part.relate_to(part, DIAGRAM_DATA)
    d.add_paragraph().add_run()._r.append(parse_xml(
        f'<w:drawing xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" {RELS} '
        'xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing">'
        '<wp:inline><wp:extent cx="5486400" cy="3200400"/><wp:docPr id="1" name="Diagram 1"/><a:graphic>'
        '<a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/diagram">'
        f'<dgm:relIds r:dm="{rid}" r:lo="" r:qs="" r:cs=""/></a:graphicData></a:graphic></wp:inline></w:drawing>'))
    path = tmp_path / "flow.docx"
    d.save(str(path))
    assert read_document(str(path)).pages == ("経費精算の流れ\n申請\n上長の承認\n経理部が支払",)

# --- CSV --------------------------------------------------------------------------------------------

STANLEY = "Stanley Cups,,\nTeam,Location,Stanley Cups\nBlues,STL,1\nFlyers,PHI,2\n"
STANLEY_PAGE = "Team: Blues | Location: STL | Stanley Cups: 1\nTeam: Flyers | Location: PHI | Stanley Cups: 2"


@pytest.mark.parametrize("encoding", ["utf-8", "utf-16", "utf-16-le", "utf-16-be"])
def test_csv_title_row_in_any_utf(tmp_path, encoding):
    path = tmp_path / "stanley-cups.csv"
    path.write_bytes(STANLEY.encode(encoding))  # utf-16-le/-be: no byte order mark
    doc = read_document(str(path))
    assert doc.pages == (STANLEY_PAGE,)
    assert [(s.heading, s.rows) for s in doc.sections] == [(("Stanley Cups",), (1, 1)), (("Stanley Cups",), (2, 2))]
    bomless = {"utf-16-le": "UTF-16-LE", "utf-16-be": "UTF-16-BE"}
    assert doc.warnings == ((f"read as {bomless[encoding]} without a byte order mark",) if encoding in bomless else ())


def test_csv_nul_bytes_dropped_with_a_warning(tmp_path):
    path = tmp_path / "staff.csv"
    path.write_bytes("氏名,内線\n山田,12\x0034\n".encode())
    doc = read_document(str(path))
    assert doc.pages == ("氏名: 山田 | 内線: 1234",)
    assert doc.warnings == ("1 NUL byte dropped (the file is damaged or not text throughout); check it",)


def test_csv_two_row_header_and_numeric_header(tmp_path):
    path = tmp_path / "results.csv"
    path.write_text("Category,Count,Results,\n,,Accuracy,Time\nBlind,5,34.5%,1199 sec\n", encoding="utf-8")
    assert read_document(str(path)).pages == (
        "Category: Blind | Count: 5 | Results Accuracy: 34.5% | Results Time: 1199 sec",)
    path.write_text("1,2\na,b\n", encoding="utf-8")  # numbers over words still name the columns
    assert read_document(str(path)).pages == ("1: a | 2: b",)
    path.write_text("1,2\n3,4\n", encoding="utf-8")  # numbers over numbers: no header
    assert read_document(str(path)).pages == ("1 | 2\n3 | 4",)


# --- zip containers -----------------------------------------------------------------------------------


def zip_bomb_docx(path: Path, inflated_mb: int) -> Path:
    """A DOCX whose document.xml inflates to `inflated_mb` MB of spaces (written in 1 MB blocks)."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
        z.writestr("[Content_Types].xml", "<Types/>")
        with z.open("word/document.xml", "w") as f:
            f.write(b'<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>')
            block = b" " * (1 << 20)
            for _ in range(inflated_mb):
                f.write(block)
            f.write(b"</w:body></w:document>")
    return path


def test_zip_bomb_docx_fails_before_inflating(tmp_path):
    path = zip_bomb_docx(tmp_path / "bomb.docx", 64)  # bench/office.py measures a 256 MB one
    assert path.stat().st_size < 100 * 1024
    with pytest.raises(DocumentError, match=re.escape(
            f"{path}: word/document.xml would inflate 1,0") + r"\d\d× \(\d+ KB to 64 MB\), over the 100× "
            r"compression ratio limit \(a zip bomb\); if the file is genuine, raise index.zip.max_ratio "
            r"\(KOTAE_INDEX_ZIP_MAX_RATIO\)$"):
        read_document(str(path))


def test_zip_total_inflated_size_limit(tmp_path):
    document = docx.Document()
    document.add_paragraph("本文" * 1000)
    path = tmp_path / "report.docx"
    document.save(path)
    assert "本文" in read_document(str(path)).pages[0]
    inflated = sum(i.file_size for i in zipfile.ZipFile(path).infolist())
    with pytest.raises(DocumentError, match=re.escape(
            f"{path}: the zip container would inflate to {inflated / 1024:,.0f} KB, over the 0.01 MB limit (a zip "
            "bomb, or a very large document); if the file is genuine, raise index.zip.max_inflated_mb "
            "(KOTAE_INDEX_ZIP_MAX_INFLATED_MB) or split the document")):
        read_document(str(path), zip_limits=ZipLimits(max_inflated_mb=0.01))


def test_corrupt_xlsx_and_pptx_name_their_format(tmp_path, expenses_xlsx, deck_pptx):
    for source, label, app in ((expenses_xlsx, "XLSX", "Excel"), (deck_pptx, "PPTX", "PowerPoint")):
        path = tmp_path / f"broken{source.suffix}"
        path.write_bytes(source.read_bytes()[:3000])
        with pytest.raises(DocumentError, match=re.escape(f"{path}: not a valid {label} file (corrupt zip") +
                           r".*" + re.escape(f"; open it in {app} and save it again")):
            read_document(str(path))


# --- folder walks ---------------------------------------------------------------------------------------


def test_folder_walk_names_what_it_does_not_read(tmp_path, expenses_xlsx, deck_pptx):
    docs = tmp_path / "docs"
    (docs / "sub" / ".git").mkdir(parents=True)
    (docs / "sub" / ".git" / "config.txt").write_text("x")
    (docs / "経費.xlsx").write_bytes(expenses_xlsx.read_bytes())
    (docs / "sub" / "deck.pptx").write_bytes(deck_pptx.read_bytes())
    (docs / "old.xls").write_bytes(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(100))
    (docs / "plan.doc").write_bytes(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(100))
    (docs / ".DS_Store").write_bytes(b"\x00\x00")
    (docs / "~$経費.xlsx").write_bytes(b"lock")
    (docs / "photos.zip").write_bytes(b"PK\x05\x06" + bytes(18))
    (docs / "README").write_text("no extension")
    (docs / "linked").symlink_to(docs / "sub", target_is_directory=True)
    with Kotae(open_store(str(tmp_path / "idx")), FakeEmbedder()) as k:
        report = k.index([str(docs)])
    assert sorted(d.file for d in report.indexed) == ["sub/deck.pptx", "経費.xlsx"]
    assert sorted((os.path.relpath(p, docs), why) for p, why in report.passed_over) == [
        (".DS_Store", "hidden file"),
        ("README", "no extension: name it with its type's (.txt, .pdf, …)"),
        ("linked", "link to a folder (not followed)"),
        ("old.xls", "legacy Office file: save it as .xlsx, .docx or .pptx"),
        ("photos.zip", "archive: unpack it and index the folder"),
        ("plan.doc", "legacy Office file: save it as .xlsx, .docx or .pptx"),
        ("sub/.git", "hidden folder (not walked)"),
        ("~$経費.xlsx", "Office lock file (the document is open somewhere)"),
    ]
    lines = passed_over_lines(report.passed_over, examples=1)
    assert lines[0] == "  not read: 2 × legacy Office file: save it as .xlsx, .docx or .pptx (old.xls, … 1 more)"
    assert len(lines) == 7


def test_legacy_office_file_named_explicitly_says_how_to_convert(tmp_path):
    path = tmp_path / "old.xls"
    path.write_bytes(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(100))
    with pytest.raises(DocumentError, match=re.escape(
            f"{path}: unsupported file type (legacy Office file (.doc/.xls/.ppt)); save it as .docx, .xlsx or "
            ".pptx and index that (supported types are .pdf, .docx, .xlsx,")):
        read_document(str(path))


def test_text_file_in_utf16_without_bom_and_binary_with_many_nuls(tmp_path):
    path = tmp_path / "memo.txt"
    path.write_bytes("Meeting notes\nBudget approved.\n".encode("utf-16-le"))
    doc = read_document(str(path))
    assert doc.pages == ("Meeting notes\nBudget approved.",)
    assert doc.warnings == ("read as UTF-16-LE without a byte order mark",)
    path = tmp_path / "blob.csv"
    path.write_bytes(b"a,b\n" + bytes([0, 1, 2, 0, 0xFF, 0x80]) * 200)  # NULs are not stray here
    with pytest.raises(DocumentError, match="cannot decode the text"):
        read_document(str(path))


def test_zip_member_that_lies_about_its_size_is_not_inflated_past_it(tmp_path):
    source = tmp_path / "real.docx"
    docx.Document().save(source)
    path = tmp_path / "liar.docx"
    with zipfile.ZipFile(source) as src, zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for item in src.infolist():
            body = src.read(item)
            z.writestr(item.filename, body.replace(b"<w:body>", b"<w:body>" + b" " * (8 << 20))
                       if item.filename == "word/document.xml" else body)
    data = bytearray(path.read_bytes())
    for signature, offset in ((b"PK\x03\x04", 22), (b"PK\x01\x02", 24)):  # every stated inflated size
        at = data.find(signature)
        while at >= 0:
            data[at + offset : at + offset + 4] = (1000).to_bytes(4, "little")
            at = data.find(signature, at + 4)
    path.write_bytes(bytes(data))
    with pytest.raises(DocumentError, match=re.escape(f"{path}: not a valid DOCX file (") + ".*CRC"):
        read_document(str(path))


def _as_strict(src: Path, dest: Path) -> Path:
    """`src` rewritten with the Strict OOXML names (http://purl.oclc.org/ooxml/…), as Word's "Strict Open XML
    Document" writes them; the package's own names (package/2006, markup-compatibility/2006) stay."""
    name = re.compile(rb"http://schemas\.openxmlformats\.org/(?!package/|markup-compatibility/)([A-Za-z]+)/2006/")
    with zipfile.ZipFile(src) as z, zipfile.ZipFile(dest, "w") as out:
        for info in z.infolist():
            data = z.read(info)
            if info.filename.endswith((".xml", ".rels")):
                data = name.sub(rb"http://purl.oclc.org/ooxml/\1/", data)
            out.writestr(info, data)
    with zipfile.ZipFile(dest) as z:
        assert b"purl.oclc.org/ooxml/officeDocument/relationships/officeDocument" in z.read("_rels/.rels")
    return dest


def test_strict_open_xml_docx_xlsx_pptx_are_read_as_transitional(tmp_path):
    d = docx.Document()
    d.add_heading("就業規則", level=1)
    d.add_paragraph("賃金は毎月25日に支払う。")
    d.save(tmp_path / "t.docx")
    doc = read_document(str(_as_strict(tmp_path / "t.docx", tmp_path / "strict.docx")))
    assert "賃金は毎月25日に支払う。" in doc.pages[0] and ("就業規則",) in {s.heading for s in doc.sections}

    wb = openpyxl.Workbook()
    wb.active.title = "経費"
    wb.active.append(["コード", "科目"])
    wb.active.append(["EX-101", "交通費"])
    wb.save(tmp_path / "t.xlsx")
    book = read_document(str(_as_strict(tmp_path / "t.xlsx", tmp_path / "strict.xlsx")))
    assert "コード: EX-101 | 科目: 交通費" in book.pages[0]

    deck = Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[1])
    slide.shapes.title.text = "在宅勤務"
    slide.placeholders[1].text = "週3日まで"
    deck.save(tmp_path / "t.pptx")
    pages = read_document(str(_as_strict(tmp_path / "t.pptx", tmp_path / "strict.pptx"))).pages
    assert "週3日まで" in pages[0]

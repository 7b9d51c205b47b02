"""OCR: the page quality check (pure), text assembly, and scanned PDFs and images built here, read by the
real tesseract and indexed with the FakeEmbedder.

Bounds on the character error rate (whitespace-free, NFKC; see scanned.cer) come from measurement with
margin (bench/ocr.py): the generated pages read at 0% (English 12 pt, Japanese 12 pt, vertical 14 pt; 1.8%
for vertical 9 pt) at 150–300 dpi, so the tests allow 5% (English) and 10% (Japanese, vertical).
"""
from __future__ import annotations

import threading
from pathlib import Path

import pytest
from PIL import Image
from reportlab.lib.utils import ImageReader
from reportlab.pdfgen import canvas

from kotae.cli import main
from kotae.config import IndexSettings
from kotae.errors import DocumentError
from kotae.ingest import read_document
from kotae.ingest.ocr import (
    INSTALL,
    OcrOptions,
    assemble,
    locate,
    needs_ocr,
    page_list,
    run_pages,
)
from kotae.pipeline import index_paths
from kotae.search import Searcher
from kotae.store import open_store
from kotae.types import Chunk, Word
from ocr_marks import JA_FONT, japanese, tesseract
from scanned import (
    A5,
    ENGLISH,
    JAPANESE,
    VERTICAL,
    bag_error,
    cer,
    horizontal_page,
    latin_font,
    save_pdf,
    text_of,
    vertical_page,
)

PAGE_PT = (A5[0] * 72, A5[1] * 72)


# --- the quality check (pure) --------------------------------------------------------------------
GOOD_EN = "The cooling pumps in building B were replaced in March after the inspection. " * 3
GOOD_JA = "有給休暇の申請は取得日の五日前までに所属長へ提出してください。" * 3
TOC = "\n".join(f"{i}. Chapter title {'.' * 40} {i * 7}" for i in range(1, 12))


@pytest.mark.parametrize(("text", "ink", "reason"), [
    (GOOD_EN, None, None),
    (GOOD_JA, None, None),
    (TOC, None, None),  # leader dots are punctuation, not a broken font
    ("", None, "no text layer"),
    ("  \n \n", 0.02, "no text layer"),
    ("", 0.0001, None),  # a blank page: nothing to read
    ("\ufffd" * 30 + GOOD_EN[:100], None, "unreadable text layer (27% of its characters are not text)"),
    ("\ue000\ue001\ue002" * 10 + "abc", None, "unreadable text layer (91% of its characters are not text)"),
    ("(cid:12)(cid:34)(cid:56) " * 10 + "ok", None, "unreadable text layer (94% of its characters are not text)"),
    ("\x01\x02\x03" * 5 + GOOD_EN[:60], None, "unreadable text layer (23% of its characters are not text)"),
    ("x" * 40 + "yz", None, "broken font mapping (95% of its letters are 'x')"),
    ("Page 3 of 10", 0.02, "text layer too sparse for the page (9 characters for 1.0 in² of ink)"),
    ("Page 3 of 10", None, None),  # ink not measured (not a scanned page): a short page is trusted
    (GOOD_EN, 0.02, None),  # 199 characters per in² of ink
])
def test_needs_ocr(text, ink, reason):
    assert needs_ocr(text, 48.2, ink) == reason


def test_garbage_threshold_is_ten_percent():
    assert needs_ocr("\ufffd" * 10 + "abcdefghij" * 9, 48.2, None) is None  # 10%: still text
    assert needs_ocr("\ufffd" * 11 + "abcdefghij" * 9, 48.2, None) == (
        "unreadable text layer (11% of its characters are not text)")
    assert needs_ocr("a" * 20, 48.2, None) == "broken font mapping (100% of its letters are 'a')"
    assert needs_ocr("a" * 19, 48.2, None) is None  # too short to tell


# --- text assembly and word offsets (pure) -------------------------------------------------------
def _row(line, text, box=(0, 0, 10, 10), conf=90.0):
    return (line, text, conf, box)


def test_assemble_joins_japanese_without_spaces_and_latin_with():
    page = assemble([
        _row((1, 1, 1), "就業"), _row((1, 1, 1), "規則"), _row((1, 1, 1), "Ver"), _row((1, 1, 1), "2.0"),
        _row((1, 1, 2), "Remote"), _row((1, 1, 2), "work"),
        _row((2, 1, 1), "在宅"), _row((2, 1, 1), "勤務", conf=50.0),
    ], 100, 200, "jpn+jpn_vert")
    assert page.text == "就業規則Ver 2.0\nRemote work\n\n在宅勤務"
    assert [page.text[w.start:w.end] for w in page.words] == [w.text for w in page.words]
    assert round(page.confidence, 2) == round((90 * 22 + 50 * 2) / 24, 2)  # weighted by characters
    assert (page.width, page.height, page.lang) == (100, 200, "jpn+jpn_vert")


def test_locate_finds_words_in_the_cleaned_text_and_marks_dropped_ones():
    words = [Word(t, 0, 0, 0, 0, 1, 1) for t in ("- 3 -", "inter-", "national", "trade")]
    located = locate(words, "international trade")
    assert [(w.start, w.end) for w in located] == [(-1, -1), (-1, -1), (5, 13), (14, 19)]


def test_page_list():
    assert page_list([3]) == "page 3"
    assert page_list([7, 2, 5, 6]) == "pages 2, 5–7"


def test_ocr_mode_is_checked():
    with pytest.raises(ValueError, match="ocr='sometimes' is not one of auto, always, off"):
        OcrOptions("sometimes")


# --- documents built here ------------------------------------------------------------------------
def mixed_pdf(path: Path, scan: Image.Image, *, layer: str | None = None) -> Path:
    """Page 1: a real text layer; page 2: a scanned image (with `layer` as invisible text over it)."""
    c = canvas.Canvas(str(path), pagesize=PAGE_PT)
    c.setFont("Helvetica", 11)
    for i, line in enumerate(["Safety rules", "Wear a helmet on the loading dock at all times."]):
        c.drawString(40, PAGE_PT[1] - 60 - 18 * i, line)
    c.showPage()
    c.drawImage(ImageReader(scan.convert("RGB")), 0, 0, *PAGE_PT)
    if layer:
        t = c.beginText(40, 40)
        t.setTextRenderMode(3)  # invisible, as OCR tools and scanners write it
        t.setFont("Helvetica", 8)
        t.textLine(layer)
        c.drawText(t)
    c.showPage()
    c.save()
    return path


@pytest.fixture(scope="module")
def english_scan() -> Image.Image:
    return horizontal_page(ENGLISH, latin_font())


@pytest.fixture(scope="module")
def scans(tmp_path_factory, english_scan) -> Path:
    """English, Japanese and vertical Japanese scanned pages in one image-only PDF."""
    if JA_FONT is None:
        pytest.skip("no Japanese font (sudo apt-get install fonts-ipafont-gothic; CI installs it)")
    path = tmp_path_factory.mktemp("scans") / "scans.pdf"
    return save_pdf(path, [english_scan, horizontal_page(JAPANESE, JA_FONT), vertical_page(VERTICAL, JA_FONT)])


@pytest.fixture(scope="module")
def scans_doc(scans):
    return read_document(str(scans))


@pytest.mark.slow
@tesseract
@pytest.mark.parametrize(("page", "lines", "bound"), [(1, ENGLISH, 0.05), (2, JAPANESE, 0.10), (3, VERTICAL, 0.10)])
def test_scanned_pages_are_read(scans_doc, page, lines, bound):
    text = scans_doc.pages[page - 1]
    assert cer(text_of(lines), text) < bound, text
    assert scans_doc.kind == "pdf" and scans_doc.warnings == ()
    assert [w.page for w in scans_doc.ocr] == [1, 2, 3]
    assert all(s.ocr for s in scans_doc.sections)


@pytest.mark.slow
@tesseract
def test_languages_are_chosen_per_page(scans_doc):
    assert [w.lang for w in scans_doc.ocr] == ["eng", "jpn+jpn_vert", "jpn+jpn_vert"]
    vertical = scans_doc.ocr[2]
    boxes = [w for w in vertical.words if w.start >= 0]
    assert boxes[0].x0 > boxes[-1].x0  # columns read right to left
    assert all(scans_doc.pages[2][w.start:w.end] == w.text for w in boxes)


@pytest.mark.slow
@tesseract
def test_word_boxes_are_in_pdf_points(scans_doc):
    english = scans_doc.ocr[0]
    assert (english.unit, english.width, english.height) == ("pt", pytest.approx(PAGE_PT[0], abs=1),
                                                            pytest.approx(PAGE_PT[1], abs=1))
    first = english.words[0]
    assert first.text == "Annual" and (first.start, first.end) == (0, 6)
    assert 40 <= first.x0 < first.x1 < PAGE_PT[0] and 40 <= first.y0 < first.y1 < 80  # drawn at 0.6 in, 0.7 in


@pytest.mark.slow
@tesseract
def test_a_good_text_page_is_not_ocred(tmp_path, english_scan):
    doc = read_document(str(mixed_pdf(tmp_path / "mixed.pdf", english_scan)))
    assert doc.pages[0] == "Safety rules\nWear a helmet on the loading dock at all times."
    assert [w.page for w in doc.ocr] == [2]
    assert [s.ocr for s in doc.sections] == [False] + [True] * (len(doc.sections) - 1)
    assert cer(text_of(ENGLISH), doc.pages[1]) < 0.05


@pytest.mark.slow
@tesseract
def test_always_ocrs_every_page(tmp_path, english_scan):
    doc = read_document(str(mixed_pdf(tmp_path / "mixed.pdf", english_scan)), ocr="always")
    assert [w.page for w in doc.ocr] == [1, 2]
    assert cer("Safety rules Wear a helmet on the loading dock at all times.", doc.pages[0]) < 0.05


@pytest.mark.slow
@tesseract
@pytest.mark.parametrize("layer", ["(cid:12)(cid:7)(cid:88)(cid:3)(cid:41)(cid:9)", "Scanned by ACME"])
def test_a_garbage_or_sparse_layer_is_replaced(tmp_path, english_scan, layer):
    doc = read_document(str(mixed_pdf(tmp_path / "layer.pdf", english_scan, layer=layer)))
    assert [w.page for w in doc.ocr] == [2]
    assert cer(text_of(ENGLISH), doc.pages[1]) < 0.05


@pytest.mark.slow
@tesseract
@japanese
def test_an_image_is_a_document(tmp_path):
    path = tmp_path / "notice.png"
    vertical_page(VERTICAL, JA_FONT).save(path)
    doc = read_document(str(path))
    assert doc.kind == "image" and len(doc.pages) == 1 and cer(text_of(VERTICAL), doc.pages[0]) < 0.10
    assert doc.ocr[0].unit == "px" and (doc.ocr[0].width, doc.ocr[0].height) == Image.open(path).size



@pytest.mark.slow
@tesseract
def test_a_scan_pasted_into_word_or_powerpoint_is_read_where_it_stands(tmp_path, english_scan):
    import io

    import docx
    from docx.shared import Inches as DocxInches
    from pptx import Presentation
    from pptx.util import Inches
    scan = io.BytesIO()
    english_scan.save(scan, "PNG")
    logo = io.BytesIO()
    Image.new("L", (120, 60), 0).save(logo, "PNG")  # too small to hold a line of text: never OCR'd
    d = docx.Document()
    d.add_paragraph("Scanned notice:")
    d.add_picture(io.BytesIO(scan.getvalue()), width=DocxInches(5))
    d.add_picture(io.BytesIO(logo.getvalue()))
    d.add_paragraph("End of notice.")
    path = tmp_path / "notice.docx"
    d.save(str(path))
    text = read_document(str(path)).pages[0]
    first, _, rest = text.partition("\n")
    body, _, last = rest.rpartition("\n")
    assert (first, last) == ("Scanned notice:", "End of notice.") and cer(text_of(ENGLISH), body) < 0.05
    assert read_document(str(path), ocr="off").pages == ("Scanned notice:\nEnd of notice.",)
    from docx.oxml import parse_xml
    old_style = docx.Document()  # the same scan as older Word files hold a picture (VML)
    rid, _ = old_style.part.get_or_add_image(io.BytesIO(scan.getvalue()))
    old_style.add_paragraph().add_run()._r.append(parse_xml(
        '<w:pict xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" '
        'xmlns:v="urn:schemas-microsoft-com:vml" '
        'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">'
        f'<v:shape style="width:400pt;height:300pt"><v:imagedata r:id="{rid}"/></v:shape></w:pict>'))
    path = tmp_path / "old.docx"
    old_style.save(str(path))
    assert cer(text_of(ENGLISH), read_document(str(path)).pages[0]) < 0.05
    deck = Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[5])
    slide.shapes.title.text = "Notice"
    slide.shapes.add_picture(io.BytesIO(scan.getvalue()), Inches(1), Inches(1.5), width=Inches(6))
    path = tmp_path / "notice.pptx"
    deck.save(path)
    page = read_document(str(path)).pages[0]
    assert page.startswith("Notice\n") and cer(text_of(ENGLISH), page.removeprefix("Notice\n")) < 0.05
    import openpyxl
    from openpyxl.drawing.image import Image as SheetImage
    book = openpyxl.Workbook()
    book.active.append(["Notice"])
    book.active.add_image(SheetImage(io.BytesIO(scan.getvalue())), "B3")
    path = tmp_path / "notice.xlsx"
    book.save(path)
    page = read_document(str(path)).pages[0]
    assert page.startswith("Notice\n") and cer(text_of(ENGLISH), page.removeprefix("Notice\n")) < 0.05

@pytest.mark.slow
@tesseract
def test_tiff_frames_are_pages(tmp_path, english_scan):
    path = tmp_path / "fax.tiff"
    blank = Image.new("L", english_scan.size, 255)
    english_scan.save(path, save_all=True, append_images=[blank, english_scan])
    doc = read_document(str(path))
    assert len(doc.pages) == 3 and doc.pages[1] == "" and doc.pages[0] == doc.pages[2]
    assert doc.warnings == ("page 2 has no text layer and OCR found no text on it (a picture?)",)


@pytest.mark.slow
@tesseract
def test_ocr_runs_pages_in_parallel_with_progress(english_scan):
    from kotae.ingest.ocr import find_engine as engine_at

    engine = engine_at("tesseract")
    assert not isinstance(engine, str)
    active, peak, lock = [0], [0], threading.Lock()

    def loader():
        with lock:
            active[0] += 1
            peak[0] = max(peak[0], active[0])
        image = english_scan
        threading.Event().wait(0.2)  # overlap the loads, so two workers are seen at once
        with lock:
            active[0] -= 1
        return image

    done = []
    results = run_pages({1: loader, 2: loader, 3: loader}, engine, OcrOptions(workers=2, on_page=done.append))
    assert sorted(results) == [1, 2, 3] and all(cer(text_of(ENGLISH), r.text) < 0.05 for r in results.values())
    assert done == [1, 1, 1] and peak[0] == 2


# --- indexing and retrieval ----------------------------------------------------------------------
@pytest.fixture
def store(tmp_path):
    s = open_store(str(tmp_path / "idx"))
    yield s
    s.close()


@pytest.mark.slow
@tesseract
def test_retrieval_finds_the_ocred_page(scans, store, fake_embedder):
    events: list[tuple[str, int]] = []
    report = index_paths([str(scans)], store, fake_embedder, IndexSettings(),
                         lambda event, n: events.append((event, n)))
    assert report.ok and report.warnings == []
    assert sum(n for e, n in events if e == "pages") == 3
    searcher = Searcher(store, fake_embedder)
    for query, page in (("cooling pumps bearings", 1), ("有給休暇の申請", 2), ("大雨警報", 3)):
        top = searcher.search(query, top_k=3).hits[0].chunk
        assert (top.file, top.page, top.ocr) == ("scans.pdf", page, True)
        assert top.anchor.startswith(f"scans.pdf p.{page} (OCR)")
    words = store.page_words(report.indexed[0].id, 2)
    assert words is not None and words.unit == "pt" and words.lang == "jpn+jpn_vert"
    page = store.page_text(report.indexed[0].id, 2)
    assert "".join(page[w.start:w.end] for w in words.words if w.start >= 0) == "".join(page.split())
    assert store.page_words(report.indexed[0].id, 4) is None


@pytest.mark.slow
@tesseract
@japanese
def test_an_image_is_indexed_and_cited_as_ocr(tmp_path, store, fake_embedder):
    path = tmp_path / "notice.png"
    horizontal_page(JAPANESE, JA_FONT).save(path)
    report = index_paths([str(tmp_path)], store, fake_embedder, IndexSettings())
    assert report.ok and [(d.file, d.kind) for d in report.indexed] == [("notice.png", "image")]
    answer = Searcher(store, fake_embedder).search("在宅勤務は週に何日", top_k=1).hits[0]
    assert answer.chunk.anchor == "notice.png p.1 (OCR)" and "在宅勤務" in answer.chunk.text
    assert store.page_words(report.indexed[0].id, 1).unit == "px"


# --- without tesseract, and with OCR off ---------------------------------------------------------
@pytest.fixture
def no_tesseract(tmp_path, monkeypatch):
    missing = str(tmp_path / "no" / "tesseract")
    monkeypatch.setenv("KOTAE_TESSERACT", missing)
    return missing


def test_missing_tesseract_reports_the_pages_and_indexes_the_rest(tmp_path, english_scan, no_tesseract, store,
                                                                   fake_embedder):
    path = mixed_pdf(tmp_path / "mixed.pdf", english_scan)
    scan_only = save_pdf(tmp_path / "scan.pdf", [english_scan, english_scan])
    report = index_paths([str(path), str(scan_only)], store, fake_embedder, IndexSettings())
    assert [d.file for d in report.indexed] == ["mixed.pdf"]
    warning = (f"{path}: page 2 needs OCR (no text layer) but tesseract is not installed ({no_tesseract} not found), "
               f"so it was not read — install it: {INSTALL}")
    assert report.warnings == [warning]
    failure = (f"{scan_only}: no page has a text layer and tesseract is not installed ({no_tesseract} not found); "
               f"install it: {INSTALL}")
    assert report.failed == [(str(scan_only), failure)]
    hits = Searcher(store, fake_embedder).search("helmet loading dock").hits
    assert hits[0].chunk.page == 1 and not hits[0].chunk.ocr


def test_missing_tesseract_on_an_image(tmp_path, english_scan, no_tesseract):
    path = tmp_path / "scan.jpg"
    english_scan.save(path)
    with pytest.raises(DocumentError) as err:
        read_document(str(path))
    assert str(err.value) == (f"{path}: an image can only be read by OCR, but tesseract is not installed "
                              f"({no_tesseract} not found); install it: {INSTALL}")


def test_ocr_off(tmp_path, english_scan):
    path = mixed_pdf(tmp_path / "mixed.pdf", english_scan)
    doc = read_document(str(path), ocr="off")
    assert doc.pages[1] == "" and doc.ocr == ()
    skipped = "page 2 has no text layer (scanned image?); the page was skipped (OCR is off; pass --ocr auto to read it)"
    assert doc.warnings == (skipped,)
    image = tmp_path / "scan.png"
    english_scan.save(image)
    with pytest.raises(DocumentError) as err:
        read_document(str(image), ocr="off")
    assert str(err.value) == f"{image}: an image can only be read by OCR, and OCR is off; pass --ocr auto"


def test_cli_ocr_flag(tmp_path, english_scan, capsys):
    scan_only = save_pdf(tmp_path / "scan.pdf", [english_scan])
    index = str(tmp_path / "idx")
    assert main(["--index", index, "--model", "fake", "index", "--ocr", "off", str(scan_only)]) == 1
    err = capsys.readouterr().err
    assert (f"error: {scan_only}: no page has a text layer (scanned images?); "
            "pass --ocr auto to read it with OCR (needs tesseract)") in err


@pytest.mark.slow
@tesseract
def test_cli_chunks_shows_ocr_anchors(tmp_path, english_scan, capsys):
    scan_only = save_pdf(tmp_path / "scan.pdf", [english_scan])
    assert main(["chunks", "--ocr", "auto", str(scan_only)]) == 0
    assert "── scan.pdf p.1 (OCR)" in capsys.readouterr().out


# --- the store ------------------------------------------------------------------------------------
def test_chunk_anchor_marks_ocr():
    chunk = Chunk("c", "d", "scan.pdf", 3, ("第1条",), "本文", 0, 2, "ja", ocr=True)
    assert chunk.anchor == "scan.pdf p.3 (OCR) › 第1条"


def test_an_old_index_gains_the_ocr_column(tmp_path):
    import sqlite3

    s = open_store(str(tmp_path / "idx"))
    s.close()
    db = sqlite3.connect(tmp_path / "idx" / "index.sqlite3")
    db.execute("ALTER TABLE chunks DROP COLUMN ocr")
    db.execute("DROP TABLE page_words")
    db.commit()
    db.close()
    s = open_store(str(tmp_path / "idx"))
    assert s.page_words("nothing", 1) is None
    s.close()
    db = sqlite3.connect(tmp_path / "idx" / "index.sqlite3")
    assert "ocr" in {row[1] for row in db.execute("PRAGMA table_info(chunks)")}
    db.close()


def test_bag_error_ignores_order():
    assert bag_error("abc def", "def abc") == 0.0 and cer("abc def", "def abc") > 0.5

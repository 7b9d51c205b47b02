"""The HTTP API over real HTTP: uvicorn in a thread, httpx as the client, FakeEmbedder for speed."""
from __future__ import annotations

import io
import json
import os
import shutil
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import httpx
import numpy as np
import pytest
from PIL import Image

from conftest import FakeEmbedder
from kotae import Kotae
from kotae.answer.llm import LLM, LLMSettings, Message
from kotae.embed.base import Kind
from kotae.ingest.ocr import INSTALL, find_engine
from kotae.ingest.render import PageNotFound, Passage, fold, locate, ocr_boxes, render_page
from kotae.server import create_app, serve_in_thread
from kotae.server.uploads import safe_name
from kotae.store import open_store
from kotae.types import PageWords, Word
from scanned import ENGLISH, horizontal_page, latin_font, save_pdf

RULES_MD = (b"# Office rules\n\n## Salary\n\nSalaries are paid on the 25th day of every month by bank transfer.\n\n"
            b"## Leave\n\nEvery employee receives twenty days of paid leave per calendar year.\n")
PNG_BYTES = b"\x89PNG\r\n\x1a\n" + bytes(200)


def make_pdf(path: str, pages: Sequence[Sequence[str]]) -> str:
    """A PDF with a real text layer, one list of lines per page."""
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen import canvas

    c = canvas.Canvas(path, pagesize=A4)
    for lines in pages:
        y = 780
        for line in lines:
            c.drawString(72, y, line)
            y -= 18
        c.showPage()
    c.save()
    return path


HAVE_TESSERACT = shutil.which("tesseract") is not None and not isinstance(find_engine("tesseract"), str)
needs_tesseract = pytest.mark.skipif(not HAVE_TESSERACT, reason=f"tesseract is not installed ({INSTALL}; CI installs it)")
PARKING = ["Visitor parking", "Visitors park on level two of the north garage",
           "and show their ticket at the front desk on leaving."]


def scanned_pdf(path: str) -> str:
    """An image-only PDF (no text layer) of one A5 page of English text, as a scanner makes it."""
    return str(save_pdf(Path(path), [horizontal_page(ENGLISH, latin_font())]))


def scanned_png(path: str) -> str:
    """A PNG of one A5 page of English text at 300 dpi (the file records no resolution)."""
    horizontal_page(PARKING, latin_font()).save(path)
    return path


PDF_PAGES = [
    ["Travel policy", "Employees book trains through the travel desk.",
     "Hotel nights are approved by the team lead in advance."],
    ["Meal allowance", "The daily meal allowance on business trips is 3,000 yen.",
     "Receipts are required for every meal above the allowance.", "Unused allowance is not paid out."],
]


def app_for(store, embedder=None, *, llm=None, settings=None, **kw):
    """The app over one `Kotae` of `store` (FakeEmbedder unless another is given)."""
    return create_app(Kotae(store, embedder or FakeEmbedder(), settings, llm=llm), **kw)


def events(response: httpx.Response) -> list[tuple[str, object]]:
    """Server-sent events as (name, decoded JSON data), in arrival order."""
    out = []
    for frame in response.text.split("\n\n"):
        if not frame.strip():
            continue
        fields = dict(line.split(": ", 1) for line in frame.splitlines())
        out.append((fields["event"], json.loads(fields["data"])))
    return out


def wait_for(check: Callable[[], object], timeout: float = 30.0) -> object:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if value := check():
            return value
        time.sleep(0.05)
    raise AssertionError("condition not met in time")


def assert_error(r: httpx.Response, status: int, code: str, match: str = "") -> None:
    assert r.status_code == status, r.text
    assert r.headers["content-type"].startswith("application/json")
    body = r.json()
    assert set(body) == {"error"} and set(body["error"]) == {"code", "message"}, body
    assert body["error"]["code"] == code
    assert match in body["error"]["message"], body["error"]["message"]


@pytest.fixture(scope="module")
def server(tmp_path_factory) -> Iterator[tuple[httpx.Client, object, str]]:
    root = tmp_path_factory.mktemp("server")
    store = open_store(str(root / "index"))
    upload_dir = str(root / "index" / "uploads")
    app = app_for(store, upload_dir=upload_dir, max_upload_mb=0.05)
    with serve_in_thread(app) as url, httpx.Client(base_url=url, timeout=60) as client:
        yield client, store, upload_dir
    store.close()


@pytest.fixture
def client(server) -> httpx.Client:
    return server[0]


def upload(client: httpx.Client, name: str, data: bytes, wait: bool = True) -> httpx.Response:
    return client.post("/documents", files={"file": (name, data)}, params={"wait": "true"} if wait else None)


# --- uploads ------------------------------------------------------------------------------------
def test_health_summarises_the_index(client):
    r = client.get("/health")
    assert r.status_code == 200
    assert r.json()["status"] == "ok" and r.json()["index_version"].startswith("kotae-1:fake@1/256:")


def test_upload_with_wait_indexes_and_lists_the_document(client):
    r = upload(client, "office-rules.md", RULES_MD)
    assert r.status_code == 200, r.text
    doc = r.json()
    assert doc["status"] == "indexed" and doc["already_indexed"] is False
    assert doc["kind"] == "markdown" and doc["chunks"] >= 1 and doc["file"] == "office-rules.md"
    listed = {d["id"]: d for d in client.get("/documents").json()}
    assert listed[doc["id"]]["status"] == "indexed" and listed[doc["id"]]["chunks"] == doc["chunks"]
    assert client.get(f"/documents/{doc['id']}").json()["status"] == "indexed"


def test_upload_returns_202_and_the_status_reaches_indexed(client):
    r = upload(client, "handbook.txt", b"Remote work is allowed two days a week after probation.\n", wait=False)
    assert r.status_code == 202, r.text
    assert r.json()["status"] in ("queued", "indexing", "indexed") and r.json()["chunks"] in (None, 1)
    doc_id = r.json()["id"]
    done = wait_for(lambda: (d := client.get(f"/documents/{doc_id}").json())["status"] == "indexed" and d)
    assert done["chunks"] == 1 and done["kind"] == "text"


def test_same_content_is_already_indexed_under_its_first_id(client):
    first = upload(client, "leave.md", b"# Leave\n\nSick leave needs a doctor's note after three days.\n").json()
    again = upload(client, "copy-of-leave.md", b"# Leave\n\nSick leave needs a doctor's note after three days.\n")
    assert again.status_code == 200
    assert again.json()["already_indexed"] is True and again.json()["id"] == first["id"]
    assert [d["file"] for d in client.get("/documents").json()].count("copy-of-leave.md") == 0


def test_same_name_with_new_content_is_kept_beside_the_first(client, server):
    a = upload(client, "notes.md", b"Parking spaces are assigned by lottery in April.\n").json()
    b = upload(client, "notes.md", b"The canteen opens at half past eleven on weekdays.\n").json()
    assert (a["file"], b["file"]) == ("notes.md", "notes-2.md") and a["id"] != b["id"]
    assert {"notes.md", "notes-2.md"} <= set(os.listdir(server[2]))


def test_file_names_are_sanitised(client, server):
    upload_dir = server[2]
    r = upload(client, "../../escape.md", b"Visitors sign in at the front desk of the lobby.\n")
    assert r.status_code == 200 and r.json()["file"] == "escape.md"
    assert os.path.isfile(os.path.join(upload_dir, "escape.md"))
    assert not os.path.exists(os.path.join(os.path.dirname(os.path.dirname(upload_dir)), "escape.md"))
    r = upload(client, "就業規則 2024.md", "# 休暇\n\n年次有給休暇は二十日とする。\n".encode())
    assert r.json()["file"] == "就業規則 2024.md"


@pytest.mark.parametrize(("raw", "safe"), [
    ("../../x.md", "x.md"), ("..\\..\\windows\\x.md", "x.md"), ("/etc/passwd", "passwd"),
    ("a\x00b\x1fc.md", "abc.md"), (".hidden.md", "hidden.md"), ("..", "upload"), ("", "upload"),
    ("規程　第1版.pdf", "規程　第1版.pdf"), ('what?<is>:this|*.txt', "what__is__this__.txt"),
    ("x" * 300 + ".pdf", "x" * 116 + ".pdf"),
])
def test_safe_name(raw, safe):
    assert safe_name(raw) == safe


def test_unsupported_content_is_415_whatever_the_extension(client, server):
    before = set(os.listdir(server[2]))
    assert_error(upload(client, "scan.pdf", PNG_BYTES), 415, "unsupported_type", "scan.pdf: unsupported file type (PNG image)")
    assert_error(upload(client, "blob.bin", bytes(range(256)) * 4), 415, "unsupported_type", "binary file of unknown type")
    assert_error(upload(client, "empty.md", b""), 422, "unreadable_document", "empty.md: file is empty")
    assert set(os.listdir(server[2])) == before  # nothing of a refused upload stays


def test_oversize_uploads_are_413(client, server):
    before = set(os.listdir(server[2]))
    # over the 50 KB file limit, inside the form allowance: refused while the file is copied
    assert_error(upload(client, "big.txt", b"a" * 60_000), 413, "too_large", "big.txt is over the 0.05 MB upload limit")
    # a body over the whole allowance: refused from its Content-Length, before it is read
    assert_error(upload(client, "huge.txt", b"a" * 1_200_000), 413, "too_large", "upload is over the")

    def chunked() -> Iterator[bytes]:  # no Content-Length: refused as the bytes arrive
        yield b'--x\r\nContent-Disposition: form-data; name="file"; filename="s.txt"\r\n\r\n'
        for _ in range(40):
            yield b"b" * 65_536

    r = client.post("/documents", content=chunked(), headers={"Content-Type": "multipart/form-data; boundary=x"})
    assert_error(r, 413, "too_large", "upload is over the")
    assert set(os.listdir(server[2])) == before


def test_a_file_that_cannot_be_indexed_fails_with_its_reason(client, server):
    r = upload(client, "blank.md", b"   \n\n\t\n")
    assert_error(r, 422, "indexing_failed", "blank.md: no text found in the document")
    failed = [d for d in client.get("/documents").json() if d["file"] == "blank.md"]
    assert failed[0]["status"] == "failed" and "no text found" in failed[0]["message"]
    assert "blank.md" not in os.listdir(server[2])
    assert client.delete(f"/documents/{failed[0]['id']}").status_code == 200
    assert all(d["file"] != "blank.md" for d in client.get("/documents").json())


# --- queries ------------------------------------------------------------------------------------
def test_query_returns_the_core_result_shape(client, server):
    upload(client, "office-rules.md", RULES_MD)
    question = "When are salaries paid?"
    r = client.post("/query", json={"question": question, "top_k": 3})
    assert r.status_code == 200, r.text
    got = r.json()
    core = Kotae(server[1], FakeEmbedder()).ask(question, top_k=3).to_dict()
    assert set(got) == set(core)
    for key in set(core) - {"timings_ms"}:
        assert got[key] == core[key], key
    assert got["found_in_docs"] and "25th" in got["answer"] and got["sources"][0]["file"] == "office-rules.md"


def test_stream_sends_retrieval_then_tokens_then_the_answer(client):
    upload(client, "office-rules.md", RULES_MD)
    r = client.post("/query/stream", json={"question": "How many days of paid leave?", "mode": "hybrid"})
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/event-stream")
    evs = events(r)
    names = [n for n, _ in evs]
    assert names[0] == "retrieval" and names[-1] == "answer"
    assert set(names[1:-1]) == {"token"} and len(names) >= 3
    retrieval, answer = evs[0][1], evs[-1][1]
    assert "".join(d["text"] for n, d in evs if n == "token") == answer["answer"]
    hits = {h["chunk_id"]: h for h in retrieval["hits"]}
    assert all(s["chunk_id"] in hits for s in answer["sources"])
    top = retrieval["hits"][0]
    assert set(top) >= {"rank", "chunk_id", "doc_id", "file", "page", "heading", "text", "ocr", "similarity", "bm25",
                        "fused", "rerank", "dense_rank", "keyword_rank"}
    assert top["rank"] == 1 and top["fused"] is not None and top["rerank"] is None and top["ocr"] is False
    assert all(s["ocr"] is False for s in answer["sources"])
    assert retrieval["gate"]["found"] is True and answer["found_in_docs"] is True


def test_a_question_the_documents_do_not_answer_says_i_dont_know(client):
    upload(client, "office-rules.md", RULES_MD)
    evs = events(client.post("/query/stream", json={"question": "Which volcano erupted near Reykjavik?"}))
    retrieval, answer = evs[0][1], evs[-1][1]
    assert retrieval["gate"]["found"] is False and "coverage" in retrieval["gate"]["reason"]
    assert answer["answer"] == "I don't know" and answer["found_in_docs"] is False and answer["sources"] == []
    assert [d for n, d in evs if n == "token"] == [{"text": "I don't know"}]


@pytest.mark.parametrize(("body", "match"), [
    ({"question": "x", "mode": "semantic"}, "mode: Input should be"),
    ({"question": ""}, "question: String should have at least 1 character"),
    ({"question": "x", "top_k": 0}, "top_k: Input should be greater than or equal to 1"),
    ({"question": "x", "filters": {"colour": "red"}}, "filters.colour: Extra inputs are not permitted"),
    ({}, "question: Field required"),
])
def test_bad_queries_are_422_in_the_error_shape(client, body, match):
    assert_error(client.post("/query", json=body), 422, "invalid_request", match)
    assert_error(client.post("/query/stream", json=body), 422, "invalid_request", match)


def test_filters_restrict_the_search(client):
    upload(client, "office-rules.md", RULES_MD)
    upload(client, "canteen.txt", b"Salaries of canteen staff follow the catering contract.\n")
    r = client.post("/query", json={"question": "salaries", "filters": {"file": "*.txt"}, "mode": "keyword"})
    assert {s["file"] for s in r.json()["sources"]} == {"canteen.txt"}


def test_deleted_documents_are_never_retrieved_again(client, server):
    doc = upload(client, "printer.md", b"# Printer\n\nThe colour printer on floor three needs a badge.\n").json()
    question = {"question": "Where is the colour printer that needs a badge?", "top_k": 20}
    assert any(s["file"] == "printer.md" for s in client.post("/query", json=question).json()["sources"])
    r = client.delete(f"/documents/{doc['id']}")
    assert r.status_code == 200 and r.json() == {"id": doc["id"], "file": "printer.md", "deleted": True}
    assert "printer.md" not in os.listdir(server[2])
    assert_error(client.get(f"/documents/{doc['id']}"), 404, "document_not_found", doc["id"])
    assert_error(client.delete(f"/documents/{doc['id']}"), 404, "document_not_found")
    assert all(s["file"] != "printer.md" for s in client.post("/query", json=question).json()["sources"])
    evs = events(client.post("/query/stream", json=question))
    assert all(h["doc_id"] != doc["id"] for h in evs[0][1]["hits"])


# --- page images --------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def pdf_doc(server, tmp_path_factory):
    client = server[0]
    path = make_pdf(str(tmp_path_factory.mktemp("pdf") / "travel.pdf"), PDF_PAGES)
    with open(path, "rb") as f:
        r = upload(client, "travel policy.pdf", f.read())
    assert r.status_code == 200, r.text
    return r.json()


def test_page_image_highlights_the_cited_passage(client, pdf_doc):
    answer = client.post("/query", json={"question": "What is the daily meal allowance on business trips?"}).json()
    source = answer["sources"][0]
    assert (source["file"], source["page"]) == ("travel policy.pdf", 2)
    plain = client.get(f"/documents/{pdf_doc['id']}/pages/2.png")
    lit = client.get(f"/documents/{pdf_doc['id']}/pages/2.png", params={"highlight": source["chunk_id"]})
    for r in (plain, lit):
        assert r.status_code == 200 and r.headers["content-type"] == "image/png"
        assert r.content.startswith(b"\x89PNG\r\n\x1a\n")
    assert plain.headers["x-kotae-highlights"] == "0" and int(lit.headers["x-kotae-highlights"]) >= 3
    a = np.asarray(Image.open(io.BytesIO(plain.content)).convert("RGB"), dtype=np.int16)
    b = np.asarray(Image.open(io.BytesIO(lit.content)).convert("RGB"), dtype=np.int16)
    assert a.shape == b.shape == (round(841.89 * 1.5), round(595.28 * 1.5), 3)  # A4 at scale 1.5
    changed = np.abs(a - b).sum(axis=2) > 30
    rows = np.nonzero(changed.any(axis=1))[0]
    assert changed.sum() > 2000
    # the highlight sits at the top of the page, where the passage is printed, not over the whole page
    assert rows.min() > 40 and rows.max() < 300
    # a chunk of another page highlights nothing here
    other = client.get(f"/documents/{pdf_doc['id']}/pages/1.png", params={"highlight": source["chunk_id"]})
    assert other.headers["x-kotae-highlights"] == "0"


def test_page_image_errors_are_404_in_the_error_shape(client, pdf_doc):
    md = upload(client, "office-rules.md", RULES_MD).json()
    assert_error(client.get(f"/documents/{pdf_doc['id']}/pages/9.png"), 404, "page_not_found",
                 "page 9 is not in the document (it has 2 pages)")
    assert_error(client.get(f"/documents/{md['id']}/pages/1.png"), 404, "no_page_image",
                 "office-rules.md is a markdown document; page images exist for PDFs and images only")
    assert_error(client.get("/documents/0000000000000000/pages/1.png"), 404, "document_not_found")
    assert_error(client.get(f"/documents/{pdf_doc['id']}/pages/one.png"), 422, "invalid_request", "page:")


def test_locate_finds_cleaned_text_in_the_raw_text_layer():
    raw = "ACME Corp  Internal\r\nThe meal allow-\r\nance is ３，０００ yen per day.\r\n- 2 -"
    spans = locate(raw, "The meal allowance is 3,000 yen per day.")
    assert len(spans) == 1 and raw[spans[0][0]:spans[0][1]].startswith("The meal")
    assert raw[spans[0][0]:spans[0][1]].endswith("day.")
    # a passage whose middle was cleaned differently is still found sentence by sentence
    spans = locate("第1条 目的。\r\n本規則は社員に適用する。\r\n第2条 定義。", "第1条 目的。本規則は全社員に適用する。")
    found = "".join("第1条 目的。\r\n本規則は社員に適用する。\r\n第2条 定義。"[a:b] for a, b in spans)
    assert fold(found)[0].startswith("第1条目的。")
    assert locate("nothing alike", "completely different words here") == []


def _pixels(png: bytes) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB"), dtype=np.int16)


def _changed(a: bytes, b: bytes) -> np.ndarray:
    """Where two page images differ visibly: a boolean mask over the pixels."""
    return np.abs(_pixels(a) - _pixels(b)).sum(axis=2) > 30


def test_ocr_boxes_are_the_words_inside_the_passage_scaled_to_the_image():
    words = PageWords(1, 100.0, 200.0, "pt", "eng", (
        Word("Annual", 0, 6, 10, 10, 40, 20), Word("Report", 7, 13, 42, 10, 70, 20),
        Word("- 3 -", -1, -1, 45, 190, 55, 198),  # dropped by cleaning: never highlighted
        Word("Pumps", 15, 20, 10, 30, 38, 40), Word("fail", 21, 25, 40, 30, 55, 40)))
    # "Report\n\nPumps": the end of one line and the start of the next, at 2 pixels per point
    assert ocr_boxes(words, Passage("Report\n\nPumps", 7, 20), 2.0, 2.0) == [(84, 20, 140, 40), (20, 60, 76, 80)]
    assert ocr_boxes(words, Passage("Annual Report", 0, 13), 1.0, 0.5) == [(10, 5, 70, 10)]  # one line, one box
    assert ocr_boxes(words, Passage("x", 25, 30), 1.0, 1.0) == []
    # vertical Japanese: one box per column, however OCR split the column into words
    column = PageWords(1, 100, 100, "px", "jpn_vert", (
        Word("大雨", 0, 2, 80, 10, 90, 30), Word("の", 2, 3, 79, 32, 91, 40), Word("日", 3, 4, 80, 42, 90, 52),
        Word("交通", 5, 7, 60, 10, 70, 30)))
    assert ocr_boxes(column, Passage("大雨の日\n交通", 0, 7), 1.0, 1.0) == [(79, 10, 91, 52), (60, 10, 70, 30)]


def test_an_image_frame_renders_sized_like_a_pdf_page_with_ocr_highlights(tmp_path):
    path = str(tmp_path / "fax.tiff")
    page = Image.new("L", (1200, 1800), 255)  # 4 x 6 inches at 300 dpi
    blank = Image.new("L", (600, 900), 255)
    page.save(path, save_all=True, append_images=[blank], dpi=(300, 300))
    words = PageWords(1, 1200, 1800, "px", "eng", (Word("Fax", 0, 3, 300, 600, 600, 700),))
    png, boxes = render_page(path, 1, [Passage("Fax", 0, 3)], 1.5, kind="image", words=words)
    plain, none = render_page(path, 1, [], 1.5, kind="image")
    assert (boxes, none) == (1, 0)
    assert _pixels(png).shape == (round(6 * 72 * 1.5), round(4 * 72 * 1.5), 3)  # 1.5 pixels per point, as a PDF
    rows, cols = np.nonzero(_changed(plain, png))
    # the word at (300..600, 600..700) of 1200 x 1800 pixels, drawn at 0.36 of the size (and the 2-px edge)
    assert (cols.min(), cols.max(), rows.min(), rows.max()) == pytest.approx((106, 218, 214, 253), abs=3)
    assert _pixels(render_page(path, 2, [], 4.0, kind="image")[0]).shape == (864, 576, 3)  # frame 2 is page 2
    screen = str(tmp_path / "screen.png")
    Image.new("RGB", (800, 500), "white").save(screen, dpi=(72, 72))
    assert _pixels(render_page(screen, 1, [], 1.5, kind="image")[0]).shape == (500, 800, 3)  # never enlarged
    with pytest.raises(PageNotFound, match=r"page 3 is not in the document \(it has 2 pages\)"):
        render_page(path, 3, [], kind="image")


# --- OCR'd documents: scanned PDFs and images ---------------------------------------------------
@pytest.fixture(scope="module")
def ocr_server(tmp_path_factory) -> Iterator[tuple[httpx.Client, dict[str, dict]]]:
    """A server (uploads up to 50 MB) with a scanned PDF and a PNG, uploaded and OCR'd."""
    if not HAVE_TESSERACT:
        pytest.skip(f"tesseract is not installed ({INSTALL}; CI installs it)")
    root = tmp_path_factory.mktemp("ocr-server")
    store = open_store(str(root / "index"))
    docs = {}
    with serve_in_thread(app_for(store, upload_dir=str(root / "up"))) as url, \
            httpx.Client(base_url=url, timeout=120) as c:
        upload(c, "office-rules.md", RULES_MD)
        for path in (scanned_pdf(str(root / "maintenance scan.pdf")), scanned_png(str(root / "parking.png"))):
            with open(path, "rb") as f:
                r = upload(c, os.path.basename(path), f.read())
            assert r.status_code == 200, r.text
            docs[r.json()["file"]] = r.json()
        yield c, docs
    store.close()


@pytest.mark.slow
@needs_tesseract
def test_ocr_sources_are_flagged_in_the_answer_and_the_retrieval_event(ocr_server):
    c, docs = ocr_server
    assert (docs["maintenance scan.pdf"]["kind"], docs["parking.png"]["kind"]) == ("pdf", "image")
    assert docs["parking.png"]["pages"] == 1
    answer = c.post("/query", json={"question": "When is the spare pump unit tested?"}).json()
    top = answer["sources"][0]
    assert (top["file"], top["page"], top["ocr"]) == ("maintenance scan.pdf", 1, True)
    evs = events(c.post("/query/stream", json={"question": "Where do visitors park?", "mode": "keyword"}))
    hits = evs[0][1]["hits"]
    assert (hits[0]["file"], hits[0]["ocr"]) == ("parking.png", True)
    assert all(h["ocr"] is (h["file"] != "office-rules.md") for h in hits)
    assert evs[-1][1]["sources"][0]["ocr"] is True
    rules = c.post("/query", json={"question": "When are salaries paid?"}).json()["sources"][0]
    assert (rules["file"], rules["ocr"]) == ("office-rules.md", False)


@pytest.mark.slow
@needs_tesseract
def test_a_scanned_pdf_page_is_highlighted_through_its_ocr_word_boxes(ocr_server):
    c, docs = ocr_server
    source = c.post("/query", json={"question": "When is the spare pump unit tested?"}).json()["sources"][0]
    assert (source["file"], source["ocr"]) == ("maintenance scan.pdf", True)
    url = f"/documents/{docs['maintenance scan.pdf']['id']}/pages/1.png"
    plain, lit = c.get(url), c.get(url, params={"highlight": source["chunk_id"]})
    assert plain.status_code == lit.status_code == 200 and lit.headers["content-type"] == "image/png"
    assert plain.headers["x-kotae-highlights"] == "0" and int(lit.headers["x-kotae-highlights"]) >= 3
    assert _pixels(plain.content).shape == pytest.approx((8.27 * 72 * 1.5, 5.83 * 72 * 1.5, 3), abs=1)  # A5, 1.5
    changed = _changed(plain.content, lit.content)
    rows, cols = np.nonzero(changed)
    assert changed.sum() > 5000
    # the six lines are printed from 0.6 in, 0.7 in down to about 2.4 in: the boxes lie there, not elsewhere
    assert 0.5 * 108 < cols.min() and cols.max() < 5.5 * 108 and 0.5 * 108 < rows.min() and rows.max() < 2.6 * 108


@pytest.mark.slow
@needs_tesseract
def test_an_image_document_has_page_images_with_highlights(ocr_server):
    c, docs = ocr_server
    doc = docs["parking.png"]
    source = c.post("/query", json={"question": "Where do visitors park?", "mode": "keyword"}).json()["sources"][0]
    assert (source["file"], source["page"], source["ocr"]) == ("parking.png", 1, True)
    url = f"/documents/{doc['id']}/pages/1.png"
    plain, lit = c.get(url), c.get(url, params={"highlight": source["chunk_id"]})
    assert plain.status_code == lit.status_code == 200 and plain.headers["content-type"] == "image/png"
    assert plain.headers["x-kotae-highlights"] == "0" and int(lit.headers["x-kotae-highlights"]) >= 1
    # 1749 x 2481 pixels that record no resolution: taken as 300 dpi, so the size of an A5 PDF page at 1.5
    assert _pixels(plain.content).shape == (893, 630, 3)
    assert _changed(plain.content, lit.content).sum() > 2000
    assert c.get(url, params={"highlight": source["chunk_id"]}).content == lit.content  # from the cache
    assert_error(c.get(f"/documents/{doc['id']}/pages/2.png"), 404, "page_not_found",
                 "parking.png: page 2 is not in the document (it has 1 page)")


# --- keys, CORS, routes -------------------------------------------------------------------------
@pytest.fixture(scope="module")
def keyed(tmp_path_factory) -> Iterator[str]:
    root = tmp_path_factory.mktemp("keyed")
    store = open_store(str(root / "index"))
    app = app_for(store, upload_dir=str(root / "up"), api_key="s3cret",
                     cors_origins=["http://app.example"])
    with serve_in_thread(app) as url:
        yield url
    store.close()


def test_api_key_is_required_on_every_route_but_health(keyed, tmp_path):
    with httpx.Client(base_url=keyed) as c:
        assert c.get("/health").status_code == 200
        for method, path in (("GET", "/documents"), ("POST", "/query"), ("POST", "/query/stream"),
                             ("GET", "/documents/x"), ("DELETE", "/documents/x"), ("GET", "/documents/x/pages/1.png")):
            assert_error(c.request(method, path, json={"question": "x"}), 401, "unauthorized",
                         "missing API key; send it in the X-API-Key header")
        assert_error(c.get("/documents", headers={"X-API-Key": "guess"}), 401, "unauthorized", "wrong API key")
        r = c.post("/documents", files={"file": ("a.md", b"Badge rules apply.\n")})
        assert_error(r, 401, "unauthorized")
        assert not os.path.exists(tmp_path / "up") or not os.listdir(tmp_path / "up")
        assert c.get("/documents", headers={"X-API-Key": "s3cret"}).json() == []
        assert c.get("/").status_code == 200  # the page shell holds no data; its API calls send the key


def test_cors_headers_for_the_configured_origin(keyed):
    with httpx.Client(base_url=keyed) as c:
        r = c.get("/health", headers={"Origin": "http://app.example"})
        assert r.headers["access-control-allow-origin"] == "http://app.example"
        pre = c.options("/query", headers={"Origin": "http://app.example", "Access-Control-Request-Method": "POST",
                                           "Access-Control-Request-Headers": "x-api-key, content-type"})
        assert pre.status_code == 200 and pre.headers["access-control-allow-origin"] == "http://app.example"
        denied = c.get("/documents", headers={"Origin": "http://app.example"})
        assert denied.status_code == 401 and denied.headers["access-control-allow-origin"] == "http://app.example"
        assert "access-control-allow-origin" not in c.get("/health", headers={"Origin": "http://evil.example"}).headers


def test_unknown_routes_and_methods_use_the_error_shape(client):
    assert_error(client.get("/nowhere"), 404, "not_found", "no route GET /nowhere")
    assert_error(client.put("/query"), 405, "method_not_allowed", "PUT is not allowed on /query")


def test_openapi_schema_documents_every_route(client):
    schema = client.get("/openapi.json").json()
    assert {"/documents", "/documents/{doc_id}", "/documents/{doc_id}/pages/{page}.png", "/query", "/query/stream",
            "/health"} <= set(schema["paths"])
    assert schema["components"]["securitySchemes"]["APIKeyHeader"]["name"] == "X-API-Key"
    assert client.get("/docs").status_code == 200


def test_the_ui_page_is_served_with_its_assets(client):
    page = client.get("/")
    assert page.status_code == 200 and 'data-i18n="ask"' in page.text  # labels come from static/i18n.js
    assert "https://" not in page.text  # works offline: nothing from a CDN
    for name in ("app.js", "app.css", "i18n.js", "api.js", "thread.js", "source.js", "settings.js"):
        assert client.get(f"/static/{name}").status_code == 200, name
    words = client.get("/static/i18n.js").text
    assert 'ask: "質問する"' in words and 'ask: "Ask"' in words  # one language at a time


def test_the_api_docs_load_their_assets_from_this_server(client):
    docs = client.get("/docs")
    assert docs.status_code == 200 and "cdn." not in docs.text and "https://" not in docs.text
    for asset in ("/static/swagger/swagger-ui-bundle.js", "/static/swagger/swagger-ui.css"):
        assert asset in docs.text
        assert client.get(asset).status_code == 200, asset


# --- background indexing ------------------------------------------------------------------------
class GatedEmbedder(FakeEmbedder):
    """Embeds for the indexing thread only once `gate` is open, so a test can hold a document in
    `indexing`; queries (which embed passages too, to pick answer sentences) are never held."""

    def __init__(self) -> None:
        super().__init__()
        self.gate = threading.Event()
        self.waiting = threading.Event()

    def embed_batch(self, texts: Sequence[str], kind: Kind) -> np.ndarray:
        if threading.current_thread().name == "kotae-indexer" and not self.gate.is_set():
            self.waiting.set()
            assert self.gate.wait(30), "the test never opened the gate"
        return super().embed_batch(texts, kind)


def test_queries_are_answered_while_an_upload_is_indexing(tmp_path):
    embedder = GatedEmbedder()
    store = open_store(str(tmp_path / "index"))
    app = app_for(store, embedder, upload_dir=str(tmp_path / "up"))
    try:
        with serve_in_thread(app) as url, httpx.Client(base_url=url, timeout=30) as c:
            embedder.gate.set()
            upload(c, "office-rules.md", RULES_MD)
            embedder.gate.clear()
            slow = upload(c, "slow.md", b"# Slow\n\nThe archive room is in the basement.\n", wait=False).json()
            assert embedder.waiting.wait(10)
            assert c.get(f"/documents/{slow['id']}").json()["status"] == "indexing"
            assert c.get("/health").json()["indexing"] is True
            queued = upload(c, "later.md", b"Lockers are emptied every Friday evening.\n", wait=False).json()
            assert c.get(f"/documents/{queued['id']}").json()["status"] == "queued"
            t0 = time.monotonic()
            answer = c.post("/query", json={"question": "When are salaries paid?"}).json()
            assert answer["found_in_docs"] and time.monotonic() - t0 < 5
            embedder.gate.set()
            for doc_id in (slow["id"], queued["id"]):
                wait_for(lambda d=doc_id: c.get(f"/documents/{d}").json()["status"] == "indexed")
            assert c.post("/query", json={"question": "Where is the archive room?"}).json()["sources"][0]["file"] == "slow.md"
    finally:
        embedder.gate.set()
        store.close()


def test_uploads_saved_but_not_indexed_are_resumed_at_start(tmp_path):
    up = tmp_path / "up"
    up.mkdir()
    (up / "left-over.md").write_bytes(b"The fire drill takes place every October.\n")
    (up / ".upload-abc.part").write_bytes(b"half a file")
    store = open_store(str(tmp_path / "index"))
    try:
        with serve_in_thread(app_for(store, upload_dir=str(up))) as url, httpx.Client(base_url=url, timeout=120) as c:
            wait_for(lambda: [d["status"] for d in c.get("/documents").json()] == ["indexed"])
        assert sorted(os.listdir(up)) == ["left-over.md"]
    finally:
        store.close()


# --- the answer hook and failures ---------------------------------------------------------------
def test_errors_during_answering_reach_the_client_in_the_error_shape(tmp_path):
    from kotae.errors import KotaeError

    def breaks_after_retrieval(question, **kw):  # an answer_stream whose model fails midway
        stream = Kotae(store, FakeEmbedder()).ask_stream(question, **kw)
        yield next(stream)
        yield "token", "Salaries are"
        raise KotaeError("the model at http://127.0.0.1:9/v1 did not answer (timed out); try again")

    def breaks_at_once(question, **kw):
        raise RuntimeError("disk on fire")
        yield  # pragma: no cover

    store = open_store(str(tmp_path / "index"))
    apps = [app_for(store, upload_dir=str(tmp_path / "up"), answer_stream=s)
            for s in (breaks_after_retrieval, breaks_at_once)]
    try:
        with serve_in_thread(apps[0]) as url, httpx.Client(base_url=url, timeout=120) as c:
            upload(c, "office-rules.md", RULES_MD)
            evs = events(c.post("/query/stream", json={"question": "When are salaries paid?"}))
            assert [n for n, _ in evs] == ["retrieval", "token", "error"]
            assert evs[-1][1] == {"error": {"code": "internal_error", "message":
                                            "the model at http://127.0.0.1:9/v1 did not answer (timed out); try again"}}
            assert_error(c.post("/query", json={"question": "When are salaries paid?"}), 500, "internal_error",
                         "did not answer (timed out)")
        with serve_in_thread(apps[1]) as url, httpx.Client(base_url=url, timeout=120) as c:
            for path in ("/query", "/query/stream"):
                assert_error(c.post(path, json={"question": "x"}), 500, "internal_error",
                             "internal error (RuntimeError); see the server log")
    finally:
        store.close()


class ScriptedLLM(LLM):
    """Replies with a fixed answer in pieces, as a streaming model would, and records its prompts."""

    name = "scripted"

    def __init__(self, pieces: Sequence[str]) -> None:
        super().__init__(LLMSettings(spec="scripted:test", rewrite="off"))
        self.pieces = list(pieces)
        self.prompts: list[str] = []

    def stream(self, messages: Sequence[Message], *, temperature: float, max_tokens: int) -> Iterator[str]:
        self.prompts.append("\n".join(m["content"] for m in messages))
        yield from self.pieces


def test_an_llm_answer_streams_through_the_same_events(tmp_path):
    llm = ScriptedLLM(["Salaries are paid ", "on the 25th day ", "of every month [1]."])
    store = open_store(str(tmp_path / "index"))
    try:
        with serve_in_thread(app_for(store, upload_dir=str(tmp_path / "up"), llm=llm)) as url, \
                httpx.Client(base_url=url, timeout=120) as c:
            upload(c, "office-rules.md", RULES_MD)
            evs = events(c.post("/query/stream", json={"question": "When are salaries paid?"}))
            assert [n for n, _ in evs] == ["retrieval", "token", "token", "token", "answer"]
            answer = evs[-1][1]
            assert answer["mode"] == "llm" and answer["found_in_docs"] is True
            assert "25th day of every month" in answer["answer"] and "[1]" in answer["answer"]
            assert answer["sources"][0]["file"] == "office-rules.md"
            assert "Salaries are paid on the 25th day of every month by bank transfer." in llm.prompts[0]
    finally:
        store.close()


def test_workbook_upload_is_read_and_its_page_shown_as_text(server):
    import openpyxl

    client, store, _ = server
    book = openpyxl.Workbook()
    book.active.title = "経費コード"
    for row in (["経費コード一覧"], ["コード", "科目"], ["T01", "交通費"], ["M01", "会議費"]):
        book.active.append(row)
    data = io.BytesIO()
    book.save(data)
    r = upload(client, "経費.xlsx", data.getvalue())
    assert r.status_code == 200, r.text
    doc = r.json()
    assert doc["kind"] == "xlsx" and doc["pages"] == 1 and doc["status"] == "indexed"
    assert_error(client.get(f"/documents/{doc['id']}/pages/1.png"), 404, "no_page_image",
                 "no renderer for this type: its text is at GET /documents/{id}/pages/{n}/text")
    chunks = [c for c in store.chunks([r for r, _ in store.chunk_texts()]).values() if c.doc_id == doc["id"]]
    assert [c.anchor for c in chunks] == ["経費.xlsx sheet 1 › 経費コード › 経費コード一覧"]
    page = client.get(f"/documents/{doc['id']}/pages/1/text", params={"highlight": chunks[0].id}).json()
    assert page["text"] == "コード: T01 | 科目: 交通費\nコード: M01 | 科目: 会議費"
    assert page["highlights"] == [[0, len(page["text"])]] and page["kind"] == "xlsx"
    assert_error(client.get(f"/documents/{doc['id']}/pages/2/text"), 404, "page_not_found", "page 2 is not")
    assert_error(upload(client, "old.xls", b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(100)), 415, "unsupported_type",
                 "old.xls: unsupported file type (legacy Office file (.doc/.xls/.ppt)); save it as .docx, .xlsx or "
                 ".pptx and index that (supported types are .pdf, .docx, .xlsx, .xlsm, .pptx,")

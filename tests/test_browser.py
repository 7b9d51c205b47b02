"""The web UI in real headless Chromium (Debian's `chromium` package, driven by Playwright; never a
downloaded browser): upload a PDF, ask, click a citation, see the highlighted page beside the answer, zoom
and turn pages, copy; one language at a time; the settings panel; phones; /docs offline; the same for a
scanned PDF read by OCR. This server has no /conversations, /feedback or /collections: the UI runs in its
one-question mode without them (test_browser_chat.py covers them). Screenshots go to test-artifacts/browser/. Without the browser (or Playwright) the module
is skipped with one line saying what to install; KOTAE_REQUIRE_BROWSER=1 (set by .ci/run, which installs
it) makes a missing browser a failure instead. KOTAE_SKIP_BROWSER=1 skips it anyway."""
from __future__ import annotations

import json
import os
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from conftest import ROOT, FakeEmbedder
from kotae import Kotae
from kotae.server import create_app, serve_in_thread
from kotae.store import open_store
from test_server import PDF_PAGES, PNG_BYTES, make_pdf, needs_tesseract, scanned_pdf

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-default-apps"]
SHOTS = os.path.join(ROOT, "test-artifacts", "browser")

if os.environ.get("KOTAE_SKIP_BROWSER") == "1":
    pytest.skip("KOTAE_SKIP_BROWSER=1: browser test skipped", allow_module_level=True)
if not os.path.exists(CHROMIUM):
    why = f"{CHROMIUM} not found: install Debian's browser with `sudo apt-get install chromium` (.ci/run does)"
    if os.environ.get("KOTAE_REQUIRE_BROWSER") == "1":
        pytest.fail(why, pytrace=False)
    pytest.skip(why, allow_module_level=True)
pytest.importorskip("playwright.sync_api", reason="Playwright drives the browser: pip install -e '.[dev]'")

from playwright.sync_api import Browser, Page, expect, sync_playwright

expect.set_options(timeout=20_000)  # uploads are read in a child process: a loaded 2-core machine can need > 5 s

# Pixels of the translucent highlight over white paper (see kotae.server.render.FILL).
COUNT_HIGHLIGHT = """img => {
  const c = document.createElement('canvas');
  c.width = img.naturalWidth; c.height = img.naturalHeight;
  const g = c.getContext('2d'); g.drawImage(img, 0, 0);
  const d = g.getImageData(0, 0, c.width, c.height).data;
  let n = 0;
  for (let i = 0; i < d.length; i += 4) if (d[i] > 245 && d[i+1] > 225 && d[i+1] < 250 && d[i+2] > 120 && d[i+2] < 190) n++;
  return n;
}"""


DESKTOP = {"width": 1400, "height": 1000}
PHONE = {"width": 390, "height": 844}


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Iterator[str]:
    root = tmp_path_factory.mktemp("browser")
    store = open_store(str(root / "index"))
    with serve_in_thread(create_app(Kotae(store, FakeEmbedder()), upload_dir=str(root / "uploads"))) as url:
        yield url
    store.close()


# The optional routes: without them the UI asks one question at a time (no history, feedback or picker);
# with them, tests/test_browser_chat.py.
OPTIONAL = ("/conversations", "/feedback", "/collections")


@contextmanager
def launched() -> Iterator[Browser]:
    """Debian's Chromium, headless."""
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            yield b
        finally:
            b.close()


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with launched() as b:
        yield b


@contextmanager
def opened(browser: Browser, site: str, *, locale: str = "ja-JP", viewport: dict | None = None,
           path: str = "/", without: tuple[str, ...] = ()) -> Iterator[Page]:
    """A fresh browser profile (empty localStorage) on `site`, refusing anything from elsewhere; routes under
    the paths `without` answer 404, as from a server without them (an older kotae, a proxy that forwards
    only some routes)."""
    os.makedirs(SHOTS, exist_ok=True)
    context = browser.new_context(viewport=viewport or DESKTOP, locale=locale)
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=site)
    try:
        pg = context.new_page()
        pg.set_default_timeout(20_000)
        pg.outside = []  # type: ignore[attr-defined]
        pg.errors = []  # type: ignore[attr-defined]
        pg.sent = []  # type: ignore[attr-defined]

        def route(r):  # the page must work offline: anything not from our server is refused
            if without and r.request.url[len(site):].startswith(without):
                r.fulfill(status=404, content_type="application/json",
                          body='{"error": {"code": "not_found", "message": "Not Found"}}')
            elif r.request.url.startswith(site) or r.request.url.startswith(("blob:", "data:")):
                if r.request.method == "POST" and r.request.post_data and "json" in (
                        r.request.headers.get("content-type") or ""):
                    pg.sent.append((r.request.url[len(site):], json.loads(r.request.post_data)))  # type: ignore[attr-defined]
                r.continue_()
            else:
                pg.outside.append(r.request.url)  # type: ignore[attr-defined]
                r.abort()

        pg.route("**/*", route)
        pg.on("pageerror", lambda e: pg.errors.append(str(e)))  # type: ignore[attr-defined]
        # (a 4xx, e.g. a refused upload or a probe for an optional route, is logged as "Failed to load resource")
        pg.on("console", lambda m: m.type == "error" and not m.text.startswith("Failed to load resource")
              and pg.errors.append(m.text))  # type: ignore[attr-defined]
        pg.goto(site + path)
        if path == "/":
            expect(pg.locator("body")).to_have_attribute("data-ready", "true")
        yield pg
        assert pg.outside == [], pg.outside  # type: ignore[attr-defined]
        assert pg.errors == [], pg.errors  # type: ignore[attr-defined]
    finally:
        context.close()


@pytest.fixture
def page(browser, site) -> Iterator[Page]:
    with opened(browser, site, without=OPTIONAL) as pg:
        yield pg


def shot(page: Page, name: str) -> None:
    page.screenshot(path=os.path.join(SHOTS, name), full_page=True)


def box(page: Page, selector: str) -> dict:
    b = page.locator(selector).first.bounding_box()
    assert b is not None, f"{selector} is not on screen"
    return b


def lines(page: Page, selector: str) -> int:
    """How many lines the inline element's text takes on screen."""
    return page.locator(selector).first.evaluate(
        "e => new Set([...e.getClientRects()].map(r => Math.round(r.top))).size")


def upload(page: Page, path: str, name: str) -> None:
    page.set_input_files("#file-input", path)
    row = page.locator("#docs tr", has_text=name)
    expect(row).to_have_attribute("data-status", "indexed")


def ask(page: Page, question: str) -> None:
    page.fill("#question", question)
    page.click("#ask")
    expect(page.locator("#ask")).to_be_enabled()


def test_upload_ask_and_open_the_highlighted_source_beside_the_answer(page: Page, tmp_path):
    pdf = make_pdf(str(tmp_path / "travel-policy.pdf"), PDF_PAGES)
    expect(page.locator("html")).to_have_attribute("lang", "ja")  # from the browser's language
    expect(page.locator("#ask")).to_have_text("質問する")  # one language, not 「質問する / Ask」
    expect(page.locator("#lang")).to_have_text("English")
    expect(page.locator("#docs-empty")).to_have_text("まだ文書がありません")
    # a server without the optional routes: one question at a time, no history, picker or feedback
    expect(page.locator("#history")).to_be_hidden()
    expect(page.locator("#new-chat")).to_be_hidden()
    expect(page.locator("#collection-box")).to_be_hidden()

    upload(page, pdf, "travel-policy.pdf")
    expect(page.locator("#docs tr", has_text="travel-policy.pdf").locator("td").nth(2)).not_to_have_text("—")
    assert lines(page, "#docs tr:has-text('travel-policy.pdf') .name") == 1  # the name is not broken up
    shot(page, "01-uploaded.png")

    ask(page, "What is the daily meal allowance on business trips?")
    turn = page.locator("#thread .turn").last
    chip = turn.locator(".answer button.chip[data-n='1']").first
    expect(chip).to_be_enabled()
    expect(turn.locator(".answer")).to_contain_text("3,000 yen")
    expect(turn.locator(".feedback")).to_have_count(0)  # no /feedback here
    shot(page, "02-answer.png")

    turn.locator("button.copy").click()
    expect(turn.locator("button.copy")).to_contain_text("コピーしました")
    copied = page.evaluate("navigator.clipboard.readText()")
    assert "3,000 yen" in copied and "[1] travel-policy.pdf p.2" in copied

    chip.click()
    panel = page.locator("#source-panel")
    expect(panel).to_be_visible()
    expect(page.locator("#src-file")).to_have_text("travel-policy.pdf")
    expect(page.locator("#src-page")).to_have_text("2")
    expect(page.locator("#src-passage")).to_contain_text("daily meal allowance")
    expect(page.locator("#src-scores")).to_contain_text("BM25")
    expect(page.locator("#src-ocr")).to_be_hidden()  # a text layer, not OCR
    expect(page.locator("#src-pick")).to_be_hidden()  # no feedback to give it to
    image = page.locator("#src-image")
    expect(image).to_be_visible()
    page.wait_for_function("() => document.querySelector('#src-image').naturalWidth > 0")
    assert int(image.get_attribute("data-highlights") or 0) >= 1
    assert image.evaluate(COUNT_HIGHLIGHT) > 2000  # the highlight is painted in the image the user sees
    # beside the answer, not over it
    answer, side = box(page, "#thread .turn .answer"), box(page, "#source-panel")
    assert side["x"] >= answer["x"] + answer["width"], (answer, side)
    expect(page.locator("#src-at")).to_have_text("2 / 2")
    shot(page, "03-source-panel.png")

    width = image.evaluate("i => i.getBoundingClientRect().width")
    page.click("#src-zoom-in")
    expect(image).to_have_attribute("data-zoom", "1.5")
    assert image.evaluate("i => i.getBoundingClientRect().width") > 1.4 * width
    shot(page, "03b-source-zoomed.png")
    page.click("#src-zoom-fit")
    expect(image).to_have_attribute("data-zoom", "1")

    expect(page.locator("#src-next")).to_be_disabled()  # the last page
    page.click("#src-prev")
    expect(page.locator("#src-at")).to_have_text("1 / 2")
    expect(page.locator("#src-image-note")).to_contain_text("引用は 2 頁")
    page.wait_for_function("() => document.querySelector('#src-image').naturalWidth > 0")
    assert image.get_attribute("data-highlights") == "0"  # page 1 holds no cited passage
    expect(page.locator("#src-prev")).to_be_disabled()
    page.click("#src-next")
    expect(page.locator("#src-at")).to_have_text("2 / 2")
    page.wait_for_function("() => document.querySelector('#src-image').naturalWidth > 0")
    assert int(image.get_attribute("data-highlights") or 0) >= 1

    page.click("#src-close")
    expect(panel).to_be_hidden()
    turn.locator("details.retrieval summary").click()
    hits = turn.locator("table.hits tbody tr[data-chunk]")
    expect(hits.first).to_be_visible()
    expect(hits.first).to_contain_text("travel-policy.pdf")
    expect(turn.locator(".gate")).to_contain_text("coverage")
    shot(page, "04-retrieval.png")
    hits.first.click()
    expect(panel).to_be_visible()
    expect(page.locator("#src-n")).to_have_text("#1")

    ask(page, "Who approves hotel nights?")  # without conversations, a new question replaces the last
    expect(page.locator("#thread .turn")).to_have_count(1)
    expect(page.locator("#thread .turn .question")).to_have_text("Who approves hotel nights?")


def test_one_language_at_a_time_with_a_switch_that_is_kept(browser, site, tmp_path):
    with opened(browser, site, locale="en-US", without=OPTIONAL) as page:
        expect(page.locator("html")).to_have_attribute("lang", "en")
        expect(page.locator("#ask")).to_have_text("Ask")
        expect(page.locator("#library-title")).to_have_text("Documents")
        expect(page.locator("#question")).to_have_attribute("placeholder", "Type a question — e.g. When is salary paid?")
        body = page.locator("body").inner_text()
        assert "文書" not in body and "質問" not in body, body  # no doubled labels
        shot(page, "10-english.png")

        page.click("#lang")
        expect(page.locator("html")).to_have_attribute("lang", "ja")
        expect(page.locator("#ask")).to_have_text("質問する")
        expect(page.locator("#library-title")).to_have_text("文書")
        assert "Documents" not in page.locator("body").inner_text()
        page.reload()
        expect(page.locator("#ask")).to_have_text("質問する")  # kept across visits
        page.click("#lang")
        expect(page.locator("#ask")).to_have_text("Ask")


def test_dont_know_upload_errors_and_delete(browser, site, tmp_path):
    notes = tmp_path / "notes.md"
    notes.write_text("# Notes\n\nThe library closes at six on Fridays.\n", encoding="utf-8")
    with opened(browser, site, locale="en-GB", without=OPTIONAL) as page:
        upload(page, str(notes), "notes.md")
        ask(page, "社員旅行の行き先はどこですか")
        nf = page.locator("#thread .turn .not-found")
        expect(nf).to_be_visible()
        expect(nf).to_contain_text("I don't know")
        expect(nf.locator(".nf-query")).to_have_text("社員旅行の行き先はどこですか")
        expect(nf.locator(".nf-settings")).to_have_text("hybrid, top_k=5")
        expect(nf.locator(".nf-reason")).to_have_text("資料には「社員旅行」「行き先」についての記載がありません")
        expect(page.locator("#calibration")).to_contain_text("Refusal gate")
        expect(page.locator("#thread button.copy")).to_have_count(0)  # nothing to copy
        shot(page, "05-dont-know.png")

        photo = tmp_path / "photo.pdf"
        photo.write_bytes(PNG_BYTES)
        page.set_input_files("#file-input", str(photo))
        expect(page.locator("#uploads li", has_text="photo.pdf").locator(".err")).to_contain_text(
            "unsupported file type (PNG image)")
        shot(page, "06-upload-error.png")

        page.on("dialog", lambda d: d.accept())
        page.locator("#docs tr", has_text="notes.md").locator("button.delete").click()
        expect(page.locator("#docs tr", has_text="notes.md")).to_have_count(0)


def test_settings_persist_and_go_with_every_question(browser, site, tmp_path):
    with opened(browser, site, locale="en-US", without=OPTIONAL) as page:
        page.click("#open-settings")
        expect(page.locator("#settings")).to_be_visible()
        expect(page.locator("#set-mode")).to_have_value("hybrid")
        expect(page.locator("#set-top-k")).to_have_value("5")
        expect(page.locator("#settings")).to_contain_text("for reference only")
        page.select_option("#set-mode", "keyword")
        page.fill("#set-top-k", "3")
        page.fill("#set-llm-endpoint", "http://localhost:11434/v1")
        page.fill("#set-llm-model", "qwen2.5:7b")
        page.click("#set-save")
        expect(page.locator("#set-saved")).to_have_text("Saved")
        shot(page, "11-settings.png")
        page.click("#set-close")
        expect(page.locator("#settings")).to_be_hidden()
        expect(page.locator("#llm-shown")).to_have_text("LLM (for reference): http://localhost:11434/v1 · qwen2.5:7b")

        page.reload()
        expect(page.locator("body")).to_have_attribute("data-ready", "true")
        page.click("#open-settings")
        expect(page.locator("#set-mode")).to_have_value("keyword")  # kept in this browser
        expect(page.locator("#set-top-k")).to_have_value("3")
        expect(page.locator("#set-llm-model")).to_have_value("qwen2.5:7b")
        page.click("#set-close")

        ask(page, "When does the library close?")
        sent = [body for path, body in page.sent if path == "/query/stream"]  # type: ignore[attr-defined]
        assert sent == [{"question": "When does the library close?", "mode": "keyword", "top_k": 3, "filters": None}]
        # the server takes no LLM per question (QueryIn forbids extra fields): nothing of it is sent
        expect(page.locator("#thread .turn .status .error")).to_have_count(0)


@pytest.mark.parametrize("locale,lang", [("ja-JP", "ja"), ("en-US", "en")])
def test_on_a_phone_the_question_comes_first_and_file_names_keep_their_words(browser, site, tmp_path, locale, lang):
    name = "quarterly-financial-report-2024-final.pdf"
    pdf = make_pdf(str(tmp_path / name), PDF_PAGES)
    with opened(browser, site, locale=locale, viewport=PHONE, without=OPTIONAL) as page:
        upload(page, pdf, name)
        question, library = box(page, "#question"), box(page, "#library")
        assert question["y"] + question["height"] <= library["y"], (question, library)
        cell, table = box(page, f"#docs tr:has-text('{name}') td.file"), box(page, "#docs")
        assert cell["width"] >= 0.9 * table["width"], (cell, table)  # the whole row, not a sliver
        assert lines(page, f"#docs tr:has-text('{name}') .name") <= 2  # never a letter per line
        shot(page, f"12-phone-{lang}.png")

        ask(page, "What is the daily meal allowance on business trips?")
        expect(page.locator("#thread .turn .answer")).to_contain_text("3,000 yen")
        shot(page, f"12b-phone-answer-{lang}.png")
        page.locator("#thread .turn .answer button.chip[data-n='1']").first.click()
        panel = box(page, "#source-panel")
        assert panel["width"] >= PHONE["width"] - 2  # full screen on a phone
        page.wait_for_function("() => document.querySelector('#src-image').naturalWidth > 0")
        shot(page, f"13-phone-source-{lang}.png")
        page.click("#src-close")
        page.on("dialog", lambda d: d.accept())
        page.locator("#docs tr", has_text=name).locator("button.delete").click()
        expect(page.locator("#docs tr", has_text=name)).to_have_count(0)


def test_api_docs_work_offline(browser, site):
    with opened(browser, site, path="/docs", without=OPTIONAL) as page:
        expect(page.locator(".swagger-ui .info .title")).to_contain_text("kotae")
        expect(page.locator(".opblock-summary-path", has_text="/query/stream").first).to_be_visible()
        shot(page, "14-api-docs.png")


@pytest.mark.slow
@needs_tesseract
def test_a_scanned_pdf_is_cited_with_the_ocr_badge_and_highlighted(page: Page, tmp_path):
    scan = scanned_pdf(str(tmp_path / "maintenance-scan.pdf"))
    page.set_input_files("#file-input", scan)
    expect(page.locator("#docs tr", has_text="maintenance-scan.pdf")).to_have_attribute("data-status", "indexed",
                                                                                         timeout=60_000)

    ask(page, "When is the spare pump unit tested?")
    turn = page.locator("#thread .turn").last
    chip = turn.locator(".answer button.chip[data-n='1']").first
    expect(chip).to_be_enabled()
    first = turn.locator(".sources li").first
    expect(first).to_contain_text("maintenance-scan.pdf p.1")
    expect(first.locator(".badge.ocr")).to_have_text("OCR")
    shot(page, "07-ocr-answer.png")

    chip.click()
    expect(page.locator("#src-file")).to_have_text("maintenance-scan.pdf")
    expect(page.locator("#src-page")).to_have_text("1")
    expect(page.locator("#src-ocr")).to_be_visible()
    expect(page.locator("#src-ocr-note")).to_contain_text("OCR")
    image = page.locator("#src-image")
    expect(image).to_be_visible()
    page.wait_for_function("() => document.querySelector('#src-image').naturalWidth > 0")
    assert int(image.get_attribute("data-highlights") or 0) >= 3
    assert image.evaluate(COUNT_HIGHLIGHT) > 5000  # the OCR'd lines are painted over the scan
    shot(page, "08-ocr-source-panel.png")

    page.click("#src-close")
    turn.locator("details.retrieval summary").click()
    top = turn.locator("table.hits tbody tr[data-chunk]").first
    expect(top).to_contain_text("maintenance-scan.pdf")
    expect(top.locator(".badge.ocr")).to_be_visible()
    shot(page, "09-ocr-retrieval.png")

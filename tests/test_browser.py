"""The web UI in real headless Chromium (Debian's `chromium` package, driven by Playwright; never a
downloaded browser): upload a PDF, ask, click a citation, see the highlighted page; the same for a scanned
PDF read by OCR. Screenshots go to test-artifacts/browser/. Without the browser (or Playwright) the module
is skipped with one line saying what to install; KOTAE_REQUIRE_BROWSER=1 (set by .ci/run, which installs
it) makes a missing browser a failure instead. KOTAE_SKIP_BROWSER=1 skips it anyway."""
from __future__ import annotations

import os
from collections.abc import Iterator

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

from playwright.sync_api import Page, expect, sync_playwright

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


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Iterator[str]:
    root = tmp_path_factory.mktemp("browser")
    store = open_store(str(root / "index"))
    with serve_in_thread(create_app(Kotae(store, FakeEmbedder()), upload_dir=str(root / "uploads"))) as url:
        yield url
    store.close()


@pytest.fixture
def page(site) -> Iterator[Page]:
    os.makedirs(SHOTS, exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            pg = browser.new_page(viewport={"width": 1400, "height": 1000}, locale="ja-JP")
            pg.set_default_timeout(20_000)
            pg.outside = []  # type: ignore[attr-defined]
            pg.errors = []  # type: ignore[attr-defined]

            def route(r):  # the page must work offline: anything not from our server is refused
                if r.request.url.startswith(site) or r.request.url.startswith(("blob:", "data:")):
                    r.continue_()
                else:
                    pg.outside.append(r.request.url)  # type: ignore[attr-defined]
                    r.abort()

            pg.route("**/*", route)
            pg.on("pageerror", lambda e: pg.errors.append(str(e)))  # type: ignore[attr-defined]
            # (a refused upload's 4xx is logged by Chromium as "Failed to load resource": expected there)
            pg.on("console", lambda m: m.type == "error" and not m.text.startswith("Failed to load resource")
                  and pg.errors.append(m.text))  # type: ignore[attr-defined]
            pg.goto(site)
            yield pg
            assert pg.outside == [], pg.outside  # type: ignore[attr-defined]
        finally:
            browser.close()


def shot(page: Page, name: str) -> None:
    page.screenshot(path=os.path.join(SHOTS, name), full_page=True)


def test_upload_ask_and_open_the_highlighted_source(page: Page, tmp_path):
    pdf = make_pdf(str(tmp_path / "travel-policy.pdf"), PDF_PAGES)
    expect(page.locator("#ask")).to_have_text("質問する / Ask")
    expect(page.locator("#docs-empty")).to_be_visible()

    page.set_input_files("#file-input", pdf)
    row = page.locator("#docs tr", has_text="travel-policy.pdf")
    expect(row).to_have_attribute("data-status", "indexed")
    expect(row.locator("td").nth(2)).not_to_have_text("—")  # the chunk count is known once indexed
    shot(page, "01-uploaded.png")

    page.fill("#question", "What is the daily meal allowance on business trips?")
    page.click("#ask")
    chip = page.locator("#answer button.chip[data-n='1']").first
    expect(chip).to_be_enabled()
    expect(page.locator("#answer")).to_contain_text("3,000 yen")
    shot(page, "02-answer.png")

    chip.click()
    panel = page.locator("#source-panel")
    expect(panel).to_be_visible()
    expect(page.locator("#src-file")).to_have_text("travel-policy.pdf")
    expect(page.locator("#src-page")).to_have_text("2")
    expect(page.locator("#src-passage")).to_contain_text("daily meal allowance")
    expect(page.locator("#src-scores")).to_contain_text("BM25")
    expect(page.locator("#src-ocr")).to_be_hidden()  # a text layer, not OCR
    expect(page.locator("#sources .badge.ocr")).to_have_count(0)
    image = page.locator("#src-image")
    expect(image).to_be_visible()
    page.wait_for_function("() => document.querySelector('#src-image').naturalWidth > 0")
    assert int(image.get_attribute("data-highlights") or 0) >= 1
    assert image.evaluate(COUNT_HIGHLIGHT) > 2000  # the highlight is painted in the image the user sees
    shot(page, "03-source-panel.png")

    page.click("#src-close")
    page.click("#tab-retrieval")
    hits = page.locator("#hits tbody tr[data-chunk]")
    expect(hits.first).to_be_visible()
    expect(hits.first).to_contain_text("travel-policy.pdf")
    expect(page.locator("#gate")).to_contain_text("coverage")
    shot(page, "04-retrieval.png")

    assert page.errors == []  # type: ignore[attr-defined]


def test_dont_know_upload_errors_and_delete(page: Page, tmp_path):
    notes = tmp_path / "notes.md"
    notes.write_text("# Notes\n\nThe library closes at six on Fridays.\n", encoding="utf-8")
    page.set_input_files("#file-input", str(notes))
    expect(page.locator("#docs tr", has_text="notes.md")).to_have_attribute("data-status", "indexed")

    page.fill("#question", "社員旅行の行き先はどこですか")
    page.click("#ask")
    box = page.locator("#not-found")
    expect(box).to_be_visible()
    expect(box).to_contain_text("わからない / I don't know")
    expect(page.locator("#nf-query")).to_have_text("社員旅行の行き先はどこですか")
    expect(page.locator("#nf-reason")).to_have_text("資料には「社員旅行」「行き先」についての記載がありません")
    expect(page.locator("#calibration")).to_contain_text("refusal gate")
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
    assert page.errors == [], page.errors  # type: ignore[attr-defined]


@pytest.mark.slow
@needs_tesseract
def test_a_scanned_pdf_is_cited_with_the_ocr_badge_and_highlighted(page: Page, tmp_path):
    scan = scanned_pdf(str(tmp_path / "maintenance-scan.pdf"))
    page.set_input_files("#file-input", scan)
    expect(page.locator("#docs tr", has_text="maintenance-scan.pdf")).to_have_attribute("data-status", "indexed",
                                                                                         timeout=60_000)

    page.fill("#question", "When is the spare pump unit tested?")
    page.click("#ask")
    chip = page.locator("#answer button.chip[data-n='1']").first
    expect(chip).to_be_enabled()
    first = page.locator("#sources li").first
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
    page.click("#tab-retrieval")
    top = page.locator("#hits tbody tr[data-chunk]").first
    expect(top).to_contain_text("maintenance-scan.pdf")
    expect(top.locator(".badge.ocr")).to_be_visible()
    shot(page, "09-ocr-retrieval.png")
    assert page.errors == [], page.errors  # type: ignore[attr-defined]

"""The web UI's conversations, feedback and collection picker in real Chromium, against the server's
/conversations, /feedback and /collections routes (see README "Web UI"). Each test is skipped, with its
reason, on a server that lacks the routes it needs; there the UI keeps to one question at a time
(test_browser.py checks that). Screenshots go to test-artifacts/browser/."""
from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Iterator

import pytest

from conftest import FakeEmbedder
from kotae import Kotae
from kotae.server import create_app, serve_in_thread
from kotae.store import open_store
from test_browser import Browser, ask, box, expect, launched, opened, shot, upload
from test_server import PDF_PAGES, make_pdf

HAS: dict[str, bool] = {}  # the optional routes the app under test has


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Iterator[str]:
    root = tmp_path_factory.mktemp("browser-chat")
    store = open_store(str(root / "index"))
    app = create_app(Kotae(store, FakeEmbedder()), upload_dir=str(root / "uploads"))
    with serve_in_thread(app) as url:
        HAS.update({p: exists(url + p) for p in ("/conversations", "/feedback", "/collections")})
        yield url
    store.close()


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with launched() as b:
        yield b


def needs(*paths: str) -> None:
    missing = [p for p in paths if not HAS[p]]
    if missing:
        pytest.skip(f"this server has no {', '.join(missing)} route (the UI's one-question mode is in test_browser.py)")


def exists(url: str) -> bool:
    """Whether the server has this route: anything but a 404 (a 405 still says it is there)."""
    try:
        urllib.request.urlopen(url).close()
    except urllib.error.HTTPError as e:
        return e.code != 404
    return True


def call(url: str, method: str = "GET", body: object = None) -> object:
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method=method, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req) as res:
        return json.loads(res.read())


def test_a_thread_with_history_rename_open_and_delete(browser: Browser, site: str, tmp_path):
    needs("/conversations")
    pdf = make_pdf(str(tmp_path / "travel-policy.pdf"), PDF_PAGES)
    with opened(browser, site, locale="en-US") as page:
        expect(page.locator("#history")).to_be_visible()
        expect(page.locator("#new-chat")).to_be_visible()
        upload(page, pdf, "travel-policy.pdf")

        ask(page, "What is the daily meal allowance on business trips?")
        expect(page.locator("#thread .turn").last.locator(".answer")).to_contain_text("3,000 yen")
        ask(page, "Are receipts required?")
        turns = page.locator("#thread .turn")
        expect(turns).to_have_count(2)  # answers accumulate
        expect(turns.first.locator(".answer")).to_contain_text("3,000 yen")
        expect(turns.last.locator(".answer")).to_contain_text("Receipts")
        item = page.locator("#history-list li")
        expect(item).to_have_count(1)
        expect(item.first.locator(".title")).to_contain_text("What is the daily meal")  # titled by its first question
        expect(page.locator("#chat-title")).to_contain_text("What is the daily meal")
        shot(page, "20-thread-en.png")

        turns.first.locator(".answer button.chip[data-n='1']").first.click()
        answer, side = box(page, "#thread .turn .answer"), box(page, "#source-panel")
        assert side["x"] >= answer["x"] + answer["width"]
        page.click("#src-close")

        page.once("dialog", lambda d: d.accept("Travel questions"))
        item.first.locator("button.rename").click()
        expect(item.first.locator(".title")).to_have_text("Travel questions")
        expect(page.locator("#chat-title")).to_have_text("Travel questions")

        page.click("#new-chat")
        expect(turns).to_have_count(0)
        ask(page, "Who approves hotel nights?")
        expect(turns).to_have_count(1)
        expect(item).to_have_count(2)

        page.locator("#history-list li", has_text="Travel questions").locator("button.open").click()
        expect(turns).to_have_count(2)
        expect(turns.first.locator(".question")).to_have_text("What is the daily meal allowance on business trips?")
        expect(turns.first.locator(".answer")).to_contain_text("3,000 yen")
        turns.first.locator(".answer button.chip[data-n='1']").first.click()  # a stored answer's source opens too
        expect(page.locator("#src-file")).to_have_text("travel-policy.pdf")
        page.wait_for_function("() => document.querySelector('#src-image').naturalWidth > 0")
        page.click("#src-close")

        page.click("#lang")
        expect(page.locator("#new-chat")).to_contain_text("新しい会話")
        expect(page.locator("#history-title")).to_have_text("会話の履歴")
        shot(page, "21-thread-ja.png")

        page.once("dialog", lambda d: d.accept())
        page.locator("#history-list li", has_text="Travel questions").locator("button.remove").click()
        expect(item).to_have_count(1)
        expect(turns).to_have_count(0)  # the open conversation was the one deleted
        listed = call(site + "/conversations")
        assert isinstance(listed, list) and [c["title"] for c in listed] == ["Who approves hotel nights?"]


def test_feedback_with_the_right_passage_and_a_corrected_answer(browser: Browser, site: str, tmp_path):
    needs("/feedback")
    pdf = make_pdf(str(tmp_path / "travel-policy.pdf"), PDF_PAGES)
    with opened(browser, site, locale="ja-JP") as page:
        upload(page, pdf, "travel-policy.pdf")
        ask(page, "Who approves hotel nights?")
        turn = page.locator("#thread .turn").last
        bar = turn.locator(".feedback")
        expect(bar).to_be_visible()
        bar.locator("button.rate[data-rating='down']").click()
        expect(bar.locator(".fb-form")).to_be_visible()

        turn.locator("details.retrieval summary").click()
        rows = turn.locator("table.hits tbody tr[data-chunk]")
        right = rows.last.get_attribute("data-chunk")
        rows.last.click()
        page.click("#src-pick")  # "this is the right passage", from the source panel
        expect(page.locator("#src-pick")).to_have_text("正しい箇所に選びました")
        page.click("#src-close")
        expect(turn.locator(".fb-pick")).to_have_value(right or "")
        turn.locator(".fb-corrected").fill("The team lead approves hotel nights in advance.")
        shot(page, "22-feedback.png")
        turn.locator(".fb-send").click()
        expect(turn.locator(".feedback.sent")).to_contain_text("記録しました")

        stored = call(site + "/feedback")
        assert isinstance(stored, list)
        mine = [f for f in stored if f["question"] == "Who approves hotel nights?"]
        assert len(mine) == 1
        assert mine[0]["rating"] == "down" and mine[0]["right_chunk"] == right
        assert mine[0]["corrected"] == "The team lead approves hotel nights in advance."
        assert mine[0]["cited"]  # the chunks the answer cited


def test_the_collection_picker_switches_what_is_listed_and_asked(browser: Browser, site: str, tmp_path):
    needs("/collections")
    call(site + "/collections", "POST", {"name": "manuals"})
    pdf = make_pdf(str(tmp_path / "pump-manual.pdf"), [["Pump", "The spare pump unit is tested every Monday."]])
    with opened(browser, site, locale="en-US") as page:
        expect(page.locator("#collection-box")).to_be_visible()
        page.select_option("#collection", "manuals")
        expect(page.locator("#docs-empty")).to_be_visible()
        upload(page, pdf, "pump-manual.pdf")
        ask(page, "When is the spare pump unit tested?")
        expect(page.locator("#thread .turn").last.locator(".answer")).to_contain_text("Monday")
        sent = [p for p, _ in page.sent]  # type: ignore[attr-defined]
        assert any(p.startswith("/collections/manuals/") for p in sent), sent
        shot(page, "23-collections.png")
        page.reload()
        expect(page.locator("#collection")).to_have_value("manuals")  # kept
        expect(page.locator("#docs tr", has_text="pump-manual.pdf")).to_have_count(1)
    call(site + "/collections/manuals", "DELETE")

"""Conversations and feedback in the index's store: one behaviour suite over SQLite and PostgreSQL (for real)."""
import pytest

from kotae.store import open_store
from kotae.store.conversations import Feedback, title_of

BACKENDS = ["sqlite", "postgres"]


@pytest.fixture(params=BACKENDS)
def history(request, tmp_path):
    location = str(tmp_path / "idx") if request.param == "sqlite" else request.getfixturevalue("pg_url")
    store = open_store(location)
    yield store.history()
    store.close()


def test_a_conversation_keeps_its_turns_in_order_and_the_first_question_titles_it(history):
    conv = history.create()
    assert conv.title == "" and conv.turns == 0
    answer = {"question": "給料はいつ支払われますか", "answer": "翌月25日です [1]", "found_in_docs": True,
              "sources": [{"n": 1, "chunk_id": "c1"}]}
    first = history.add_message(conv.id, "給料はいつ支払われますか", "給料はいつ支払われますか", answer)
    second = history.add_message(conv.id, "賞与は？", "賞与は？ 給料 支払わ", {**answer, "answer": "7月と12月"})
    got = history.get(conv.id)
    assert (got.title, got.turns) == ("給料はいつ支払われますか", 2)
    assert got.updated == second.created > conv.created
    assert [(m.id, m.question, m.standalone) for m in history.messages(conv.id)] == \
        [(first.id, "給料はいつ支払われますか", "給料はいつ支払われますか"), (second.id, "賞与は？", "賞与は？ 給料 支払わ")]
    assert history.messages(conv.id)[0].answer == answer  # the answer JSON round-trips, Japanese included
    assert history.message(second.id).conversation_id == conv.id and history.message("nope") is None


def test_list_is_newest_activity_first_rename_and_delete(history):
    a, b = history.create("first"), history.create("second")
    assert [c.id for c in history.conversations()] == [b.id, a.id]
    history.add_message(a.id, "q", "q", {"answer": "x"})
    assert [c.id for c in history.conversations()] == [a.id, b.id]
    assert history.conversations()[0].title == "first"  # a titled conversation keeps its title
    assert history.rename(b.id, "  renamed ").title == "renamed"
    assert history.rename("missing", "x") is None and history.get("missing") is None
    assert history.delete(a.id) is True and history.delete(a.id) is False
    assert [c.id for c in history.conversations()] == [b.id] and history.messages(a.id) == []
    with pytest.raises(KeyError):
        history.add_message(a.id, "q", "q", {})


def test_feedback_round_trips_every_field(history):
    stored = history.add_feedback(Feedback(question="And bonuses?", standalone="And bonuses? salaries paid",
                                           rating="down", message_id="m1", cited=("c1", "c2"), right_chunk="c9",
                                           corrected="Twice a year.", evidence={"file": "rules.pdf", "pages": [8]},
                                           found_in_docs=True, index_version="kotae-1:m:3"))
    plain = history.add_feedback(Feedback(question="q", rating="up"))
    assert len(stored.id) == 32 and stored.created
    assert history.feedback() == [stored, Feedback(question="q", rating="up", standalone="q", id=plain.id,
                                                   created=plain.created)]


def test_titles_are_one_line_and_cut():
    assert title_of("  When are\nsalaries paid? ") == "When are salaries paid?"
    long = "あ" * 60
    assert title_of(long) == "あ" * 39 + "…" and len(title_of(long)) == 40


def test_migrate_copies_conversations_and_feedback_into_postgres_once(tmp_path, pg_url):
    from kotae.store.migrate import migrate_index

    source = open_store(str(tmp_path / "idx"))
    source.bind_model("m@1/4")
    h = source.history()
    conv = h.create()
    h.add_message(conv.id, "When are salaries paid?", "When are salaries paid?", {"answer": "On the 25th [1]."})
    h.add_message(conv.id, "And bonuses?", "And bonuses? salaries paid", {"answer": "Twice a year [1]."})
    fb = h.add_feedback(Feedback(question="And bonuses?", rating="up", evidence={"file": "r.pdf", "pages": [8]}))
    want = (h.get(conv.id), h.messages(conv.id), h.feedback())
    source.close()
    target = open_store(pg_url)
    try:
        for _ in range(2):  # run again after an interruption: the same, not twice
            report = migrate_index(str(tmp_path / "idx"), target)
            got = target.history()
            assert (got.get(conv.id), got.messages(conv.id), got.feedback()) == want
        assert (report.conversations, report.feedback) == (1, 0) and want[2][0].id == fb.id
    finally:
        target.close()

"""Conversations and feedback end to end: the facade, the HTTP routes over a real server, the CLI, and a
feedback export that `kotae eval run` scores. Follow-ups with a fake in-process LLM and without one."""
from __future__ import annotations

import json
from collections.abc import Iterator, Sequence

import httpx
import pytest

from conftest import FakeEmbedder
from kotae import Kotae
from kotae.answer.followup import REWRITE_SYSTEM, clean_rewrite, rewrite_messages
from kotae.answer.llm import LLM, LLMError, LLMSettings, Message
from kotae.cli import main
from kotae.errors import ConfigError, NotFound
from kotae.server import create_app, serve_in_thread
from kotae.store import open_store

RULES = ("# Office rules\n\n## Salary\n\nSalaries are paid on the 25th day of every month by bank transfer. "
         "Part-timers are paid weekly, every Friday.\n\n"
         "## Training\n\nNew staff attend the safety training in April.\n\n"
         "## Leave\n\nEvery employee receives twenty days of paid leave per calendar year.\n")


class ThreadLLM(LLM):
    """Rewrites follow-ups to a scripted question and answers from the first source; records every prompt."""

    name = "thread"

    def __init__(self, rewrite: str | None = "When are part-timers paid?") -> None:
        super().__init__(LLMSettings(spec="thread:test", rewrite="off"))
        self.rewrite = rewrite
        self.prompts: list[list[Message]] = []

    def stream(self, messages: Sequence[Message], *, temperature: float, max_tokens: int) -> Iterator[str]:
        self.prompts.append(list(messages))
        if messages[0]["content"] == REWRITE_SYSTEM:
            if self.rewrite is None:
                raise LLMError("thread:test is down (503)")
            yield self.rewrite
        else:
            yield "Part-timers are paid weekly, every Friday [1]."


@pytest.fixture
def kotae(tmp_path) -> Iterator[Kotae]:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "rules.md").write_text(RULES, encoding="utf-8")
    k = Kotae(open_store(str(tmp_path / "idx")), FakeEmbedder())
    k.index([str(tmp_path / "docs")])
    yield k
    k.close()


# --- the facade -----------------------------------------------------------------------------------
def test_a_follow_up_without_an_llm_carries_the_topic_and_the_turns_are_kept(kotae):
    conv = kotae.new_conversation()
    _, m1 = kotae.ask_in(conv.id, "When are salaries paid?", llm=None)
    answer, m2 = kotae.ask_in(conv.id, "And for part-timers?", llm=None)
    assert m1.standalone == "When are salaries paid?" and m2.standalone == "And for part-timers? salaries paid"
    assert answer.question == m2.standalone and answer.found_in_docs
    assert "Part-timers are paid weekly" in answer.sources[0].hit.chunk.text
    got, messages = kotae.conversation(conv.id)
    assert (got.title, got.turns) == ("When are salaries paid?", 2)
    assert [m.id for m in messages] == [m1.id, m2.id] and messages[1].answer == answer.to_dict()
    assert [c.id for c in kotae.conversations()] == [conv.id]


def test_with_an_llm_the_follow_up_is_rewritten_from_the_history(kotae):
    llm = ThreadLLM()
    conv = kotae.new_conversation("pay")
    kotae.ask_in(conv.id, "When are salaries paid?", llm=llm)
    answer, message = kotae.ask_in(conv.id, "And for part-timers?", llm=llm)
    assert message.standalone == "When are part-timers paid?" == answer.question
    rewrite = [p for p in llm.prompts if p[0]["content"] == REWRITE_SYSTEM]
    assert len(rewrite) == 1  # the first turn has no history: nothing to rewrite
    prompt = rewrite[0][1]["content"]
    assert "Q: When are salaries paid?\nA: Part-timers are paid weekly, every Friday.\n\n" in prompt  # no [n]
    assert prompt.endswith("Last question / 最後の質問: And for part-timers?\n\nStandalone question / 書き直した質問:")
    assert answer.answer.startswith("Part-timers are paid weekly") and kotae.conversation(conv.id)[0].title == "pay"


def test_a_failing_or_useless_rewrite_falls_back_to_carrying_with_a_notice(kotae):
    turns = [("When are salaries paid?", "On the 25th.")]
    standalone, notices = kotae.follow_up(turns, "And for part-timers?", llm=ThreadLLM(rewrite=None))
    assert standalone == "And for part-timers? salaries paid"
    assert notices == (("the follow-up was not rewritten by the LLM (thread:test is down (503)); the previous "
                        "turns' topic words were added to the search instead"),)
    standalone, notices = kotae.follow_up(turns, "And for part-timers?", llm=ThreadLLM(rewrite="  "))
    assert standalone == "And for part-timers? salaries paid" and "was no question" in notices[0]
    assert kotae.follow_up([], "When are salaries paid?", llm=ThreadLLM()) == ("When are salaries paid?", ())


def test_rewrite_prompt_and_reply_cleaning():
    long = "x" * 500
    msgs = rewrite_messages([(f"q{i}", long) for i in range(5)], "それは？")
    assert msgs[0]["content"] == REWRITE_SYSTEM
    assert "Q: q1" not in msgs[1]["content"] and "Q: q2" in msgs[1]["content"]  # the last three turns only
    assert "x" * 300 + "…" in msgs[1]["content"] and "x" * 301 not in msgs[1]["content"]
    assert clean_rewrite("Standalone question: 「パートの給料はいつ支払われますか」\nextra", "それは？") == \
        "パートの給料はいつ支払われますか"
    assert clean_rewrite("", "q") is None and clean_rewrite("y" * 200, "short") is None


def test_missing_conversations_and_bad_input_say_what_to_do(kotae):
    with pytest.raises(NotFound, match="no conversation nope in this index; see GET /conversations"):
        kotae.ask_in("nope", "q")
    conv = kotae.new_conversation()
    with pytest.raises(ConfigError, match="title cannot be empty"):
        kotae.rename_conversation(conv.id, " ")
    assert kotae.rename_conversation(conv.id, "Pay").title == "Pay"
    kotae.delete_conversation(conv.id)
    with pytest.raises(NotFound):
        kotae.delete_conversation(conv.id)
    with pytest.raises(ConfigError, match='rating must be "up" or "down"'):
        kotae.add_feedback("q", "meh")
    with pytest.raises(NotFound, match="no passage c-x"):
        kotae.add_feedback("q", "down", right_chunk="c-x")


# --- HTTP -----------------------------------------------------------------------------------------
@pytest.fixture
def client(kotae, tmp_path) -> Iterator[httpx.Client]:
    app = create_app(kotae, upload_dir=str(tmp_path / "up"))
    with serve_in_thread(app) as url, httpx.Client(base_url=url, timeout=60) as c:
        yield c


def sse(text: str) -> list[tuple[str, dict]]:
    out = []
    for frame in text.strip().split("\n\n"):
        lines = dict(line.split(": ", 1) for line in frame.splitlines())
        out.append((lines["event"], json.loads(lines["data"])))
    return out


def test_conversation_routes(client):
    r = client.post("/conversations", json={})
    assert r.status_code == 201
    conv = r.json()
    assert set(conv) == {"id", "title", "created", "updated", "turns"} and conv["turns"] == 0
    r = client.post(f"/conversations/{conv['id']}/messages", json={"question": "When are salaries paid?"})
    assert r.status_code == 200, r.text
    first = r.json()
    assert first["conversation_id"] == conv["id"] and first["standalone"] == "When are salaries paid?"
    assert first["found_in_docs"] and first["sources"] and first["message_id"]
    r = client.post(f"/conversations/{conv['id']}/messages/stream", json={"question": "And for part-timers?"})
    events = sse(r.text)
    assert events[0][0] == "retrieval" and events[-1][0] == "answer"
    assert {e for e, _ in events[1:-1]} <= {"token"}
    final = events[-1][1]
    assert final["standalone"] == "And for part-timers? salaries paid" == events[0][1]["query"]
    detail = client.get(f"/conversations/{conv['id']}").json()
    assert detail["title"] == "When are salaries paid?" and detail["turns"] == 2
    assert [m["id"] for m in detail["messages"]] == [first["message_id"], final["message_id"]]
    assert detail["messages"][1]["answer"]["answer"] == final["answer"]
    other = client.post("/conversations", json={"title": "Leave"}).json()
    bare = client.post("/conversations")  # no body at all: untitled
    assert bare.status_code == 201 and bare.json()["title"] == ""
    client.delete(f"/conversations/{bare.json()['id']}")
    assert [c["id"] for c in client.get("/conversations").json()] == [other["id"], conv["id"]]
    assert client.patch(f"/conversations/{conv['id']}", json={"title": "Pay"}).json()["title"] == "Pay"
    assert client.delete(f"/conversations/{conv['id']}").json() == {"deleted": conv["id"]}
    for r in (client.get(f"/conversations/{conv['id']}"),
              client.post(f"/conversations/{conv['id']}/messages", json={"question": "q"}),
              client.post(f"/conversations/{conv['id']}/messages/stream", json={"question": "q"})):
        assert r.status_code == 404 and r.json()["error"]["code"] == "conversation_not_found"


def test_feedback_routes_and_the_export_is_a_golden_set_eval_run_scores(client, kotae, tmp_path, capsys):
    conv = client.post("/conversations", json={}).json()
    client.post(f"/conversations/{conv['id']}/messages", json={"question": "When are salaries paid?"})
    turn = client.post(f"/conversations/{conv['id']}/messages", json={"question": "And for part-timers?"}).json()
    leave = client.post("/query", json={"question": "How many days of paid leave does an employee get?"}).json()
    right = next(s["chunk_id"] for s in turn["sources"] if "Part-timers" in s["excerpt"])
    posts = [{"question": "And for part-timers?", "rating": "down", "message_id": turn["message_id"],
              "right_chunk": right, "corrected": "Weekly, every Friday."},
             {"question": leave["question"], "rating": "up", "cited": [s["chunk_id"] for s in leave["sources"]]},
             {"question": "Is there a dress code?", "rating": "down"}]
    for body in posts:
        r = client.post("/feedback", json=body)
        assert r.status_code == 201 and len(r.json()["id"]) == 32
    assert client.post("/feedback", json={"question": "q", "rating": "meh"}).status_code == 422
    stored = client.get("/feedback").json()
    assert [f["rating"] for f in stored] == ["down", "up", "down"]
    assert stored[0]["standalone"] == "And for part-timers? salaries paid"
    assert stored[0]["evidence"] == {"file": "rules.md", "pages": [1], "chunk_id": right}
    assert stored[0]["cited"] == [s["chunk_id"] for s in turn["sources"]]  # the turn's citations
    assert stored[1]["evidence"]["file"] == "rules.md" and stored[0]["index_version"] == kotae.index_version()

    out = tmp_path / "feedback.jsonl"
    idx = kotae.location
    assert main(["--index", idx, "--model", "fake", "eval", "export-feedback", str(out)]) == 0
    assert "wrote 2 golden items" in capsys.readouterr().err
    items = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [(i["question"], i["file"], i["pages"], i["answer"]) for i in items] == [
        ("And for part-timers? salaries paid", "rules.md", [1], "Weekly, every Friday."),
        (leave["question"], "rules.md", [1], "")]
    assert items[0]["asked"] == "And for part-timers?"
    assert main(["--index", idx, "--model", "fake", "eval", "run", str(out), "--out", str(tmp_path / "r.json")]) == 0
    result = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    assert result["summary"]["overall"]["n"] == 2 and result["summary"]["overall"]["hit@1"] == 1.0


# --- the CLI --------------------------------------------------------------------------------------
def test_chat_reads_questions_from_stdin_and_conversations_lists_renames_deletes(kotae, monkeypatch, capsys):
    idx = kotae.location
    monkeypatch.setattr("sys.stdin", __import__("io").StringIO("When are salaries paid?\n\nAnd for part-timers?\n"))
    assert main(["--index", idx, "--model", "fake", "chat", "--json"]) == 0
    out = capsys.readouterr()
    lines = [json.loads(line) for line in out.out.splitlines()]
    conv_id = lines[0]["conversation_id"]
    assert f"conversation {conv_id}" in out.err
    assert [a["standalone"] for a in lines] == ["When are salaries paid?", "And for part-timers? salaries paid"]
    assert main(["--index", idx, "--model", "fake", "conversations"]) == 0
    assert capsys.readouterr().out.startswith(f"{conv_id}  ")
    assert main(["--index", idx, "--model", "fake", "conversations", "rename", conv_id, "Pay days"]) == 0
    assert main(["--index", idx, "--model", "fake", "conversations", "show", conv_id]) == 0
    shown = capsys.readouterr().out
    assert "Pay days" in shown and "(searched: And for part-timers? salaries paid)" in shown
    assert main(["--index", idx, "--model", "fake", "conversations", "delete", conv_id]) == 0
    assert main(["--index", idx, "--model", "fake", "conversations", "show", conv_id]) == 2
    assert "no conversation" in capsys.readouterr().err


def test_v1_chat_follows_up_like_a_conversation(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "rules.md").write_text(RULES, encoding="utf-8")
    llm = ThreadLLM()
    with Kotae(open_store(str(tmp_path / "idx")), FakeEmbedder(), llm=llm) as k:
        k.index([str(tmp_path / "docs")])
        with serve_in_thread(create_app(k, upload_dir=str(tmp_path / "up"))) as url, \
                httpx.Client(base_url=url, timeout=60) as c:
            messages = [{"role": "user", "content": "When are salaries paid?"},
                        {"role": "assistant", "content": "On the 25th [1].\n\nSources:\n[1] rules.md"},
                        {"role": "user", "content": "And for part-timers?"}]
            r = c.post("/v1/chat/completions", json={"model": "kotae", "messages": messages})
    assert r.status_code == 200, r.text
    assert r.json()["kotae"]["searched"] == "When are part-timers paid?"
    rewrite = next(p for p in llm.prompts if p[0]["content"] == REWRITE_SYSTEM)[1]["content"]
    assert "Q: When are salaries paid?\nA: On the 25th.\n\n" in rewrite  # the reply, without its sources list

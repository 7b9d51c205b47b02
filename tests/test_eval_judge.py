"""The LLM judge of `kotae eval run`, against a real local OpenAI-compatible server with scripted verdicts."""
from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from kotae.answer.llm import LLMSettings, get_llm
from kotae.cli import main
from kotae.config import load_settings
from kotae.errors import ConfigError
from kotae.eval.judge import JUDGE_SYSTEM, Judge, judge_from, parse_verdict
from openai_server import FakeOpenAI, Reply, serve

HANDBOOK = """# Handbook

## Remote work
Employees may work from home up to three days per week with their manager's approval.

## Expenses
Submit expense claims within 30 days of purchase through the finance portal.
"""
GOLDEN = [
    {"id": "q1", "question": "How many days per week may employees work from home?", "category": "lookup",
     "must_contain": ["three days per week"], "answer": "Up to three days a week, with approval."},
    {"id": "q2", "question": "Where are expense claims submitted?", "category": "lookup",
     "must_contain": ["finance portal"], "answer": "Through the finance portal."},
    {"id": "q3", "question": "When must expense claims be submitted?", "category": "lookup",
     "must_contain": ["within 30 days"]},  # no reference answer: graded by phrase only
    {"id": "q4", "question": "What is the parking fee at the Osaka office?", "answerable": False},
]


@pytest.fixture
def server() -> Iterator[FakeOpenAI]:
    with serve() as fake:
        yield fake


@pytest.mark.parametrize(("reply", "verdict"), [
    ("CORRECT", True), ("INCORRECT", False), ("incorrect.", False), ("Verdict: correct", True),
    ("正解", True), ("不正解です", False), ("The answer is CORRECT, not INCORRECT", True), ("maybe", None), ("", None),
])
def test_parse_verdict(reply, verdict):
    assert parse_verdict(reply) is verdict


def test_judge_sends_question_reference_and_answer_at_temperature_zero(server):
    server.script("INCORRECT")
    judge = Judge(get_llm("openai:judge-model", LLMSettings(base_url=server.url, temperature=0.0, max_tokens=8)))
    v = judge.grade("何日？", "3日です。", "5日です [1]。")
    assert (v.correct, v.reply) == (False, "INCORRECT")
    body = server.requests[0]
    assert body["messages"][0] == {"role": "system", "content": JUDGE_SYSTEM}
    assert body["temperature"] == 0.0 and body["max_tokens"] == 8 and body["model"] == "judge-model"
    user = body["messages"][1]["content"]
    assert "Question:\n何日？" in user and "Reference answer:\n3日です。" in user and "Candidate answer:\n5日です [1]。" in user


def test_failing_judge_gives_no_verdict(server):
    server.script(*[Reply("down", status=503)] * 2)
    judge = Judge(get_llm("openai:j", LLMSettings(base_url=server.url, retries=1)))
    v = judge.grade("q", "a", "b")
    assert v.correct is None and "503" in v.reply


def test_the_judge_must_differ_from_the_answering_model():
    answering = {"KOTAE_LLM": "openai:m", "KOTAE_LLM_BASE_URL": "http://localhost:1/v1"}

    def judge(**env: str) -> Judge | None:
        return judge_from(load_settings(env={**answering, **env}))

    with pytest.raises(ConfigError, match="different model"):
        judge(KOTAE_JUDGE="openai:m", KOTAE_JUDGE_BASE_URL="http://localhost:1/v1")
    # the same model name behind another endpoint is another model
    assert judge(KOTAE_JUDGE="openai:m", KOTAE_JUDGE_BASE_URL="http://h:2/v1")
    assert judge(KOTAE_JUDGE="none") is None
    assert judge_from(load_settings(env={})) is None


def test_eval_run_grades_with_the_judge(tmp_path, server, capsys, monkeypatch):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "handbook.md").write_text(HANDBOOK, encoding="utf-8")
    golden = tmp_path / "golden.jsonl"
    golden.write_text("\n".join(json.dumps(g, ensure_ascii=False) for g in GOLDEN) + "\n", encoding="utf-8")
    monkeypatch.delenv("KOTAE_LLM", raising=False)
    # extractive answers (no --llm); the judge says q1 is right and q2 wrong, whatever phrases match
    server.script("CORRECT", "INCORRECT")
    rc = main(["--index", str(tmp_path / "idx"), "--model", "fake", "eval", "run", str(golden), "--docs", str(docs),
               "--mode", "keyword", "--judge", "openai:judge-model", "--judge-base-url", server.url,
               "--out", str(tmp_path / "r.json")])
    assert rc == 0
    table = capsys.readouterr().out
    assert "| correct | correct_phrase | correct_judge |" in table
    payload = json.loads((tmp_path / "r.json").read_text())
    assert payload["settings"]["judge"] == "openai:judge-model"
    rows = {q["id"]: q for q in payload["questions"]}
    assert [server.prompts[0].splitlines()[1], server.prompts[1].splitlines()[1]] == [
        GOLDEN[0]["question"], GOLDEN[1]["question"]]  # q3 has no reference answer, q4 is unanswerable
    assert len(server.requests) == 2
    assert (rows["q1"]["correct"], rows["q1"]["correct_judge"], rows["q1"]["correct_phrase"]) == (1.0, 1.0, 1.0)
    assert (rows["q2"]["correct"], rows["q2"]["correct_judge"], rows["q2"]["correct_phrase"]) == (0.0, 0.0, 1.0)
    assert "correct_judge" not in rows["q3"] and rows["q3"]["correct"] == rows["q3"]["correct_phrase"]
    overall = payload["summary"]["overall"]
    assert overall["correct_judge"] == 0.5 and "latency_judge_p50_ms" in overall

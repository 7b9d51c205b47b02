"""LLM answers against a real local HTTP server speaking the OpenAI chat-completions protocol.

The server plays scripted replies (streamed as SSE or as one JSON body) and records every request, so the
tests assert on what was sent in the prompt as well as on the verified answer, its flags and sources.
"""
from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator, Sequence
from dataclasses import replace
from typing import Any

import pytest

from kotae.answer import ask, ask_stream
from kotae.answer.llm import LLM, LLMS, LLMSettings, Message, get_llm, register
from kotae.answer.prompt import HYDE_SYSTEM, SUMMARY_SYSTEM, SYSTEM, hyde_messages
from kotae.cli import main
from kotae.config import GateSettings, IndexSettings, SearchSettings, load_settings
from kotae.errors import ConfigError
from kotae.pipeline import index_paths
from kotae.search import Searcher
from kotae.store import open_store
from openai_server import FakeOpenAI, Reply, serve

RULES = """# 就業規則

## 第1条（賃金の支払）
賃金は、毎月末日に締め切り、翌月25日に支払う。支払日が休日に当たるときは、その前日に支払う。

## 第2条（休日）
休日は、土曜日、日曜日および国民の祝日とする。
"""
HANDBOOK = """# Handbook

## Remote work
Employees may work from home up to three days per week with their manager's approval.

## Expenses
Submit expense claims within 30 days of purchase through the finance portal.

## Equipment
Laptops are replaced every four years by the IT team.
"""
REMOTE_Q = "How many days per week may employees work from home?"
REMOTE = "Employees may work from home up to three days per week"


@pytest.fixture
def server() -> Iterator[FakeOpenAI]:
    with serve() as fake:
        yield fake


@pytest.fixture
def searcher(tmp_path, fake_embedder) -> Iterator[Searcher]:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "rules.md").write_text(RULES, encoding="utf-8")
    (docs / "handbook.md").write_text(HANDBOOK, encoding="utf-8")
    store = open_store(str(tmp_path / "idx"))
    assert index_paths([str(docs)], store, fake_embedder, IndexSettings()).ok
    yield Searcher(store, fake_embedder)
    store.close()


def llm_for(server: FakeOpenAI, **settings: Any) -> LLM:
    """The scripted model; HyDE rewriting off unless asked for, so each script holds the answer replies only."""
    settings.setdefault("rewrite", "off")
    return get_llm("openai:scripted-model", LLMSettings(base_url=server.url, **settings))


def number_of(body: dict[str, Any], heading: str) -> int:
    """The number the prompt gave the source under `heading`."""
    user = body["messages"][-1]["content"]
    return int(re.search(rf"^\[(\d+)\] \S+ p\.\d+ › .*{re.escape(heading)}$", user, re.MULTILINE)[1])


def headings(sources: Sequence[Any]) -> list[str]:
    return [s.hit.chunk.heading[-1] for s in sources]


# --- answers ------------------------------------------------------------------------------------------
def test_cited_answer_keeps_only_cited_sources_renumbered_and_the_prompt_is_as_designed(server, searcher):
    server.script(Reply(lambda b: f"Expense claims are due within 30 days of purchase [{number_of(b, 'Expenses')}]."
                                  f" {REMOTE} [{number_of(b, 'Remote work')}]."))
    a = ask(REMOTE_Q + " And when are expense claims due?", searcher, llm=llm_for(server))
    assert a.mode == "llm" and a.found_in_docs and a.notices == ()
    assert a.answer == f"Expense claims are due within 30 days of purchase.[1] {REMOTE}.[2]"
    assert headings(a.sources) == ["Expenses", "Remote work"] and [s.n for s in a.sources] == [1, 2]
    assert "Expenses" not in headings(a.also_retrieved) and "Remote work" not in headings(a.also_retrieved)
    assert [s.n for s in a.also_retrieved] == list(range(3, 3 + len(a.also_retrieved)))
    assert a.citations == {"sentences": 2, "valid": 2, "invalid": 0, "unsupported": 0, "weak": 0, "attached": 0,
                           "pruned": 0, "numbers_unsupported": 0}
    assert a.timings_ms["generate"] > 0 and a.timings_ms["verify"] >= 0
    d = a.to_dict()
    assert d["citations"]["valid"] == 2 and d["also_retrieved"][0]["n"] == 3

    (req,) = server.requests
    assert req["model"] == "scripted-model" and req["temperature"] == 0.1 and req["stream"] is True
    assert [m["role"] for m in req["messages"]] == ["system", "user"] and req["messages"][0]["content"] == SYSTEM
    user = req["messages"][1]["content"]
    assert user.startswith("Sources / 資料:\n\n[1] handbook.md p.1 › Handbook › ")
    assert f"handbook.md p.1 › Handbook › Remote work\n{REMOTE} with their manager's approval." in user
    assert user.index("[1] ") < user.index("[2] ") < user.index("Question / 質問: " + REMOTE_Q)
    assert user.endswith("If the sources do not say, reply exactly: I don't know")


def test_japanese_question_gets_the_japanese_reminder(server, searcher):
    server.script(Reply(lambda b: f"賃金は翌月25日に支払われます。[{number_of(b, '第1条（賃金の支払）')}]"))
    a = ask("賃金はいつ支払われますか", searcher, llm=llm_for(server))
    assert a.answer == "賃金は翌月25日に支払われます。[1]" and headings(a.sources) == ["第1条（賃金の支払）"]
    assert server.prompts[0].endswith("資料に答えがなければ「わからない」とだけ答えてください。")
    assert a.citations["weak"] == 0


def test_hallucinated_source_number_is_removed_and_counted(server, searcher):
    server.script(Reply(lambda b: f"{REMOTE} [{number_of(b, 'Remote work')}][7]. Managers approve it 【７】."))
    a = ask(REMOTE_Q, searcher, llm=llm_for(server))
    assert a.answer == f"{REMOTE}.[1] Managers approve it."
    assert a.citations == {"sentences": 2, "valid": 1, "invalid": 2, "unsupported": 1, "weak": 0, "attached": 0,
                           "pruned": 0, "numbers_unsupported": 0}
    assert a.notices == ("removed 2 citation(s) to sources that do not exist",
                         "1 sentence(s) cite no source: unsupported")
    assert headings(a.sources) == ["Remote work"]


def test_answer_without_citations_gets_them_attached_and_says_so(server, searcher):
    server.script(f"{REMOTE}. Expense claims are due within 30 days of purchase.")
    a = ask(REMOTE_Q, searcher, llm=llm_for(server))
    assert a.answer == f"{REMOTE}.[1] Expense claims are due within 30 days of purchase.[2]"
    assert headings(a.sources) == ["Remote work", "Expenses"]
    assert a.citations["attached"] == 2 and a.citations["unsupported"] == 0
    assert any(n.startswith("citations were attached by kotae") for n in a.notices)


def test_weak_support_is_flagged_when_a_number_is_changed(server, searcher):
    server.script(Reply(lambda b: f"Employees may work from home up to five days per week, 4 of them "
                                  f"remote [{number_of(b, 'Remote work')}]."))
    a = ask(REMOTE_Q, searcher, llm=llm_for(server))
    assert a.citations["weak"] == 1 and a.found_in_docs
    assert "1 sentence(s) are only weakly supported by the passage they cite" in a.notices
    # the figure the passage does not give is named
    assert a.citations["numbers_unsupported"] == 1
    assert "check the figures: 4 appear in none of the cited passages" in a.notices


def test_invented_answer_falls_back_to_the_extractive_answer(server, searcher):
    server.script("The cafeteria serves ramen on Fridays.")
    llm = llm_for(server)
    a = ask(REMOTE_Q, searcher, llm=llm)
    assert a.mode == "extractive" and a.answer == ask(REMOTE_Q, searcher).answer
    assert a.notices == (("the LLM's answer cites none of the sources and matches none of them "
                         "('The cafeteria serves ramen on Fridays.'); showing the extractive answer"),)


@pytest.mark.parametrize("reply", ["[1]", " [1][2]。", "【１】"])
def test_bare_citation_reply_falls_back_to_extractive(server, searcher, reply):
    server.script(reply)
    a = ask(REMOTE_Q, searcher, llm=llm_for(server))
    assert a.mode == "extractive" and REMOTE in a.answer
    assert a.notices == ((f"the LLM at {server.url} answered without words ({reply.strip()!r}); "
                         "showing the extractive answer"),)


@pytest.mark.parametrize("reply", ["わからない", "「わからない」", "わからない [1]"])
def test_wakaranai_means_not_found_with_no_sources(server, searcher, reply):
    server.script(reply)
    a = ask("賃金はいつ支払われますか", searcher, llm=llm_for(server))
    assert (a.answer, a.found_in_docs, a.sources, a.mode) == ("わからない", False, (), "llm")
    assert a.also_retrieved and a.also_retrieved[0].n == 1
    assert a.notices == ("the LLM found no answer in the sources",)


def test_i_dont_know_in_english_drops_its_citation(server, searcher):
    server.script("I don't know. [2]")
    a = ask(REMOTE_Q, searcher, llm=llm_for(server))
    assert (a.answer, a.found_in_docs, a.sources) == ("I don't know", False, ())


@pytest.mark.parametrize("rewrite", ["off", "hyde"])
def test_gate_refusal_calls_no_llm(server, searcher, rewrite):
    server.script("Paris [1].")
    a = ask("What is the capital city of France?", searcher, llm=llm_for(server, rewrite=rewrite))
    assert (a.answer, a.found_in_docs, a.sources) == ("I don't know", False, ())
    assert server.requests == []
    assert a.notices[-1].startswith("not found in the documents: ")


# --- HyDE query rewriting ------------------------------------------------------------------------------
HOUSE_Q = "Can staff use their laptops at their house?"  # closer to Equipment than to Remote work


def test_hyde_passage_steers_the_dense_search_but_not_the_gate(server, searcher):
    plain = searcher.search(HOUSE_Q, mode="dense", top_k=3)
    hyde = searcher.search(HOUSE_Q, mode="dense", top_k=3, expansion=f"{REMOTE} with approval.")
    assert plain.hits[0].chunk.heading[-1] != "Remote work"
    assert hyde.hits[0].chunk.heading[-1] == "Remote work"
    assert hyde.gate == plain.gate  # the gate judges the question as asked
    assert "embed_expansion" in hyde.timings_ms


def test_rewrite_hyde_asks_for_a_passage_first_then_answers(server, searcher):
    server.script(f"{REMOTE} with approval.",
                  Reply(lambda b: f"Up to three days per week [{number_of(b, 'Remote work')}]."))
    llm = llm_for(server, rewrite="hyde")
    a = ask(HOUSE_Q, searcher, mode="dense", llm=llm)
    first = server.requests[0]
    assert first["messages"] == hyde_messages(HOUSE_Q) and first["temperature"] == 0.0
    assert not first.get("stream")
    assert a.mode == "llm" and headings(a.sources) == ["Remote work"]
    assert a.timings_ms["rewrite"] is not None


def test_rewrite_failure_searches_the_question_as_asked(server, searcher):
    server.script(Reply(status=503), Reply(lambda b: f"{REMOTE} [{number_of(b, 'Remote work')}]."))
    a = ask(REMOTE_Q, searcher, llm=llm_for(server, rewrite="hyde", retries=0))
    assert a.mode == "llm" and a.notices[0].startswith(f"query rewriting skipped (the LLM at {server.url} failed")


def test_rewrite_setting_is_checked():
    with pytest.raises(ConfigError, match=r"^llm.rewrite must be one of off, hyde; got 'hyde2'$"):
        LLMSettings(rewrite="hyde2")
    assert load_settings(env={"KOTAE_LLM_REWRITE": "off"}).llm.rewrite == "off"


# --- failures and retries -----------------------------------------------------------------------------
def test_503_then_success_is_retried(server, searcher):
    server.script(Reply(status=503), Reply(lambda b: f"{REMOTE} [{number_of(b, 'Remote work')}]."))
    a = ask(REMOTE_Q, searcher, llm=llm_for(server, retries=2))
    assert a.mode == "llm" and a.answer == f"{REMOTE}.[1]" and a.notices == ()
    assert len(server.requests) == 2 and server.requests[0] == server.requests[1]


def test_503_every_time_falls_back_with_a_visible_notice(server, searcher):
    server.script(*[Reply(status=503)] * 3)
    a = ask(REMOTE_Q, searcher, llm=llm_for(server, retries=2))
    assert len(server.requests) == 3
    assert a.mode == "extractive" and a.found_in_docs and a.answer == ask(REMOTE_Q, searcher).answer
    assert a.notices == ((f"the LLM at {server.url} failed (503 Service Unavailable, 3 attempts); "
                         "showing the extractive answer"),)


def test_429_is_retried_but_401_is_not(server, searcher):
    server.script(Reply(status=429), Reply(status=401), Reply("unused"))
    a = ask(REMOTE_Q, searcher, llm=llm_for(server, retries=2))
    assert len(server.requests) == 2
    assert a.notices == (f"the LLM at {server.url} failed (401 Unauthorized); showing the extractive answer",)


def test_slow_reply_times_out_and_falls_back(server, searcher):
    server.script(Reply("too late [1].", delay=2.0))
    t0 = time.perf_counter()
    a = ask(REMOTE_Q, searcher, llm=llm_for(server, timeout=0.5, retries=0))
    assert time.perf_counter() - t0 < 1.8
    assert a.mode == "extractive" and a.notices == (
        f"the LLM at {server.url} failed (no reply within 0.5 s, 1 attempt); showing the extractive answer",)


def test_unreachable_endpoint_falls_back(searcher):
    llm = get_llm("openai:m", LLMSettings(base_url="http://127.0.0.1:9/v1", retries=0, timeout=2,
                                                  rewrite="off"))
    a = ask(REMOTE_Q, searcher, llm=llm)
    assert a.notices == (("the LLM at http://127.0.0.1:9/v1 failed (could not connect, 1 attempt); "
                         "showing the extractive answer"),)


# --- streaming ------------------------------------------------------------------------------------------
def test_stream_events_in_order_tokens_as_they_come(server, searcher):
    reply = f"{REMOTE} with approval [1][2]."
    server.script(reply)
    events = list(ask_stream(REMOTE_Q, searcher, llm=llm_for(server)))
    kinds = [k for k, _ in events]
    assert kinds[0] == "retrieval" and kinds[-1] == "answer" and set(kinds[1:-1]) == {"token"}
    tokens = [p for k, p in events if k == "token"]
    assert len(tokens) > 5 and "".join(tokens) == reply
    answer = events[-1][1]
    assert answer.answer == f"{REMOTE} with approval.[1]"  # [2] does not support it, [1] does: [2] dropped
    assert answer.citations["pruned"] == 1 and headings(answer.sources) == ["Remote work"]


# --- long evidence ---------------------------------------------------------------------------------------
def test_over_budget_asks_fewer_better_passages_and_says_so(server, searcher):
    server.script(Reply(lambda b: f"{REMOTE} [1]."))
    full = ask(REMOTE_Q, searcher)
    a = ask(REMOTE_Q, searcher, llm=llm_for(server, context=950, max_tokens=100))
    m = re.fullmatch(r"the evidence \(~\d+ tokens\) exceeds the LLM's context budget \(765 tokens\): "
                     r"asked with the (\d) best of (\d) passages", a.notices[0])
    assert m and int(m[2]) == len(full.sources) and 1 <= int(m[1]) < int(m[2])
    assert len(re.findall(r"^\[\d+\] ", server.prompts[0], re.MULTILINE)) == int(m[1])
    assert a.answer == f"{REMOTE}.[1]"


def test_over_budget_with_summarise_maps_each_source_then_answers(server, searcher):
    def reply(body: dict[str, Any]) -> str:
        if body["messages"][0]["content"] == SUMMARY_SYSTEM:
            return REMOTE + "." if REMOTE in body["messages"][1]["content"] else "NONE"
        assert REMOTE in body["messages"][1]["content"]
        return f"{REMOTE} [1]."

    n = len(ask(REMOTE_Q, searcher).sources)
    server.script(*[Reply(reply)] * (n + 1))
    a = ask(REMOTE_Q, searcher, llm=llm_for(server, context=950, max_tokens=100, long_evidence="summarise"))
    summaries, final = server.requests[:-1], server.requests[-1]
    assert len(summaries) == n and not any(r.get("stream") for r in summaries) and final["stream"] is True
    assert a.notices[0] == (f"the evidence exceeds the LLM's context budget (765 tokens): each of the {n} "
                            f"sources was summarised first (map-reduce), {n - 1} had nothing relevant")
    assert len(re.findall(r"^\[\d+\] ", server.prompts[-1], re.MULTILINE)) == 1
    assert a.answer == f"{REMOTE}.[1]" and headings(a.sources) == ["Remote work"]
    assert a.timings_ms["summarise"] > 0


# --- the registry, settings and the CLI ------------------------------------------------------------------
class EchoLLM(LLM):
    """An in-process backend registered like a plug-in: replies with the first source's first sentence."""

    name = "echo"

    def stream(self, messages: Sequence[Message], *, temperature: float, max_tokens: int) -> Iterator[str]:
        passage = messages[-1]["content"].split("\n")[3]
        yield passage.split(" with ")[0] + " [1]."


def test_a_registered_backend_is_used_like_a_builtin(searcher):
    register("echo")(lambda arg, settings: EchoLLM(settings))
    try:
        llm = get_llm("echo:x", LLMSettings(rewrite="off"))
        assert llm.settings.spec == "echo:x" and llm.complete([{"role": "user", "content": "a\nb\nc\nd e"}]) == "d e [1]."
        a = ask(REMOTE_Q, searcher, llm=llm)
        assert a.mode == "llm" and a.answer == f"{REMOTE}.[1]"
    finally:
        del LLMS["echo"]


def test_get_llm_errors_name_the_fix():
    with pytest.raises(ConfigError, match=r"^unknown LLM 'gpt:x'; use one of llamacpp:…, openai:…$"):
        get_llm("gpt:x")
    with pytest.raises(ConfigError, match=r"^LLM 'openai:' names no model; write openai:MODEL"):
        get_llm("openai:")
    with pytest.raises(ConfigError, match=r"^openai:gpt-4o-mini needs an API key; set OPENAI_API_KEY or "
                                          r"KOTAE_LLM_API_KEY, or point --llm-base-url at a local server$"):
        get_llm("openai:gpt-4o-mini", LLMSettings())
    with pytest.raises(ConfigError, match=r"^no GGUF model at /nonexistent.gguf; pass --llm "):
        get_llm("llamacpp:/nonexistent.gguf")
    with pytest.raises(ConfigError, match=r"^llm.long_evidence must be one of fewer, summarise; got 'all'$"):
        LLMSettings(long_evidence="all")


def test_settings_come_from_flags_then_env_then_config_file(tmp_path):
    conf = tmp_path / "kotae.toml"
    conf.write_text('[llm]\nspec = "openai:from-file"\ntimeout = 9\nretries = 5\n', encoding="utf-8")
    env = {"KOTAE_CONFIG": str(conf), "KOTAE_LLM_TIMEOUT": "3.5", "OPENAI_API_KEY": "sk-o",
           "KOTAE_LLM_API_KEY": "sk-k"}
    s = load_settings(env=env).llm
    assert (s.spec, s.timeout, s.retries, s.api_key, s.temperature, s.context) == \
        ("openai:from-file", 3.5, 5, "sk-k", 0.1, 4096)
    s = load_settings({"llm.spec": "openai:flag", "llm.timeout": 1.0, "llm.long_evidence": "summarise"}, env).llm
    assert (s.spec, s.timeout, s.long_evidence) == ("openai:flag", 1.0, "summarise")
    assert load_settings({"llm.spec": "none"}, env).llm.spec is None
    with pytest.raises(ConfigError, match=r"^\$KOTAE_LLM_TIMEOUT \(llm.timeout\) must be a number, got 'soon'$"):
        load_settings(env={"KOTAE_LLM_TIMEOUT": "soon"})
    conf.write_text('[llm]\napi_key = "sk-secret"\n', encoding="utf-8")
    with pytest.raises(ConfigError, match=r"llm.api_key is not read from files; set KOTAE_LLM_API_KEY instead$"):
        load_settings(env=env)


def test_cli_ask_with_llm_prints_verified_json(server, searcher, tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("KOTAE_LLM", raising=False)
    server.script(Reply(lambda b: f"{REMOTE} [{number_of(b, 'Remote work')}][9]."))
    rc = main(["--index", str(tmp_path / "idx"), "--model", "fake", "ask", REMOTE_Q, "--json",
               "--llm", "openai:m", "--llm-base-url", server.url, "--rewrite", "off"])
    assert rc == 0
    out = json.loads(capsys.readouterr().out)
    assert out["mode"] == "llm" and out["answer"] == f"{REMOTE}.[1]"
    assert out["citations"]["invalid"] == 1 and [s["n"] for s in out["sources"]] == [1]
    assert out["also_retrieved"] and out["also_retrieved"][0]["n"] == 2


def test_cli_text_output_shows_notices_and_also_retrieved(server, searcher, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("KOTAE_LLM", "openai:m")
    monkeypatch.setenv("KOTAE_LLM_BASE_URL", server.url)
    # HyDE is on by default: the first request asks for a passage, the second for the answer
    server.script(f"{REMOTE}.", Reply(lambda b: f"{REMOTE} [{number_of(b, 'Remote work')}][9]."))
    assert main(["--index", str(tmp_path / "idx"), "--model", "fake", "ask", REMOTE_Q]) == 0
    assert [r["messages"][0]["content"] for r in server.requests] == [HYDE_SYSTEM, SYSTEM]
    out = capsys.readouterr().out
    assert out.startswith(f"{REMOTE}.[1]\n")
    assert "(removed 1 citation(s) to sources that do not exist)" in out
    assert "also retrieved:" in out and "citations: 1 valid, 1 invalid, 0 unsupported, 0 weak" in out



# --- the answer checks before the call ----------------------------------------------------------------
FORMS = """# Application forms

## Commuting allowance rules

Submit the commuting allowance form by the 10th of each month to General Affairs.

## Equipment loan form

- Borrower name: ____________
- Deposit: $____
- Approved by: ____________
"""


@pytest.fixture
def forms(tmp_path, fake_embedder) -> Iterator[Searcher]:
    """An index of a form template; the gate set to answer everything (what is tested is the answer)."""
    (tmp_path / "forms.md").write_text(FORMS, encoding="utf-8")
    store = open_store(str(tmp_path / "forms-idx"))
    assert index_paths([str(tmp_path / "forms.md")], store, fake_embedder, IndexSettings()).ok
    yield Searcher(store, fake_embedder, SearchSettings(gate=GateSettings(min_margin=-1.0, min_coverage=0.0)))
    store.close()


def test_a_value_the_documents_leave_blank_is_said_so_without_asking_the_llm(server, forms):
    server.script("The deposit is $50 [1].")
    a = ask("How much is the deposit for the equipment loan form?", forms, llm=llm_for(server))
    assert server.requests == []
    assert a.mode == "extractive" and a.completeness == "blank" and a.missing == ("Deposit: blank",)
    assert "“Deposit” is left blank in the document" in a.answer and "$50" not in a.answer
    assert "the LLM was not asked: the documents leave the asked value blank" in a.notices


def test_a_part_the_documents_lack_is_told_to_the_llm_and_the_answer_is_partial(server, forms):
    server.script("Submit it by the 10th of each month [1]. The sources do not state the late fee.")
    a = ask("When is the commuting allowance form due, and what is the late fee?", forms, llm=llm_for(server))
    (req,) = server.requests
    user = req["messages"][1]["content"]
    assert "The sources do not state: " in user and "late fee" in user.split("The sources do not state: ")[1]
    assert a.mode == "llm" and a.completeness == "partial" and a.missing
    assert any(n.startswith("partial answer: the documents lack ") for n in a.notices)


def test_a_complete_question_tells_the_llm_nothing_missing(server, searcher):
    server.script(f"{REMOTE} [1].")
    a = ask(REMOTE_Q, searcher, llm=llm_for(server))
    (req,) = server.requests
    assert "do not state" not in req["messages"][1]["content"]
    assert a.completeness == "complete" and a.missing == ()


def test_passages_in_the_query_reply_are_mended_for_reading(searcher):
    from kotae.server.query import retrieval

    hit = searcher.search("賃金の支払日はいつですか")
    reply = retrieval(replace(hit, hits=[replace(h, chunk=replace(h.chunk, text="翌月25日に支\n払う。"))
                                        for h in hit.hits[:1]]))
    assert reply["hits"][0]["text"] == "翌月25日に支払う。"

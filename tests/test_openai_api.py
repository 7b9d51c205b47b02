"""The OpenAI-compatible door at /v1, spoken to by the official `openai` client over real HTTP."""
from __future__ import annotations

from collections.abc import Iterator

import httpx
import openai
import pytest

from conftest import FakeEmbedder
from kotae import Kotae
from kotae.server import create_app, serve_in_thread
from kotae.store import open_store

KEY = "s3cret"
RULES = ("# Office rules\n\n## Salary\n\nSalaries are paid on the 25th day of every month by bank transfer. "
         "Part-timers are paid weekly, every Friday.\n\n"
         "## Training\n\nPart-timers attend the safety training in April.\n\n"
         "## Leave\n\nEvery employee receives twenty days of paid leave per calendar year.\n")
SALARY = [{"role": "user", "content": "When are salaries paid?"}]


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    return tmp_path_factory.mktemp("openai")


@pytest.fixture(scope="module")
def url(root) -> Iterator[str]:
    (root / "docs").mkdir()
    (root / "docs" / "rules.md").write_text(RULES, encoding="utf-8")
    k = Kotae(open_store(str(root / "index")), FakeEmbedder())
    k.index([str(root / "docs")])
    with serve_in_thread(create_app(k, upload_dir=str(root / "up"), api_key=KEY)) as base:
        yield base
    k.close()


@pytest.fixture
def client(url: str) -> openai.OpenAI:
    return openai.OpenAI(base_url=f"{url}/v1", api_key=KEY, max_retries=0)


def test_models_lists_the_one_collection(client):
    assert [m.id for m in client.models.list()] == ["kotae"]


def test_chat_completion_has_the_answer_its_sources_and_the_citations(client, root):
    r = client.chat.completions.create(model="kotae", messages=SALARY)
    text = r.choices[0].message.content
    assert r.object == "chat.completion" and r.choices[0].finish_reason == "stop"
    assert text.startswith("Salaries are paid on the 25th day of every month by bank transfer.")
    assert "[1]" in text and "\n\nSources:\n[1] rules.md p.1 › Office rules › Salary" in text
    first = r.model_extra["citations"][0]
    assert (first["n"], first["file"], first["page"], first["heading"]) == (1, "rules.md", 1, "Office rules › Salary")
    assert "25th day of every month" in first["passage"] and len(first["chunk_id"]) == 16
    assert first["doc_id"] == Kotae.id_for(str(root / "docs" / "rules.md"))
    decision = r.model_extra["kotae"]
    assert decision["found_in_docs"] is True and decision["abstained"] is False and decision["reason"] == ""


def test_stream_arrives_as_chunks_with_the_citations_on_the_last(client):
    whole = client.chat.completions.create(model="kotae", messages=SALARY)
    chunks = list(client.chat.completions.create(model="kotae", messages=SALARY, stream=True))
    assert {c.object for c in chunks} == {"chat.completion.chunk"} and len({c.id for c in chunks}) == 1
    assert chunks[0].choices[0].delta.role == "assistant"
    text = "".join(c.choices[0].delta.content or "" for c in chunks)
    assert text == whole.choices[0].message.content
    last = chunks[-1]
    assert last.choices[0].finish_reason == "stop" and [c.choices[0].finish_reason for c in chunks[:-1]] == [None] * (len(chunks) - 1)
    assert last.model_extra["citations"] == whole.model_extra["citations"]
    assert last.model_extra["kotae"]["found_in_docs"] is True


def test_stream_ends_with_done(url):
    with httpx.Client(base_url=url, headers={"Authorization": f"Bearer {KEY}"}) as c:
        r = c.post("/v1/chat/completions", json={"model": "kotae", "messages": SALARY, "stream": True})
    assert r.headers["content-type"].startswith("text/event-stream")
    frames = [f for f in r.text.split("\n\n") if f]
    assert all(f.startswith("data: ") for f in frames) and frames[-1] == "data: [DONE]"


def test_a_refusal_is_a_normal_reply_that_says_so(client):
    for stream in (False, True):
        messages = [{"role": "user", "content": "What is the capital of Mongolia?"}]
        if stream:
            chunks = list(client.chat.completions.create(model="kotae", messages=messages, stream=True))
            text = "".join(c.choices[0].delta.content or "" for c in chunks)
            extra = chunks[-1].model_extra
        else:
            r = client.chat.completions.create(model="kotae", messages=messages)
            text, extra = r.choices[0].message.content, r.model_extra
        assert text == "I don't know"
        assert extra["citations"] == []
        assert extra["kotae"]["abstained"] is True and extra["kotae"]["found_in_docs"] is False
        assert "Mongolia" in extra["kotae"]["reason"]


def test_the_history_carries_the_topic_into_an_elliptical_follow_up(client):
    messages = [*SALARY, {"role": "assistant", "content": "Salaries are paid on the 25th day of every month."},
                {"role": "user", "content": "And for part-timers?"}]
    r = client.chat.completions.create(model="kotae", messages=messages)
    assert r.model_extra["kotae"]["searched"] == "And for part-timers? salaries paid"
    assert "every Friday" in r.choices[0].message.content
    assert r.model_extra["citations"][0]["heading"] == "Office rules › Salary"
    alone = client.chat.completions.create(model="kotae", messages=messages[-1:])  # no history, no topic
    assert alone.model_extra["kotae"]["searched"] == "And for part-timers?"
    assert alone.model_extra["citations"][0]["heading"] == "Office rules › Training"


def test_content_parts_and_system_messages_are_read_as_openai_sends_them(client):
    messages = [{"role": "system", "content": "You are helpful."},
                {"role": "user", "content": [{"type": "text", "text": "How many days of paid leave per year?"}]}]
    r = client.chat.completions.create(model="kotae", messages=messages, temperature=0.2, max_tokens=100)
    assert "twenty days of paid leave" in r.choices[0].message.content


def test_errors_come_as_openai_client_exceptions(url, client):
    with pytest.raises(openai.AuthenticationError, match="wrong API key"):
        openai.OpenAI(base_url=f"{url}/v1", api_key="guess", max_retries=0).models.list()
    with pytest.raises(openai.NotFoundError, match='no collection "gpt-4o"'):
        client.chat.completions.create(model="gpt-4o", messages=SALARY)
    with pytest.raises(openai.BadRequestError, match="2001 characters, over the 2000 a question may have"):
        client.chat.completions.create(model="kotae", messages=[{"role": "user", "content": "x" * 2001}])
    with pytest.raises(openai.BadRequestError, match="messages hold no user message"):
        client.chat.completions.create(model="kotae", messages=[{"role": "system", "content": "hi"}])

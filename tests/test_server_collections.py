"""Collections over real HTTP: /collections, the per-index routes under /collections/{name}, their keys,
/v1 with the official openai client and MCP with the SDK's client, one model and one tool target per collection."""
from __future__ import annotations

import asyncio
import os
from collections.abc import Iterator
from typing import Any

import httpx
import httpx2
import openai
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from conftest import FakeEmbedder
from kotae import Kotae
from kotae.server import create_app, serve_in_thread
from kotae.store import open_store

KEY = "server-key"
HR_KEY = "hr-key"
RULES = b"# Office rules\n\n## Salary\n\nSalaries are paid on the 25th day of every month by bank transfer.\n"
PARKING = b"# Visitors\n\n## Parking\n\nVisitors park on level two of the north garage and show their ticket.\n"
LEAVE = b"# HR\n\n## Leave\n\nEvery employee receives twenty days of paid leave per calendar year.\n"


@pytest.fixture(scope="module")
def server(tmp_path_factory) -> Iterator[tuple[str, str]]:
    root = tmp_path_factory.mktemp("collections")
    k = Kotae(open_store(str(root / "index")), FakeEmbedder())
    with serve_in_thread(create_app(k, upload_dir=str(root / "index" / "uploads"), api_key=KEY)) as url:
        yield url, str(root / "index")
    k.close()


@pytest.fixture(scope="module")
def c(server) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server[0], headers={"X-API-Key": KEY}, timeout=120) as client:
        assert client.post("/documents", files={"file": ("rules.md", RULES)}, params={"wait": "true"}).status_code == 200
        assert client.post("/collections", json={"name": "visitors"}).status_code == 201
        r = client.post("/collections/visitors/documents", files={"file": ("parking.md", PARKING)},
                        params={"wait": "true"})
        assert r.status_code == 200 and r.json()["status"] == "indexed"
        r = client.post("/collections", json={"name": "hr", "api_key": HR_KEY, "settings": {"search.top_k": 2}})
        assert r.status_code == 201 and r.json()["protected"] is True
        r = client.post("/collections/hr/documents", files={"file": ("leave.md", LEAVE)}, params={"wait": "true"},
                        headers={"X-Collection-Key": HR_KEY})
        assert r.status_code == 200
        yield client


def files(answer: dict[str, Any]) -> set[str]:
    return {s["file"] for s in answer["sources"]}


def test_the_collections_are_listed(c):
    listed = c.get("/collections").json()
    assert [(x["name"], x["documents"], x["default"], x["protected"]) for x in listed] == [
        ("kotae", 1, True, False), ("hr", 1, False, True), ("visitors", 1, False, False)]
    assert listed[1]["settings"] == {"search.top_k": 2}
    assert "summary" in listed[2]["calibration"]
    assert c.get("/collections/visitors").json()["name"] == "visitors"


def test_each_collection_answers_from_its_own_documents(c):
    r = c.post("/collections/visitors/query", json={"question": "Where do visitors park?"}).json()
    assert r["found_in_docs"] and files(r) == {"parking.md"}
    # a document of one collection is never an answer in another
    assert "rules.md" not in files(c.post("/collections/visitors/query", json={"question": "When are salaries paid?"}).json())
    assert "parking.md" not in files(c.post("/query", json={"question": "Where do visitors park?"}).json())
    assert [d["file"] for d in c.get("/collections/visitors/documents").json()] == ["parking.md"]
    assert [d["file"] for d in c.get("/documents").json()] == ["rules.md"]  # the unprefixed routes: the default
    assert [d["file"] for d in c.get("/collections/kotae/documents").json()] == ["rules.md"]
    stream = c.post("/collections/visitors/query/stream", json={"question": "Where do visitors park?"})
    assert stream.headers["content-type"].startswith("text/event-stream") and "parking.md" in stream.text


def test_conversations_and_feedback_belong_to_their_collection(c):
    conv = c.post("/collections/visitors/conversations", json={}).json()
    r = c.post(f"/collections/visitors/conversations/{conv['id']}/messages",
               json={"question": "Where do visitors park?"}).json()
    assert r["conversation_id"] == conv["id"] and files(r) == {"parking.md"}
    assert [x["id"] for x in c.get("/collections/visitors/conversations").json()] == [conv["id"]]
    assert conv["id"] not in [x["id"] for x in c.get("/conversations").json()]  # not the default collection's
    assert c.get(f"/conversations/{conv['id']}").status_code == 404
    fb = {"question": "Where do visitors park?", "rating": "up", "message_id": r["message_id"], "cited": []}
    assert c.post("/collections/visitors/feedback", json=fb).status_code == 201
    assert [x["question"] for x in c.get("/collections/visitors/feedback").json()] == ["Where do visitors park?"]
    assert c.get("/feedback").json() == []


def test_a_collection_key_is_asked_for_on_top_of_the_servers(c, server):
    ask = {"question": "How many days of paid leave?"}
    r = c.post("/collections/hr/query", json=ask)
    assert r.status_code == 401 and "X-Collection-Key" in r.json()["error"]["message"]
    assert c.post("/collections/hr/query", json=ask, headers={"X-Collection-Key": "wrong"}).status_code == 401
    ok = c.post("/collections/hr/query", json=ask, headers={"X-Collection-Key": HR_KEY}).json()
    assert files(ok) == {"leave.md"} and len(ok["sources"]) <= 2
    with httpx.Client(base_url=server[0]) as anonymous:  # the server's key still guards everything
        assert anonymous.post("/collections/hr/query", json=ask, headers={"X-Collection-Key": HR_KEY}).status_code == 401
        assert anonymous.get("/collections").status_code == 401
    # both keys in the two headers a single-key client can send
    both = c.post("/collections/hr/query", json=ask, headers={"X-API-Key": HR_KEY, "Authorization": f"Bearer {KEY}"})
    assert both.status_code == 200


def test_unknown_and_bad_names(c):
    r = c.post("/collections/nope/query", json={"question": "x"})
    assert r.status_code == 404 and r.json()["error"]["code"] == "collection_not_found"
    assert c.post("/collections", json={"name": "visitors"}).status_code == 409
    assert c.post("/collections", json={"name": "Bad/Name"}).status_code == 400
    assert c.delete("/collections/kotae").status_code == 400


def test_openai_models_one_per_collection(c, server):
    client = openai.OpenAI(base_url=f"{server[0]}/v1", api_key=KEY, max_retries=0)
    assert [m.id for m in client.models.list()] == ["kotae", "hr", "visitors"]
    r = client.chat.completions.create(model="visitors", messages=[{"role": "user", "content": "Where do visitors park?"}])
    assert [x["file"] for x in r.model_extra["citations"]] == ["parking.md"]
    with pytest.raises(openai.AuthenticationError):
        client.chat.completions.create(model="hr", messages=[{"role": "user", "content": "How many days of leave?"}])
    hr = openai.OpenAI(base_url=f"{server[0]}/v1", api_key=KEY, max_retries=0,
                       default_headers={"X-Collection-Key": HR_KEY})
    chunks = list(hr.chat.completions.create(model="hr", stream=True,
                                             messages=[{"role": "user", "content": "How many days of paid leave?"}]))
    assert [x["file"] for x in chunks[-1].model_extra["citations"]] == ["leave.md"]


def test_mcp_tools_take_any_collection(c, server):
    async def run(headers: dict[str, str]) -> dict[str, Any]:
        async with httpx2.AsyncClient(headers=headers) as http, \
                Client(streamable_http_client(f"{server[0]}/mcp", http_client=http)) as client:
            return {"visitors": (await client.call_tool("list_documents", {"collection": "visitors"})).structured_content,
                    "ask": (await client.call_tool("ask", {"question": "Where do visitors park?",
                                                            "collection": "visitors"})).structured_content,
                    "hr": await client.call_tool("list_documents", {"collection": "hr"})}

    out = asyncio.run(run({"Authorization": f"Bearer {KEY}"}))
    assert [d["file"] for d in out["visitors"]["documents"]] == ["parking.md"]
    assert [x["file"] for x in out["ask"]["citations"]] == ["parking.md"]
    assert out["hr"].is_error and "API key of its own" in out["hr"].content[0].text
    keyed = asyncio.run(run({"Authorization": f"Bearer {KEY}", "X-Collection-Key": HR_KEY}))
    assert not keyed["hr"].is_error and [d["file"] for d in keyed["hr"].structured_content["documents"]] == ["leave.md"]


def test_zz_delete_takes_the_collection_and_everything_in_it(c, server):
    folder = os.path.join(server[1], "collections", "visitors")
    assert os.path.isfile(os.path.join(folder, "uploads", "parking.md"))
    assert c.delete("/collections/visitors").json() == {"deleted": "visitors"}
    assert not os.path.exists(folder)
    assert c.get("/collections/visitors/documents").status_code == 404
    assert [x["name"] for x in c.get("/collections").json()] == ["kotae", "hr"]
    assert c.delete("/collections/hr").status_code == 401  # not without its own key
    assert c.get("/collections/hr").status_code == 401
    assert c.post("/collections", json={"name": "visitors"}).status_code == 201  # again, empty
    assert c.get("/collections/visitors/documents").json() == []


def test_collections_of_a_postgres_server(pg_server, tmp_path):
    from conftest import new_pg_index

    k = Kotae(open_store(new_pg_index(pg_server)), FakeEmbedder())
    try:
        with serve_in_thread(create_app(k, upload_dir=str(tmp_path / "up"))) as url, \
                httpx.Client(base_url=url, timeout=120) as pg:
            assert pg.post("/collections", json={"name": "visitors"}).status_code == 201
            r = pg.post("/collections/visitors/documents", files={"file": ("parking.md", PARKING)},
                        params={"wait": "true"})
            assert r.status_code == 200
            assert files(pg.post("/collections/visitors/query", json={"question": "Where do visitors park?"}).json()) == {
                "parking.md"}
            assert pg.get("/documents").json() == []
            assert [x["name"] for x in pg.get("/collections").json()] == ["kotae", "visitors"]
            assert os.path.isfile(tmp_path / "up" / "collections" / "visitors" / "parking.md")
            assert pg.delete("/collections/visitors").status_code == 200
            assert [x["name"] for x in pg.get("/collections").json()] == ["kotae"]
            assert not os.path.exists(tmp_path / "up" / "collections" / "visitors")
    finally:
        k.close()


def test_kotae_mcp_over_stdio_serves_every_collection(tmp_path):
    import sys

    from mcp.client.stdio import StdioServerParameters

    from fake_plugin import fake_embedder_env
    from kotae.collections import Collections

    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "parking.md").write_bytes(PARKING)
    with Kotae(open_store(str(tmp_path / "index")), FakeEmbedder()) as k, \
            Collections(k.settings, home=k).create("visitors", api_key=HR_KEY) as v:
        v.index([str(tmp_path / "docs")])
    params = StdioServerParameters(command=sys.executable, args=["-m", "kotae", "--index", str(tmp_path / "index"), "mcp"],
                                   env=fake_embedder_env(tmp_path / "site"))

    async def run() -> tuple[Any, Any]:
        async with Client(params, read_timeout_seconds=120) as client:
            return (await client.call_tool("list_documents", {"collection": "visitors"}),
                    await client.call_tool("list_documents", {}))

    visitors, default = asyncio.run(run())
    # over stdio the caller is the local user: no key is asked for
    assert [d["file"] for d in visitors.structured_content["documents"]] == ["parking.md"]
    assert default.structured_content["documents"] == []

"""The MCP door, spoken to by the official `mcp` SDK client: over streamable HTTP against the real server at
/mcp, and over stdio against `python -m kotae mcp` in a subprocess."""
from __future__ import annotations

import asyncio
import sys
from collections.abc import Iterator
from typing import Any

import httpx2
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from conftest import FakeEmbedder
from fake_plugin import fake_embedder_env
from kotae import Kotae
from kotae.server import create_app, serve_in_thread
from kotae.store import open_store

KEY = "s3cret"
RULES = ("# Office rules\n\n## Salary\n\nSalaries are paid on the 25th day of every month by bank transfer.\n\n"
         "## Leave\n\nEvery employee receives twenty days of paid leave per calendar year.\n")
TOOLS = {"search", "ask", "list_documents", "get_passage"}


@pytest.fixture(scope="module")
def url(tmp_path_factory) -> Iterator[str]:
    root = tmp_path_factory.mktemp("mcp")
    (root / "docs").mkdir()
    (root / "docs" / "rules.md").write_text(RULES, encoding="utf-8")
    k = Kotae(open_store(str(root / "index")), FakeEmbedder())
    k.index([str(root / "docs")])
    with serve_in_thread(create_app(k, upload_dir=str(root / "up"), api_key=KEY)) as base:
        yield base
    k.close()


async def session(client: Client) -> dict[str, Any]:
    """The same conversation over any transport: list the tools, then call each."""
    out: dict[str, Any] = {"tools": {t.name for t in (await client.list_tools()).tools}}
    out["ask"] = (await client.call_tool("ask", {"question": "When are salaries paid?"})).structured_content
    out["refusal"] = (await client.call_tool("ask", {"question": "What is the capital of Mongolia?"})).structured_content
    out["search"] = (await client.call_tool("search", {"query": "paid leave days", "top_k": 2})).structured_content
    out["documents"] = (await client.call_tool("list_documents", {})).structured_content
    chunk_id = out["ask"]["citations"][0]["chunk_id"]
    out["passage"] = (await client.call_tool("get_passage", {"chunk_id": chunk_id})).structured_content
    out["no_passage"] = await client.call_tool("get_passage", {"chunk_id": "0000"})
    out["other"] = await client.call_tool("list_documents", {"collection": "hr"})
    out["default"] = (await client.call_tool("list_documents", {"collection": "kotae"})).structured_content
    return out


def check(out: dict[str, Any]) -> None:
    assert out["tools"] == TOOLS
    ask = out["ask"]
    assert ask["answer"].startswith("Salaries are paid on the 25th day") and "[1]" in ask["answer"]
    assert ask["found_in_docs"] is True and ask["abstained"] is False
    assert ask["sources_text"].startswith("Sources:\n[1] rules.md p.1 › Office rules › Salary")
    first = ask["citations"][0]
    assert (first["file"], first["page"], first["heading"]) == ("rules.md", 1, "Office rules › Salary")
    refusal = out["refusal"]
    assert refusal["answer"] == "I don't know" and refusal["abstained"] is True and refusal["citations"] == []
    assert "Mongolia" in refusal["reason"]
    assert out["search"]["hits"][0]["heading"] == "Office rules › Leave" and len(out["search"]["hits"]) <= 2
    assert out["search"]["gate"]["found"] is True
    assert [d["file"] for d in out["documents"]["documents"]] == ["rules.md"] == [
        d["file"] for d in out["default"]["documents"]]
    assert out["passage"]["chunk_id"] == first["chunk_id"] and "25th day" in out["passage"]["text"]
    assert out["passage"]["anchor"] == "rules.md p.1 › Office rules › Salary"
    assert out["no_passage"].is_error and "no passage 0000 in the index" in out["no_passage"].content[0].text
    assert out["other"].is_error and 'no collection "hr"' in out["other"].content[0].text


def test_mcp_over_streamable_http_on_the_server(url):
    async def run() -> dict[str, Any]:
        async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {KEY}"}) as http, \
                Client(streamable_http_client(f"{url}/mcp", http_client=http)) as client:
            return await session(client)

    check(asyncio.run(run()))


def test_mcp_over_http_needs_the_key(url):
    async def run() -> None:
        async with Client(f"{url}/mcp") as client:
            await client.list_tools()

    with pytest.raises(BaseException) as e:  # the SDK raises an ExceptionGroup from its task group
        asyncio.run(run())
    assert "Server returned an error response" in repr(e.value) or "401" in repr(e.value)


def test_a_browser_page_from_elsewhere_is_refused(url):
    r = httpx2.post(f"{url}/mcp", headers={"Authorization": f"Bearer {KEY}", "Origin": "http://evil.example"},
                    json={"jsonrpc": "2.0", "id": 1, "method": "ping"})
    assert r.status_code == 403 and "does not answer pages from http://evil.example" in r.json()["error"]["message"]


def test_kotae_mcp_over_stdio(tmp_path):
    """`kotae mcp` as Claude Desktop runs it: a subprocess speaking MCP on its stdin and stdout."""
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "rules.md").write_text(RULES, encoding="utf-8")
    with Kotae(open_store(str(tmp_path / "index")), FakeEmbedder()) as k:
        k.index([str(tmp_path / "docs")])
    params = StdioServerParameters(command=sys.executable, args=["-m", "kotae", "--index", str(tmp_path / "index"), "mcp"],
                                   env=fake_embedder_env(tmp_path / "site"))

    async def run() -> dict[str, Any]:
        async with Client(params, read_timeout_seconds=120) as client:
            return await session(client)

    check(asyncio.run(run()))

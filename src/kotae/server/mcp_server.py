"""The MCP door (official `mcp` SDK): tools `search`, `ask`, `list_documents`, `get_passage` for assistants.

`kotae mcp` serves them over stdio; `kotae serve` mounts the same server at /mcp (streamable HTTP, behind
the server's API key). Every tool takes an optional `collection`: any the server serves (default: the one it
serves by default; over HTTP a collection with its own key needs it in the request's headers).
"""
from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from mcp.server.mcpserver import Context as MCPContext
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.transport_security import TransportSecuritySettings
from starlette.routing import BaseRoute
from starlette.types import ASGIApp, Receive, Scope, Send

from kotae import __version__
from kotae.errors import KotaeError, NotFound
from kotae.facade import SearchResult
from kotae.server.context import Door
from kotae.server.errors import error_response
from kotae.server.guard import COLLECTION_KEY_HEADER, presented_keys
from kotae.server.query import retrieval
from kotae.server.replies import citations, decision, sources_text
from kotae.types import Answer

INSTRUCTIONS = ("kotae answers only from the user's indexed documents, with page-accurate citations. "
                "Use `ask` for an answer with its sources, `search` for the passages alone, `get_passage` "
                "to read a cited passage in full, `list_documents` to see what is indexed. When `ask` says "
                "found_in_docs is false, the documents do not hold the answer: say so instead of guessing.")


def build(door: Door) -> MCPServer:
    """The MCP server over the collections `door` opens."""
    server = MCPServer("kotae", version=__version__, instructions=INSTRUCTIONS, log_level="WARNING")

    @server.tool()
    def search(ctx: MCPContext, query: str, top_k: int = 5, collection: str | None = None) -> dict[str, Any]:
        """Search the documents: the ranked passages (chunk_id, file, page, heading, text, scores) and the
        gate's decision whether they hold an answer."""
        with told():
            return retrieval(door(collection, keys(ctx))[0].search(query, top_k=max(1, min(top_k, 50))))

    @server.tool()
    def ask(ctx: MCPContext, question: str, collection: str | None = None) -> dict[str, Any]:
        """Answer a question from the documents only: the answer with [n] markers, its citations (file,
        page, heading, passage, ids), and whether the documents answer it at all (found_in_docs false: the
        answer is 「わからない」/"I don't know" and `reason` says why)."""
        result: SearchResult | None = None
        with told():
            for kind, payload in door(collection, keys(ctx))[1](question):
                if kind == "retrieval" and isinstance(payload, SearchResult):
                    result = payload
                elif kind == "answer" and isinstance(payload, Answer):
                    return {"answer": payload.answer, "sources_text": sources_text(payload.sources, question).strip(),
                            "citations": citations(payload.sources), **decision(payload, result)}
        raise RuntimeError("the answer stream ended without an answer")

    @server.tool()
    def list_documents(ctx: MCPContext, collection: str | None = None) -> dict[str, Any]:
        """The indexed documents: id, file, kind, pages, chunks, language, when indexed."""
        with told():
            docs = door(collection, keys(ctx))[0].documents()
        return {"documents": [{"id": d.id, "file": d.file, "kind": d.kind, "pages": d.pages, "chunks": d.chunks,
                               "lang": d.lang, "indexed_at": d.indexed_at, "tags": list(d.tags)} for d in docs]}

    @server.tool()
    def get_passage(ctx: MCPContext, chunk_id: str, collection: str | None = None) -> dict[str, Any]:
        """One passage in full by its chunk_id (as `search` and `ask` citations name it), with where it is."""
        with told():
            c = door(collection, keys(ctx))[0].passage(chunk_id)
            if c is None:
                raise NotFound(f"no passage {chunk_id} in the index; take a chunk_id from search or ask")
        return {"chunk_id": c.id, "doc_id": c.doc_id, "file": c.file, "page": c.page,
                "heading": " › ".join(c.heading) or None, "anchor": c.anchor, "text": c.text, "ocr": c.ocr}

    return server


def keys(ctx: MCPContext) -> tuple[str, ...] | None:  # type: ignore[type-arg]
    """The API keys of the HTTP request a tool call came in (None over stdio: a local user, nothing checked)."""
    headers = ctx.headers
    if headers is None:
        return None
    return presented_keys({k.lower(): v for k, v in headers.items()}, COLLECTION_KEY_HEADER)


@contextmanager
def told() -> Iterator[None]:
    """kotae's own errors reach the client with their message (the SDK hides an unforeseen exception's)."""
    try:
        yield
    except KotaeError as e:
        raise ToolError(str(e)) from e


def http_routes(server: MCPServer, path: str = "/mcp") -> list[BaseRoute]:
    """The streamable-HTTP route of `server`, for mounting on the kotae app; the app's lifespan must run
    `server.session_manager.run()`. The app's Guard checks the API key; browsers are held off by `Origins`."""
    # The SDK's Host check would refuse a LAN host name; an Origin check (`Origins`) stops DNS rebinding.
    app = server.streamable_http_app(streamable_http_path=path,
                                     transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False))
    return list(app.routes)


class Origins:
    """ASGI middleware for /mcp: a browser request (it carries Origin) from a page not on the allowed list
    (the server's own origin, localhost, the --cors-origin ones) is refused, so a web page cannot reach a
    local MCP endpoint through DNS rebinding."""

    def __init__(self, app: ASGIApp, *, allowed: tuple[str, ...] = (), path: str = "/mcp") -> None:
        self.app, self.allowed, self.path = app, allowed, path

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["path"] == self.path:
            headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
            origin = headers.get("origin")
            if origin and not self._ok(origin, headers.get("host", "")):
                await error_response(403, "forbidden", f"the MCP endpoint does not answer pages from {origin}; "
                                     "add it with --cors-origin")(scope, receive, send)
                return
        await self.app(scope, receive, send)

    def _ok(self, origin: str, host: str) -> bool:
        bare = origin.split("://", 1)[-1]
        return (origin in self.allowed or bare == host
                or bare.split(":")[0] in ("localhost", "127.0.0.1", "[::1]"))

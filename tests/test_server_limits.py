"""The server under hostile clients and files: stalled bodies, too many uploads, limit messages, runaway readers."""
from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from urllib.parse import urlsplit

import httpx
import pytest

from conftest import FakeEmbedder
from kotae import Kotae
from kotae.config import IndexSettings, LimitSettings, Settings
from kotae.server import create_app, serve_in_thread
from kotae.store import open_store

NOTE = b"# Leave\n\nEvery employee receives twenty days of paid leave per calendar year.\n"


@pytest.fixture
def served(tmp_path) -> Iterator[tuple[str, httpx.Client]]:
    store = open_store(str(tmp_path / "index"))
    app = create_app(Kotae(store, FakeEmbedder()), upload_dir=str(tmp_path / "uploads"), max_upload_mb=1,
                     max_uploads=1, body_idle=0.5)
    with serve_in_thread(app) as url, httpx.Client(base_url=url, timeout=60) as client:
        yield url, client
    store.close()


def stalled_upload(url: str) -> socket.socket:
    """A connection that sends the headers and a little of a 10 KB body, then nothing."""
    parts = urlsplit(url)
    sock = socket.create_connection((parts.hostname, parts.port))
    head = (b"--x\r\nContent-Disposition: form-data; name=\"file\"; filename=\"slow.txt\"\r\n\r\n")
    sock.sendall(b"POST /documents HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=x\r\n"
                 b"Content-Length: 10000\r\n\r\n" + head + b"a" * 100)
    return sock


def response_of(sock: socket.socket) -> tuple[bytes, dict]:
    """Everything the server sends until it closes the connection: (status line, JSON body)."""
    sock.settimeout(30)
    data = b""
    while chunk := sock.recv(65536):
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    return head.split(b"\r\n")[0], json.loads(body)


def test_a_stalled_upload_gets_408_and_its_connection_closed(served):
    url, client = served
    sock = stalled_upload(url)
    status, body = response_of(sock)  # returns only because the server closed the connection
    sock.close()
    assert status == b"HTTP/1.1 408 Request Timeout"
    assert body["error"] == {"code": "timeout", "message": "the upload sent nothing for 0.5 s; send it again "
                             "on a faster connection"}
    assert client.get("/documents").json() == []
    assert client.post("/documents", files={"file": ("note.md", NOTE)}, params={"wait": "true"}).status_code == 200


def test_uploads_past_the_cap_get_503_while_one_is_received(served):
    url, client = served
    sock = stalled_upload(url)
    try:
        r = client.post("/documents", files={"file": ("note.md", NOTE)})
        assert r.status_code == 503 and r.headers["retry-after"] == "5"
        assert r.json()["error"]["code"] == "busy"
    finally:
        response_of(sock)
        sock.close()
    assert client.post("/documents", files={"file": ("note.md", NOTE)}, params={"wait": "true"}).status_code == 200


def test_the_413_names_the_configured_limit(served):
    _, client = served
    r = client.post("/documents", files={"file": ("big.txt", b"a" * 3_000_000)})
    assert r.status_code == 413
    assert r.json()["error"]["message"] == ("upload is over the 1 MB limit; split the file or ask the operator "
                                            "to raise --max-upload-mb")


@pytest.mark.parametrize(("limits", "reason"), [
    (LimitSettings(max_seconds=0.001), "reading took over 0.001 s and was stopped"),
    (LimitSettings(max_memory_mb=1), "note.md: "),  # 3 MB to read, 1 MB allowed
])
def test_a_runaway_reader_fails_that_upload_and_the_server_goes_on(tmp_path, limits, reason):
    store = open_store(str(tmp_path / "index"))
    k = Kotae(store, FakeEmbedder(), Settings(index=IndexSettings(limits=limits)))
    app = create_app(k, upload_dir=str(tmp_path / "uploads"))
    with serve_in_thread(app) as url, httpx.Client(base_url=url, timeout=60) as client:
        r = client.post("/documents", files={"file": ("note.md", NOTE * 40_000)}, params={"wait": "true"})
        assert r.status_code == 422 and r.json()["error"]["code"] == "indexing_failed"
        assert reason in r.json()["error"]["message"]
        assert client.get("/health").status_code == 200
        assert store.documents() == []
    store.close()


def test_a_connection_that_sends_no_request_is_closed(served, monkeypatch):
    from kotae.server import protocol

    url, client = served
    monkeypatch.setattr(protocol, "HEADER_TIMEOUT", 0.5)
    parts = urlsplit(url)
    silent = socket.create_connection((parts.hostname, parts.port))
    slow = socket.create_connection((parts.hostname, parts.port))
    slow.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n")  # the headers never end
    for sock in (silent, slow):
        sock.settimeout(30)
        assert sock.recv(1024) == b""  # closed by the server, nothing sent
        sock.close()
    assert client.get("/health").status_code == 200

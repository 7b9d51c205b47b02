"""`Kotae`, the one door: README's library example runs, the index's policies hold for every caller."""
from __future__ import annotations

import os
import re

import httpx
import pytest

from conftest import ROOT, FakeEmbedder
from kotae import Kotae, Record, Settings, load_settings
from kotae.cli import main
from kotae.errors import IndexMismatch, NotFound
from kotae.server import create_app, serve_in_thread
from kotae.store import open_store

LONG = "\n\n".join(
    f"## Rule {i}\n\n" + " ".join(f"Rule {i} sentence {j} says that employees file form {i}-{j} on day {j}."
                                  for j in range(12))
    for i in range(1, 7))


def readme_example() -> str:
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        text = f.read()
    m = re.search(r"<!-- library example: run by tests/test_facade.py -->\n```python\n(.*?)```", text, re.DOTALL)
    assert m, "README has lost its library example"
    return m.group(1)


@pytest.mark.slow
def test_readme_library_example_runs(tmp_path, monkeypatch, capsys):
    code = readme_example()
    assert len(code.strip().splitlines()) <= 12
    monkeypatch.chdir(tmp_path)
    os.symlink(os.path.join(ROOT, "samples"), tmp_path / "samples")
    for var in [v for v in os.environ if v.startswith("KOTAE_")]:
        monkeypatch.delenv(var)  # the example as a new user runs it: the bundled model, default settings
    exec(compile(code, "README.md", "exec"), {})  # noqa: S102  (README's own example, run as written)
    out = capsys.readouterr().out
    assert "indexed 4 file(s), 0 failed" in out
    assert "work-rules.pdf p.7" in out and "25日" in out
    assert (tmp_path / "my-index" / "index.sqlite3").is_file()


def test_kotae_binds_the_index_to_its_model(tmp_path):
    with Kotae(open_store(str(tmp_path / "idx")), FakeEmbedder()) as k:
        k.index([os.path.join(ROOT, "samples", "docs", "faq.md")])
    with pytest.raises(IndexMismatch):
        Kotae.open(str(tmp_path / "idx"), settings=load_settings({"embed.model": "e5-small"}, env={}))
    with Kotae.open(str(tmp_path / "idx"), settings=load_settings({"embed.model": "fake"}, env={})) as k:
        assert [d.file for d in k.documents()] == ["faq.md"]


def test_open_refuses_a_missing_folder_when_asked(tmp_path):
    with pytest.raises(Exception, match=r"^no index at .*nope; create one with: kotae index PATH$"):
        Kotae.open(str(tmp_path / "nope"), settings=Settings(), create=False)


def test_remove_by_path_id_or_name(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("# A\n\nThe cafeteria opens at eleven.\n", encoding="utf-8")
    (docs / "b.md").write_text("# B\n\nThe library closes at nine.\n", encoding="utf-8")
    with Kotae(open_store(str(tmp_path / "idx")), FakeEmbedder()) as k:
        k.index([str(docs)])
        assert k.remove("a.md").file == "a.md"
        b = k.document(str(docs / "b.md"))
        assert b is not None and k.remove(b.id).file == "b.md"
        with pytest.raises(NotFound, match=r"^a.md is not in the index .*; see kotae list$"):
            k.remove("a.md")
        assert k.documents() == []


def test_index_records_are_searchable_and_rerun_embeds_nothing(tmp_path):
    records = [Record("r1", "Magma rises through the crust and erupts.", "Volcanoes"),
               Record("r2", "Glaciers carve valleys over thousands of years.", "Glaciers")]
    embedder = FakeEmbedder()
    with Kotae(open_store(str(tmp_path / "idx")), embedder) as k:
        first = k.index_records(records, "geo")
        assert (first.batches, first.written, first.embedded) == (1, 1, 2)
        again = k.index_records(records, "geo")
        assert (again.written, again.embedded, embedder.embedded) == (0, 0, 2)
        hits = k.search("glaciers valleys", mode="keyword", top_k=1).hits
        assert [(h.chunk.file, h.chunk.heading) for h in hits] == [("r2", ("Glaciers",))]


def test_calibrate_stores_thresholds_the_gate_then_uses(tmp_path):
    with Kotae(open_store(str(tmp_path / "idx")), FakeEmbedder()) as k:
        k.index([os.path.join(ROOT, "samples", "docs")])
        c = k.calibrate([("年次有給休暇は何日付与されますか", True), ("給料はいつ支払われますか", True),
                         ("火星の首都はどこですか", False), ("Who won the 1998 World Cup final?", False)])
        assert c.after.answerable == 2 and c.after.unanswerable == 2 and c.after.false_refusals == 0
        assert k.searcher.gate_settings() == c.settings


def test_an_upload_is_chunked_like_its_index(tmp_path):
    """The serve bug: uploads were chunked with the defaults, whatever the index was built with."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "first.md").write_text("# First\n\nThe first rule.\n", encoding="utf-8")
    (docs / "rules.md").write_text(LONG, encoding="utf-8")
    idx, direct = str(tmp_path / "idx"), str(tmp_path / "direct")
    assert main(["index", str(docs / "first.md"), "--index", idx, "--model", "fake", "--max-tokens", "64"]) == 0
    assert main(["index", str(docs / "rules.md"), "--index", direct, "--model", "fake", "--max-tokens", "64"]) == 0
    assert main(["index", str(docs / "rules.md"), "--index", str(tmp_path / "default"), "--model", "fake"]) == 0
    want = {d.file: d.chunks for d in Kotae.open(direct, settings=load_settings({"embed.model": "fake"})).documents()}
    default = Kotae.open(str(tmp_path / "default"), settings=load_settings({"embed.model": "fake"})).documents()
    assert want["rules.md"] != default[0].chunks  # the two chunkings differ on this file

    k = Kotae.open(idx, settings=load_settings({"embed.model": "fake"}, env={}))
    with serve_in_thread(create_app(k, upload_dir=str(tmp_path / "up"))) as url, \
            httpx.Client(base_url=url, timeout=60) as client:
        r = client.post("/documents", files={"file": ("rules.md", LONG.encode())}, params={"wait": "true"})
        assert r.status_code == 200, r.text
        assert r.json()["chunks"] == want["rules.md"]
    assert k.index_settings().chunk.max_tokens == 64
    k.close()


def test_explicit_chunking_wins_over_the_index_s_own(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "rules.md").write_text(LONG, encoding="utf-8")
    idx = str(tmp_path / "idx")
    assert main(["index", str(docs), "--index", idx, "--model", "fake", "--max-tokens", "64"]) == 0
    with Kotae.open(idx, settings=load_settings({"embed.model": "fake"}, env={})) as k:
        assert k.index_settings().chunk.max_tokens == 64  # `kotae index` without --max-tokens keeps 64
    settings = load_settings({"embed.model": "fake", "index.chunk.max_tokens": 200}, env={})
    with Kotae.open(idx, settings=settings) as k:
        assert k.index_settings().chunk.max_tokens == 200
        before = k.documents()[0].chunks
        k.index([str(docs)])  # re-chunked at the new size
        assert k.documents()[0].chunks < before


def test_global_options_go_before_or_after_the_command(tmp_path, capsys):
    idx = str(tmp_path / "idx")
    docs = os.path.join(ROOT, "samples", "docs", "faq.md")
    assert main(["index", "--index", idx, "--model", "fake", docs]) == 0
    assert main(["--index", idx, "list", "--model", "fake"]) == 0
    assert main(["ask", "--index", idx, "--model", "fake", "--json", "パスワードを忘れたら？"]) == 0
    out = capsys.readouterr().out
    assert "faq.md\tmarkdown" in out and '"found_in_docs"' in out

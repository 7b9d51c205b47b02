"""Indexing and asking end to end with the FakeEmbedder: skips, replacement, removal, bad input, CLI."""
import json
import os
from dataclasses import replace

import pytest

from kotae.answer import ask
from kotae.cli import main
from kotae.config import IndexSettings
from kotae.pipeline import index_paths
from kotae.search import Searcher
from kotae.store import Filter, open_store

RULES = """# 就業規則

## 第1条（賃金の支払）
賃金は、毎月末日に締め切り、翌月25日に支払う。支払日が休日に当たるときは、その前日に支払う。

## 第2条（休日）
休日は、土曜日、日曜日および国民の祝日とする。

## 第3条（年次有給休暇）
入社後6か月継続勤務した者には、10日の年次有給休暇を与える。
"""
HANDBOOK = """# Handbook

## Remote work
Employees may work from home up to three days per week with their manager's approval.

## Expenses
Submit expense claims within 30 days of purchase through the finance portal.
"""


@pytest.fixture
def docs(tmp_path):
    d = tmp_path / "docs"
    d.mkdir()
    (d / "rules.md").write_text(RULES, encoding="utf-8")
    (d / "handbook.md").write_text(HANDBOOK, encoding="utf-8")
    (d / "codes.csv").write_text("code,category,limit\nEX-101,交通費,\nEX-205,Client entertainment,5000\n",
                                 encoding="utf-8")
    return d


@pytest.fixture
def store(tmp_path):
    s = open_store(str(tmp_path / "idx"))
    yield s
    s.close()


def test_index_then_ask_cites_the_right_section(docs, store, fake_embedder):
    report = index_paths([str(docs)], store, fake_embedder, IndexSettings())
    assert report.ok and sorted(d.file for d in report.indexed) == ["codes.csv", "handbook.md", "rules.md"]
    answer = ask("賃金はいつ支払われますか", Searcher(store, fake_embedder))
    assert answer.found_in_docs
    top = answer.sources[0]
    assert top.n == 1 and top.hit.chunk.file == "rules.md"
    assert top.hit.chunk.heading[-1] == "第1条（賃金の支払）"
    assert "翌月25日" in answer.answer and answer.answer.endswith("[1]")
    d = answer.to_dict()
    assert set(d) >= {"question", "answer", "found_in_docs", "mode", "sources", "timings_ms", "index_version"}
    assert d["sources"][0]["file"] == "rules.md" and d["sources"][0]["rerank"] is None
    assert d["timings_ms"]["rerank"] is None and d["timings_ms"]["total"] > 0


def test_unchanged_files_skipped_changed_replaced(docs, store, fake_embedder):
    index_paths([str(docs)], store, fake_embedder, IndexSettings())
    embedded = fake_embedder.embedded
    again = index_paths([str(docs)], store, fake_embedder, IndexSettings())
    assert len(again.skipped) == 3 and not again.indexed
    assert fake_embedder.embedded == embedded  # nothing re-embedded

    (docs / "handbook.md").write_text(HANDBOOK.replace("three days", "two days"), encoding="utf-8")
    third = index_paths([str(docs)], store, fake_embedder, IndexSettings())
    assert [d.file for d in third.indexed] == ["handbook.md"]
    assert fake_embedder.embedded == embedded + 1  # only the changed chunk's text is embedded
    texts = [store.chunks([r])[r].text for r, _ in store.keyword_search(["remot"], 10, None)]
    assert texts and all("two days" in t for t in texts)


def test_report_times_each_stage(docs, store, fake_embedder):
    import time

    t0 = time.perf_counter()
    first = index_paths([str(docs)], store, fake_embedder, IndexSettings())
    wall = time.perf_counter() - t0
    assert set(first.seconds) == {"hash", "read", "chunk", "embed", "analyze", "write"}
    assert all(v >= 0 for v in first.seconds.values())
    assert sum(first.seconds.values()) <= wall  # the stages are disjoint parts of the run (not a speed claim)
    again = index_paths([str(docs)], store, fake_embedder, IndexSettings())
    assert set(again.seconds) == {"hash"}  # unchanged files stop after hashing


def test_small_files_are_embedded_together_each_in_its_own_document(tmp_path, store, fake_embedder):
    notes = tmp_path / "notes"
    notes.mkdir()
    for i in range(12):
        (notes / f"note{i:02}.md").write_text(f"# メモ{i}\n\n会議室{i}の予約は前日までに行うこと。", encoding="utf-8")
    (notes / "broken.docx").write_bytes(b"not a zip")
    report = index_paths([str(notes)], store, fake_embedder, IndexSettings())
    assert [f for f, _ in report.failed] == [str(notes / "broken.docx")]
    assert sorted(d.file for d in report.indexed) == [f"note{i:02}.md" for i in range(12)]
    assert fake_embedder.calls == [("passage", 12)]  # one call for the twelve one-chunk files
    assert {d.file: d.chunks for d in store.documents()} == {f"note{i:02}.md": 1 for i in range(12)}
    hits = Searcher(store, fake_embedder).search("会議室7の予約", mode="keyword").hits
    assert hits[0].chunk.file == "note07.md"


def test_removed_document_is_never_retrieved(docs, store, fake_embedder):
    index_paths([str(docs)], store, fake_embedder, IndexSettings())
    store.remove_document(str(docs / "rules.md"))
    searcher = Searcher(store, fake_embedder)
    for mode in ("dense", "keyword", "hybrid"):
        hits = searcher.search("賃金 支払", mode=mode, top_k=10).hits
        assert all(h.chunk.file != "rules.md" for h in hits)


def test_file_filter_is_inside_the_search(docs, store, fake_embedder):
    index_paths([str(docs)], store, fake_embedder, IndexSettings())
    hits = Searcher(store, fake_embedder).search("賃金 支払", top_k=3, flt=Filter(file="*.csv")).hits
    assert hits and {h.chunk.file for h in hits} == {"codes.csv"}


def test_excluded_documents_are_searched_as_if_not_indexed(docs, store, fake_embedder):
    # the self-calibration's design experiments search a pseudo-question without its own document
    index_paths([str(docs)], store, fake_embedder, IndexSettings())
    csv = {d.id for d in store.documents() if d.file == "codes.csv"}
    s = Searcher(store, fake_embedder)
    assert "codes.csv" in {h.chunk.file for h in s.search("交通費", top_k=10).hits}
    hits = s.search("交通費", top_k=10, exclude=frozenset(csv)).hits
    assert hits and "codes.csv" not in {h.chunk.file for h in hits}
    # with a filter too: what it matches, less the excluded
    assert s.search("交通費", top_k=10, flt=Filter(file="*.csv"), exclude=frozenset(csv)).hits == []


def test_bad_files_fail_alone(docs, store, fake_embedder):
    (docs / "empty.txt").write_bytes(b"")
    (docs / "broken.pdf").write_bytes(b"%PDF-1.7\nthis is not a pdf")
    (docs / "fake.docx").write_text("plain text, not a zip")
    (docs / "bad.csv").write_bytes(b"a,b\n\xff\xfe\xfa,\x81\n")
    report = index_paths([str(docs)], store, fake_embedder, IndexSettings())
    failed = {os.path.basename(p): msg for p, msg in report.failed}
    assert set(failed) == {"empty.txt", "broken.pdf", "fake.docx", "bad.csv"}
    assert all(os.path.basename(p) in msg for p, msg in report.failed)
    assert sorted(d.file for d in store.documents()) == ["codes.csv", "handbook.md", "rules.md"]


def test_cli_index_list_ask_remove(docs, tmp_path, capsys):
    idx = str(tmp_path / "cli-idx")
    (docs / "empty.txt").write_bytes(b"")
    assert main(["--index", idx, "--model", "fake", "index", str(docs)]) == 1  # one file failed
    out, err = capsys.readouterr()
    assert "indexed 3 file(s)" in out and "1 failed" in out and "empty.txt" in err
    assert main(["--index", idx, "--model", "fake", "list"]) == 0
    assert "rules.md" in capsys.readouterr().out
    assert main(["--index", idx, "--model", "fake", "ask", "--json", "年次有給休暇は何日？"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["sources"][0]["file"] == "rules.md" and "10日" in result["answer"]
    assert main(["--index", idx, "--model", "fake", "remove", "rules.md"]) == 0
    assert main(["--index", idx, "--model", "fake", "remove", "rules.md"]) == 2
    assert "not in the index" in capsys.readouterr().err


def test_cli_refuses_other_model(docs, tmp_path, capsys):
    idx = str(tmp_path / "m-idx")
    main(["--index", idx, "--model", "fake", "index", str(docs / "rules.md")])
    capsys.readouterr()
    assert main(["--index", idx, "--model", "e5-small", "ask", "x"]) == 2
    err = capsys.readouterr().err
    assert "built with fake@1/256, not e5-small" in err and f"kotae --index {idx} --model e5-small" in err
    assert main(["--index", idx, "--model", "e5-small", "reembed"]) == 0
    assert "re-embedded" in capsys.readouterr().out
    assert main(["--index", idx, "--model", "e5-small", "ask", "--json", "賃金の支払日"]) == 0
    assert json.loads(capsys.readouterr().out)["sources"][0]["file"] == "rules.md"
    assert main(["--index", idx, "--model", "fake", "ask", "x"]) == 2  # now the old model is refused


@pytest.mark.slow
def test_cli_without_model_opens_an_index_with_its_own_and_reembeds_with_the_default(docs, tmp_path, capsys,
                                                                                     monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    idx = str(tmp_path / "own-idx")
    main(["--index", idx, "--model", "fake", "index", str(docs / "rules.md")])
    assert main(["--index", idx, "index", str(docs / "codes.csv")]) == 0  # added with fake, the index's model
    assert main(["--index", idx, "ask", "--json", "賃金の支払日"]) == 0
    capsys.readouterr()
    assert main(["--index", idx, "reembed"]) == 0  # no --model: the default engine
    assert "re-embedded" in capsys.readouterr().out and "e5-small-onnx@" in open_store(idx).meta("model")
    assert main(["--index", idx, "ask", "--json", "賃金の支払日"]) == 0
    assert json.loads(capsys.readouterr().out)["sources"][0]["file"] == "rules.md"


def test_cli_chunks_sample(docs, capsys):
    assert main(["chunks", "--sample", "2", "--seed", "1", str(docs)]) == 0
    out = capsys.readouterr()
    assert out.out.count("── ") == 2 and "2 of" in out.err


def test_no_index_gives_a_clear_error(tmp_path, capsys):
    assert main(["--index", str(tmp_path / "none"), "ask", "x"]) == 2
    assert "no index at" in capsys.readouterr().err


def test_ask_stream_events_in_order(docs, store, fake_embedder):
    from kotae.answer import ask_stream

    index_paths([str(docs)], store, fake_embedder, IndexSettings())
    events = list(ask_stream("賃金はいつ支払われますか", Searcher(store, fake_embedder)))
    kinds = [k for k, _ in events]
    assert kinds[0] == "retrieval" and kinds[-1] == "answer" and set(kinds[1:-1]) == {"token"}
    final = events[-1][1]
    assert "".join(p for k, p in events if k == "token") == final.answer


def test_contextual_prefix_indexes_the_heading_path(docs, store, fake_embedder):
    from kotae.config import ChunkSettings

    settings = IndexSettings(chunk=ChunkSettings(contextual_prefix=True))
    index_paths([str(docs / "rules.md")], store, fake_embedder, settings)
    # "年次有給休暇" is in the third article's body too, but "就業規則" only in the document's title heading
    rows = store.keyword_search(["就業", "規則"], 10, None)
    assert len(rows) == store.documents()[0].chunks  # every chunk carries its heading path
    chunk = store.chunks([rows[0][0]])[rows[0][0]]
    assert not chunk.text.startswith("rules")  # the displayed text is unchanged


def test_cli_filters_type_and_tag(docs, tmp_path, capsys, monkeypatch):
    for var in ("KOTAE_SEARCH_GATE_MIN_MARGIN", "KOTAE_SEARCH_GATE_MIN_COVERAGE"):
        monkeypatch.setenv(var, "0")  # these filters are the subject, not the gate: explicit thresholds win
    idx = str(tmp_path / "f-idx")
    assert main(["--index", idx, "--model", "fake", "index", "--tag", "hr", str(docs / "rules.md")]) == 0
    assert main(["--index", idx, "--model", "fake", "index", str(docs / "codes.csv")]) == 0
    capsys.readouterr()
    assert main(["--index", idx, "--model", "fake", "ask", "--json", "--type", "csv", "交通費"]) == 0
    assert {s["file"] for s in json.loads(capsys.readouterr().out)["sources"]} == {"codes.csv"}
    assert main(["--index", idx, "--model", "fake", "ask", "--json", "--tag", "hr", "賃金の支払"]) == 0
    assert {s["file"] for s in json.loads(capsys.readouterr().out)["sources"]} == {"rules.md"}
    assert main(["--index", idx, "--model", "fake", "ask", "--json", "--tag", "hr", "--type", "csv", "交通費"]) == 0
    assert json.loads(capsys.readouterr().out)["sources"] == []  # nothing is both


def test_keyword_weight_follows_keyword_coverage(docs, store, fake_embedder):
    from kotae.search.searcher import SearchSettings

    index_paths([str(docs)], store, fake_embedder, IndexSettings())
    rrf = SearchSettings(fusion="rrf", keyword_weight_scale=2.0, coverage_power=1.0)
    plain = Searcher(store, fake_embedder, replace(rrf, adaptive_keyword_weight=False))
    adaptive = Searcher(store, fake_embedder, replace(rrf, adaptive_keyword_weight=True))
    half = Searcher(store, fake_embedder, replace(rrf, keyword_weight_scale=1.0))
    # Every question word is in the best keyword hit: the keyword side counts scale × as much as dense.
    q = "賃金 翌月 支払う"
    assert [h.fused for h in half.search(q).hits] == [h.fused for h in plain.search(q).hits]
    a, p = adaptive.search(q).hits[0], plain.search(q).hits[0]
    assert a.keyword_rank == 1 and a.fused > p.fused
    # Only one of three rare words matches anywhere: the keyword side counts for less.
    q = "賃金 ペンギン 火山"
    a, p = half.search(q).hits[0], plain.search(q).hits[0]
    assert a.chunk.id == p.chunk.id and a.keyword_rank == 1 and a.fused < p.fused


def test_extractive_sentences_drop_swallowed_title_lines():
    from kotae.answer.extractive import candidates

    got = candidates(["Meal allowance\nThe daily meal allowance on business trips is 3,000 yen.\n"])
    assert [c.text for c in got] == ["The daily meal allowance on business trips is 3,000 yen."]
    # A wrapped line inside a sentence is kept (it ends a long line, not a short title).
    long = "Employees who travel on company business for more than eight hours a day may claim\nthe allowance."
    assert candidates([long])[0].text == long.replace("\n", " ")
    wrapped = "賃金は、毎月末日に締め切り、翌月25日に\n支払う。"
    assert candidates([wrapped])[0].text == "賃金は、毎月末日に締め切り、翌月25日に支払う。"

"""Reports, compare and sweep: files written, settings hash, wins and losses, embeddings reused."""
import json

import pytest

from kotae.cli import main
from kotae.eval.compare import compare_markdown, compare_runs
from kotae.eval.golden import load_golden
from kotae.eval.memo import MemoEmbedder
from kotae.eval.report import canonical_json, settings_hash
from kotae.eval.sweep import SweepGrid, sweep, sweep_table

PNG = b"\x89PNG\r\n\x1a\n"
HANDBOOK = """# Handbook

## Remote work
Employees may work from home up to three days per week with their manager's approval. Remote days must be
recorded in the attendance system before nine in the morning. Equipment for home offices is provided on request.

## Expenses
Submit expense claims within 30 days of purchase through the finance portal.

## Travel
All business travel is booked through Navan. Economy class is the default for flights under six hours. Hotels
must be booked at the negotiated corporate rate whenever one is available. Taxi receipts are required for every
ride above 3000 yen.

## Security
Lock your screen whenever you leave your desk.
"""
GOLDEN = [
    {"id": "q1", "question": "How many days can I work from home?", "category": "paraphrase",
     "file": "handbook.md", "pages": [1], "must_contain": ["three days per week"]},
    {"id": "q2", "question": "Where are expense claims submitted?", "category": "lookup",
     "must_contain": ["finance portal"]},
    {"id": "q3", "question": "Which tool books business travel?", "category": "lookup", "must_contain": ["through Navan"]},
    {"id": "q4", "question": "What is the parking fee at the Osaka office?", "answerable": False},
]


@pytest.fixture
def golden_set(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "handbook.md").write_text(HANDBOOK, encoding="utf-8")
    golden = tmp_path / "golden.jsonl"
    golden.write_text("\n".join(json.dumps(g) for g in GOLDEN) + "\n", encoding="utf-8")
    return docs, golden


def test_settings_hash_is_canonical():
    a = {"mode": "hybrid", "top_k": 10, "golden": ["ゴールデン.jsonl"]}
    b = {"golden": ["ゴールデン.jsonl"], "top_k": 10, "mode": "hybrid"}
    assert canonical_json(a) == '{"golden":["ゴールデン.jsonl"],"mode":"hybrid","top_k":10}'
    assert settings_hash(a) == settings_hash(b) != settings_hash({**a, "top_k": 5})
    assert len(settings_hash(a)) == 40


def test_eval_run_writes_the_report(tmp_path, golden_set, capsys):
    docs, golden = golden_set
    out = tmp_path / "report"
    rc = main(["--index", str(tmp_path / "idx"), "--model", "fake", "eval", "run", str(golden), "--docs", str(docs),
               "--mode", "keyword", "--out-dir", str(out), "--out", str(tmp_path / "r.json")])
    assert rc == 0
    assert "| paraphrase | 1 |" in capsys.readouterr().out
    assert sorted(p.name for p in out.iterdir()) == ["categories.png", "report.md", "results.json"]
    assert (out / "categories.png").read_bytes()[:8] == PNG
    payload = json.loads((out / "results.json").read_text())
    assert payload == json.loads((tmp_path / "r.json").read_text())
    s = payload["settings"]
    assert (s["mode"], s["top_k"], s["rule"], s["golden"], s["model"]) == (
        "keyword", 10, "either", [str(golden)], "fake@1/256")
    assert payload["settings_hash"] == settings_hash(s)
    assert payload["index_version"].startswith("kotae-1:fake@1/256:")
    assert [q["id"] for q in payload["questions"]] == ["q1", "q2", "q3", "q4"]
    assert payload["summary"]["categories"]["lookup"]["n"] == 2
    md = (out / "report.md").read_text()
    assert f"- settings hash: `{payload['settings_hash']}`" in md and "![categories](categories.png)" in md


def _payload(rows, settings=None):
    return {"settings": settings or {"mode": "dense"}, "questions": rows,
            "summary": {"overall": {"n": len(rows), "mrr@10": sum(r.get("mrr@10", 0) for r in rows) / len(rows),
                                    "abstained": 0.5}}}


A = _payload([
    {"id": "1", "question": "a?", "category": "lookup", "answerable": True, "mrr@10": 1.0, "hit@3": 1.0},
    {"id": "2", "question": "b?", "category": "lookup", "answerable": True, "mrr@10": 0.0, "hit@3": 0.0},
    {"id": "3", "question": "c?", "category": "paraphrase", "answerable": True, "mrr@10": 0.5, "hit@3": 1.0},
    {"id": "4", "question": "d?", "category": "unanswerable", "answerable": False, "abstained": 0.0},
    {"id": "5", "question": "e?", "category": "lookup", "answerable": True, "mrr@10": 1.0},
])
B = _payload([
    {"id": "1", "question": "a?", "category": "lookup", "answerable": True, "mrr@10": 0.5, "hit@3": 1.0},
    {"id": "2", "question": "b?", "category": "lookup", "answerable": True, "mrr@10": 1.0, "hit@3": 1.0},
    {"id": "3", "question": "c?", "category": "paraphrase", "answerable": True, "mrr@10": 0.5, "hit@3": 1.0},
    {"id": "4", "question": "d?", "category": "unanswerable", "answerable": False, "abstained": 1.0},
    {"id": "6", "question": "f?", "category": "lookup", "answerable": True, "mrr@10": 1.0},
], {"mode": "hybrid"})


def test_compare_wins_and_losses():
    c = compare_runs(A, B)
    assert [r["id"] for r in c.wins] == ["2", "4"] and [r["id"] for r in c.losses] == ["1"]
    assert c.wins[1]["metric"] == "abstained" and c.ties == 1
    assert (c.only_a, c.only_b) == (["5"], ["6"])
    assert c.deltas["mrr@10"] == (0.5, 0.6, 0.1) and c.deltas["abstained"] == (0.5, 0.5, 0.0)
    assert c.settings_changed == {"mode": ("dense", "hybrid")}
    by_hit = compare_runs(A, B, metric="hit@3")
    assert [r["id"] for r in by_hit.wins] == ["2", "4"] and by_hit.losses == [] and by_hit.ties == 2
    md = compare_markdown(c, "a.json", "b.json")
    assert "**2 better, 1 worse, 1 unchanged**, 1 only in a.json, 1 only in b.json" in md
    assert "| mrr@10 | 0.500 | 0.600 | +0.100 |" in md
    assert "| 1 | lookup | a? | mrr@10 | 1.000 | 0.500 |" in md.split("## Worse in b.json (1)")[1]


def test_compare_cli(tmp_path, capsys):
    (tmp_path / "a.json").write_text(json.dumps(A))
    (tmp_path / "b.json").write_text(json.dumps(B))
    assert main(["eval", "compare", str(tmp_path / "a.json"), str(tmp_path / "b.json")]) == 0
    assert "# b.json against a.json" in capsys.readouterr().out
    (tmp_path / "c.json").write_text("{}")
    assert main(["eval", "compare", str(tmp_path / "a.json"), str(tmp_path / "c.json")]) == 2
    assert capsys.readouterr().err.strip() == (
        f"kotae: {tmp_path / 'c.json'}: no per-question rows; write one with kotae eval run --out")


def test_sweep_reuses_embeddings(golden_set, fake_embedder):
    docs, golden = golden_set
    items = load_golden(str(golden))
    result = sweep(items, str(docs), fake_embedder, SweepGrid((48, 96), (0,), ("dense", "keyword"), (3,)))
    assert [(r["max_tokens"], r["mode"]) for r in result.rows] == [
        (48, "dense"), (48, "keyword"), (96, "dense"), (96, "keyword")]
    chunks = {r["max_tokens"]: r["chunks"] for r in result.rows}
    assert chunks[48] > chunks[96] > 1
    assert result.requested == chunks[48] + chunks[96]
    assert fake_embedder.embedded == result.embedded < chunks[48] + chunks[96]
    assert all(r["top_k"] is None for r in result.rows)
    assert result.rows[1]["summary"]["overall"]["hit@3"] == 1.0
    table = sweep_table(result)
    assert table.count("\n") == 1 + 4 and "| 48 | 0 | keyword | – |" in table


def test_sweep_with_answers_adds_top_k_and_skips_bad_overlap(golden_set, fake_embedder):
    docs, golden = golden_set
    result = sweep(load_golden(str(golden)), str(docs), fake_embedder, SweepGrid((48,), (0, 48), ("hybrid",), (3, 5)),
                   retrieval_only=False)
    assert [(r["overlap"], r["top_k"]) for r in result.rows] == [(0, 3), (0, 5)]
    assert result.skipped == ["max_tokens=48 overlap=48: overlap must be below the chunk size"]
    assert "abstained" in result.rows[0]["summary"]["overall"]
    assert "correct" in sweep_table(result)


def test_sweep_cli_writes_table_json_and_chart(tmp_path, golden_set, capsys):
    docs, golden = golden_set
    out = tmp_path / "sweep"
    rc = main(["--model", "fake", "eval", "sweep", str(golden), "--docs", str(docs), "--max-tokens", "48,96",
               "--overlap", "0", "--modes", "dense,keyword", "--out-dir", str(out)])
    assert rc == 0
    assert capsys.readouterr().out.count("| 96 | 0 |") == 2
    assert sorted(p.name for p in out.iterdir()) == ["sweep.json", "sweep.md", "sweep.png"]
    assert (out / "sweep.png").read_bytes()[:8] == PNG
    assert len(json.loads((out / "sweep.json").read_text())["rows"]) == 4


def test_sweep_cli_rejects_unknown_mode(tmp_path, golden_set, capsys):
    docs, golden = golden_set
    with pytest.raises(SystemExit):
        main(["eval", "sweep", str(golden), "--docs", str(docs), "--modes", "dense,fuzzy"])
    assert "argument --modes: unknown search mode 'fuzzy'; choose one of dense, keyword, hybrid" in (
        capsys.readouterr().err)


def test_memo_embedder_embeds_each_text_once(fake_embedder):
    memo = MemoEmbedder(fake_embedder)
    first = memo.passages(["a b", "c d", "a b"])
    again = memo.passages(["c d", "e f"])
    assert fake_embedder.embedded == 3 and (memo.requested, memo.embedded) == (5, 3)
    assert (first[1] == again[0]).all() and memo.model_id == fake_embedder.model_id
    memo.query("q")
    memo.query("q")
    assert sum(n for kind, n in fake_embedder.calls if kind == "query") == 1

"""BEIR layout and graded metrics: hand-computed nDCG, both qrels layouts, the corpus adapter, the CLI."""
import json
import math

import pytest

from kotae import Kotae
from kotae.cli import main
from kotae.errors import KotaeError
from kotae.eval.beir import load_beir, parse_qrels
from kotae.eval.beir_eval import default_index, evaluate_beir
from kotae.eval.metrics import graded_metrics, mrr_graded, ndcg_graded, recall_graded
from kotae.store import open_store

QRELS = {"d1": 2, "d2": 1, "d4": 1, "d9": 0}


def test_graded_ndcg_hand_computed():
    # DCG = 2/log2(3) + 1/log2(4); ideal gains 2, 1, 1 → 2/1 + 1/log2(3) + 1/log2(4)
    got = ndcg_graded(["d3", "d1", "d2", "d9"], QRELS, 10)
    assert got == pytest.approx((2 / math.log2(3) + 0.5) / (2 + 1 / math.log2(3) + 0.5))
    assert got == pytest.approx(1.7618595 / 3.1309298, abs=1e-6)  # 0.562727
    assert ndcg_graded(["d1", "d2", "d4"], QRELS, 10) == pytest.approx(1.0)
    # the cut: at k=1 only d3 counts (gain 0), the ideal is the grade-2 document alone
    assert ndcg_graded(["d3", "d1"], QRELS, 1) == 0.0
    assert ndcg_graded(["d2"], QRELS, 1) == pytest.approx(1 / 2)


def test_grade_zero_is_not_relevant_and_empty_cases():
    assert mrr_graded(["d9", "d4"], QRELS) == 0.5
    assert recall_graded(["d9"], QRELS, 1) == 0.0
    assert ndcg_graded([], QRELS) == 0.0
    assert ndcg_graded(["d1"], {"d1": 0}) == 0.0 and recall_graded(["d1"], {}, 5) == 0.0


def test_mrr_and_recall_cuts():
    ranked = [f"x{i}" for i in range(10)] + ["d1"]
    assert mrr_graded(ranked, QRELS, 10) == 0.0 and mrr_graded(ranked, QRELS, 11) == pytest.approx(1 / 11)
    m = graded_metrics(["d3", "d1", "x", "y", "d4", "d2"], QRELS)
    assert m["mrr@10"] == 0.5
    assert (m["recall@1"], m["recall@5"], m["recall@10"], m["recall@100"]) == pytest.approx((0, 2 / 3, 1, 1))


def test_qrels_header_and_bad_line():
    assert parse_qrels(["query-id\tcorpus-id\tscore\n", "q1\td1\t2\n", "\n", "q1\td2\t0\n"]) == {
        "q1": {"d1": 2, "d2": 0}}
    assert parse_qrels(["q1\td1\t1\n"]) == {"q1": {"d1": 1}}  # no header
    with pytest.raises(KotaeError, match=r"^x.tsv line 2: expected query-id<TAB>corpus-id<TAB>score$"):
        parse_qrels(["query-id\tcorpus-id\tscore\n", "q1 d1 1\n"], "x.tsv")


CORPUS = [
    {"_id": "c1", "title": "Volcanoes", "text": "Magma rises through the crust and erupts as lava."},
    {"_id": "c2", "title": "Glaciers", "text": "Ice sheets carve valleys as they slowly move downhill."},
    {"_id": "c3", "title": "", "text": "Coral reefs grow in warm shallow tropical seas."},
    {"_id": "c4", "title": "Deserts", "text": "Dunes form where wind carries sand across dry plains."},
]
QUERIES = [
    {"_id": "q1", "text": "how does magma erupt as lava"},
    {"_id": "q2", "text": "unjudged question about clouds"},
    {"_id": "q3", "text": "where do coral reefs grow"},
    {"_id": "q4", "text": "wind moving sand dunes"},
]


def make_beir(root, layout="folder", split="test", queries_name="queries.jsonl"):
    root.mkdir(parents=True, exist_ok=True)
    (root / "corpus.jsonl").write_text("\n".join(json.dumps(d) for d in CORPUS) + "\n", encoding="utf-8")
    (root / queries_name).write_text("\n".join(json.dumps(q) for q in QUERIES) + "\n", encoding="utf-8")
    qrels = "query-id\tcorpus-id\tscore\nq4\tc4\t1\nq1\tc1\t2\nq1\tc2\t0\nq3\tc3\t1\nq2\tc2\t0\n"
    if layout == "folder":
        (root / "qrels").mkdir(exist_ok=True)
        (root / "qrels" / f"{split}.tsv").write_text(qrels, encoding="utf-8")
    else:
        (root / f"qrels-{split}.tsv").write_text(qrels, encoding="utf-8")
    return root


def test_load_both_layouts(tmp_path):
    a = load_beir(str(make_beir(tmp_path / "geo")))
    b = load_beir(str(make_beir(tmp_path / "geo2", "flat", "train", "queries-train.jsonl")))
    assert (a.name, a.split, b.name, b.split) == ("geo", "test", "geo2", "train")
    # q2 has only a grade-0 judgement: not evaluated; file order is kept
    assert [q for q, _ in a.queries] == [q for q, _ in b.queries] == ["q1", "q3", "q4"]
    assert a.qrels["q1"] == {"c1": 2, "c2": 0}
    assert [d.passage for d in a.corpus[2:4]] == ["Coral reefs grow in warm shallow tropical seas.",
                                                 "Deserts\nDunes form where wind carries sand across dry plains."]
    assert [q for q, _ in load_beir(str(tmp_path / "geo"), limit_queries=2).queries] == ["q1", "q3"]


def test_split_choice_errors(tmp_path):
    root = make_beir(tmp_path / "two")
    make_beir(root, "flat", "train")
    with pytest.raises(KotaeError, match=r"two has qrels for splits test, train; pick one with --split$"):
        load_beir(str(root))
    assert load_beir(str(root), "train").split == "train"
    with pytest.raises(KotaeError, match=r"two has no qrels for split 'dev'; found: test, train$"):
        load_beir(str(root), "dev")
    (tmp_path / "empty").mkdir()
    with pytest.raises(KotaeError, match=r"empty: no qrels found \(expected qrels/<split>.tsv or qrels-<split>.tsv\)"):
        load_beir(str(tmp_path / "empty"))


def test_evaluate_indexes_once_and_ranks_by_corpus_id(tmp_path, fake_embedder):
    data = load_beir(str(make_beir(tmp_path / "geo")))
    store = open_store(str(tmp_path / "idx"))
    k = Kotae(store, fake_embedder)
    run = evaluate_beir(data, k, ["keyword", "dense"])
    assert fake_embedder.embedded == 4 and run.index["embedded"] == 4
    assert run.modes["keyword"]["mrr@10"] == 1.0 and run.modes["keyword"]["recall@1"] == 1.0
    assert [r["top"][0] for r in run.per_query["keyword"]] == ["c1", "c3", "c4"]
    assert set(run.modes["dense"]) == {"ndcg@10", "mrr@10", "recall@1", "recall@5", "recall@10", "recall@100"}
    again = evaluate_beir(data, k, ["keyword"])
    assert fake_embedder.embedded == 4 and again.index["batches_written"] == 0
    assert again.modes["keyword"] == run.modes["keyword"]
    store.close()


def test_refuses_an_index_of_other_documents(tmp_path, fake_embedder):
    a = load_beir(str(make_beir(tmp_path / "geo")))
    b = load_beir(str(make_beir(tmp_path / "other")))
    store = open_store(str(tmp_path / "idx"))
    k = Kotae(store, fake_embedder)
    evaluate_beir(a, k, ["keyword"])
    with pytest.raises(KotaeError, match=r"idx holds geo, not the collection other; pass another --index$"):
        evaluate_beir(b, k, ["keyword"])
    store.close()


def test_cli_beir(tmp_path, capsys):
    root = make_beir(tmp_path / "geo")
    out = tmp_path / "r.json"
    rc = main(["--model", "fake", "eval", "beir", str(root), "--index", str(tmp_path / "idx"),
               "--mode", "keyword", "--mode", "hybrid", "--limit-queries", "2", "--out", str(out), "--per-query"])
    assert rc == 0
    table = capsys.readouterr().out
    assert "| geo | test | keyword | 2 | 1.000 | 1.000 |" in table
    payload = json.loads(out.read_text())
    assert payload["settings"]["modes"] == ["keyword", "hybrid"] and payload["settings"]["queries"] == 2
    assert [r["id"] for r in payload["queries"]["hybrid"]] == ["q1", "q3"]
    assert payload["index"]["version"].startswith("kotae-1:fake@1/256:")


def test_cli_beir_errors(tmp_path, capsys):
    assert main(["--model", "fake", "eval", "beir", str(tmp_path / "nope")]) == 2
    assert capsys.readouterr().err.strip() == f"kotae: {tmp_path / 'nope'}: no such folder"


def test_default_index_is_per_data_set_and_model():
    assert default_index("scifact", "st:intfloat/e5-base") == ".kotae-beir/scifact/st_intfloat_e5-base"


def test_cli_beir_honours_the_global_index_option(tmp_path, capsys):
    root = make_beir(tmp_path / "geo")
    assert main(["--index", str(tmp_path / "idx"), "--model", "fake", "eval", "beir", str(root), "--mode", "dense"]) == 0
    assert (tmp_path / "idx" / "index.sqlite3").is_file()
    assert "| geo | test | dense | 3 |" in capsys.readouterr().out


def test_duplicate_corpus_ids_keep_the_first(tmp_path):
    root = make_beir(tmp_path / "geo")
    with open(root / "corpus.jsonl", "a", encoding="utf-8") as f:
        f.write(json.dumps({"_id": "c1", "title": "Again", "text": "A second c1."}) + "\n")
    data = load_beir(str(root))
    assert [d.id for d in data.corpus] == ["c1", "c2", "c3", "c4"] and data.corpus[0].title == "Volcanoes"
    assert data.warnings == ["1 duplicate corpus id(s) in corpus.jsonl; kept the first of each"]

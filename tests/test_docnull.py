"""The gate's similarity over each document's null level: a document off-topic questions come near (a FAQ)
needs more similarity to count as evidence than one they never come near."""
from __future__ import annotations

import numpy as np
import pytest

from conftest import FakeEmbedder, new_pg_index
from kotae import Kotae
from kotae.config import Settings
from kotae.search import autocal, docnull
from kotae.search.searcher import Searcher
from kotae.store import open_store


def _unit(m: np.ndarray) -> np.ndarray:
    return (m / np.linalg.norm(m, axis=1, keepdims=True)).astype(np.float32)


def test_a_documents_level_is_the_mean_best_similarity_of_the_null_questions(monkeypatch):
    monkeypatch.setattr(docnull, "BLOCK", 3)  # documents whose chunks straddle blocks
    rng = np.random.default_rng(7)
    null, vectors = _unit(rng.normal(size=(5, 8))), _unit(rng.normal(size=(11, 8)))
    codes = np.array([2, 0, 1, 2, 0, 0, 2, 1, 2, 0, 2])
    got = docnull.document_levels(null, vectors, codes, 4)
    sims = null @ vectors.T
    want = [sims[:, codes == d].max(axis=1).mean() for d in range(3)]
    assert np.allclose(got[:3], want) and np.isnan(got[3])  # document 3 has no chunk


def test_levels_round_trip_and_the_evidence_takes_half_of_them_off():
    null = {"en": _unit(np.array([[1.0, 0.0], [0.8, 0.6]])), "ja": _unit(np.array([[0.0, 1.0]]))}
    vectors = _unit(np.array([[1.0, 0.0], [0.0, 1.0], [0.6, 0.8]]))
    kept = docnull.DocNull.measure("m", null, vectors, ["faq", "leaflet", "leaflet"])
    assert kept.levels["en"]["faq"] == pytest.approx((1.0 + 0.8) / 2, abs=1e-5)
    assert kept.levels["en"]["leaflet"] == pytest.approx((0.6 + 0.96) / 2, abs=1e-5)
    again = docnull.DocNull.from_json(kept.to_json())
    assert again == kept
    assert again.level("en", "added later") == again.default["en"]  # indexed after the levels were measured
    assert again.level("fr", "faq") is None
    # the same similarity counts for more in the document off-topic questions do not come near
    lifted = docnull.lifted([("faq", 0.85), ("leaflet", 0.80)], again, "en")
    assert lifted == pytest.approx(max(0.85 - 0.5 * 0.9, 0.80 - 0.5 * 0.78), abs=1e-5)
    assert docnull.lifted([("faq", 0.85)], again, "en", alpha=0.0) == 0.85  # no levels taken off: the similarity
    assert docnull.lifted([], again, "en") is None


@pytest.fixture(params=["sqlite", "postgres"])
def location(request, tmp_path) -> str:
    if request.param == "sqlite":
        return str(tmp_path / "idx")
    return new_pg_index(request.getfixturevalue("pg_server"), exact=True)


def test_the_self_calibration_measures_the_levels_and_the_gate_weighs_them(location, tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    # the bundled English negatives ask about offices, time off and policies: the guide is near them
    (docs / "guide.txt").write_text("Office policy: how much time off, leave and holidays employees get each "
                                    "year, and how to book a desk.\n", encoding="utf-8")
    (docs / "kiln.txt").write_text("The kiln fires stoneware at 1,280 degrees; glaze recipes use feldspar and "
                                   "silica.\n", encoding="utf-8")
    with Kotae(open_store(location), FakeEmbedder(), Settings()) as k:
        k.index([str(docs)])  # self-calibrates, as `kotae index` does
        null = k.searcher._doc_null()
        assert null is not None and null.model == k.embedder.model_id
        ids = {d.file.rsplit("/", 1)[-1]: d.id for d in k.documents()}
        assert null.levels["en"][ids["guide.txt"]] > null.levels["en"][ids["kiln.txt"]]
        result = k.search("At what temperature does the kiln fire stoneware?")
        gate = result.gate
        top = result.hits[0]
        assert top.chunk.doc_id == ids["kiln.txt"]
        assert gate.lifted is not None
        assert gate.lifted >= gate.similarity - docnull.ALPHA * null.levels["en"][ids["kiln.txt"]] - 1e-6
        # the threshold was fitted on the same evidence: the negatives' lifted similarities
        assert k.searcher.gate_settings().min_similarity_en < gate.similarity
        assert k.calibration().design == autocal.DESIGN


def test_a_block_of_figures_is_no_similarity_evidence(tmp_path, monkeypatch):
    """A chunk of bare measurements sits near any question in e5's space: the gate's similarity evidence leaves it
    out (a question about it passes on its keywords or the margin instead)."""
    from kotae.search import searcher as searcher_module
    from kotae.search.lowinfo import figure_share

    assert figure_share("0.2716 | 6Prot IL1RAP: -0.0221 | 6Prot IL22RA1: 0.1243") >= 0.3
    assert figure_share("The deposit is JPY 5,000 per item.") < 0.3
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "measurements.csv").write_text("sample,a,b,c\n" + "".join(
        f"{i},{i * 0.137:.4f},{i * -0.221:.4f},{i * 0.093:.4f}\n" for i in range(1, 40)), encoding="utf-8")
    with Kotae(open_store(str(tmp_path / "idx")), FakeEmbedder(), Settings()) as k:
        k.index([str(docs)])
        question = "Does vitamin B12 deficiency raise blood homocysteine?"
        assert k.search(question).gate.lifted == searcher_module.NO_EVIDENCE  # every candidate is figures
        monkeypatch.setattr(searcher_module, "GATE_FIGURE_SHARE", None)
        assert k.search(question).gate.lifted != searcher_module.NO_EVIDENCE


def test_an_index_without_levels_weighs_the_top_similarity(tmp_path):
    with Kotae(open_store(str(tmp_path / "idx")), FakeEmbedder(), Settings()) as k:
        (tmp_path / "a.txt").write_text("Desk booking opens at nine.\n", encoding="utf-8")
        k.index([str(tmp_path / "a.txt")])
        k.store.set_meta(docnull.STAMP, "")  # as an index calibrated before kotae measured levels
        gate = k.search("When does desk booking open?").gate
        assert gate.lifted is None
        k.store.set_meta(docnull.META, '{"model": "fake@1/256", "levels": {"en": ')  # damaged
        k.store.set_meta(docnull.STAMP, "damaged")
        assert k.search("When does desk booking open?").gate.lifted is None


def test_a_corpus_over_the_limit_keeps_one_threshold(tmp_path, monkeypatch):
    monkeypatch.setattr(docnull, "MAX_CHUNKS", 0)  # every chunk vector would have to be in memory at once
    with Kotae(open_store(str(tmp_path / "idx")), FakeEmbedder(), Settings()) as k:
        (tmp_path / "a.txt").write_text("Desk booking opens at nine.\n", encoding="utf-8")
        k.index([str(tmp_path / "a.txt")])
        assert k.store.meta(docnull.META) == "" and k.searcher._doc_null() is None
        assert k.search("When does desk booking open?").gate.lifted is None


def test_thresholds_set_in_the_settings_weigh_the_top_similarity(tmp_path):
    from kotae.config import GateSettings, SearchSettings
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.txt").write_text("Desk booking opens at nine.\n", encoding="utf-8")
    (docs / "b.txt").write_text("The kiln fires stoneware at 1,280 degrees.\n", encoding="utf-8")
    with Kotae(open_store(str(tmp_path / "idx")), FakeEmbedder(), Settings()) as k:
        k.index([str(docs)])
        assert k.search("When does desk booking open?").gate.lifted is not None
        mine = GateSettings(min_margin=2.0, min_coverage=2.0, min_similarity_ja=0.5, min_similarity_en=0.5)
        fixed = Searcher(k.store, k.embedder, SearchSettings(gate=mine), fixed_gate=True)  # your numbers
        gate = fixed.search("When does desk booking open?").gate
        assert gate.lifted is None and "top similarity" in gate.reason


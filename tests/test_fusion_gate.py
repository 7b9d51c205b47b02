import numpy as np
import pytest

from kotae.search.dense import DenseIndex
from kotae.search.fusion import rrf
from kotae.search.gate import GateSettings, absent_share, absent_terms, calibrate, coverage, decide, evaluate
from kotae.store.base import DenseMatrix


def test_rrf_hand_computed():
    fused = dict(rrf({"dense": [1, 2, 3], "keyword": [3, 1]}, k=60))
    assert fused[1] == pytest.approx(1 / 61 + 1 / 62)
    assert fused[3] == pytest.approx(1 / 63 + 1 / 61)
    assert fused[2] == pytest.approx(1 / 62)


def test_rrf_order_weights_and_ties():
    assert [i for i, _ in rrf({"a": [1, 2], "b": [2, 1]})] == [1, 2]  # tie: both best-ranked once → smaller id
    assert [i for i, _ in rrf({"a": [1, 2], "b": [2, 1]}, weights={"a": 1.0, "b": 2.0})] == [2, 1]
    assert rrf({"a": [], "b": []}) == []


def test_dense_exact_top_k_and_filter():
    vecs = np.eye(4, dtype=np.float32)
    idx = DenseIndex(DenseMatrix(np.array([10, 11, 12, 13]), vecs, np.array(["a", "a", "b", "b"], dtype=object)))
    q = np.array([0.1, 0.2, 0.9, 0.3], dtype=np.float32)
    assert [r for r, _ in idx.search(q, 2)] == [12, 13]
    assert [r for r, _ in idx.search(q, 2, {"a"})] == [11, 10]
    assert idx.search(q, 5, {"zzz"}) == []


def test_dense_empty():
    idx = DenseIndex(DenseMatrix(np.zeros(0, np.int64), np.zeros((0, 0), np.float32), np.zeros(0, object)))
    assert idx.search(np.ones(3, np.float32), 5) == []


def test_coverage_weights_rare_words_more():
    df = {"賃金": 1, "日": 50}
    full = coverage(["賃金", "日"], [["賃金", "日"]], df, 100)
    rare_only = coverage(["賃金", "日"], [["賃金"]], df, 100)
    common_only = coverage(["賃金", "日"], [["日"]], df, 100)
    assert full == pytest.approx(1.0)
    assert rare_only > 0.5 > common_only > 0
    assert coverage([], [["x"]], {}, 1) == 0.0


def test_gate_decides_on_either_signal():
    s = GateSettings(min_margin=0.04, min_coverage=0.6)
    assert decide(0.9, 0.05, 0.0, s).found
    assert decide(0.5, 0.01, 0.7, s).found
    no = decide(0.8, 0.03, 0.2, s)
    assert not no.found and "margin 0.030 < 0.04" in no.reason


def test_dense_evidence_alone_does_not_answer_a_question_naming_several_things_no_document_holds(monkeypatch):
    from kotae.search import gate
    monkeypatch.setattr(gate, "SIMILARITY_ABSENT_WORDS", 4)
    s = GateSettings(min_margin=0.06, min_coverage=0.4, max_absent=0.8, min_similarity_ja=0.44)
    # similarity is the only evidence: three absent words (users' own words) still answer, four do not
    assert decide(0.85, 0.04, 0.1, s, absent=3 / 7, content=7, lifted=0.45).found
    no = decide(0.85, 0.04, 0.1, s, absent=0.4, content=10, lifted=0.45)
    assert not no.found and "(4) of the question's content words in no document" in no.reason
    # an English question counts fewer: one thing named in Japanese is often several tokens
    monkeypatch.setattr(gate, "SIMILARITY_ABSENT_WORDS_EN", 3)
    en = GateSettings(min_margin=0.06, min_coverage=0.4, max_absent=0.8, min_similarity_en=0.43)
    assert not decide(0.85, 0.04, 0.1, en, absent=0.5, content=6, lifted=0.45, lang="en").found
    assert decide(0.85, 0.04, 0.1, en, absent=0.4, content=5, lifted=0.45, lang="en").found
    # the margin alone neither (MARGIN_ABSENT_WORDS); keyword coverage is evidence of its own, and a corpus barely in
    # the question's language has no absent words
    monkeypatch.setattr(gate, "MARGIN_ABSENT_WORDS", 4)
    assert decide(0.85, 0.07, 0.1, s, absent=0.3, content=10, lifted=0.45).found
    no = decide(0.85, 0.07, 0.1, s, absent=0.4, content=10, lifted=0.30)
    assert not no.found and "with only dense evidence (similarity margin 0.070" in no.reason
    assert decide(0.85, 0.07, 0.5, s, absent=0.4, content=10, lifted=0.45).found
    assert decide(0.85, 0.04, 0.5, s, absent=0.4, content=10, lifted=0.45).found
    assert decide(0.85, 0.04, 0.1, s, absent=0.4, content=10, lifted=0.45, lang_share=0.1).found
    monkeypatch.setattr(gate, "SIMILARITY_ABSENT_WORDS", None)
    monkeypatch.setattr(gate, "MARGIN_ABSENT_WORDS", None)
    assert decide(0.85, 0.04, 0.1, s, absent=0.45, content=20, lifted=0.45).found
    assert decide(0.85, 0.07, 0.1, s, absent=0.45, content=20, lifted=0.45).found


def test_honorifics_and_hedges_are_no_absent_words():
    # お客さんの…漏れたかもしれない: 御 and さん dress 客, 知れる is the hedge; only 漏れる is missing
    share, content = absent_share(["御", "客", "さん", "漏れる", "知れる", "知る"], {"客": 3})
    assert (share, content) == (0.5, 2)
    words = [("お", ["御"]), ("客", ["客"]), ("さん", ["さん"]), ("の", []), ("漏れ", ["漏れる"]), ("た", []),
             ("かもしれ", ["知れる"]), ("ない", [])]
    assert absent_terms(words, {}) == ["漏れ", "客"]  # named without its honorifics, the hedge not at all


def test_calibrate_keeps_false_refusals_under_the_limit():
    samples = [(True, 0.06, 0.1), (True, 0.05, 0.9), (True, 0.02, 0.8), (True, 0.045, 0.0),
               (False, 0.03, 0.2), (False, 0.01, 0.5), (False, 0.05, 0.0)]
    s, st = calibrate(samples, max_false_refusal=0.0)
    assert st.false_refusals == 0 and st.abstained == 2  # the third unanswerable looks answerable
    assert evaluate(samples, s) == st
    assert st.precision == 1.0 and st.recall == pytest.approx(2 / 3)
    _loose, st2 = calibrate(samples, max_false_refusal=0.25)
    assert st2.abstained == 3 and st2.false_refusals == 1


def _arms(dense, keyword, coverage=0.5):
    from kotae.search.fusion import Arms

    return Arms(dense, keyword, coverage, 0.05)


def test_fuse_modes_and_rrf_weights_from_coverage():
    from kotae.config import SearchSettings
    from kotae.search.fusion import fuse

    a = _arms([(1, 0.9), (2, 0.8)], [(2, 7.0), (3, 5.0)], coverage=0.25)
    s = SearchSettings(fusion="rrf", keyword_weight_scale=2.0, coverage_power=1.0)
    assert fuse(a, s, "dense") == [(1, 0.9), (2, 0.8)]
    assert fuse(a, s, "keyword") == [(2, 7.0), (3, 5.0)]
    got = dict(fuse(a, s))  # keyword weight 1 × 2 × coverage 0.25 = 0.5
    assert got[2] == pytest.approx(1 / 62 + 0.5 / 61)
    assert got[3] == pytest.approx(0.5 / 62)


def test_fuse_by_normalised_scores():
    from kotae.config import SearchSettings
    from kotae.search.fusion import fuse, normalised

    assert normalised([(1, 0.9), (2, 0.8), (3, 0.5)]) == pytest.approx({1: 1.0, 2: 0.75, 3: 0.0})
    assert normalised([(4, 2.0)]) == {4: 1.0}
    a = _arms([(1, 0.9), (2, 0.8), (3, 0.5)], [(3, 9.0), (2, 6.0), (4, 3.0)], coverage=1.0)
    s = SearchSettings(fusion="scores", keyword_weight=0.2, keyword_weight_scale=2.0)  # 0.2 × 2 × 1.0³
    got = fuse(a, s)
    assert dict(got) == pytest.approx({1: 1.0, 2: 0.75 + 0.4 * 0.5, 3: 0.4, 4: 0.0})
    assert [i for i, _ in got] == [1, 2, 3, 4]


def test_agreement_scales_the_keyword_weight():
    from dataclasses import replace

    from kotae.config import SearchSettings
    from kotae.search.fusion import agreement, weights

    a = _arms([(1, 0.9), (2, 0.8)], [(2, 7.0), (3, 5.0)], coverage=0.5)
    assert agreement(a.dense, a.keyword) == 0.5
    rrf = replace(SearchSettings(), fusion="rrf", keyword_weight_scale=2.0, coverage_power=1.0)
    assert weights(a, replace(rrf, fusion="agreement")) == pytest.approx((1.0, 1.0 * 2 * 0.5 * 1.0))
    assert weights(a, rrf) == pytest.approx((1.0, 1.0))
    assert weights(a, SearchSettings()) == pytest.approx((1.0, 3 * 0.5**3))  # the default: 3 × coverage³

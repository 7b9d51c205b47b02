"""Metrics against hand-computed values: ties, duplicate pages, empty results, phrase rules."""
import math

import pytest

from kotae.errors import KotaeError
from kotae.eval.golden import parse_golden
from kotae.eval.metrics import (
    Evidence,
    Retrieved,
    all_found,
    cell_values,
    holds,
    judge,
    ndcg_at,
    retrieval_metrics,
)
from kotae.eval.runner import summarise

EV = Evidence("rules.pdf", (3,), ("翌月25日",))


def R(file, page, text=""):
    return Retrieved(file, page, text)


def test_rank_two_hit():
    m = retrieval_metrics([R("faq.md", 1), R("rules.pdf", 3)], EV, "page")
    assert (m["hit@1"], m["hit@3"], m["mrr@10"]) == (0.0, 1.0, 0.5)
    assert m["ndcg@10"] == pytest.approx(1 / math.log2(3))


def test_duplicates_of_one_page_count_once():
    units = judge([R("rules.pdf", 3), R("rules.pdf", 3), R("rules.pdf", 3)], EV, "page")
    assert ndcg_at(units, EV, "page") == pytest.approx(1.0)


def test_empty_results():
    m = retrieval_metrics([], EV, "either")
    assert all(v == 0.0 for v in m.values())


def test_phrase_rule_is_width_and_space_insensitive():
    r = R("other.pdf", 9, "賃金は 翌月２５日 に支払う")
    assert retrieval_metrics([r], EV, "phrase")["hit@1"] == 1.0
    assert retrieval_metrics([r], EV, "page")["hit@1"] == 0.0
    assert retrieval_metrics([r], EV, "either")["hit@1"] == 1.0


def test_a_phrase_copied_from_a_printed_table_matches_the_rendered_row():
    row = "Polarization resistance (Ω): 24.0910 | Corrosion rate (mm/year): 2.8163"
    assert cell_values(row) == "24.0910 | 2.8163"
    assert holds(row, "24.0910 2.8163") and holds(row, "Corrosion rate (mm/year): 2.8163")
    assert holds("スコア: 0.886 | 単語: 村山富市委員長 | 種類: PERSON | 頻度: 54", "0.886 村山富市委員長 PERSON 54")
    assert not holds(row, "2.8163 24.0910") and not holds(row, "")
    assert cell_values("Note: prose is left alone") == "Note: prose is left alone"  # no row in it
    assert judge([Retrieved("t.pdf", 9, row)], Evidence("x.pdf", (1,), ("24.0910 2.8163",)), "phrase") == ["phrase"]


def test_multi_page_all_evidence_and_ties():
    ev = Evidence("rules.pdf", (2, 5))
    found = [R("rules.pdf", 5), R("x", 1), R("rules.pdf", 2)]
    m = retrieval_metrics(found, ev, "page")
    assert m["all_evidence@10"] == 1.0
    assert m["ndcg@10"] == pytest.approx((1 + 1 / 2) / (1 + 1 / math.log2(3)))
    assert all_found(judge(found[:2], ev, "page"), ev) == 0.0


def test_unknown_rule():
    with pytest.raises(ValueError, match="unknown hit rule 'x'"):
        judge([], EV, "x")


def test_golden_parsing_and_errors():
    items = parse_golden(['{"question": "q", "file": "a.pdf", "pages": [2], "category": "lookup"}',
                          '{"question": "u", "answerable": false}', ""])
    assert items[0].evidence.pages == (2,) and items[1].category == "unanswerable"
    with pytest.raises(KotaeError, match="line 1: an answerable item needs file \\+ pages or must_contain"):
        parse_golden(['{"question": "q"}'])


def test_summary_per_category():
    rows = [{"category": "a", "hit@1": 1.0}, {"category": "a", "hit@1": 0.0}, {"category": "b", "abstained": 1.0}]
    s = summarise(rows)
    assert s["overall"]["hit@1"] == 0.5 and s["categories"]["b"]["abstained"] == 1.0
    assert s["categories"]["a"]["n"] == 2

"""Citation parsing and verification, the prompt and the context budget: pure functions, plain data."""
from __future__ import annotations

import numpy as np
import pytest

from kotae.answer import budget, citations, prompt
from kotae.answer.citations import Sentence, find_markers, parse, split, strip_markers, verify
from kotae.search.analyze import analyze


# --- parsing ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("text, numbers", [
    ("Paid on the 25th [1].", [1]),
    ("翌月25日に支払う【2】。", [2]),
    ("翌月25日に支払う［３］。", [3]),
    ("翌月25日に支払う【１２】。", [12]),
    ("Both say so [1, 2].", [1, 2]),
    ("両方に記載があります[1、２]。", [1, 2]),
    ("Both say so [1][2].", [1, 2]),
    ("Both say so [1] [3].", [1, 3]),
    ("A range [2-4].", [2, 3, 4]),
    ("A range 【1〜3】.", [1, 2, 3]),
    ("Small models write [Source 2] or [source: 3] or [資料1].", [2, 3, 1]),
    ("Repeats count [1] and again [1].", [1, 1]),
    ("Out of range stays parsed [7].", [7]),
    ("No citation here, [a] or (1) or [].", []),
])
def test_parse_every_citation_form(text, numbers):
    assert parse(text) == numbers


def test_markers_have_spans():
    text = "A [1]. B 【2, 3】."
    (a, b) = find_markers(text)
    assert (text[a.start:a.end], a.numbers) == ("[1]", (1,))
    assert (text[b.start:b.end], b.numbers) == ("【2, 3】", (2, 3))


# --- sentences and their citations ---------------------------------------------------------------------
def test_a_marker_belongs_to_the_sentence_it_follows():
    s, tail = split("賃金は翌月25日に支払う。[1] 休日は土曜日と日曜日。【2】")
    assert [(x.text, x.cited) for x in s] == [("賃金は翌月25日に支払う。", (1,)), ("休日は土曜日と日曜日。", (2,))]
    assert tail == ""


def test_marker_before_or_after_the_period_and_at_the_start():
    s, _ = split("[3] Core hours are 11:00 to 15:00 [1]. Leave is requested in BambooHR.[2][1]")
    assert [(x.text, x.cited) for x in s] == [("Core hours are 11:00 to 15:00.", (3, 1)),
                                             ("Leave is requested in BambooHR.", (2, 1))]


def test_layout_is_kept_between_sentences():
    s, _ = split("- Item one [1]\n- Item two [2]")
    assert [(x.gap, x.text, x.cited) for x in s] == [("", "- Item one", (1,)), ("\n", "- Item two", (2,))]
    assert strip_markers("- Item one [1]\n- Item two [2]") == "- Item one\n- Item two"


def test_keep_valid_drops_out_of_range_and_counts_them():
    s, _ = split("A is true [1][7]. B is true 【０】. C is true [2, 3].")
    kept, invalid = citations.keep_valid(s, 2)
    assert [x.cited for x in kept] == [(1,), (), (2,)] and invalid == 3


@pytest.mark.parametrize("text, expected", [
    ("わからない", True), ("「わからない」", True), ("わかりません。", True), ("I don't know", True),
    ("I don’t know.", True), ("I do not know.", True), ("I don't know. The sources say nothing about it.", True),
    ("I don't know the exact date, but it is the 25th [1].", False),
    ("I don't know. But it is the 25th [1].", False), ("The answer is 25.", False), ("", False),
])
def test_dont_know(text, expected):
    assert citations.is_dont_know(split(text)[0]) is expected


@pytest.mark.parametrize("text, words", [("[1]", False), ("【１】。", False), ("[1][2] 25.", False),
                                         ("25日 [1]", True), ("Yes [1].", True)])
def test_has_words(text, words):
    assert citations.has_words(text) is words


# --- support -------------------------------------------------------------------------------------------
PASSAGES = ["Employees may work from home up to three days per week with their manager's approval.",
            "Submit expense claims within 30 days of purchase through the finance portal."]


def test_lexical_is_the_share_of_sentence_tokens_in_the_passage():
    lex = citations.lexical([analyze("work from home three days"), analyze("expense claims portal"), []],
                            [analyze(p) for p in PASSAGES])
    assert lex.shape == (3, 2)
    assert lex[0, 0] == 1.0 and lex[0, 1] == pytest.approx(1 / 4)  # "day" is in both
    assert lex[1, 1] == 1.0 and lex[1, 0] == 0.0 and (lex[2] == 0).all()


def test_numbers_must_occur_in_the_passage():
    nums = citations.numbers_present(["Claims are due within 30 days.", "Claims are due within 60 days.",
                                      "No numbers here.", "上限は５,０００円。"],
                                     PASSAGES + ["上限は5000円です。"])
    assert nums.tolist() == [[False, True, False], [False, False, False], [True, True, True],
                             [False, False, True]]


def test_numbers_are_normalised():
    assert citations.numbers("上限は５,０００円、3.5時間") == {"5000", "3.5"}


def test_supports_needs_numbers_and_either_signal():
    lex = np.array([[0.6, 0.1, 0.6]])
    cos = np.array([[0.5, 0.95, 0.5]])
    nums = np.array([[True, True, False]])
    assert citations.supports(lex, cos, nums).tolist() == [[True, True, False]]
    assert citations.LEXICAL_MIN == 0.6 and citations.COSINE_MIN == 0.90


def _check(text: str, passages: list[str], cos: list[list[float]] | None = None) -> citations.Verification:
    sentences, invalid = citations.keep_valid(split(text)[0], len(passages))
    c = np.zeros((len(sentences), len(passages))) if cos is None else np.array(cos)
    return verify(sentences, passages, [analyze(s.text) for s in sentences], [analyze(p) for p in passages], c,
                  invalid=invalid)


REMOTE, EXPENSES = PASSAGES


def test_verify_renumbers_in_order_of_first_citation():
    v = _check("Expense claims within 30 days [2]. Work from home three days [1]. Claims via the finance "
               "portal [2].", PASSAGES)
    assert v.text == ("Expense claims within 30 days.[1] Work from home three days.[2] Claims via the finance "
                      "portal.[1]")
    assert v.order == (2, 1)
    assert v.counts == {"sentences": 3, "valid": 3, "invalid": 0, "unsupported": 0, "weak": 0, "attached": 0,
                        "pruned": 0}


def test_habitual_extra_citations_are_pruned_when_one_source_supports_alone():
    v = _check("Work from home three days [2][1]. Submit expense claims within 30 days [1][2].", PASSAGES)
    assert v.text == "Work from home three days.[1] Submit expense claims within 30 days.[2]"
    assert v.order == (1, 2) and v.counts["pruned"] == 2 and v.counts["valid"] == 2 and v.counts["weak"] == 0


def test_verify_flags_unsupported_weak_and_counts_invalid():
    v = _check("Work from home three days per week [1][9]. Approval is needed. Laptops are red [2].", PASSAGES)
    assert v.text == "Work from home three days per week.[1] Approval is needed. Laptops are red.[2]"
    assert [(s.cited, s.weak) for s in v.sentences] == [((1,), False), ((), False), ((2,), True)]
    assert v.counts == {"sentences": 3, "valid": 2, "invalid": 1, "unsupported": 1, "weak": 1, "attached": 0,
                        "pruned": 0}


def test_weak_when_a_number_is_missing_from_the_cited_passage():
    assert _check("Submit expense claims within 60 days [2].", PASSAGES).counts["weak"] == 1
    assert _check("Submit expense claims within 30 days [2].", PASSAGES).counts["weak"] == 0


def test_a_sentence_citing_two_sources_is_checked_against_both_together():
    text = "Work from home three days per week, and submit claims within 30 days [1][2]."
    v = _check(text, PASSAGES)
    assert v.counts["weak"] == 0
    assert _check(text.replace("[1][2]", "[1]"), PASSAGES).counts["weak"] == 1  # 30 is not in [1]


def test_a_high_cosine_supports_a_paraphrase_with_few_shared_words():
    text = "Staff can telecommute a few times weekly [1]."
    assert _check(text, PASSAGES, cos=[[0.89, 0.5]]).counts["weak"] == 1
    assert _check(text, PASSAGES, cos=[[0.91, 0.5]]).counts["weak"] == 0


def test_verify_attaches_citations_only_when_the_model_gave_none():
    v = _check("Employees may work from home. Submit expense claims through the portal. The sky is blue.", PASSAGES)
    assert v.text == ("Employees may work from home.[1] Submit expense claims through the portal.[2] "
                      "The sky is blue.")
    assert v.order == (1, 2)
    assert [s.attached for s in v.sentences] == [True, True, False]
    assert v.counts == {"sentences": 3, "valid": 2, "invalid": 0, "unsupported": 1, "weak": 0, "attached": 2,
                        "pruned": 0}
    some = _check("Employees may work from home [2]. Submit expense claims through the portal.", PASSAGES)
    assert some.counts["attached"] == 0 and some.counts["unsupported"] == 1 and some.counts["weak"] == 1


def test_attaching_uses_the_best_passage_by_lexical_plus_cosine():
    v = _check("Employees may claim.", PASSAGES, cos=[[0.5, 0.95]])  # half the words in each; cosine decides
    assert v.text == "Employees may claim.[1]" and v.order == (2,)  # source 2, renumbered 1


# --- the prompt ----------------------------------------------------------------------------------------
def test_prompt_system_first_then_numbered_sources_then_question():
    msgs = prompt.build_messages("賃金はいつ？", [("rules.pdf p.3 › 第4章 › 第20条", "賃金は翌月25日に支払う。"),
                                               ("faq.md p.1 › 給与", "給与明細は…")], "ja")
    assert msgs[0] == {"role": "system", "content": prompt.SYSTEM}
    assert msgs[1]["content"] == ("Sources / 資料:\n\n[1] rules.pdf p.3 › 第4章 › 第20条\n賃金は翌月25日に支払う。\n\n"
                                  "[2] faq.md p.1 › 給与\n給与明細は…\n\nQuestion / 質問: 賃金はいつ？\n\n"
                                  + prompt.REMINDER["ja"])


def test_system_text_states_the_rules_in_both_languages():
    s = prompt.SYSTEM
    for rule in ("only the numbered sources", "like [1]. Add a second number only", "exactly \"I don't know\"", "「わからない」",
                 "language of the question", "質問と同じ言語", "番号だけの回答はしないこと"):
        assert rule in s
    assert prompt.dont_know("賃金はいつ？") == "わからない" and prompt.dont_know("When?") == "I don't know"


# --- the context budget ---------------------------------------------------------------------------------
def count(text: str) -> int:
    return len(text) // 4


def test_everything_fits_no_notice():
    fit = budget.fewer("q?", [("a", "x" * 100), ("b", "y" * 100)], "en", count, 10_000)
    assert fit.keep == (0, 1) and fit.notice is None


def test_fewer_keeps_the_best_prefix_that_fits_and_says_so():
    passages = [("a", "x" * 800), ("b", "y" * 800), ("c", "z" * 800)]
    one = budget.prompt_tokens("q?", passages[:1], "en", count)
    two = budget.prompt_tokens("q?", passages[:2], "en", count)
    assert one < two
    fit = budget.fewer("q?", passages, "en", count, two)
    assert fit.keep == (0, 1) and fit.texts == ("x" * 800, "y" * 800) and fit.tokens == two
    all3 = budget.prompt_tokens("q?", passages, "en", count)
    assert fit.notice == (f"the evidence (~{all3} tokens) exceeds the LLM's context budget "
                          f"({two} tokens): asked with the 2 best of 3 passages")


def test_a_single_huge_passage_is_cut_with_a_notice():
    fit = budget.fewer("q?", [("a", "x" * 20_000), ("b", "y")], "en", count, 1000)
    assert fit.keep == (0,) and fit.tokens <= 1000 and fit.texts[0].endswith("…")
    assert fit.notice.endswith(f"asked with the best passage only, cut to {len(fit.texts[0])} characters")


def test_budget_reserves_the_answer_and_a_safety_margin():
    assert budget.budget(4096, 512) == int(3584 * 0.9)


def test_sentence_model_for_verify_is_plain_data():
    s = Sentence("x", (1,))
    assert (s.gap, s.attached, s.weak) == ("", False, False)

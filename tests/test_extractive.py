"""Extractive answers contain the answer: a lead-in sentence comes with its items; clause numbers are cleaned."""
from __future__ import annotations

import numpy as np
import pytest

from kotae.answer.extractive import candidates, noise, pick, reranked
from kotae.search.rerank import Reranker

RATES = ("第37条（割増賃金）時間外労働、休日労働及び深夜労働に対しては、次の割増率により計算した割増賃金を支払う。\n"
         "（1）法定労働時間を超える時間外労働 25%（1か月60時間を超える部分は50%）\n"
         "（2）法定休日の労働 35%\n"
         "（3）深夜労働（午後10時から午前5時まで） 25%\n"
         "2 前項の割増賃金の計算の基礎となる賃金は、基本給とする。")
STEPS = ("To request remote work, do as follows:\n- Ask your manager by e-mail.\n- Fill in form RW-1.\n"
         "Approval takes two days.")


def test_a_lead_in_sentence_brings_its_items():
    cands = candidates([RATES])
    best_first = np.array([1.0, 0.4, 0.2, 0.1, 0.3])
    texts = [c.text for c in pick(cands, best_first)]
    assert texts == [cands[0].text, "（1）法定労働時間を超える時間外労働 25%（1か月60時間を超える部分は50%）",
                     "（2）法定休日の労働 35%", "（3）深夜労働（午後10時から午前5時まで） 25%"]
    steps = candidates([STEPS])
    assert [c.text for c in pick(steps, np.array([1.0, 0.1, 0.1, 0.5]))] == [
        "To request remote work, do as follows:", "- Ask your manager by e-mail.", "- Fill in form RW-1."]


def test_items_are_not_added_to_a_sentence_that_announces_nothing():
    cands = candidates([RATES])
    scores = np.array([0.1, 1.0, 0.2, 0.1, 0.3])
    # the item comes after its list's lead-in (extractive.ITEM_LEAD_IN), and brings no other item
    assert [c.text for c in pick(cands, scores)] == [cands[0].text,
                                                     "（1）法定労働時間を超える時間外労働 25%（1か月60時間を超える部分は50%）"]


def test_a_clause_number_is_not_left_in_front_of_a_sentence():
    assert candidates([RATES])[-1].text == "前項の割増賃金の計算の基礎となる賃金は、基本給とする。"
    assert candidates(["2 名以上の承認が必要です。"])[0].text == "2 名以上の承認が必要です。"  # a count, kept


def test_passages_shown_to_people_have_pdf_line_breaks_mended_and_items_kept():
    from kotae.answer.extractive import readable

    text = "第10条（賃金）\n会社は、次の割増賃金を支\n払う。\n(1) 時間外労働 25%\n(2) 休日労働 35%\nAll employ-\nees must sign."
    assert readable(text, ("就業規則",)) == ("第10条（賃金）\n会社は、次の割増賃金を支払う。\n(1) 時間外労働 25%\n"
                                            "(2) 休日労働 35%\nAll employees must sign.")
    # the index's text is unchanged: offsets into it (highlights) stay where they were
    assert "支\n払う" in text


def test_a_question_word_found_only_as_a_synonym_earns_part_of_the_keyword_credit():
    from kotae.answer.ask import _term_groups
    from kotae.answer.extractive import KEYWORD_WEIGHT, SYNONYM_CREDIT, score, score_terms
    from kotae.search.synonyms import Synonyms, matches, parse
    syn = Synonyms.from_rows(parse(["1\t0\tゴルフ", "1\t0\tgolf"]))
    q = ["golf", "limit"]
    sents = [["ゴルフ", "接待", "上限"], ["タクシー", "上限"], ["golf", "limit"]]
    groups = [frozenset(g for _, _, g in matches(t, syn, query=False)) for t in sents]
    vecs = np.zeros((3, 2))
    df = {"golf": 1, "limit": 1}
    _, held, synonym = score_terms(np.zeros(2), vecs, q, sents, df, 10, _term_groups(q, syn), groups)
    assert list(held) == [0.0, 0.0, 1.0]  # ゴルフ is not "golf" by its letters
    assert list(synonym) == [0.5, 0.0, 0.0]  # but it is golf's synonym: half the question's (equal-IDF) words
    plain = score(np.zeros(2), vecs, q, sents, [0, 0, 0], df, 10)
    with_syn = score(np.zeros(2), vecs, q, sents, [0, 0, 0], df, 10, _term_groups(q, syn), groups)
    assert with_syn[0] - plain[0] == pytest.approx(KEYWORD_WEIGHT * SYNONYM_CREDIT / 2) and with_syn[1] == plain[1]


def test_a_sentence_that_only_restates_the_question_says_less_than_one_that_answers():
    from kotae.answer.extractive import novelty, score
    q = ["special", "register", "adopt", "authority"]
    caption = ["figure", "special", "register", "adopt", "authority"]
    answer = ["user", "special", "register", "include", "adopt", "authority", "thread"]
    assert novelty(caption, q) == 0.2 and novelty(answer, q) == 3 / 7 and novelty([], q) == 0.0
    scores = score(np.zeros(2), np.zeros((2, 2)), q, [caption, answer], [0, 0], {t: 1 for t in q}, 10)
    assert scores[1] > scores[0]  # same cosine, every question word in both: the one that adds something wins


def test_a_sentence_repeated_in_two_passages_is_said_once():
    cands = candidates(["（1）正当な理由なく無断欠勤が3日以上に及ぶとき", ("（1）正当な理由なく無断欠勤が3日以上に及ぶとき\n"
                                                          "（2）正当な理由なくしばしば遅刻したとき")])
    texts = [c.text for c in cands]
    scores = np.array([0.9 if "無断" in t else 0.89 for t in texts])
    chosen = [c.text for c in pick(cands, scores)]
    assert len(chosen) == len({"".join(t.split()) for t in chosen}) == 2


def test_a_sentence_in_the_other_language_is_scored_as_the_dense_search_ranks_its_chunk():
    from kotae.answer.extractive import translated_cosine

    q = np.array([1.0, 0.0, 0.0])
    sentences = np.array([[0.8, 0.6, 0.0],   # English, close to the question's words
                          [0.6, 0.0, 0.8]])  # Japanese, close to their translation
    scores = sentences @ q
    lifted = translated_cosine(scores, sentences, q, np.array([0.0, 0.0, 1.0]), 1.0, np.array([False, True]))
    assert lifted[0] == scores[0]  # the question's own language keeps its score
    assert lifted[1] > lifted[0] > scores[1]
    assert np.isclose(lifted[1], sentences[1] @ (np.array([1.0, 0.0, 1.0]) / np.sqrt(2)))


class WordCounter(Reranker):
    """A fake cross-encoder: a sentence scores the number of times it holds `word`; it records what it was asked."""

    name = "fake"

    def __init__(self, word: str) -> None:
        self.word, self.asked = word, []

    def score(self, query, passages):
        self.asked.append((query, list(passages)))
        return np.array([10.0 * p.count(self.word) for p in passages])


def test_reranked_rescores_only_the_pool_and_its_weight_decides_how_far_it_moves():
    texts = ["賃金は支給する。", "賃金は毎月25日に支払う。", "賞与は年2回。", "25日は給料日。"]
    scores = np.array([0.90, 0.85, 0.80, 0.10])
    fake = WordCounter("25日")
    out = reranked(scores, texts, "給料日はいつ？", fake, weight=0.3, pool=3)
    assert fake.asked == [("給料日はいつ？", texts[:3])]  # the best three by score, best first
    assert int(np.argmax(out)) == 1  # the pool's sentence with the answer now wins
    assert out[3] == scores[3]  # outside the pool: unchanged
    assert np.isclose(out[:3].sum() - scores[:3].sum(), 0.3)  # the weight is shared out by a softmax
    assert reranked(scores, texts, "q", fake, weight=0.0, pool=3) is scores  # weight 0: off, no call
    assert len(fake.asked) == 1


def test_chart_ticks_and_contents_leaders_are_noise_lines_not_sentences():
    # nlp2004slides.pdf's chart and redp5110's table of contents were quoted as answers
    assert noise("再現率と適合率の関係 0 0.2 0.4 0.6 0.8 1 0.1 0.2 0.3 0.4 0.5 適合率再現率")
    assert noise(". . . . . . . . . . | 25 | | masks . . . . . . . . . . . . . . . | 26 |")
    for line in ("Source articles 28,009", "Net sales 83,359 97,278 282,457 304,182", "賃金は毎月25日に支払う。",
                 "Revenue 1,201 1,302 1,403 1,504 1,605 1,706",
                 "スコア: 0.886 | 単語: 村山富市委員長 | 種類: PERSON | 頻度: 54", "See page 3... for the form."):
        assert not noise(line), line


def test_an_item_chosen_for_itself_follows_its_lead_in():
    from kotae.answer.extractive import with_items
    cands = candidates(["役職手当は、次の区分により月額で支給する。\n（1）部長 60,000円\n（2）課長 40,000円\n（3）係長 15,000円"])
    lead, first_item = cands[0], cands[1]
    assert [c.text for c in with_items([first_item, lead], cands)] == [c.text for c in cands]


SLIDES = ("今後の課題\n• 類似度の計算方法の改善\n- 報道の時期にズレがある場合の補正。\n"
          "• コンパラブルコーパスの特性を利用した固有表現抽出器の製作。")
BACKGROUND = "研究の背景\n• 字句的な知識を構築する方法：\n- 辞書を人手で構築する。"


def test_a_slides_title_over_its_bullets_brings_them_and_a_runner_up_title_is_left_out():
    cands = candidates([SLIDES, BACKGROUND])
    assert cands[0].text == "今後の課題"  # shorter than a sentence, kept: it titles the list under it
    scores = np.array([1.0, 0.5, 0.3, 0.4, 0.98, 0.2, 0.1])
    assert [c.text for c in pick(cands, scores)] == [
        "今後の課題", "• 類似度の計算方法の改善", "- 報道の時期にズレがある場合の補正。",
        "• コンパラブルコーパスの特性を利用した固有表現抽出器の製作。"]  # 研究の背景, a close runner-up: left out


def test_a_short_line_over_prose_is_no_list_title(monkeypatch):
    from kotae.answer import extractive
    assert not extractive.list_title("賃金", "賃金は毎月25日に支払う。")  # over prose
    assert not extractive.list_title("手当は次のとおり支給する。", "（1）部長 60,000円")  # a sentence (a lead-in)
    assert not extractive.list_title("• 類似度の計算方法の改善", "- 報道の時期にズレがある場合の補正。")  # an item
    assert extractive.list_title("今後の課題", "• 類似度の計算方法の改善")
    monkeypatch.setattr(extractive, "LIST_TITLES", False)
    assert candidates([SLIDES])[0].text == "• 類似度の計算方法の改善"


def test_a_sentence_that_restates_the_question_is_followed_by_the_one_after_it():
    from kotae.answer.extractive import follow_on
    text = ("The word processor didn't just change workplaces—it changed culture. It democratized writing, enabling "
            "anyone to publish.\n\nThis shift had profound implications.")
    cands = candidates([text, "Word processors changed culture.", STEPS])
    restates, answer, after_gap, other, lead_in = cands[0], cands[1], cands[2], cands[3], cands[4]
    novel = {restates: 0.5, other: 0.5, lead_in: 0.2}
    got = follow_on([restates, other, lead_in], cands, lambda c: novel.get(c, 1.0))
    # the next sentence comes right after the one restating; a passage's last sentence has none; a lead-in brings
    # its items through `pick`, not this
    assert got == [restates, answer, other, lead_in]
    assert follow_on([answer], cands, lambda c: 0.0) == [answer]  # a blank line is no "right after"
    assert follow_on([restates], cands, lambda c: 0.6) == [restates]  # it says enough of its own
    assert follow_on([restates, answer], cands, lambda c: 0.0) == [restates, answer]  # said once
    assert after_gap.text == "This shift had profound implications."


def test_a_sentence_brings_its_proviso_whatever_its_words(monkeypatch):
    from kotae.answer import extractive
    from kotae.answer.extractive import follow_on
    text = ("賞与は、原則として毎年7月及び12月の2回支給する。ただし、会社の業績の著しい低下その他やむを得ない事由がある場合には、"
            "支給しないことがある。賞与の算定対象期間は別に定める。")
    cands = candidates([text])
    rule, proviso, period = cands
    assert follow_on([rule], cands, lambda c: 1.0) == [rule, proviso]  # novel words, yet its ただし comes too
    assert follow_on([period], cands, lambda c: 1.0) == [period]  # no proviso after it
    assert follow_on([period, rule], cands, lambda c: 1.0) == [period, rule]  # a runner-up's proviso stays out
    monkeypatch.setattr(extractive, "PROVISOS", False)
    assert follow_on([rule], cands, lambda c: 1.0) == [rule]
    en = candidates(["If the user is in the list, it returns 1. Otherwise, it returns a value of 0."])
    assert extractive.PROVISO.match(en[1].text) and not extractive.PROVISO.match("但し書きの例")


def test_a_passage_of_records_gives_one_candidate_a_row():
    rows = ("code: EX-101 | category: 交通費 | description: 電車・バス等の運賃（業務上の移動。通勤は対象外） | approval: 上長\n"
            "code: EX-106 | category: Ferry and bus charter | approval: Department head")
    # a row in prose is one candidate: the 。 inside the first row does not cut it
    assert [c.text for c in candidates([rows])] == rows.split("\n")
    # a table's own passage is read as sentences: the 。 cuts the first row, its second half runs on into the next row
    whole = candidates([rows], tables=[True])
    assert len(whole) == 2 and whole[1].text.startswith("通勤は対象外） | approval: 上長 code: EX-106")
    assert [c.text for c in candidates([rows], records=[True])] == rows.split("\n")
    many = "\n".join(f"code: EX-{n:03d} | approval: Manager {n}" for n in range(40))
    assert len(candidates([many], records=[True])) == 40  # a chunk of short rows: every row (prose keeps 16)


def test_a_table_rows_language_is_its_values():
    from kotae.answer.ask import _values
    from kotae.chunking import detect_lang
    row = "code: EX-102 | category: タクシー代 | description: 深夜の移動や重い荷物の運搬など、やむを得ない場合のタクシー利用 | approval: 上長"
    assert detect_lang(row) == "mixed" and detect_lang(_values(row)) == "ja"  # English column names, Japanese values
    assert _values("Leave type: Annual leave | Days per year: 20").split() == ["Annual", "leave", "20"]
    assert _values("Note: this is prose.") == "Note: this is prose."  # not a row: as is


def test_a_sentence_said_again_by_a_copy_of_its_document_is_quoted_once():
    from kotae.answer.complete import Part, compose
    from kotae.answer.extractive import Candidate
    md = Candidate("3. If a user is connected using profile JANE, these return a value of 1:", 0, 0)
    pdf = Candidate("3. If a user is connected using profile JANE, these return a value of 1: VERIFY_GROUP_FOR_USER"
                    " (CURRENT_USER, 'MGR')", 1, 0)
    escaped = Candidate("Here is an example of using the VERIFY\\_GROUP\\_FOR\\_USER function:", 0, 80)
    plain = Candidate("Here is an example of using the VERIFY_GROUP_FOR_USER function:", 1, 200)
    other = Candidate("Otherwise, it returns a value of 0.", 0, 40)
    composed = compose([Part("q", None, "answered", chosen=(escaped, md, plain, pdf, other))], "en")
    assert composed.sentences == (escaped, md, other)
    item, again = Candidate("（2）法定休日の労働 35%", 0, 0), Candidate("（2）法定休日の労働 35%", 1, 9)
    assert compose([Part("q", None, "answered", chosen=(item, again))], "ja").sentences == (item,)
    tiny, longer = Candidate("（1）部長", 0, 0), Candidate("（1）部長 60,000円", 1, 0)  # under 12 characters: kept
    assert compose([Part("q", None, "answered", chosen=(tiny, longer))], "ja").sentences == (tiny, longer)

"""Follow-ups without an LLM: which turns lean on the one before, and what is searched for them."""
from __future__ import annotations

import pytest

from kotae.answer.followup import content_words, is_elliptical, retrieval_question


def test_content_words_drop_stop_words_particles_and_referring_words():
    assert content_words("When are salaries paid to them?") == ["salaries", "paid"]
    assert content_words("給料はいつ支払われますか") == ["給料", "支払わ"]
    assert content_words("それはパートにも適用されますか") == ["パート", "適用"]


@pytest.mark.parametrize("question", ["And for part-timers?", "What about contractors?", "Does it apply to interns?",
                                      "それはパートにも適用されますか", "では賞与は？", "派遣社員は？",
                                      "週に何日までできますか", "何文字以上にしないといけませんか"])
def test_elliptical_follow_ups(question):
    assert is_elliptical(question)


@pytest.mark.parametrize("question", ["How many days of paid leave does an employee get per year?",
                                      "有給休暇は年に何日もらえますか", "出張の日当はいくらですか",
                                      "パスワードを何日ごとに変更する必要がありますか"])
def test_questions_that_name_their_own_topic(question):
    assert not is_elliptical(question)


def test_an_elliptical_turn_borrows_the_previous_topic():
    assert retrieval_question(["When are salaries paid?", "And for part-timers?"]) == \
        "And for part-timers? salaries paid"
    assert retrieval_question(["有給休暇は何日ですか", "それはパートにも適用されますか"]) == \
        "それはパートにも適用されますか 有給 休暇 日"


def test_a_topic_carries_through_a_chain_and_words_already_asked_are_not_repeated():
    assert retrieval_question(["When are salaries paid?", "And bonuses?", "What about part-timers?"]) == \
        "What about part-timers? bonuses salaries paid"
    assert retrieval_question(["When are salaries paid?", "Are salaries paid by transfer?"]) == \
        "Are salaries paid by transfer?"


def test_a_new_topic_or_a_first_question_is_searched_as_asked():
    assert retrieval_question(["When are salaries paid?", "How many days of paid leave does an employee get?"]) == \
        "How many days of paid leave does an employee get?"
    assert retrieval_question(["And for part-timers?"]) == "And for part-timers?"
    with pytest.raises(ValueError, match="no user turn"):
        retrieval_question([])

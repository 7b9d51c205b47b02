"""Follow-up questions without an LLM: an elliptical turn borrows the topic words of the turn before it.

"And for part-timers?" after "When are salaries paid?" is searched as "And for part-timers? salaries paid";
「それはパートにも適用されますか」 after 「有給休暇は何日ですか」 as 「それはパートにも適用されますか 有給休暇 何日」.
A question that names its own topic (more than FEW content words, no referring word, no follow-up opener)
is searched as it is. Pure functions over strings; the word analysis is the keyword index's.
"""
from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

from kotae.search.analyze import words

FEW = 2  # a question with at most this many content words of its own leans on the turn before it...
# ...unless it asks with a question word ("when", 「いくら」) and has at least two ("出張の日当はいくらですか")
_ASKING = re.compile(r"\b(when|what|how|where|who|whom|which|why)\b|いつ|いくら|いくつ|何|なに|なん|どこ|どれ|どの|どう|"
                     r"どちら|誰|だれ|なぜ", re.IGNORECASE)
REFERRING = frozenset({
    "it", "its", "that", "this", "these", "those", "they", "them", "their", "there", "same", "such",
    "それ", "その", "これ", "この", "あれ", "あの", "そちら", "こちら", "そこ", "ここ", "そう", "同じ", "そういう",
})
_OPENER = re.compile(r"^\s*(and|what about|how about|also|but|or|then|so)\b|^\s*(では|じゃあ|それでは|それなら|また|"
                     r"あと|ちなみに|なら|じゃ)", re.IGNORECASE)


def content_words(text: str) -> list[str]:
    """The words of `text` as written that carry meaning (not stop words, particles or referring words),
    each once, in order."""
    out: list[str] = []
    for surface, tokens in words(text):
        if tokens and surface.lower() not in REFERRING and surface not in out:
            out.append(surface)
    return out


def is_elliptical(question: str) -> bool:
    """Does `question` lean on an earlier turn: a follow-up opener ("and…", 「では…」), a referring word
    ("it", 「それ」), or few content words of its own (at most FEW; one, when it asks with a question word)."""
    norm = unicodedata.normalize("NFKC", question)
    if _OPENER.search(norm):
        return True
    if any(surface.lower() in REFERRING for surface, _ in words(norm)):
        return True
    return len(content_words(norm)) <= (FEW - 1 if _ASKING.search(norm) else FEW)


def retrieval_question(turns: Sequence[str]) -> str:
    """What to search for the last of the user's `turns` (earliest first): the last turn, followed, when it
    is elliptical, by the content words of what the previous turn searched that it does not already hold (so
    a topic carries through a chain of follow-ups)."""
    if not turns:
        raise ValueError("no question: the conversation has no user turn")
    question = turns[-1]
    if len(turns) < 2 or not is_elliptical(question):
        return question
    own = {t for _, tokens in words(question) for t in tokens}
    carried = [w for w in content_words(retrieval_question(turns[:-1])) if not set(_tokens(w)) <= own]
    return f"{question} {' '.join(carried)}" if carried else question


def _tokens(word: str) -> list[str]:
    return [t for _, tokens in words(word) for t in tokens]

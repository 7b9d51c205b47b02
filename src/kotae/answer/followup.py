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
# A Japanese question that names no topic or subject (no は, が, も, って, とは) and has at most TOPICLESS content
# words asks about the turn before: 「週に何日までできますか」 after 「在宅勤務の申請は…」 (bench/followup.py, fit half).
TOPIC_PARTICLES = frozenset({"は", "が", "も", "って", "とは", "については"})
TOPICLESS = 3
_JAPANESE = re.compile(r"[\u3040-\u30ff\u3400-\u9fff]")
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
    ("it", 「それ」), a short Japanese question naming no topic (no 「は」「が」…), or few content words of its
    own (at most FEW; one, when it asks with a question word)."""
    norm = unicodedata.normalize("NFKC", question)
    if _OPENER.search(norm):
        return True
    analysed = list(words(norm))
    if any(surface.lower() in REFERRING for surface, _ in analysed):
        return True
    if _JAPANESE.search(norm) and not any(s in TOPIC_PARTICLES and not t for s, t in analysed) \
            and len(content_words(norm)) <= TOPICLESS:
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


# --- with an LLM: the follow-up rewritten into a question that stands alone -------------------------
REWRITE_SYSTEM = """\
You rewrite the last question of a conversation about some documents so that it can be understood without the conversation: replace words like "it", "that", "and for…?" with what they refer to, and add the topic the question leaves out. Keep the question's language (Japanese stays Japanese), keep its meaning, do not answer it, do not add facts. If the question already stands alone, return it unchanged. Reply with the rewritten question only, on one line.
会話の最後の質問を、会話を読まなくても意味がわかる一つの質問に書き直してください。「それ」「では〜は？」などが指すものを補い、省略された話題を加えること。質問の言語のまま、意味を変えず、答えず、事実を加えないこと。すでに単独でわかる質問ならそのまま返すこと。書き直した質問だけを1行で返してください。"""
HISTORY_TURNS = 3  # the earlier turns the rewrite sees (the topic of a follow-up is rarely older)
ANSWER_CHARS = 300  # of each earlier answer: enough to name the topic, cheap to send
_MARKERS = re.compile(r"\s*\[\d+(?:\s*,\s*\d+)*\]")
MAX_GROWTH = 4  # a rewrite longer than this many times the question (+ 80 characters) is no question


def rewrite_messages(history: Sequence[tuple[str, str]], question: str) -> list[dict[str, str]]:
    """Messages asking an LLM to make `question` stand alone; `history` holds (question, answer) pairs, earliest
    first (only the last HISTORY_TURNS are sent, each answer cut to ANSWER_CHARS)."""
    lines = []
    for q, a in history[-HISTORY_TURNS:]:
        answer = " ".join(_MARKERS.sub("", a).split())  # citation numbers mean nothing without the sources
        lines.append(f"Q: {q.strip()}\nA: {answer[:ANSWER_CHARS]}{'…' if len(answer) > ANSWER_CHARS else ''}")
    user = ("Conversation / 会話:\n\n" + "\n\n".join(lines) +
            f"\n\nLast question / 最後の質問: {question.strip()}\n\nStandalone question / 書き直した質問:")
    return [{"role": "system", "content": REWRITE_SYSTEM}, {"role": "user", "content": user}]


def clean_rewrite(reply: str, question: str) -> str | None:
    """The rewritten question in an LLM's `reply` (its first non-empty line, labels and quotes stripped), or None
    when the reply is no usable question (empty, or far longer than the question)."""
    line = next((ln.strip() for ln in reply.splitlines() if ln.strip()), "")
    line = re.sub(r"^(standalone question|question|書き直した質問|質問)\s*[:：]\s*", "", line, flags=re.IGNORECASE)
    line = line.strip().strip("\"'「」『』").strip()
    if not line or len(line) > MAX_GROWTH * len(question) + 80:
        return None
    return line

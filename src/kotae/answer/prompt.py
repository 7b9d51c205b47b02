"""The prompt: a fixed system text, then the numbered sources, then the question. Pure.

The system text never changes (providers cache a shared prompt prefix, and the rules are the same for
every question); everything that varies comes after it in the user message. The rules are written in
English and Japanese so a small model follows them whichever language the question is in, and the user
message repeats the two that small models forget most (cite, and the exact "don't know" words) in the
question's language, right after the question.
"""
from __future__ import annotations

from collections.abc import Sequence

from kotae.answer.llm import Message
from kotae.chunking import detect_lang

SYSTEM = """\
You answer questions using only the numbered sources that the user gives you.
あなたは、ユーザーが示す番号付きの資料だけを根拠に質問に答えます。

Rules / ルール:
1. Use only facts stated in the sources; no outside knowledge, no guessing.
   資料に書かれている事実だけを使い、外部の知識や推測を使わないこと。
2. Answer in the language of the question: Japanese for a Japanese question, English for an English one.
   質問と同じ言語で答えること（日本語の質問には日本語、英語の質問には英語）。
3. Write the answer in words, in one to three short sentences, and end every sentence with the number of the one source that states it, like [1]. Add a second number only when the sentence joins facts from two sources. Use only the numbers of the sources given.
   答えは文章で1〜3文にまとめ、各文の末尾に、その内容が書かれた資料の番号を [1] のように一つ付けること。二つの資料の内容を合わせた文にだけ番号を二つ付けること。示された番号以外は使わないこと。
4. If the sources do not contain the answer, reply with exactly "I don't know" (English question) or 「わからない」 (Japanese question) and nothing else, with no source number.
   資料に答えがない場合は、英語の質問には "I don't know"、日本語の質問には「わからない」とだけ答え、番号は付けないこと。
5. Never reply with only a source number.
   番号だけの回答はしないこと。"""

REMINDER = {
    "ja": "上の資料だけを根拠に日本語で答え、各文の末尾に [1] のように資料番号を付けてください。"
          "資料に答えがなければ「わからない」とだけ答えてください。",
    "en": "Answer in English from the sources above only, ending each sentence with its source number "
          "like [1]. If the sources do not say, reply exactly: I don't know",
}

SUMMARY_SYSTEM = """\
You extract, from one source, only what helps answer a question. Copy the relevant facts (numbers, names, dates, conditions) in the source's own words, in at most three sentences. If the source says nothing relevant, reply exactly NONE.
一つの資料から、質問に答えるのに役立つ部分だけを、資料の言葉のまま3文以内で抜き出してください。関係する記述がなければ NONE とだけ答えてください。"""


HYDE_SYSTEM = """\
You write the passage of a document that would answer a question, for a search engine to look for similar text. Write two or three plain sentences in the question's language, in the style of the document (rules, a handbook, a FAQ), with the terms such a document would use. Never refuse and never say you do not know: write what the passage would plausibly say.
質問に答える文書の一節を、検索のために書いてください。質問と同じ言語で、規程・ハンドブック・FAQ のような文書の文体と用語を使い、2〜3文で書くこと。断ったり「わからない」と書いたりせず、その一節に書かれていそうな内容を書くこと。"""


def hyde_messages(question: str) -> list[Message]:
    """Messages asking for a hypothetical passage that answers `question` (HyDE query rewriting)."""
    return [{"role": "system", "content": HYDE_SYSTEM}, {"role": "user", "content": question.strip()}]


def dont_know(question: str) -> str:
    """「わからない」 for Japanese questions, "I don't know" otherwise."""
    return "わからない" if detect_lang(question) in ("ja", "mixed") else "I don't know"


def source_block(n: int, anchor: str, text: str) -> str:
    """`[n] file p.N › heading` and the passage below it."""
    return f"[{n}] {anchor}\n{text.strip()}"


MISSING = {
    "ja": "資料には次の記載がありません: {what}。答えられる部分だけに答え、この点は資料に記載がないと一文で書いてください。",
    "en": "The sources do not state: {what}. Answer only the rest, and say in one sentence that the sources "
          "do not state this.",
}


def build_messages(question: str, passages: Sequence[tuple[str, str]], lang: str,
                   missing: Sequence[str] = ()) -> list[Message]:
    """Messages for the answer: `passages` are (anchor, text), numbered 1..N in the order given; `missing`
    (what kotae's checks found the sources lack) is told after the question."""
    sources = "\n\n".join(source_block(n, a, t) for n, (a, t) in enumerate(passages, 1))
    key = "ja" if lang == "ja" else "en"
    lacking = (MISSING[key].format(what=("、" if key == "ja" else "; ").join(missing)) + "\n") if missing else ""
    user = (f"Sources / 資料:\n\n{sources}\n\nQuestion / 質問: {question.strip()}\n\n{lacking}"
            f"{REMINDER[key]}")
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}]


def summary_messages(question: str, anchor: str, text: str) -> list[Message]:
    """Messages for the map step of map-reduce: what one source says about the question."""
    user = f"Source / 資料: {anchor}\n{text.strip()}\n\nQuestion / 質問: {question.strip()}"
    return [{"role": "system", "content": SUMMARY_SYSTEM}, {"role": "user", "content": user}]


def is_none_summary(text: str) -> bool:
    return text.strip().strip(".。").upper() in ("NONE", "")

"""An LLM judge for answer correctness: compares an answer with the golden item's reference answer.

Phrase matching (`must_contain`) is strict and cheap; a judge also accepts a correct answer worded
differently. The judge must be a different model from the one answering (a model grading itself is
lenient with its own mistakes), so `judge_from` refuses the same model at the same endpoint.
The judge runs at temperature 0 with a fixed system text and replies one word, parsed here; a reply
that is neither CORRECT nor INCORRECT, or a judge that fails, gives no verdict (counted, never guessed).

    kotae eval run samples/golden-ja.jsonl --llm openai:qwen2.5 --judge openai:gpt-4o-mini
    KOTAE_JUDGE=openai:llama3.1 KOTAE_JUDGE_BASE_URL=http://localhost:11434/v1 kotae eval run …
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from kotae.config import LLMSettings, Settings
from kotae.errors import ConfigError
from kotae.facade import LLM, LLMError, load_llm

JUDGE_SYSTEM = (
    "You grade answers to questions about a set of documents. You get the question, a reference answer "
    "written by a person who read the documents, and a candidate answer. The candidate is CORRECT when it "
    "states the key facts of the reference answer and contradicts none of them; wording, language, extra "
    "detail and citation marks such as [1] do not matter. It is INCORRECT when it misses or contradicts a "
    "key fact, or does not answer. Reply with exactly one word: CORRECT or INCORRECT."
)
_VERDICT = re.compile(r"\b(INCORRECT|CORRECT)\b|(不正解|正解)")


@dataclass(frozen=True)
class Verdict:
    correct: bool | None  # None: no usable verdict (see `reply`)
    reply: str  # what the judge said, or why it said nothing


def parse_verdict(reply: str) -> bool | None:
    """The first CORRECT/INCORRECT (or 正解/不正解) in the reply; None when there is none."""
    m = _VERDICT.search(reply.upper())
    if not m:
        return None
    word = m.group(1) or m.group(2)
    return word in ("CORRECT", "正解")


def judge_prompt(question: str, reference: str, answer: str) -> list[dict[str, str]]:
    user = f"Question:\n{question}\n\nReference answer:\n{reference}\n\nCandidate answer:\n{answer}\n\nVerdict:"
    return [{"role": "system", "content": JUDGE_SYSTEM}, {"role": "user", "content": user}]


class Judge:
    def __init__(self, llm: LLM) -> None:
        self.llm = llm

    @property
    def spec(self) -> str:
        return self.llm.settings.spec or self.llm.name

    def grade(self, question: str, reference: str, answer: str) -> Verdict:
        try:
            reply = self.llm.complete(judge_prompt(question, reference, answer), temperature=0.0, max_tokens=8)
        except LLMError as e:
            return Verdict(None, str(e))
        return Verdict(parse_verdict(reply), reply.strip())


def judge_from(settings: Settings) -> Judge | None:
    """The judge of `settings.judge` (None when there is none); refuses the model that answers."""
    spec, base_url = settings.judge.spec, settings.judge.base_url
    if not spec:
        return None
    answering = settings.llm
    if answering.spec == spec and (answering.base_url or None) == (base_url or None):
        raise ConfigError(f"the judge {spec} is the model that answers; pick a different model for --judge "
                          "(a model grading its own answers is lenient with its mistakes)")
    key = settings.judge.api_key or answering.api_key
    return Judge(load_llm(spec, LLMSettings(base_url=base_url, api_key=key, temperature=0.0, max_tokens=8)))

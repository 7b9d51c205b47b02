"""The context budget: how many prompt tokens the evidence may take, and what to do when it takes more.

Pure: the token counter is passed in. The budget is the model's context minus the answer's `max_tokens`;
an estimate from another tokenizer (the embedder's, when the LLM cannot count) may be off by a few per
cent, so SAFETY of the budget is kept free.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from kotae.answer.prompt import build_messages

Count = Callable[[str], int]
SAFETY = 0.9
PER_MESSAGE = 8  # role markers and separators of a chat template
MIN_CHARS = 200  # a passage is never cut shorter than this


@dataclass(frozen=True)
class Fit:
    keep: tuple[int, ...]  # indices into the passages given, in the order given
    texts: tuple[str, ...]  # their texts (the last one possibly cut)
    tokens: int  # estimated prompt tokens of what is kept
    notice: str | None = None  # what was left out, for the user


def budget(context: int, max_tokens: int) -> int:
    return int((context - max_tokens) * SAFETY)


def prompt_tokens(question: str, passages: Sequence[tuple[str, str]], lang: str, count: Count) -> int:
    return sum(count(m["content"]) + PER_MESSAGE for m in build_messages(question, passages, lang))


def fewer(question: str, passages: Sequence[tuple[str, str]], lang: str, count: Count, limit: int) -> Fit:
    """The best passages (a prefix of `passages`, which come best first) whose prompt fits `limit` tokens.

    When even the best passage alone is too long it is cut to fit; the notice says so.
    """
    total = prompt_tokens(question, passages, lang, count)
    if total <= limit:
        return Fit(tuple(range(len(passages))), tuple(t for _, t in passages), total)
    keep = len(passages)
    while keep > 1 and prompt_tokens(question, passages[:keep], lang, count) > limit:
        keep -= 1
    anchor, text = passages[0] if keep == 1 else ("", "")
    if keep == 1 and prompt_tokens(question, passages[:1], lang, count) > limit:
        while len(text) > MIN_CHARS and prompt_tokens(question, [(anchor, text)], lang, count) > limit:
            text = text[: max(MIN_CHARS, int(len(text) * 0.8))]
        text += "…"
        used = prompt_tokens(question, [(anchor, text)], lang, count)
        return Fit((0,), (text,), used, f"the evidence (~{total} tokens) exceeds the LLM's context budget "
                                         f"({limit} tokens): asked with the best passage only, cut to "
                                         f"{len(text)} characters")
    used = prompt_tokens(question, passages[:keep], lang, count)
    return Fit(tuple(range(keep)), tuple(t for _, t in passages[:keep]), used,
               f"the evidence (~{total} tokens) exceeds the LLM's context budget ({limit} tokens): asked with "
               f"the {keep} best of {len(passages)} passages")

"""What a question names (a company, a product, a person), so the documents that name it come first.

Twenty quarterly filings read alike; "Intel's research and development expense in Q3 2023" was answered from
Microsoft's filing of that quarter, and 「Aozora LabsのPCは…」 from the other company's FAQ: neither e5 nor BM25 weighs
one name against the rest of the question. `asked` finds the names (`analyze.names`: capitalised runs and
acronyms in English, Sudachi's 固有名詞 in Japanese, plus Latin words with a capital in Japanese text, which Sudachi
does not tag); `first` moves the candidates whose documents name more of them ahead, each group in its order.
Pure functions: which document names what is the searcher's to look up.
"""
from __future__ import annotations

import re
import unicodedata

from kotae.search.analyze import analyze, names

__all__ = ["asked", "first"]

_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff]")
_LATIN_RUN = re.compile(r"[A-Za-z][A-Za-z0-9&.'’-]*(?:\s+[A-Za-z0-9][A-Za-z0-9&.'’-]*)*")


def asked(question: str) -> tuple[tuple[str, ...], ...]:
    """The names of a question, each as its search tokens (a name of two words is held where both are)."""
    found = [tuple(toks) for _, toks in names(question) if toks]
    text = unicodedata.normalize("NFKC", question)
    if _CJK.search(text):
        for m in _LATIN_RUN.finditer(text):
            if any(c.isupper() for c in m.group()) and (toks := analyze(m.group())):
                found.append(tuple(toks))
    return tuple(dict.fromkeys(found))


def first(ranked: list[tuple[int, float]], held: dict[int, int]) -> list[tuple[int, float]]:
    """The ranking with the chunks whose documents name more of the question's names (`held`: how many, per
    chunk) first, each group in its own order (scores unchanged); unchanged when every chunk's count is equal."""
    if len({held.get(r, 0) for r, _ in ranked}) < 2:
        return ranked
    return sorted(ranked, key=lambda p: -held.get(p[0], 0))

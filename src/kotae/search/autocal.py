"""The gate calibrates itself on every index, with no user step and no labelled questions.

Negatives: a bundled set of questions that no ordinary document collection answers (general knowledge,
how-to, opinions, details of fictional organisations; kotae/data/negatives, written for kotae, never taken
from a user's documents). Positives: pseudo-questions made from the index's own chunks without an LLM (a
contiguous span of one sentence, so the words and their order are the document's, but only part of the
sentence is asked: whole words where the text has spaces). `gate.calibrate` then picks the thresholds that refuse the most negatives while refusing
at most `max_false_refusal` of the positives, and the index stores them with how they were fitted.

The fit is redone when the corpus has grown or shrunk by `REFIT_GROWTH` since (margins grow with corpus
size); a gate the user fitted with `kotae calibrate` on labelled questions is never replaced.
"""
from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from importlib.resources import files

from kotae.chunking import detect_lang, split_sentences
from kotae.config import GateSettings
from kotae.search.gate import GateStats, calibrate, evaluate

POSITIVES = 200  # pseudo-questions per fit (fewer on a small index: one per sentence sampled)
MAX_FALSE_REFUSAL = 0.05
REFIT_GROWTH = 0.25  # refit when the chunk count moved by 25 % since the last fit
# A pseudo-question keeps SPAN of a sentence, and NOISE of its words (or characters) are swapped for words of
# the bundled negatives: real questions share only part of their vocabulary with the passage that answers
# them. Both were chosen on the "fit" half of the golden sets (bench/refusal.py), never the held-out half.
SPAN = 0.3
NOISE = 0.3
MIN_SPAN_CHARS = 12
META = "gate_calibration"


@dataclass(frozen=True)
class CalibrationState:
    """How an index's gate thresholds were chosen: "auto" (self-calibrated), "user" (`kotae calibrate`) or
    "default" (never fitted: an empty index)."""

    source: str
    chunks: int = 0  # the corpus size it was fitted at
    positives: int = 0
    negatives: int = 0
    refused_negatives: float = 0.0  # share of the bundled negatives the fitted gate refuses
    refused_positives: float = 0.0  # share of the pseudo-questions it refuses
    fitted_at: str = ""
    min_margin: float | None = None
    min_coverage: float | None = None
    max_absent: float | None = None

    def to_dict(self) -> dict[str, object]:
        return asdict(self)

    def describe(self) -> str:
        """One line for people."""
        if self.source == "default":
            return "gate not calibrated yet (default thresholds)"
        if self.source == "user":
            return "gate calibrated on your labelled questions" + (f" ({self.fitted_at})" if self.fitted_at else "")
        return (f"gate self-calibrated at {self.chunks} chunks: refuses {self.refused_negatives:.0%} of "
                f"{self.negatives} off-topic test questions, {self.refused_positives:.0%} of {self.positives} "
                f"questions made from the documents")


def negatives() -> list[str]:
    """The bundled off-topic questions, Japanese and English."""
    out: list[str] = []
    for name in ("ja.jsonl", "en.jsonl"):
        text = (files("kotae") / "data" / "negatives" / name).read_text(encoding="utf-8")
        out += [json.loads(line)["q"] for line in text.splitlines() if line.strip()]
    return out


def pseudo_questions(texts: Sequence[str], n: int = POSITIVES, seed: int = 0,
                     noise: Sequence[str] = ()) -> list[str]:
    """Up to `n` questions made from `texts` (chunk texts): from a sampled chunk, one sentence, from it a
    contiguous span of `SPAN` of its words (or characters, in unspaced text) at a random place, with `NOISE` of
    them replaced by pieces of `noise` texts. Pure and deterministic for a seed."""
    rng = random.Random(seed)
    # noise of the pseudo-question's own kind: English words into spaced text, Japanese text into unspaced
    # (a whole unspaced Japanese question taken as one "word" would turn a positive into a negative)
    pieces = [w for t in noise if detect_lang(t) == "en" for w in t.replace("?", " ").split() if len(w) > 2]
    unspaced = [t for t in noise if detect_lang(t) in ("ja", "mixed")]
    order = list(range(len(texts)))
    rng.shuffle(order)
    out: list[str] = []
    for i in order:
        text = texts[i]
        sentences = [" ".join(text[a:b].split()) for a, b in split_sentences(text)]
        sentences = [s for s in sentences if len(s) >= MIN_SPAN_CHARS / SPAN]
        if not sentences:
            continue
        s = rng.choice(sentences)
        words = s.split()
        if len(words) >= 6:  # space-separated text: a span of whole words
            size = max(3, int(len(words) * SPAN))
            start = rng.randrange(0, len(words) - size + 1)
            span = words[start : start + size]
            if pieces:
                span = [rng.choice(pieces) if rng.random() < NOISE else w for w in span]
            out.append(" ".join(span))
        else:  # Japanese and other unspaced text: a span of characters
            size = max(MIN_SPAN_CHARS, int(len(s) * SPAN))
            start = rng.randrange(0, len(s) - size + 1)
            q = s[start : start + size].strip()
            swap = int(len(q) * NOISE)
            if unspaced and swap:
                at = rng.randrange(0, len(q) - swap + 1)
                q = q[:at] + rng.choice(unspaced)[:swap] + q[at + swap :]
            out.append(q)
        if len(out) >= n:
            break
    return out


def languages(texts: Sequence[str]) -> dict[str, int]:
    """How many chunks are in each language (`detect_lang`): an English question over Japanese documents has
    no keyword evidence, which the gate must not read as "absent"."""
    return dict(Counter(detect_lang(t) for t in texts))


def state(meta: str | None) -> CalibrationState:
    """The calibration recorded in an index's meta (`META`)."""
    if not meta:
        return CalibrationState("default")
    return CalibrationState(**json.loads(meta))


def needs_fit(current: CalibrationState, chunks: int) -> bool:
    """Whether an index of `chunks` chunks should (re)fit its gate."""
    if current.source == "user" or chunks == 0:
        return False
    if current.source == "default":
        return True
    return abs(chunks - current.chunks) > REFIT_GROWTH * max(current.chunks, 1)


Signal = tuple[str, float, float, float, float]  # (language, margin, coverage, absent share, language share)


def fit(positive: Sequence[Sequence[float | str]], negative: Sequence[Sequence[float | str]], chunks: int,
        max_false_refusal: float = MAX_FALSE_REFUSAL) -> tuple[GateSettings, CalibrationState]:
    """Thresholds from the gate's evidence for pseudo-questions and for the bundled negatives: (margin,
    coverage) pairs or `Signal`s (their language is not used: one set of thresholds for all questions; a fit
    per language was tried and refused fewer off-topic questions, bench/README.md)."""
    samples = [(True, *_numbers(p)) for p in positive] + [(False, *_numbers(n)) for n in negative]
    settings, stats = calibrate(samples, max_false_refusal)
    return settings, _state(settings, stats, chunks)


def _numbers(signal: Sequence[float | str]) -> tuple[float, ...]:
    return tuple(float(x) for x in signal if not isinstance(x, str))


def _state(settings: GateSettings, stats: GateStats, chunks: int) -> CalibrationState:
    return CalibrationState(
        "auto", chunks, stats.answerable, stats.unanswerable,
        round(stats.recall, 4), round(stats.false_refusal_rate, 4),
        datetime.now(UTC).isoformat(timespec="seconds"), round(settings.min_margin, 6),
        round(settings.min_coverage, 6), round(settings.max_absent, 6))


def user_state(settings: GateSettings, stats: GateStats, chunks: int) -> CalibrationState:
    """The record of a `kotae calibrate` fit on the user's own labelled questions."""
    return CalibrationState("user", chunks, stats.answerable, stats.unanswerable, round(stats.recall, 4),
                            round(stats.false_refusal_rate, 4), datetime.now(UTC).isoformat(timespec="seconds"),
                            round(settings.min_margin, 6), round(settings.min_coverage, 6))


__all__ = ["META", "CalibrationState", "Signal", "evaluate", "fit", "languages", "needs_fit",
           "negatives", "pseudo_questions", "state", "user_state"]

"""The abstention gate: decide "not in the documents" from retrieval evidence, before any answer.

Three signals, each enough to answer when strong enough:
- top similarity: the best dense cosine, with a threshold per question language (e5 similarities bunch up
  around 0.8–0.9 and sit lower for English). Against general off-topic questions it separates best (AUC
  ja 0.983 / en 0.947 over the samples, margin 0.958 / 0.887: bench/gate_null.py, golden fit half);
- margin: the top dense similarity minus the mean similarity over the searched chunks;
- coverage: the IDF-weighted share of the question's content words found in one of the best passages.
A fourth refuses a question most of whose content words no document holds. The index calibrates itself
(kotae.search.autocal); `calibrate` fits margin, coverage and the absent cut on your labelled set
(answerable vs unanswerable), which `kotae calibrate` stores with the index.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from kotae.config import GateSettings

__all__ = ["GateDecision", "GateSettings", "GateStats", "absent_names", "absent_share", "absent_terms", "calibrate",
           "coverage", "decide", "evaluate", "explain", "margin_of"]


@dataclass(frozen=True)
class GateDecision:
    found: bool
    similarity: float
    margin: float
    coverage: float
    reason: str  # the numbers that decided
    explanation: str = ""  # why not found, in plain words in the question's language (refusals only)
    absent: float = 0.0  # share of the question's content words no chunk holds, even through a synonym
    content: int = 0  # how many content words the question has
    lang_share: float = 1.0  # share of the corpus' chunks in the question's language (1 when unknown)
    absent_names: tuple[str, ...] = ()  # names in the question (France, FIFA) that no document mentions
    lifted: float | None = None  # the similarity evidence over each document's null level (kotae.search.docnull)


def coverage(query_tokens: Sequence[str], passage_tokens: Sequence[Sequence[str]],
             df: Mapping[str, int], n_chunks: int) -> float:
    """IDF-weighted share of distinct query tokens present in the best single passage (0..1)."""
    terms = set(query_tokens)
    if not terms or not passage_tokens:
        return 0.0
    idf = {t: math.log(1 + (n_chunks + 1) / (df.get(t, 0) + 0.5)) for t in terms}
    total = sum(idf.values())
    return max(sum(idf[t] for t in terms & set(p)) for p in passage_tokens) / total


def absent_share(tokens: Sequence[str], df: Mapping[str, int],
                 synonyms: Sequence[tuple[int, int, bool]] = (), held_otherwise: frozenset[int] = frozenset(),
                 ) -> tuple[float, int]:
    """The share of the question's distinct content tokens (`tokens` in order, words that only ask left out)
    that no chunk holds, and how many there are. A token counts as held when a synonym entry covering it
    (`synonyms`: start, end, whether its group term occurs in the corpus) occurs: 給与 for salary; or when its
    position is in `held_otherwise` (a translation the corpus holds)."""
    held_by_synonym = {i for a, b, present in synonyms if present for i in range(a, b)} | held_otherwise
    seen: dict[str, bool] = {}
    for i, t in enumerate(tokens):
        if t in ASKING or t in HOLLOW:
            continue
        held = df.get(t, 0) > 0 or i in held_by_synonym
        seen[t] = seen.get(t, False) or held
    if not seen:
        return 0.0, 0
    return sum(not h for h in seen.values()) / len(seen), len(seen)


MIN_LANG_SHARE = 0.2  # absent words refuse only when the question's language is at least this share of the corpus
# A question answered on its dense similarity alone (neither margin nor coverage) refused when at least this share
# of its content words are in no document. Off (None): bench/refusal.py's "similarity alone" columns refuse more
# off-topic questions at 0.5, and 1–2 more answerable ones of the samples' fit halves, past the 5 % bound
# (colloquial words the documents say otherwise: お昼ごはん, therapist).
SIMILARITY_ABSENT: float | None = None
# ... and when at least this many of its content words are in no document, even through a synonym or a translation:
# a count, not a share. A short question in users' own words has one to three such words (「お昼ごはん」 for
# 社員食堂); a question about something else names several things the documents never do (「日本共産党の綱領草案
# では…」 over workplace rules). 4 chosen on the golden fit halves (bench/refusal.py "similarity alone: N absent
# words"): at 3 they lose an answerable question, at 4 none. None: off.
SIMILARITY_ABSENT_WORDS: int | None = 4
# The count for an English question (None: the same): one thing named in Japanese is often several tokens
# (日本共産党 → 日本, 共産, 党), in English one or two stems. 3: every answerable group of bench/refusal.py equal,
# fit and held-out, on all four corpora (SQuAD's 300 English questions among them); at 2 the golden-en fit half
# would lose one (bench/gate_passes.py: its similarity passes hold up to 2 absent words).
SIMILARITY_ABSENT_WORDS_EN: int | None = 3
# The same for a question passing on its dense margin: with this many content words in no document, only keyword
# coverage would answer it. Off (None): at 4 every fit half was equal and a few more off-topic questions were refused
# (bench/refusal.py "margin: any number of absent words"), but a colloquial held-out question passing on its margin
# (「子どもが熱を出したときに使える休みは年にいくつ？」) and a test question were refused.
MARGIN_ABSENT_WORDS: int | None = None


def decide(similarity: float, margin: float, cov: float, settings: GateSettings, *, absent: float = 0.0,
           lang_share: float = 1.0, lang: str = "ja", names: Sequence[str] = (),
           lifted: float | None = None, content: int = 0) -> GateDecision:
    """Answer when the dense margin, the keyword coverage or the top dense similarity (its threshold per
    question language: e5 similarities of English questions sit lower) is strong enough, unless most of the
    question's content words occur in no document at all. That last check is skipped when the corpus barely
    holds the question's language (an English question over Japanese documents finds its words nowhere, yet
    may be answered: the dense evidence decides alone). A question that names something no document does
    (`names`, found by the searcher with its own language rules) is refused first: documents that never
    mention France do not say what its capital is. `lifted` (the best similarity less its document's null level,
    kotae.search.docnull), when the index has those levels, stands for the top similarity in the last rule. Neither
    the margin nor the similarity answers when the content words no document holds (`absent` of the question's
    `content` words) reach `MARGIN_ABSENT_WORDS` / `SIMILARITY_ABSENT_WORDS` (`SIMILARITY_ABSENT_WORDS_EN` for an
    English question): then only keyword coverage does."""
    if names:
        return GateDecision(False, similarity, margin, cov,
                            f"names in no document: {', '.join(names)} (similarity margin {margin:.3f}, keyword "
                            f"coverage {cov:.2f})", absent_names=tuple(names))
    min_sim = settings.min_similarity_ja if lang in ("ja", "mixed") else settings.min_similarity_en
    if absent >= settings.max_absent and lang_share >= MIN_LANG_SHARE:
        return GateDecision(False, similarity, margin, cov,
                            f"{absent:.0%} of the question's content words in no document ≥ "
                            f"{settings.max_absent:.0%} (similarity margin {margin:.3f}, keyword coverage {cov:.2f})")
    absent_words = round(absent * content)
    absent_decides = lang_share >= MIN_LANG_SHARE  # as for the share above
    margin_absent = absent_decides and MARGIN_ABSENT_WORDS is not None and absent_words >= MARGIN_ABSENT_WORDS
    if margin >= settings.min_margin and not margin_absent:
        why = f"similarity margin {margin:.3f} ≥ {settings.min_margin}"
        return GateDecision(True, similarity, margin, cov, why)
    if cov >= settings.min_coverage:
        why = f"keyword coverage {cov:.2f} ≥ {settings.min_coverage}"
        return GateDecision(True, similarity, margin, cov, why)
    evidence = similarity if lifted is None else lifted
    what = "top similarity" if lifted is None else "similarity over its document's off-topic level"
    count = SIMILARITY_ABSENT_WORDS
    if lang == "en" and SIMILARITY_ABSENT_WORDS_EN is not None:
        count = SIMILARITY_ABSENT_WORDS_EN
    too_absent = absent_decides and ((SIMILARITY_ABSENT is not None and absent >= SIMILARITY_ABSENT)
                                     or (count is not None and absent_words >= count))
    if evidence >= min_sim and not too_absent:
        why = f"{what} {evidence:.3f} ≥ {min_sim}"
        return GateDecision(True, similarity, margin, cov, why, lifted=lifted)
    if evidence >= min_sim or margin_absent:  # dense evidence enough, but for the words no document holds
        return GateDecision(False, similarity, margin, cov,
                            f"{absent:.0%} ({absent_words}) of the question's content words in no document, with only "
                            f"dense evidence (similarity margin {margin:.3f}, {what} {evidence:.3f}; keyword coverage "
                            f"{cov:.2f} < {settings.min_coverage})", lifted=lifted)
    sim_part = f", {what} {evidence:.3f} < {min_sim}" if min_sim <= 1 else ""
    return GateDecision(False, similarity, margin, cov,
                        f"similarity margin {margin:.3f} < {settings.min_margin} and "
                        f"keyword coverage {cov:.2f} < {settings.min_coverage}{sim_part}", lifted=lifted)


@dataclass(frozen=True)
class GateStats:
    """How the gate does on a labelled set; 'positive' = abstaining on an unanswerable question."""

    answerable: int
    unanswerable: int
    false_refusals: int  # answerable questions refused
    abstained: int  # unanswerable questions refused

    @property
    def recall(self) -> float:
        return self.abstained / self.unanswerable if self.unanswerable else 0.0

    @property
    def precision(self) -> float:
        refused = self.abstained + self.false_refusals
        return self.abstained / refused if refused else 0.0

    @property
    def false_refusal_rate(self) -> float:
        return self.false_refusals / self.answerable if self.answerable else 0.0


Sample = tuple[float, ...]  # (answerable, margin, coverage[, absent share, language share])


def _columns(samples: Sequence[Sample]) -> tuple[np.ndarray, ...]:
    a = np.array([bool(s[0]) for s in samples], dtype=bool)
    m = np.array([s[1] for s in samples], dtype=np.float64)
    c = np.array([s[2] for s in samples], dtype=np.float64)
    ab = np.array([s[3] if len(s) > 3 else 0.0 for s in samples], dtype=np.float64)
    ls = np.array([s[4] if len(s) > 4 else 1.0 for s in samples], dtype=np.float64)
    return a, m, c, ab, ls


def evaluate(samples: Sequence[Sample], settings: GateSettings) -> GateStats:
    """samples: (answerable, margin, coverage[, absent, lang_share]) per question."""
    refused = [not decide(0.0, s[1], s[2], settings, absent=s[3] if len(s) > 3 else 0.0,
                          lang_share=s[4] if len(s) > 4 else 1.0).found for s in samples]
    answerable = [bool(s[0]) for s in samples]
    return GateStats(
        answerable=sum(answerable), unanswerable=sum(not a for a in answerable),
        false_refusals=sum(r for r, a in zip(refused, answerable) if a),
        abstained=sum(r for r, a in zip(refused, answerable) if not a),
    )


ABSENT_CUTS = (1.01, 1.0, 0.9, 0.8, 0.7, 0.6, 0.5)  # candidate max_absent thresholds (1.01: the check is off)


def calibrate(samples: Sequence[Sample], max_false_refusal: float = 0.05,
              absent_cuts: Sequence[float] = ABSENT_CUTS) -> tuple[GateSettings, GateStats]:
    """The thresholds that abstain on the most unanswerable questions while refusing at most
    `max_false_refusal` of the answerable ones (ties: fewer false refusals, then lower thresholds).

    Every triple of candidate thresholds (each distinct margin and coverage, rounded to 4 places, and the
    absent-share cuts; only 1.01 for samples without absent shares) is tried; for one margin and absent
    threshold, the counts for all coverage thresholds come at once from sorted coverages."""
    answerable, margin, cov, absent, share = _columns(samples)
    n_answerable = int(answerable.sum())
    margins = sorted({round(float(m), 4) for m in margin} | {0.0})
    covers = sorted({round(float(c), 4) for c in cov} | {0.0, 1.01})
    cut_c = np.array([float(c) + 1e-6 for c in covers])
    cuts = absent_cuts if any(len(s) > 3 for s in samples) else (1.01,)
    best: tuple[tuple[float, ...], GateSettings] | None = None
    for a in cuts:
        forced = (absent >= a) & (share >= MIN_LANG_SHARE)
        forced_neg, forced_pos = int((forced & ~answerable).sum()), int((forced & answerable).sum())
        for m in margins:
            low = (margin < float(m) + 1e-6) & ~forced  # refused = margin below its threshold and coverage below
            abstained = forced_neg + np.searchsorted(np.sort(cov[low & ~answerable]), cut_c, side="left")
            refused = forced_pos + np.searchsorted(np.sort(cov[low & answerable]), cut_c, side="left")
            rate = refused / n_answerable if n_answerable else np.zeros(len(cut_c))
            ok = np.flatnonzero(rate <= max_false_refusal)
            if not len(ok):
                continue
            j = ok[np.lexsort((ok, refused[ok], -abstained[ok]))[0]]  # most abstained, fewest refused, lowest c
            key = (int(abstained[j]), -int(refused[j]), a, -m, -covers[j])
            if best is None or key > best[0]:
                best = (key, GateSettings(float(m) + 1e-6, float(covers[j]) + 1e-6, float(a)))
    s = best[1] if best is not None else GateSettings(0.0, 0.0, 1.01)  # None cannot happen: 0, 0 refuses nothing
    return s, evaluate(samples, s)


# Tokens that name nothing a document could lack: honorific affixes (お客さん → 御, 客, さん) and the hedge of
# 〜かもしれない (知れる). Left out of the absent-word share and count (a user's お客さん is not two missing words).
HOLLOW = frozenset({"御", "さん", "君", "ちゃん", "知れる"})
# Words that ask rather than name what is asked about (教えてください, explain): never "absent from the documents".
ASKING = frozenset({"下さる", "頂く", "いただく", "教える", "説明", "知る", "思う", "欲しい", "言う", "explain",
                    "tell", "describ", "know", "pleas", "list", "give", "show", "much", "mani", "often", "long",
                    "far", "全部", "全て", "すべて", "挙げる", "一覧"})


def absent_names(names: Sequence[tuple[str, Sequence[str]]], df: Mapping[str, int],
                 held: Callable[[Sequence[str]], bool] = lambda tokens: False) -> list[str]:
    """The names of `names` (as written, with their search tokens) that no chunk holds: none of their tokens
    has a document frequency and `held` (a synonym or translation the corpus holds) says no. Each once."""
    out = [w for w, tokens in names if tokens and not any(df.get(t, 0) > 0 for t in tokens) and not held(tokens)]
    return list(dict.fromkeys(out))


def absent_terms(question_words: Sequence[tuple[str, Sequence[str]]], df: Mapping[str, int],
                 limit: int = 4, held: frozenset[str] = frozenset()) -> list[str]:
    """The question's words (as written) that no chunk of the documents contains after normalisation: words
    whose every search token has no document frequency. Adjacent such pieces of Japanese text are joined
    (ワールド + カップ → ワールドカップ); the longest first, at most `limit`. A run whose every piece the documents
    hold through a synonym (`held`: ボーナス where they say 賞与) is not named; one with a piece they lack is, whole
    (社員旅行, though 旅行 is held as "travel")."""
    out: list[str] = []
    run = ""
    named = False  # the run has a piece the documents hold in no form
    for surface, tokens in [*question_words, ("", [])]:
        missing = bool(tokens) and all(df.get(t, 0) == 0 for t in tokens) and not set(tokens) <= ASKING | HOLLOW
        if missing and (not run or run[-1].isascii() == surface[:1].isascii()):
            glue = " " if run and surface.isascii() else ""  # English words apart, Japanese pieces joined
            run = f"{run}{glue}{surface}"
            named = named or not set(tokens) <= held
            continue
        if run and named:
            out.append(run.strip())
        run, named = (surface, not set(tokens) <= held) if missing else ("", False)
    seen = list(dict.fromkeys(out))
    return sorted(seen, key=lambda w: (-len(w), seen.index(w)))[:limit]


def explain(absent: Sequence[str], cov: float, lang: str, other: str | None = None) -> str:
    """Why the documents do not answer, for people: the words they never mention; else, when one of the closest
    passages is in the other language (`other`: its file), that asking in that language may find it (the gate
    has no keyword evidence across languages, and e5 rates them lower); else how little of the question the
    closest passage holds."""
    ja = lang in ("ja", "mixed")
    if not absent and other:
        if ja:
            return f"近い箇所の一つは英語の資料（{other}）にありますが、答えとするには確かさが足りません。英語で質問すると見つかることがあります"
        return (f"One of the closest passages is in a Japanese document ({other}), not close enough to answer from; "
                "asking in Japanese may find it.")
    if absent:
        if ja:
            return "資料には" + "".join(f"「{w}」" for w in absent) + "についての記載がありません"
        names = ", ".join(f'"{w}"' for w in absent)
        return f"The documents never mention {names}."
    if ja:
        return f"資料にこの質問に答える箇所が見つかりませんでした（最も近い箇所にも質問の語の{cov:.0%}しかありません）"
    return f"No passage of the documents answers this (the closest one holds only {cov:.0%} of the question's words)."


def margin_of(similarities: np.ndarray) -> float:
    """Top similarity minus the mean similarity (0 for no chunks)."""
    return float(similarities.max() - similarities.mean()) if len(similarities) else 0.0

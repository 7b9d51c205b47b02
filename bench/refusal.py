"""Does 「わからない」 work on documents nobody tuned for? Off-topic refusal and false refusals of the gate, with
its default thresholds and self-calibrated (kotae/search/autocal.py), side by side on four corpora.

    python bench/refusal.py [--shared ../shared/data] [--limit 300]

Corpora and questions (none of them is among the bundled negatives the self-calibration fits on):
- samples: samples/docs. Answerable: the golden sets' answerable questions, reported apart for the two halves
  of a fixed split (`split_of`: the "fit" half may be used to choose a knob, the "held-out" half never is).
  Off-topic: the golden sets' unanswerable questions, and questions of other data sets (JSQuAD, SQuAD 2.0,
  SciFact claims).
- samples+real: samples/docs plus the real PDFs, DOCX and CSVs of ../shared/data/samples; the same questions.
- jsquad-half: the JSQuAD paragraphs of half the articles (by title); answerable: questions about them;
  off-topic: questions about the other half's articles (same style, other topics) and SciFact claims.
- squad2-half: the same with SQuAD 2.0; plus its unanswerable questions on the indexed paragraphs (written to be
  adversarially close to them): the issue's target there is ≥ 0.60 refused at ≤ 0.10 false refusals.
Writes bench/results/refusal.{json,md}.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import time
from collections.abc import Iterator
from dataclasses import replace

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import machine, write

from kotae import Kotae, Record
from kotae.chunking import lang as lang_module
from kotae.config import Settings
from kotae.eval import load_golden
from kotae.search import autocal, docnull, hubness
from kotae.search import gate as gate_module
from kotae.search import searcher as searcher_module
from kotae.search.gate import GateSettings, calibrate, decide

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CACHE = os.path.join(ROOT, ".kotae-bench", "refusal")


def split_of(item_id: str) -> str:
    """A fixed half of the golden questions for choosing knobs ("fit"), the other never used so ("held-out")."""
    return "fit" if int(hashlib.sha1(item_id.encode()).hexdigest(), 16) % 2 == 0 else "held-out"


def jsonl(path: str) -> list[dict]:
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def halves(folder: str) -> tuple[list[dict], set[str], set[str]]:
    """The corpus, and its paragraph ids split in two halves by article title."""
    corpus = jsonl(os.path.join(folder, "corpus.jsonl"))
    titles = sorted({d["title"] for d in corpus})
    left = {t for t in titles if int(hashlib.sha1(t.encode()).hexdigest(), 16) % 2 == 0}
    a = {d["_id"] for d in corpus if d["title"] in left}
    return corpus, a, {d["_id"] for d in corpus} - a


def qrels(folder: str) -> dict[str, str]:
    """query id → its (first) relevant paragraph id."""
    path = os.path.join(folder, "qrels")
    path = os.path.join(path, os.listdir(path)[0]) if os.path.isdir(path) else path
    out: dict[str, str] = {}
    with open(path, encoding="utf-8") as f:
        for line in f.read().splitlines()[1:]:
            q, c, *_ = line.split("\t")
            out.setdefault(q, c)
    return out


def probes(shared: str, limit: int) -> dict[str, list[str]]:
    """Questions of other data sets, used as off-topic probes on the sample documents."""
    out = {}
    js = jsonl(os.path.join(shared, "jsquad-valid", "queries.jsonl"))
    out["jsquad"] = [q["text"] for q in js[:: max(1, len(js) // limit)][:limit]]
    sq = [q for q in jsonl(os.path.join(shared, "squad2-dev-half", "queries.jsonl"))
          if not q["metadata"]["is_impossible"]]
    out["squad2"] = [q["text"] for q in sq[:: max(1, len(sq) // limit)][:limit]]
    sf = jsonl(os.path.join(shared, "scifact", "queries-train.jsonl"))
    out["scifact"] = [q["text"] for q in sf[:: max(1, len(sf) // limit)][:limit]]
    return out


# choices measured here against another setting: (module, constant, value; None: the boolean flipped)
EXPERIMENTS = {"document null levels": (docnull, "ALPHA", 0.0),
               "document null levels in full": (docnull, "ALPHA", 1.0),
               "absent words across languages": (searcher_module, "ABSENT_TRANSLATED", None),
               "translations held by the closest passages": (searcher_module, "ABSENT_TRANSLATED_NEAR", None),
               "fusion coverage of English questions only": (searcher_module, "FUSION_COVERAGE_SOURCES", ("en",)),
               "gate translations when the closest passage is in the other language": (
                   searcher_module, "GATE_TRANSLATIONS_OTHER_TOP", None),
               "similarity alone: absent ≥ 0.5": (gate_module, "SIMILARITY_ABSENT", 0.5),
               "similarity alone: absent ≥ 0.34": (gate_module, "SIMILARITY_ABSENT", 0.34),
               "similarity alone: absent ≥ 0.25": (gate_module, "SIMILARITY_ABSENT", 0.25),
               "similarity alone: 3 absent words": (gate_module, "SIMILARITY_ABSENT_WORDS", 3),
               "similarity alone: any number of absent words": (gate_module, "SIMILARITY_ABSENT_WORDS", 1000),
               "similarity alone: 5 absent words": (gate_module, "SIMILARITY_ABSENT_WORDS", 5),
               "honorifics and hedges counted as words": (gate_module, "HOLLOW", frozenset()),
               "similarity alone: 4 absent words in English": (gate_module, "SIMILARITY_ABSENT_WORDS_EN", 4),
               "margin: 4 absent words": (gate_module, "MARGIN_ABSENT_WORDS", 4),
               "margin: 5 absent words": (gate_module, "MARGIN_ABSENT_WORDS", 5),
               "margin within the top chunk's language": (searcher_module, "LANGUAGE_MARGIN", None),
               "similarity quantile": (autocal, "Q_SIMILARITY", 0.8),
               "romanised Japanese names": (searcher_module, "ROMANISED_NAMES", None),
               "margin of the other language's best chunk": (searcher_module, "OTHER_LANGUAGE_MARGIN", None),
               "file names held": (searcher_module, "FILE_NAMES", None),
               "synonyms inside longer entries": (searcher_module, "SYNONYMS_INSIDE", None),
               "gate coverage with synonyms": (searcher_module, "GATE_COVERAGE_SYNONYMS", None),
               "hubness": (hubness, "corrected", lambda dense, found, weight: list(dense)),
               "contents behind passages": ("search", "navigation_last", None),  # "search": a search setting
               "dates first": ("search", "dates_first", None),
               "hiragana questions Japanese": (lang_module, "QUESTION_HIRAGANA", None),
               "figures as similarity evidence": (searcher_module, "GATE_FIGURE_SHARE", 2.0)}


class Flip:
    """A search setting read and set like a module constant (the settings are frozen: each set replaces them)."""

    def __init__(self, searcher) -> None:  # type: ignore[no-untyped-def]
        object.__setattr__(self, "searcher", searcher)

    def __getattr__(self, name: str):  # type: ignore[no-untyped-def]
        return getattr(self.searcher.settings, name)

    def __setattr__(self, name: str, value) -> None:  # type: ignore[no-untyped-def]
        self.searcher.settings = replace(self.searcher.settings, **{name: value})


def rate(flags: list[bool]) -> float | None:
    return round(sum(flags) / len(flags), 3) if flags else None


def measure(k: Kotae, groups: dict[str, tuple[bool, list[str]]]) -> dict:
    """Self-calibrate `k` afresh, then score each group of questions with the default and fitted thresholds
    (with the absent-word check)."""
    t0 = time.perf_counter()
    state = k.self_calibrate(force=True)
    fit_s = time.perf_counter() - t0
    out: dict = {"chunks": state.chunks if state else None, "calibration": state.to_dict() if state else None,
                 "calibration_seconds": round(fit_s, 1), "groups": {}}
    # the previous design, side by side: thresholds that refuse the most negatives within 5 % of the pseudo-questions
    texts = [t for _, t in k.store.chunk_texts()]
    neg = autocal.negatives()
    pos = k._signals(autocal.pseudo_questions(texts, noise=neg))
    nsig = k._signals(neg)
    previous, _ = calibrate([(True, *p[1:]) for p in pos] + [(False, *n[1:]) for n in nsig], 0.05)
    # an experiment beside the shipped gate: the margin threshold per question language (each the Q_RESCUE
    # quantile of that language's negatives), everything else as fitted
    fitted_now = k.searcher.gate_settings()
    per_lang = {la: replace(fitted_now, min_margin=float(np.quantile([n[1] for n in nsig if n[0] == la],
                                                                      autocal.Q_RESCUE)) + 1e-6)
                for la in ("ja", "en") if sum(n[0] == la for n in nsig) >= autocal.MIN_NULL}
    out["margin_per_language"] = {la: round(g.min_margin, 6) for la, g in per_lang.items()}
    for name, (answerable, questions) in groups.items():
        signals = k._signals(questions)
        row = {"n": len(questions), "answerable": answerable}
        default = [not decide(sim, m, c, GateSettings(), lang=lang).found for lang, m, c, _, _, sim, *_ in signals]
        fitted = k.searcher.gate_settings()
        auto = [not decide(sim, m, c, fitted, absent=a, lang_share=ls, lang=lang, content=n).found
                for lang, m, c, a, ls, sim, _, n in signals]
        before = [not decide(sim, m, c, previous, absent=a, lang_share=ls, lang=lang, content=n).found
                  for lang, m, c, a, ls, sim, _, n in signals]
        # the names rule (search.absent_names) on top of the self-calibrated thresholds
        named = [r or s[6] > 0 for r, s in zip(auto, signals, strict=True)]
        lang_margin = [not decide(sim, m, c, per_lang.get(lang, fitted), absent=a, lang_share=ls, lang=lang,
                              content=n).found or nm > 0 for lang, m, c, a, ls, sim, nm, n in signals]
        row["names+lang_margin"] = rate(lang_margin)
        row["default"], row["auto"] = rate(default), rate(auto)  # refused share: false refusals if answerable
        row["previous"], row["names"] = rate(before), rate(named)
        if answerable:  # what the names rule refuses wrongly, to read
            row["refused_by_names"] = [q for q, r, s in zip(questions, auto, signals, strict=True) if s[6] and not r]
        out["groups"][name] = row
    # experiments: each choice of EXPERIMENTS set the other way, the gate refitted with it, the names rule on top,
    # as the shipped column
    for label, (module, name, value) in EXPERIMENTS.items():
        if module == "search":  # a search setting: the searcher's own settings, flipped
            module = Flip(k.searcher)
        saved = getattr(module, name)
        setattr(module, name, (not saved) if value is None else value)
        try:
            k.self_calibrate(force=True)
            fitted = k.searcher.gate_settings()
            for group, (_, questions) in groups.items():
                out["groups"][group][label] = rate(
                    [not decide(sim, m, c, fitted, absent=a, lang_share=ls, lang=lang,
                                content=n).found or nm > 0
                     for lang, m, c, a, ls, sim, nm, n in k._signals(questions)])
            value = getattr(module, name)
            out.setdefault("experiments", {})[label] = (False if callable(value)  # a function: off
                                                       else sorted(value) if isinstance(value, frozenset) else value)
        finally:
            setattr(module, name, saved)
            k.self_calibrate(force=True)
    return out


USERS = ("golden-users-ja", "golden-users-en", "golden-users2-ja", "golden-users2-en", "golden-users3-ja",
         "golden-users3-en", "golden-users4-en", "golden-users5-ja")


def golden_groups() -> dict[str, tuple[bool, list[str]]]:
    items = [it for name in ("golden-ja.jsonl", "golden-en.jsonl") for it in load_golden(os.path.join(ROOT, "samples", name))]
    groups: dict[str, tuple[bool, list[str]]] = {}
    for part in ("fit", "held-out"):
        for lang in ("ja", "en"):
            answerable = [it.question for it in items if it.answerable and split_of(it.id) == part and it.id.startswith(lang)]
            groups[f"golden-{lang} answerable ({part})"] = (True, answerable)
    # the users' sets (over samples/docs too) carry their own split
    users = [u for name in USERS for u in jsonl(os.path.join(ROOT, "samples", f"{name}.jsonl"))]
    for part in ("fit", "held-out"):
        groups[f"golden-users* answerable ({part})"] = (True, [u["question"] for u in users
                                                               if u.get("answerable", True) and u["split"] == part])
    groups["golden unanswerable (off-topic)"] = (False, [it.question for it in items if not it.answerable]
                                                 + [u["question"] for u in users if not u.get("answerable", True)])
    return groups


def real_groups() -> dict[str, tuple[bool, list[str]]]:
    """bench/golden/users-real.jsonl's answerable questions (over the real files of the samples + real index),
    per its own split: Japanese and English questions over real documents, some asked across languages; and
    users-real2.jsonl's answerable and unanswerable ones (a test set, written after the choices it reports on)."""
    items = jsonl(os.path.join(ROOT, "bench", "golden", "users-real.jsonl"))
    test = jsonl(os.path.join(ROOT, "bench", "golden", "users-real2.jsonl"))  # a test set: never used for a choice
    return {**{f"users-real answerable ({part})": (True, [u["question"] for u in items
                                                          if u.get("answerable", True) and u["split"] == part])
               for part in ("fit", "held-out")},
            "users-real2 answerable (test)": (True, [u["question"] for u in test if u.get("answerable", True)]),
            "users-real2 unanswerable (test)": (False, [u["question"] for u in test if not u.get("answerable", True)])}


def open_index(name: str) -> Kotae:
    return Kotae.open(os.path.join(CACHE, name), settings=Settings())


def corpora(shared: str, limit: int, only: list[str] | None) -> Iterator[tuple[str, Kotae, dict[str, tuple[bool, list[str]]]]]:
    """(name, opened index, question groups) for each corpus, indexing it first (cached in CACHE)."""
    probe = probes(shared, limit)
    off = {f"{name} questions (off-topic)": (False, qs) for name, qs in probe.items()}
    want = set(only or ["samples", "samples+real", "jsquad-half", "squad2-half"])
    if "samples" in want:
        k = open_index("samples")
        k.index([os.path.join(ROOT, "samples", "docs")])
        yield "samples", k, {**golden_groups(), **off}
    if "samples+real" in want:
        k = open_index("samples-real")
        real = [os.path.join(shared, "samples", s) for s in ("docling", "unstructured", "pdfminer")]
        k.index([os.path.join(ROOT, "samples", "docs"), *real])
        yield "samples+real", k, {**golden_groups(), **real_groups(), **off}
    for name, folder, other in (("jsquad-half", "jsquad-valid", "scifact"), ("squad2-half", "squad2-dev-half", "scifact")):
        if name not in want:
            continue
        path = os.path.join(shared, folder)
        corpus, a, b = halves(path)
        gold = qrels(path) if folder == "jsquad-valid" else {}
        queries = jsonl(os.path.join(path, "queries.jsonl"))

        def para(q: dict, gold: dict[str, str] = gold) -> str | None:
            return q.get("metadata", {}).get("gold_passage") or gold.get(q["_id"])

        possible = [q for q in queries if not q.get("metadata", {}).get("is_impossible")]
        inside = [q["text"] for q in possible if para(q) in a]
        outside = [q["text"] for q in possible if para(q) in b]
        step = lambda xs: xs[:: max(1, len(xs) // limit)][: limit]
        groups = {"answerable (indexed articles)": (True, step(inside)),
                  "other articles' questions (off-topic)": (False, step(outside)),
                  f"{other} questions (off-topic)": (False, probe[other])}
        if folder == "squad2-dev-half":
            with open(os.path.join(path, "unanswerable.tsv"), encoding="utf-8") as f:
                unans = dict(r.split("\t")[:2] for r in f.read().splitlines()[1:])
            impossible = [q["text"] for q in queries if q["_id"] in unans and unans[q["_id"]] in a]
            groups["SQuAD 2.0 unanswerable on indexed paragraphs"] = (False, step(impossible))
        k = open_index(name)
        if not k.documents():
            k.index_records([Record(d["_id"], f"{d['title']}\n{d['text']}", d["title"]) for d in corpus
                             if d["_id"] in a], name)
        yield name, k, groups


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--shared", default=os.path.join(ROOT, "..", "shared", "data"))
    ap.add_argument("--limit", type=int, default=300, help="questions per probe set")
    ap.add_argument("--only", action="append", help="corpora to run (default all)")
    ap.add_argument("--experiments", help="comma-separated labels of EXPERIMENTS to run (default all)")
    ap.add_argument("--out", default="refusal", help="results name under bench/results (default refusal)")
    args = ap.parse_args()
    if args.experiments:
        keep = args.experiments.split(",")
        for label in [x for x in EXPERIMENTS if x not in keep]:
            del EXPERIMENTS[label]
    results = {}
    for name, k, groups in corpora(args.shared, args.limit, args.only):
        with k:
            results[name] = measure(k, groups)

    lines = []
    for corpus, r in results.items():
        c = r["calibration"] or {}
        lines += [(f"### {corpus}: {r['chunks']} chunks; self-calibration {r['calibration_seconds']} s "
                   f"(answers at margin ≥ {c.get('min_margin')}, coverage ≥ {c.get('min_coverage')} or top similarity ≥ "
                   f"{c.get('min_similarity_ja')} ja / {c.get('min_similarity_en')} en)"), "",
                  "| questions | n | kind | refused, default gate | refused, previous self-calibration | refused, self-calibrated | refused, self-calibrated + names | + names, margin per language | "
                  + " | ".join(f"+ names, {label} {'on' if v is True else 'off' if v is False else v}"
                               for label, v in r["experiments"].items()) + " |",
                  "|---|---|---|---|---|---|---|---|" + "---|" * len(EXPERIMENTS)]
        for g, row in r["groups"].items():
            kind = "answerable: refusing is wrong" if row["answerable"] else "refusing is right"
            lines.append(f"| {g} | {row['n']} | {kind} | {row['default']} | {row.get('previous')} | {row['auto']} | "
                         f"{row.get('names')} | {row.get('names+lang_margin')} | "
                         + " | ".join(str(row.get(label)) for label in EXPERIMENTS) + " |")
        lines.append("")
    m = machine()
    header = (f"Gate refusals on four corpora, default thresholds beside self-calibrated ones (fitted on the bundled "
              f"negatives and pseudo-questions from each index; never on these questions). Model: the default "
              f"engine. Machine: {m['cpu']}, {m['cores']} cores. Command: `python bench/refusal.py {' '.join(sys.argv[1:])}`.\n\n")
    write(args.out, {"machine": m, "results": results}, header + "\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The gate's top similarity against a null per document (issue #14): does it refuse fewer answerable questions?

    python bench/gate_docnull.py [--shared ../shared/data] [--only samples+real]   # → results/gate_docnull.{json,md}

(bench/refusal.py's four corpora, indexed into .kotae-bench/refusal/ on the first run; ~6 min on 2 cores.)

bench/gate_hubness.py found the gate's false refusals of users' questions about the real files coming from hub
documents setting the one similarity threshold: a FAQ that sits near every question pushes the bundled negatives'
similarities up, and a niche document (a gazette, a card leaflet) asked in its own words is refused. Here each
document gets its own null: for each language, the bundled negatives' best similarity to that document's chunks,
summarised by its mean m_d (and spread s_d). A question scores max over documents of (its best similarity to the
document − m_d) ("mean"), or of that over s_d ("z"); the threshold is the q-quantile of the negatives' own
scores per language, as the shipped gate sets its similarity threshold. Margin, coverage, the absent-word cut and
the names rule stay as self-calibrated. Question groups as bench/refusal.py's (fit, held-out, users-real2 test;
off-topic probes pooled). "shipped" is the top similarity alone (the gate before kotae.search.docnull); choose on the
fit half.
"""
from __future__ import annotations

import argparse
import os
import sys
from dataclasses import replace

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import refusal
from common import machine, write

from kotae.config import GateSettings
from kotae.search import autocal
from kotae.search.gate import MIN_LANG_SHARE, decide

LANGS = ("ja", "en")


def per_document(sims: np.ndarray, doc_codes: np.ndarray, n_docs: int) -> np.ndarray:
    """(questions, documents): each question's best similarity to each document's chunks."""
    out = np.full((sims.shape[0], n_docs), -1.0)
    for d in range(n_docs):
        out[:, d] = sims[:, doc_codes == d].max(axis=1)
    return out


def lang_of(signals: list) -> np.ndarray:
    return np.array(["en" if s[0] == "en" else "ja" for s in signals])


def scores(signals: list, best: np.ndarray, null: dict[str, tuple[np.ndarray, np.ndarray]], design: str) -> np.ndarray:
    lang = lang_of(signals)
    out = np.zeros(len(signals))
    for la in LANGS:
        idx = lang == la
        if not idx.any():
            continue
        m, s = null[la]
        if design == "shipped":
            out[idx] = best[idx].max(axis=1)
        elif design.startswith("mean"):  # "mean0.5": half the document's null mean taken off
            alpha = float(design[4:] or 1)
            out[idx] = (best[idx] - alpha * m[None, :]).max(axis=1)
        elif design == "z":
            out[idx] = ((best[idx] - m[None, :]) / s[None, :]).max(axis=1)
    return out


def _majority(langs: list[str]) -> str:
    ja = sum(la in ("ja", "mixed") for la in langs)
    return "ja" if ja * 2 >= len(langs) else "en"


def pair_scores(signals: list, best: np.ndarray, null: dict, doc_lang: np.ndarray) -> dict[str, np.ndarray]:
    """Per document language: each question's best similarity over that language's documents less half their
    level (mean), -inf where the corpus has none."""
    lang = lang_of(signals)
    out = {L: np.full(len(signals), -np.inf) for L in LANGS}
    for la in LANGS:
        idx = lang == la
        m = null[la][0]
        for L in LANGS:
            cols = doc_lang == L
            if idx.any() and cols.any():
                out[L][idx] = (best[idx][:, cols] - 0.5 * m[None, cols]).max(axis=1)
    return out


def pair_thresholds(signals: list, best: np.ndarray, null: dict, doc_lang: np.ndarray,
                    let_through: float) -> dict[tuple[str, str], float]:
    """(question language, document language) → threshold: each pair's own quantile q', one q' per question
    language chosen so that the union lets `let_through` of the negatives through."""
    lang = lang_of(signals)
    sc = pair_scores(signals, best, null, doc_lang)
    out = {}
    for la in LANGS:
        idx = lang == la
        if not idx.any():
            continue
        for qq in np.linspace(0.5, 0.999, 200):
            t = {L: float(np.quantile(sc[L][idx][np.isfinite(sc[L][idx])], qq)) if np.isfinite(sc[L][idx]).any()
                 else 9.0 for L in LANGS}
            passed = np.zeros(idx.sum(), bool)
            for L in LANGS:
                passed |= sc[L][idx] >= t[L]
            if passed.mean() <= let_through:
                out.update({(la, L): t[L] for L in LANGS})
                break
    return out


def refused_pair(signals: list, best: np.ndarray, null: dict, doc_lang: np.ndarray,
                 t: dict[tuple[str, str], float], gate: GateSettings) -> list[bool]:
    sc = pair_scores(signals, best, null, doc_lang)
    out = []
    for i, (s, la) in enumerate(zip(signals, lang_of(signals), strict=True)):
        d = decide(0.0, s[1], s[2], gate, absent=s[3], lang_share=s[4], lang=s[0])
        by_sim = any(sc[L][i] >= t.get((la, L), 9.0) for L in LANGS) and not (
            s[3] >= gate.max_absent and s[4] >= MIN_LANG_SHARE)
        out.append((not d.found and not by_sim) or s[6] > 0)
    return out


def refused(signals: list, values: np.ndarray, t: dict[str, float], gate: GateSettings) -> np.ndarray:
    """The self-calibrated gate (`gate`, its similarity leg off) with the similarity leg replaced: answered when
    the score reaches the language's threshold `t`."""
    out = []
    for s, v, la in zip(signals, values, lang_of(signals), strict=True):
        d = decide(0.0, s[1], s[2], gate, absent=s[3], lang_share=s[4], lang=s[0])
        by_sim = v >= t[la] and not (s[3] >= gate.max_absent and s[4] >= MIN_LANG_SHARE)
        out.append((not d.found and not by_sim) or s[6] > 0)
    return np.array(out)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shared", default=os.path.join(refusal.ROOT, "..", "shared", "data"))
    ap.add_argument("--limit", type=int, default=200)
    ap.add_argument("--designs", default="shipped,mean0.25,mean0.5,mean0.75,mean")
    ap.add_argument("--quantiles", default="0.65,0.7,0.75")
    ap.add_argument("--out", default="gate_docnull")
    ap.add_argument("--only", action="append", help="refusal.py's corpora to run (default all)")
    ap.add_argument("--pair", action="store_true", help="also: a threshold per (question language, document "
                    "language), one quantile for their union")
    args = ap.parse_args()
    rows = []
    for corpus, k, qgroups in refusal.corpora(args.shared, args.limit, args.only):
        k.self_calibrate(force=True)
        fitted = k.searcher.gate_settings()
        matrix = k.store.dense_matrix()
        vectors = matrix.vectors.astype(np.float32)
        docs, codes = np.unique(matrix.doc_ids.astype(str), return_inverse=True)
        groups = {"negatives": (False, autocal.negatives()), **qgroups}
        feats = {g: (answerable, k._signals(qs), per_document(k.embedder.queries(qs) @ vectors.T, codes, len(docs)))
                 for g, (answerable, qs) in groups.items() if qs}
        _, nsig, nbest = feats["negatives"]
        nlang = lang_of(nsig)
        null = {la: (nbest[nlang == la].mean(axis=0), nbest[nlang == la].std(axis=0) + 1e-6) for la in LANGS}

        leg_off = replace(fitted, min_similarity_ja=2.0, min_similarity_en=2.0)

        chunk_lang = k.store.chunk_languages()
        doc_lang = np.array([_majority([chunk_lang.get(int(r), "en") for r in matrix.rowids[codes == d]])
                             for d in range(len(docs))])
        if args.pair:
            for q in [float(x) for x in args.quantiles.split(",")]:
                t_pair = pair_thresholds(nsig, nbest, null, doc_lang, 1 - q)
                pooled = {}
                for g, (answerable, sig, best) in feats.items():
                    if g == "negatives":
                        continue
                    part = ("fit" if "(fit)" in g else "held-out" if "held-out" in g else "test" if "(test)" in g
                            else "answerable") if answerable else "close" if "SQuAD 2.0" in g else "off-topic"
                    pooled.setdefault(part, []).extend(refused_pair(sig, best, null, doc_lang, t_pair, leg_off))
                rows.append({"corpus": corpus, "chunks": len(vectors), "documents": len(docs), "design": "pair",
                             "q": q, **{p: round(float(np.mean(v)), 3) for p, v in pooled.items()}})
                print(rows[-1], flush=True)
        for design in args.designs.split(","):
            nvals = scores(nsig, nbest, null, design)
            for q in [float(x) for x in args.quantiles.split(",")]:
                t = {la: float(np.quantile(nvals[nlang == la], q)) if (nlang == la).sum() else 2.0 for la in LANGS}
                pooled: dict[str, list[bool]] = {}
                for g, (answerable, sig, best) in feats.items():
                    if g == "negatives":
                        continue
                    part = ("fit" if "(fit)" in g else "held-out" if "held-out" in g else "test" if "(test)" in g
                            else "answerable") if answerable else "close" if "SQuAD 2.0" in g else "off-topic"
                    pooled.setdefault(part, []).extend(refused(sig, scores(sig, best, null, design), t, leg_off))
                rows.append({"corpus": corpus, "chunks": len(vectors), "documents": len(docs), "design": design,
                             "q": q, **{p: round(float(np.mean(v)), 3) for p, v in pooled.items()}})
                print(rows[-1], flush=True)
    m = machine()
    parts = ["fit", "held-out", "test", "answerable", "off-topic", "close"]
    lines = [(f"The gate's similarity leg against a null per document (bench/gate_docnull.py), on bench/refusal.py's "
              f"corpora. 'shipped': today's top similarity (quantile 0.7 is today's); 'meanA': max over documents of "
              f"similarity − A × the negatives' mean best similarity to that document ('mean': A = 1); 'z': "
              f"(similarity − that mean) over the negatives' spread. Thresholds: the quantile of the bundled negatives' "
              f"scores per language. Share refused: answerable questions (false refusals; fit, held-out, the "
              f"users-real2 test set, or a corpus' own questions), off-topic probes pooled ({args.limit} per probe set), "
              f"SQuAD 2.0's unanswerable questions on the indexed paragraphs ('close'). Machine: {m['cpu']}, "
              f"{m['cores']} cores. Command: `python bench/gate_docnull.py`.")]
    for corpus in dict.fromkeys(r["corpus"] for r in rows):
        mine = [r for r in rows if r["corpus"] == corpus]
        cols = [p for p in parts if p in mine[0]]
        lines += ["", f"### {corpus}: {mine[0]['chunks']} chunks, {mine[0]['documents']} documents", "",
                  "| design | quantile | " + " | ".join(cols) + " |", "|---|---|" + "---|" * len(cols)]
        lines += [f"| {r['design']} | {r['q']} | " + " | ".join(str(r[c]) for c in cols) + " |" for r in mine]
    write(args.out, {"machine": m, "rows": rows}, "\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Does sentence-level evidence separate answerable from same-genre off-topic questions better than the gate's
chunk-level signals? Per-question features over the refusal bench's corpora (bench/refusal.py: its builders and
index cache), for its question sets and for what a self-calibrating gate may fit on (the bundled negatives and
the pseudo-questions of kotae.search.autocal), then AUCs and rules fitted only on negatives + pseudo-questions.

    python bench/gate_sentences.py dump [--shared ../shared/data] [--limit 100] [--only samples ...]
    python bench/gate_sentences.py analyse

`dump` writes .kotae-bench/gate_sentences/<corpus>.jsonl (one row per question: group, answerable, features);
`analyse` reads them and writes bench/results/gate_sentences.{json,md}.

Features (per question, over the top-3 hits of a hybrid search, as the gate sees them):
- chunk level (the gate's): sim (top dense cosine), margin, cov (IDF-weighted share of the question's tokens in
  one of the top-3 chunks), absent (share of its content words in no chunk), lang_share;
- sentence level (new): s_sim (best cosine of the e5 query vector to the top-3 hits' sentences embedded as
  passages, as the extractive answer does), s_sim1 (the same within the first hit only), s_margin (s_sim minus
  the mean sentence cosine), s_cov (IDF-weighted share of the question's content words, a synonym entry
  counting for its group, in the single best sentence), s_cov2 (in the best window of 2 adjacent sentences),
  s_covbest (in the sentence of highest cosine), s_score (the extractive answer's best sentence score),
  type_ok (0 when the question asks for an answer type — kotae.answer.checks.asked_type — and no sentence
  holds one; else 1), s_gain (s_sim minus sim).
"""
from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import machine, write

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, ".kotae-bench", "gate_sentences")
CHUNK_FEATURES = ("sim", "margin", "cov", "absent")
SENTENCE_FEATURES = ("s_sim", "s_sim1", "s_margin", "s_cov", "s_cov2", "s_covbest", "s_score", "type_ok", "s_gain")


# --- dump ---------------------------------------------------------------------------------------------------
class Sentences:
    """Sentences of chunks and their passage vectors, embedded once per chunk."""

    def __init__(self, embedder) -> None:  # type: ignore[no-untyped-def]
        self.embedder = embedder
        self.memo: dict[str, tuple[list[str], np.ndarray, list[list[str]]]] = {}

    def of(self, rowid: str, text: str, heading) -> tuple[list[str], np.ndarray, list[list[str]]]:  # type: ignore[no-untyped-def]
        from kotae.answer import extractive
        from kotae.search.analyze import analyze

        if rowid not in self.memo:
            sents = [c.text for c in extractive.candidates([text], [heading])]
            vecs = self.embedder.passages(sents) if sents else np.zeros((0, 1), dtype=np.float32)
            self.memo[rowid] = (sents, np.asarray(vecs), [analyze(s) for s in sents])
        return self.memo[rowid]


def held(qtokens: list[str], spans: list[tuple[int, int, int]], tokens: list[str], syn) -> set[str]:  # type: ignore[no-untyped-def]
    """The question's tokens a text (its `tokens`) holds: the token itself, or a synonym entry of its group."""
    from kotae.search.synonyms import matches

    have = set(tokens)
    groups = {g for _, _, g in matches(tokens, syn, query=False)} if spans else set()
    out = {t for t in qtokens if t in have}
    out |= {qtokens[i] for a, b, g in spans if g in groups for i in range(a, b)}
    return out


def features(k, question: str, qvec: np.ndarray, sentences: Sentences) -> dict:  # type: ignore[no-untyped-def]
    from kotae.answer import checks, extractive
    from kotae.chunking import detect_lang
    from kotae.search.analyze import analyze
    from kotae.search.gate import ASKING
    from kotae.search.synonyms import matches, on_demand

    mode = k.settings.search.mode
    mode = "hybrid" if mode == "hybrid+rerank" else mode
    res = k.searcher.search(question, mode=mode, top_k=3, vector=qvec)
    g = res.gate
    lang = detect_lang(question)
    row = {"lang": "ja" if lang in ("ja", "mixed") else lang, "sim": g.similarity, "margin": g.margin,
           "cov": g.coverage, "absent": g.absent, "lang_share": g.lang_share}
    qtokens = analyze(question)
    syn = on_demand()
    spans = matches(qtokens, syn, query=True)
    content = [t for t in dict.fromkeys(qtokens) if t not in ASKING]
    df, n = k.store.document_frequencies(content) if content else ({}, 0)
    idf = {t: math.log(1 + (n + 1) / (df.get(t, 0) + 0.5)) for t in content}
    total = sum(idf.values()) or 1.0
    share = lambda toks: sum(idf[t] for t in held(qtokens, spans, toks, syn) if t in idf) / total  # noqa: E731
    sents, vecs, toks, src = [], [], [], []
    for i, h in enumerate(res.hits[:3]):
        s, v, t = sentences.of(h.chunk.id, h.chunk.text, h.chunk.heading)
        sents += s
        toks += t
        src += [i] * len(s)
        if len(s):
            vecs.append(v)
    if not sents:
        row.update({f: 0.0 for f in SENTENCE_FEATURES})
        row["type_ok"] = 1.0
        return row
    V = np.vstack(vecs)
    cos = V @ qvec
    covs = np.array([share(t) for t in toks])
    win = [covs[0]] + [share(toks[j - 1] + toks[j]) if src[j - 1] == src[j] else covs[j] for j in range(1, len(toks))]
    score = extractive.score(qvec, V, qtokens, toks, src, df, n)
    kind = checks.asked_type(question)
    row.update({
        "s_sim": float(cos.max()), "s_sim1": float(cos[np.array(src) == 0].max()) if 0 in src else 0.0,
        "s_margin": float(cos.max() - cos.mean()), "s_cov": float(covs.max()), "s_cov2": float(max(win)),
        "s_covbest": float(covs[int(cos.argmax())]), "s_score": float(score.max()),
        "type_ok": 0.0 if kind and not any(checks.holds(s, kind) for s in sents) else 1.0,
        "s_gain": float(cos.max()) - g.similarity, "asked": kind or "",
    })
    return row


def dump(shared: str, limit: int, only: list[str] | None) -> None:
    import refusal
    from kotae.search import autocal

    os.makedirs(OUT, exist_ok=True)
    for name, k, groups in refusal.corpora(shared, limit, only):
        with k:
            t0 = time.perf_counter()
            k.self_calibrate(force=True)  # the gate as bench/refusal.py measures it
            settings = k.searcher.gate_settings().to_dict()
            texts = [t for _, t in k.store.chunk_texts()]
            neg = autocal.negatives()
            sets = {"negatives (bundled)": (False, neg),
                    "pseudo-questions": (True, autocal.pseudo_questions(texts, noise=neg))}
            sets.update(groups)
            sentences = Sentences(k.embedder)
            rows = []
            for group, (answerable, questions) in sets.items():
                for q, vec in zip(questions, k.embedder.queries(questions), strict=True):
                    rows.append({"group": group, "answerable": answerable, "q": q,
                                 **features(k, q, np.asarray(vec), sentences)})
            path = os.path.join(OUT, f"{name}.jsonl")
            with open(path, "w", encoding="utf-8") as f:
                f.write(json.dumps({"corpus": name, "gate": settings, "chunks": len(texts),
                                    "seconds": round(time.perf_counter() - t0, 1)}, ensure_ascii=False) + "\n")
                f.writelines(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
            print(name, len(rows), f"{time.perf_counter() - t0:.0f} s", flush=True)


# --- analyse ------------------------------------------------------------------------------------------------
def auc(pos: np.ndarray, neg: np.ndarray) -> float | None:
    """P(a positive scores above a negative), ties half."""
    if not len(pos) or not len(neg):
        return None
    allv = np.concatenate([pos, neg])
    order = allv.argsort(kind="mergesort")
    ranks = np.empty(len(allv))
    sv = allv[order]
    i = 0
    while i < len(sv):  # average ranks of ties
        j = i
        while j + 1 < len(sv) and sv[j + 1] == sv[i]:
            j += 1
        ranks[order[i : j + 1]] = (i + j) / 2 + 1
        i = j + 1
    r = ranks[: len(pos)].sum()
    return round(float((r - len(pos) * (len(pos) + 1) / 2) / (len(pos) * len(neg))), 3)


def load() -> dict[str, tuple[dict, list[dict]]]:
    out = {}
    for name in ("samples", "samples+real", "jsquad-half", "squad2-half"):
        path = os.path.join(OUT, f"{name}.jsonl")
        if os.path.exists(path):
            with open(path, encoding="utf-8") as f:
                lines = [json.loads(x) for x in f]
            out[name] = (lines[0], lines[1:])
    return out


def gate_refuses(r: dict, s: dict) -> bool:
    from kotae.search.gate import GateSettings, decide

    return not decide(r["sim"], r["margin"], r["cov"], GateSettings(**s), absent=r["absent"],
                      lang_share=r["lang_share"], lang=r["lang"]).found


def null(rows: list[dict], feature: str, q: float, lang: str | None = None) -> float:
    xs = [r[feature] for r in rows if lang is None or r["lang"] == lang]
    return float(np.quantile(xs, q)) if len(xs) >= 20 else -1e9


# Rules: each fitted on the corpus' bundled negatives (and pseudo-questions) only; `refuses(row)`.
def rules(neg: list[dict], pos: list[dict], gate: dict):  # type: ignore[no-untyped-def]
    out = {"gate (self-calibrated today)": lambda r: gate_refuses(r, gate)}
    for f, q in (("s_sim", 0.7), ("s_sim", 0.9), ("s_score", 0.7), ("s_score", 0.9), ("s_cov", 0.9), ("s_cov2", 0.9)):
        th = {lang: null(neg, f, q, lang) for lang in ("ja", "en")}
        out[f"{f} ≥ q{q} of negatives (per language)"] = lambda r, f=f, th=th: r[f] < th.get(r["lang"], -1e9)
    # the gate with its similarity rescue replaced by the best-sentence similarity at the same quantile
    th = {lang: null(neg, "s_sim", 0.7, lang) for lang in ("ja", "en")}
    no_sim = {**gate, "min_similarity_ja": 1.01, "min_similarity_en": 1.01}
    out["gate, similarity rescue → s_sim q0.7"] = lambda r: gate_refuses(r, no_sim) and r["s_sim"] < th[r["lang"]]
    # the gate, and also refuse when the best sentence is weak (s_score under q0.5 of negatives)
    th5 = {lang: null(neg, "s_score", 0.5, lang) for lang in ("ja", "en")}
    out["gate and s_score ≥ q0.5 of negatives"] = lambda r: gate_refuses(r, gate) or r["s_score"] < th5[r["lang"]]
    # a logistic regression on negatives vs pseudo-questions (standardised), threshold: 5 % of pseudo-questions
    for name, feats in (("chunk", CHUNK_FEATURES), ("chunk+sentence", CHUNK_FEATURES + SENTENCE_FEATURES)):
        w, mu, sd, cut = logistic(pos, neg, feats)
        out[f"logistic {name} (neg vs pseudo, ≤5 % pseudo refused)"] = (
            lambda r, w=w, mu=mu, sd=sd, cut=cut, feats=feats: float(((np.array([r[f] for f in feats]) - mu) / sd) @ w[1:] + w[0]) < cut)
    return out


def logistic(pos: list[dict], neg: list[dict], feats: tuple[str, ...], steps: int = 3000, l2: float = 1e-2):
    X = np.array([[r[f] for f in feats] for r in pos + neg], dtype=float)
    y = np.array([1.0] * len(pos) + [0.0] * len(neg))
    mu, sd = X.mean(0), X.std(0) + 1e-9
    Z = np.hstack([np.ones((len(X), 1)), (X - mu) / sd])
    w = np.zeros(Z.shape[1])
    for _ in range(steps):
        p = 1 / (1 + np.exp(-(Z @ w)))
        grad = Z.T @ (p - y) / len(y) + l2 * np.r_[0, w[1:]]
        w -= 0.5 * grad
    zp = Z[: len(pos)] @ w
    return w, mu, sd, float(np.quantile(zp, 0.05))


def analyse() -> None:
    data = load()
    feats = CHUNK_FEATURES + SENTENCE_FEATURES
    result: dict = {}
    lines: list[str] = []
    for corpus, (head, rows) in data.items():
        groups: dict[str, list[dict]] = {}
        for r in rows:
            groups.setdefault(r["group"], []).append(r)
        neg, pos = groups["negatives (bundled)"], groups["pseudo-questions"]
        answerable = [r for g, rs in groups.items() if g != "pseudo-questions" for r in rs if r["answerable"]]
        off = {g: rs for g, rs in groups.items() if not rs[0]["answerable"] and g != "negatives (bundled)"}
        # AUC: answerable (bench) vs each off-topic group, and pseudo vs negatives (what a fit sees)
        aucs: dict[str, dict[str, float | None]] = {}
        cols = {"pseudo vs negatives": (pos, neg), **{f"answerable vs {g}": (answerable, rs) for g, rs in off.items()}}
        for f in feats:
            aucs[f] = {c: auc(np.array([r[f] for r in a]), np.array([r[f] for r in b])) for c, (a, b) in cols.items()}
        lines += [f"### {corpus}: {head['chunks']} chunks", "",
                  f"AUC (higher = the feature is higher for the first set; answerable = {len(answerable)} bench questions "
                  "the corpus answers)", "",
                  "| feature | " + " | ".join(cols) + " |", "|---" * (len(cols) + 1) + "|"]
        lines += [f"| {f} | " + " | ".join(str(aucs[f][c]) for c in cols) + " |" for f in feats]
        lines.append("")
        # rules fitted on negatives + pseudo-questions only
        rr = rules(neg, pos, head["gate"])
        table: dict[str, dict[str, float]] = {}
        for rname, refuses in rr.items():
            table[rname] = {g: round(sum(map(refuses, rs)) / len(rs), 3) for g, rs in groups.items()}
        names = list(groups)
        lines += ["Refused share per question set (rules fitted on this corpus' negatives and pseudo-questions only; "
                  "the first two columns are what they were fitted on)", "",
                  "| rule | " + " | ".join(f"{g} ({'answerable' if groups[g][0]['answerable'] else 'off-topic'}, "
                                            f"n={len(groups[g])})" for g in names) + " |",
                  "|---" * (len(names) + 1) + "|"]
        lines += [f"| {rn} | " + " | ".join(str(t[g]) for g in names) + " |" for rn, t in table.items()]
        lines.append("")
        result[corpus] = {"chunks": head["chunks"], "gate": head["gate"], "auc": aucs, "rules": table}
    m = machine()
    header = ("Sentence-level evidence for the abstention gate (issue 14): per-feature AUCs and rules fitted only on "
              "the bundled negatives and each index's pseudo-questions, scored on bench/refusal.py's question sets. "
              f"Machine: {m['cpu']}, {m['cores']} cores. Commands: `python bench/gate_sentences.py dump --limit 100` "
              "then `python bench/gate_sentences.py analyse`.\n\n")
    write("gate_sentences", {"machine": m, "results": result}, header + "\n".join(lines))


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("what", choices=("dump", "analyse"))
    ap.add_argument("--shared", default=os.path.join(ROOT, "..", "shared", "data"))
    ap.add_argument("--limit", type=int, default=100, help="questions per probe set")
    ap.add_argument("--only", action="append", help="corpora to dump (default all)")
    args = ap.parse_args()
    if args.what == "dump":
        dump(args.shared, args.limit, args.only)
    else:
        analyse()
    return 0


if __name__ == "__main__":
    sys.exit(main())

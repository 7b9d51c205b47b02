"""The gate's top similarity corrected for hubness (CSLS-style), against the shipped similarity (issue #14).

    python bench/refusal.py --only samples+real --limit 200     # builds the index this reads (once)
    python bench/gate_hubness.py [--shared ../shared/data]      # → bench/results/gate_hubness.{json,md}

Some chunks (a FAQ's introduction, the workplace rules) sit near many questions of any kind; a similarity to one
of them says less than the same similarity to a chunk nothing else comes near. Hubness correction (as CSLS,
Conneau et al. 2018) scores a question by max over chunks of cos(q, c) − β·r(c), where r(c) is the mean of the K
highest similarities of the bundled negatives in the question's language to chunk c. The threshold is then, as
the shipped gate's, the q-quantile of the negatives' own scores per language; margin, coverage, the absent-word
cut and the names rule stay as self-calibrated. Question groups: bench/refusal.py's over samples/docs + the real
files of ../shared/data/samples (fit, held-out and the users-real2 test set; off-topic probes pooled). β 0 is the
shipped similarity; choose on the fit half.
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

from kotae import Kotae
from kotae.config import Settings
from kotae.search import autocal
from kotae.search.gate import decide

LANGS = ("ja", "en")


def scores(signals: list, sims: np.ndarray, hub: dict[str, np.ndarray], beta: float) -> np.ndarray:
    """max over chunks of similarity − β·hubness of the chunk, with the question language's hubness."""
    lang = np.array([s[0] for s in signals])
    out = np.zeros(len(signals))
    for la in LANGS:
        idx = lang == la
        if idx.any():
            out[idx] = (sims[idx] - beta * hub[la][None, :]).max(axis=1)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shared", default=os.path.join(refusal.ROOT, "..", "shared", "data"))
    ap.add_argument("--limit", type=int, default=200)
    args = ap.parse_args()
    k = Kotae.open(os.path.join(refusal.CACHE, "samples-real"), settings=Settings())
    if not k.documents():
        sys.exit("run `python bench/refusal.py --only samples+real` first: it builds the index this reads")
    k.self_calibrate(force=True)
    fitted = k.searcher.gate_settings()
    vectors = k.store.dense_matrix().vectors.astype(np.float32)
    groups = {"negatives": (False, autocal.negatives()), **refusal.golden_groups(), **refusal.real_groups(),
              **{f"{n} (off-topic)": (False, qs) for n, qs in refusal.probes(args.shared, args.limit).items()}}
    feats = {g: (answerable, k._signals(qs), k.embedder.queries(qs) @ vectors.T)
             for g, (answerable, qs) in groups.items()}
    _, nsig, nsims = feats["negatives"]
    nlang = np.array([s[0] for s in nsig])

    def refused(signals: list, values: np.ndarray, t: dict[str, float]) -> np.ndarray:
        g = replace(fitted, min_similarity_ja=t["ja"], min_similarity_en=t["en"])
        return np.array([not decide(v, s[1], s[2], g, absent=s[3], lang_share=s[4], lang=s[0]).found or s[6] > 0
                         for s, v in zip(signals, values, strict=True)])

    rows = []
    for K, beta in [(10, 0.0), (5, 0.5), (5, 1.0), (10, 0.5), (10, 1.0), (30, 0.5), (30, 1.0)]:
        hub = {la: np.sort(nsims[nlang == la], axis=0)[-K:].mean(axis=0) for la in LANGS}
        nvals = scores(nsig, nsims, hub, beta)
        for q in (0.6, 0.7, 0.8, 0.9):
            t = {la: float(np.quantile(nvals[nlang == la], q)) for la in LANGS}
            pooled: dict[str, list[bool]] = {"fit": [], "held-out": [], "test": [], "off-topic": []}
            for g, (answerable, sig, sims) in feats.items():
                if g == "negatives":
                    continue
                r = refused(sig, scores(sig, sims, hub, beta), t)
                part = ("off-topic" if not answerable else "fit" if "(fit)" in g
                        else "held-out" if "held-out" in g else "test")
                pooled[part] += list(r)
            rows.append({"K": K, "beta": beta, "q": q, **{p: round(float(np.mean(v)), 3) for p, v in pooled.items()}})
    m = machine()
    lines = [(f"Hubness-corrected top similarity in the gate (bench/gate_hubness.py), samples/docs + the real files of "
             f"../shared/data/samples ({len(vectors)} chunks). β 0 is the shipped similarity (q 0.7 is today's "
             f"quantile). Share refused: answerable fit / held-out / users-real2 test (false refusals), and the "
             f"off-topic probes pooled (golden unanswerable, users-real2 unanswerable, JSQuAD, SQuAD, SciFact; "
             f"{args.limit} each). Machine: {m['cpu']}, {m['cores']} cores. Command: `python bench/gate_hubness.py`."),
             "", "| K | β | quantile | false refusals fit | held-out | test | off-topic refused |", "|---|---|---|---|---|---|---|"]
    lines += [f"| {r['K']} | {r['beta']} | {r['q']} | {r['fit']} | {r['held-out']} | {r['test']} | {r['off-topic']} |"
              for r in rows]
    write("gate_hubness", {"machine": m, "rows": rows}, "\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""How strict should the self-calibrated gate be? The null-quantile design (kotae/search/autocal.py: thresholds at
quantiles of the bundled negatives' evidence over each index) on a grid of quantiles, against the previous design
(thresholds fitted on pseudo-questions), on fit data only: the golden sets' "fit" half over refusal.py's samples
and samples+real indexes, and JaQuAD *train* (training data, never reported elsewhere) over its own paragraphs.

    python bench/gate_null.py [--shared ../shared/data] [--articles 60]

JaQuAD: `--articles` articles whose titles are not in JSQuAD valid, in four folds by article; the paragraphs of
folds 0-1 are indexed; their questions are answerable, the questions of folds 2-3 (same style, other articles)
are near-domain off-topic. The samples indexes come from bench/refusal.py's cache (run it first; skipped when
absent). Writes bench/results/gate_null.{json,md}.
"""
from __future__ import annotations

import argparse
import glob
import json
import os
import random
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import machine, write
from refusal import CACHE, ROOT, split_of

from kotae import Kotae, Record
from kotae.config import GateSettings, Settings
from kotae.eval import load_golden
from kotae.search import autocal
from kotae.search.gate import calibrate, decide

GRID = ((0.7, 0.9), (0.75, 0.9), (0.8, 0.9), (0.8, 0.95), (0.85, 0.95), (0.9, 0.95))


def jaquad(shared: str, articles: int) -> tuple[list[Record], list[str], list[str]]:
    """Indexed paragraphs, their questions (answerable), other articles' questions (near-domain off-topic)."""
    with open(os.path.join(shared, "jsquad-valid", "corpus.jsonl"), encoding="utf-8") as f:
        taken = {json.loads(line)["title"] for line in f}
    arts = []
    for path in sorted(glob.glob(os.path.join(shared, "jaquad-train", "*.json"))):
        with open(path, encoding="utf-8") as f:
            arts += [a for a in json.load(f)["data"] if a["title"] not in taken]
    random.Random(7).shuffle(arts)
    records, inside, outside = [], [], []
    for ai, a in enumerate(arts[:articles]):
        for pi, p in enumerate(a["paragraphs"]):
            qs = [qa["question"] for qa in p["qas"][:3]]
            if ai % 4 <= 1:
                records.append(Record(f"a{ai}p{pi}", p["context"], a["title"]))
                inside += qs
            else:
                outside += qs
    rng = random.Random(1)
    rng.shuffle(inside)
    rng.shuffle(outside)
    return records, inside[:300], outside[:300]


def evidence(k: Kotae, groups: dict[str, list[str]]) -> dict[str, list[tuple]]:
    texts = [t for _, t in k.store.chunk_texts()]
    k.store.set_meta("corpus_langs", json.dumps(autocal.languages(texts)))
    neg = autocal.negatives()
    out = {"negatives": k._signals(neg), "pseudo": k._signals(autocal.pseudo_questions(texts, noise=neg))}
    return out | {g: k._signals(qs) for g, qs in groups.items()}


def refused(signals: list[tuple], settings: GateSettings) -> float:
    flags = [not decide(sim, m, c, settings, absent=a, lang_share=ls, lang=lang).found
             for lang, m, c, a, ls, sim, *_ in signals]
    return round(sum(flags) / len(flags), 3) if flags else 0.0


def auc(pos: list[float], neg: list[float]) -> float | None:
    """P(an answerable question's signal > an off-topic one's), ties half."""
    if not pos or not neg:
        return None
    wins = sum((p > n) + 0.5 * (p == n) for p in pos for n in neg)
    return round(wins / (len(pos) * len(neg)), 3)


def separation(ev: dict[str, list[tuple]], answerable: str) -> dict[str, dict[str, float | None]]:
    """AUC of each signal, answerable group against the bundled negatives, per question language."""
    out: dict[str, dict[str, float | None]] = {}
    for lang in ("ja", "en"):
        a = [x for x in ev[answerable] if x[0] == lang]
        n = [x for x in ev["negatives"] if x[0] == lang]
        out[lang] = {name: auc([x[i] for x in a], [x[i] for x in n])
                     for name, i in (("top similarity", 5), ("margin", 1), ("coverage", 2))}
    return out


def designs(ev: dict[str, list[tuple]]) -> dict[str, GateSettings]:
    neg, pos = ev["negatives"], ev["pseudo"]
    previous, _ = calibrate([(True, *p[1:]) for p in pos] + [(False, *n[1:]) for n in neg], 0.05)
    out = {"previous (pseudo-questions, 5 %)": previous}
    keep = (autocal.Q_SIMILARITY, autocal.Q_RESCUE)
    try:
        for qs, qr in GRID:
            autocal.Q_SIMILARITY, autocal.Q_RESCUE = qs, qr
            out[f"null q_sim {qs} q_rescue {qr}"] = autocal.fit(pos, neg, 1)[0]
    finally:
        autocal.Q_SIMILARITY, autocal.Q_RESCUE = keep
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--shared", default=os.path.join(ROOT, "..", "shared", "data"))
    ap.add_argument("--articles", type=int, default=60)
    args = ap.parse_args()
    items = [it for n in ("golden-ja.jsonl", "golden-en.jsonl") for it in load_golden(os.path.join(ROOT, "samples", n))]
    fit = [it for it in items if split_of(it.id) == "fit"]
    golden = {"golden answerable (fit)": [it.question for it in fit if it.answerable],
              "golden unanswerable (fit)": [it.question for it in fit if not it.answerable]}
    corpora: dict[str, tuple[Kotae, dict[str, list[str]]]] = {}
    for name, folder in (("samples", "samples"), ("samples+real", "samples-real")):
        path = os.path.join(CACHE, folder)
        if os.path.isdir(path):
            corpora[name] = (Kotae.open(path, settings=Settings()), golden)
    records, inside, outside = jaquad(args.shared, args.articles)
    k = Kotae.open(os.path.join(ROOT, ".kotae-bench", "gate_null", "jaquad"), settings=Settings())
    if not k.documents():
        k.index_records(records, "jaquad")
    corpora["jaquad-train"] = (k, {"answerable (indexed articles)": inside, "other articles' questions": outside})
    results: dict = {}
    lines = []
    for name, (k, groups) in corpora.items():
        with k:
            ev = evidence(k, groups)
        cols = [*groups, "bundled negatives", "pseudo-questions"]
        lines += [f"### {name}", "", "| design | " + " | ".join(cols) + " |", "|---" * (len(cols) + 1) + "|"]
        results[name] = {}
        for label, st in designs(ev).items():
            row = [refused(ev[g], st) for g in groups] + [refused(ev["negatives"], st), refused(ev["pseudo"], st)]
            results[name][label] = dict(zip(cols, row, strict=True)) | {"settings": st.to_dict()}
            lines.append(f"| {label} | " + " | ".join(str(x) for x in row) + " |")
        first = next(iter(groups))
        sep = separation(ev, first)
        results[name]["auc"] = sep
        med = {g: round(statistics.median(x[1] for x in ev[g]), 3) for g in ("pseudo", first, "negatives")}
        results[name]["median_margin"] = med
        lines += ["", "Median margin: " + ", ".join(f"{g} {v}" for g, v in med.items())]
        lines += ["", f"AUC, {first} against the bundled negatives (same language): " + "; ".join(
            f"{lang}: " + ", ".join(f"{k2} {v}" for k2, v in row.items()) for lang, row in sep.items()), ""]
    m = machine()
    header = (f"Share refused per question group (answerable: refusing is wrong) by gate designs fitted on each index's "
              f"bundled negatives and pseudo-questions only; fit data only (golden fit half, JaQuAD train, "
              f"{args.articles} articles). Machine: {m['cpu']}, {m['cores']} cores. Command: "
              f"`python bench/gate_null.py --articles {args.articles}`.\n\n")
    write("gate_null", {"machine": m, "results": results}, header + "\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())

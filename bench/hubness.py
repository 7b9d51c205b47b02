"""Dense search without hubness (`search.hubness`): retrieval on the golden sets, per split, at several weights.

    python bench/hubness.py [--weights 0,0.25,0.5,0.75,1] [--real ../shared/data] [--index DIR]
    python bench/hubness.py --beir ../shared/data [--weights 0,0.5]   # JSQuAD, SQuAD 2.0 half, SciFact train

Some chunks sit near questions of every kind (samples/docs: the FAQ's introduction, which names every
department, was the top hit of five paraphrased golden questions); `search.hubness` lowers each dense
candidate's similarity by weight × the mean of the 10 highest similarities the bundled off-topic questions have
with it (kotae/search/hubness.py). Sets: golden-ja/en (split by id hash) and golden-users*-ja/en (their own
split) over one index of samples/docs; `--real` also indexes the real files of SHARED/samples beside them and
scores bench/golden/users-real.jsonl (its own split) and users-real2.jsonl (a test set, never used for a choice).
Hit rule "either" (evidence page or phrase), top 10, answerable questions; dense and hybrid; each weight a
`Settings` change over the same index, in one run. The weight is chosen on the samples sets' fit half.
Writes bench/results/hubness.{json,md} (hubness_real with `--real`); `--beir` scores bench/retrieval.py's BEIR sets instead (nDCG@10 per mode,
its kept indexes in .kotae-beir) and writes bench/results/hubness_beir.{json,md}.
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
from collections import defaultdict
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import answers
from common import golden_splits, hash_split, machine, write

from kotae import Kotae, Record
from kotae.config import SearchSettings, Settings
from kotae.embed import DEFAULT_ENGINES, get_embedder
from kotae.eval import load_golden, run_golden

ROOT = answers.ROOT
MODES = ("dense", "hybrid")


def items(names: list[str]) -> list[tuple[str, Any, str]]:
    """(set, item, split) of the answerable questions of each set."""
    out = []
    for name in names:
        path = os.path.join(ROOT, answers.SETS[name])
        given = golden_splits(path)
        out += [(name, it, given.get(it.id) or hash_split(it.id)) for it in load_golden(path) if it.answerable]
    return out


def golden_sets(real: bool) -> list[str]:
    """Every golden set over samples/docs, and with `real` the users-real sets over the real files."""
    return [n for n in answers.SETS if not n.startswith("users-real")] + (["users-real", "users-real2"] if real else [])


def scores(k: Kotae, questions: list[tuple[str, Any, str]], mode: str) -> dict[str, dict[str, float]]:
    """hit@1 and nDCG@10 per group: set/split, pooled split (samples sets / real sets), category/split."""
    rows = run_golden([it for _, it, _ in questions], k, mode=mode, answers=False).per_question
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for (name, it, split), r in zip(questions, rows, strict=True):
        pool = "real" if name.startswith("users-real") else "samples"
        part = "test" if name == "users-real2" else split
        for g in (f"{name}/{split}", f"{pool}/{part}", f"{pool}:{it.category}/{part}"):
            groups[g].append(r)
    return {g: {"n": len(rs), "hit@1": round(sum(r["hit@1"] for r in rs) / len(rs), 4),
                "ndcg@10": round(sum(r["ndcg@10"] for r in rs) / len(rs), 4)} for g, rs in sorted(groups.items())}


def tables(columns: dict[str, dict[str, dict[str, dict[str, float]]]]) -> list[str]:
    """Markdown tables, one per mode: a row per group of `scores` (pooled, per set, per category), a column per
    variant (label → mode → scores), hit@1 / nDCG@10 in each cell."""
    first = next(iter(columns.values()))["hybrid"]
    groups = [g for g in first if "/" in g and ":" not in g and not g.split("/")[0] in answers.SETS]
    groups += [g for g in first if "/" in g and ":" not in g and g.split("/")[0] in answers.SETS]
    groups += [g for g in first if ":" in g]
    lines: list[str] = []
    for mode in MODES:
        lines += [f"### {mode}", "", "| group | n | " + " | ".join(columns) + " |", "|---|---|" + "---|" * len(columns)]
        for g in groups:
            cells = [col[mode].get(g) for col in columns.values()]
            n = next((c["n"] for c in cells if c), 0)
            lines.append(f"| {g} | {n} | " + " | ".join(f"{c['hit@1']:.3f} / {c['ndcg@10']:.3f}" if c else "–"
                                                       for c in cells) + " |")
        lines.append("")
    return lines


def beir(shared: str, weights: list[float]) -> int:
    """nDCG@10 per mode on bench/retrieval.py's data sets, each weight over the same index."""
    import retrieval

    from kotae.eval.beir import load_beir
    from kotae.eval.beir_eval import default_index, evaluate_beir
    from kotae.store import open_store

    embedder = get_embedder(DEFAULT_ENGINES[0])
    out: dict[str, dict[str, dict[str, float]]] = {}
    for folder, split in retrieval.DATASETS:
        data = load_beir(os.path.join(shared, folder), split, None)
        store = open_store(default_index(data.name, DEFAULT_ENGINES[0], os.path.join(retrieval.ROOT, ".kotae-beir")))
        k = Kotae(store, embedder, Settings())
        k.index_records([Record(d.id, d.passage, d.title) for d in data.corpus], data.name)
        k.self_calibrate(force=True)  # records are not self-calibrated by indexing: this keeps the null vectors
        for w in weights:
            run = evaluate_beir(data, Kotae(store, embedder, Settings(search=SearchSettings(hubness=w))),
                                retrieval.MODES)
            out.setdefault(folder, {})[f"{w:g}"] = {mode: round(r["ndcg@10"], 4) for mode, r in run.modes.items()}
            print(folder, w, out[folder][f"{w:g}"], flush=True)
        store.close()
    m = machine()
    lines = [(f"Dense search without hubness (`search.hubness` = weight) on bench/retrieval.py's data sets: nDCG@10 per "
             f"mode, each weight over the same index in one run. Machine: {m['cpu']}, {m['cores']} cores. Command: "
             f"`python bench/hubness.py {' '.join(sys.argv[1:])}`."), "",
             "| data set | mode | " + " | ".join(f"weight {w:g}" for w in weights) + " |",
             "|---|---|" + "---|" * len(weights)]
    for folder, per in out.items():
        for mode in retrieval.MODES:
            lines.append(f"| {folder} | {mode} | " + " | ".join(f"{per[f'{w:g}'][mode]:.4f}" for w in weights) + " |")
    write("hubness_beir", {"machine": m, "weights": weights, "results": out}, "\n".join(lines))
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--weights", default="0,0.25,0.5,0.75,1")
    ap.add_argument("--beir", metavar="SHARED", help="score bench/retrieval.py's BEIR sets under SHARED instead")
    ap.add_argument("--real", metavar="SHARED", help="also the real files of SHARED/samples and users-real(2)")
    ap.add_argument("--index", help="index folder to reuse (default: a temporary one)")
    args = ap.parse_args()
    weights = [float(w) for w in args.weights.split(",")]
    if args.beir:
        return beir(args.beir, weights)
    questions = items(golden_sets(bool(args.real)))
    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        k = Kotae.open(args.index or tmp, settings=Settings(), embedder=get_embedder(DEFAULT_ENGINES[0]))
        real = [os.path.join(args.real, "samples", f) for f in answers.REAL] if args.real else []
        k.index([os.path.join(ROOT, "samples", "docs"), *real])
        k.self_calibrate(force=True)  # keeps the negatives' vectors hubness is measured with
        chunks = k.store.document_frequencies([])[1]
        for w in weights:
            door = k.using(settings=Settings(search=SearchSettings(hubness=w)))
            results[f"{w:g}"] = {mode: scores(door, questions, mode) for mode in MODES}
            print(w, {m: results[f"{w:g}"][m].get("samples/fit") for m in MODES}, flush=True)
    m = machine()
    lines = [(f"Dense search without hubness (`search.hubness` = weight), hit@1 / nDCG@10 (rule either, top 10, "
             f"answerable questions), one index of samples/docs{' and the real files of ' + args.real + '/samples' if args.real else ''} "
             f"({chunks} chunks), each weight over the same index in one run. The weight is chosen on "
             f"samples/fit; users-real2 is a test set. Machine: {m['cpu']}, {m['cores']} cores. Command: "
             f"`python bench/hubness.py {' '.join(sys.argv[1:])}`."), ""]
    lines += tables({f"weight {w:g}": results[f"{w:g}"] for w in weights})
    write("hubness_real" if args.real else "hubness", {"machine": m, "chunks": chunks, "weights": weights, "results": results}, "\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())

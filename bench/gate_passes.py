"""Why questions pass the gate: for each question group of bench/refusal.py, how many pass and on which rule
(margin, coverage, or the similarity over the document's off-topic level alone), which files their closest
chunks come from, how many of the similarity passes had a closest chunk that is mostly figures
(`lowinfo.figure_share` ≥ 0.3 and ≥ 0.2), and how many content words of theirs no document holds (0, 1, 2, 3, 4+),
for the similarity and the margin passes.

    python bench/refusal.py --only samples+real          # builds the index it reads (cached)
    python bench/gate_passes.py [--corpus samples-real] [--limit 300] [--figures-off] [--absent-words-off]

The gate is refitted first (as `kotae index` does). `--figures-off` sets `searcher.GATE_FIGURE_SHARE` to None (the
gate before blocks of figures were left out of its similarity evidence), refitted the same way;
`--absent-words-off` sets `gate.SIMILARITY_ABSENT_WORDS` and `gate.MARGIN_ABSENT_WORDS` to None (dense evidence
answers whatever the number of absent words). Writes bench/results/gate_passes[_figures_off][_absent_words_off][_CORPUS].{json,md} (no corpus
suffix for samples-real).
"""
from __future__ import annotations

import argparse
import collections
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import refusal
from common import machine, write

from kotae import Kotae
from kotae.config import Settings
from kotae.search import gate as gate_module
from kotae.search import searcher as searcher_module
from kotae.search.lowinfo import figure_share


def rule_of(reason: str) -> str:
    """The rule that let a question through, from the gate's reason."""
    if reason.startswith("similarity margin") and "≥" in reason.split(" and ")[0]:
        return "margin"
    if reason.startswith("keyword coverage"):
        return "coverage"
    return "similarity"


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--shared", default=os.path.join(refusal.ROOT, "..", "shared", "data"))
    ap.add_argument("--corpus", default="samples-real", help="a folder of .kotae-bench/refusal")
    ap.add_argument("--limit", type=int, default=300, help="questions per probe set")
    ap.add_argument("--figures-off", action="store_true")
    ap.add_argument("--absent-words-off", action="store_true")
    args = ap.parse_args()
    if args.figures_off:
        searcher_module.GATE_FIGURE_SHARE = None
    if args.absent_words_off:
        gate_module.SIMILARITY_ABSENT_WORDS = gate_module.MARGIN_ABSENT_WORDS = None
    k = Kotae.open(os.path.join(refusal.CACHE, args.corpus), settings=Settings())
    k.self_calibrate(force=True)
    groups = {**refusal.golden_groups(), **(refusal.real_groups() if args.corpus != "samples" else {})}
    groups.update({f"{n} questions (off-topic)": (False, qs) for n, qs in refusal.probes(args.shared, args.limit).items()})
    rows = {}
    for name, (answerable, questions) in groups.items():
        rules: collections.Counter[str] = collections.Counter()
        files: collections.Counter[str] = collections.Counter()
        figures3 = figures2 = 0
        absent: collections.Counter[str] = collections.Counter()
        absent_margin: collections.Counter[str] = collections.Counter()
        for q in questions:
            result = k.searcher.search(q)
            if not result.gate.found or not result.hits:
                continue
            rule = rule_of(result.gate.reason)
            rules[rule] += 1
            files[f"{rule}: {os.path.basename(result.hits[0].chunk.file)}"] += 1
            count = round(result.gate.absent * result.gate.content)
            if rule == "margin":
                absent_margin["4+" if count >= 4 else str(count)] += 1
            if rule == "similarity":
                share = figure_share(result.hits[0].chunk.text)
                figures3 += share >= 0.3
                figures2 += share >= 0.2
                absent["4+" if count >= 4 else str(count)] += 1
        rows[name] = {"n": len(questions), "answerable": answerable, "passed": sum(rules.values()),
                      "rules": dict(rules), "similarity_figures_0.3": figures3, "similarity_figures_0.2": figures2,
                      "similarity_absent_words": dict(sorted(absent.items())),
                      "margin_absent_words": dict(sorted(absent_margin.items())), "files": files.most_common(8)}
    lines = [(f"Why questions pass the gate over `{args.corpus}` (self-calibrated afresh"
             f"{', blocks of figures counted as similarity evidence' if args.figures_off else ''}"
             f"{', similarity alone answering whatever the absent words' if args.absent_words_off else ''}). Machine: "
             f"{machine()['cpu']}. Command: `python bench/gate_passes.py --corpus {args.corpus} --limit {args.limit}"
             f"{' --figures-off' if args.figures_off else ''}{' --absent-words-off' if args.absent_words_off else ''}`."),
             "", ("| questions | n | passed | on margin | on coverage | on similarity alone | of those, closest chunk ≥ 30 % "
                  "figures | ≥ 20 % | their absent words (count: questions) | margin passes' absent words | closest files "
                  "(rule: file: count) |"),
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for name, r in rows.items():
        files = "; ".join(f"{f} {c}" for f, c in r["files"])
        lines.append(f"| {name} | {r['n']} | {r['passed']} | {r['rules'].get('margin', 0)} | "
                     f"{r['rules'].get('coverage', 0)} | {r['rules'].get('similarity', 0)} | "
                     f"{r['similarity_figures_0.3']} | {r['similarity_figures_0.2']} | "
                     f"{', '.join(f'{k}: {v}' for k, v in r['similarity_absent_words'].items())} | "
                     f"{', '.join(f'{k}: {v}' for k, v in r['margin_absent_words'].items())} | {files} |")
    name = ("gate_passes" + ("_figures_off" if args.figures_off else "") + ("_absent_words_off" if args.absent_words_off
            else "") + ("" if args.corpus == "samples-real" else f"_{args.corpus}"))
    write(name,
          {"machine": machine(), "corpus": args.corpus, "limit": args.limit, "rows": rows}, "\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

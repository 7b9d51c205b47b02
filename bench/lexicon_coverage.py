"""The English ↔ Japanese lexicon with JMdict's uncommon compounds, against the bundled one: retrieval and answers.

    python scripts/build_lexicon.py JAMDICT_DB --out /tmp/lex-all.tsv.gz        # the candidate (see its docstring)
    python bench/lexicon_coverage.py /tmp/lex-all.tsv.gz [--real ../shared/data] [--index DIR]

The bundled lexicon (src/kotae/data/lexicon) holds JMdict's common words only, so the compounds workplace
documents use have no English side: "extension number" (内線番号), "overtime work" (時間外労働), "paid vacation"
(有給休暇), "New Year's holiday" (年末年始). The candidate adds every other entry through its glosses of two or
three words, after the common words (each phrase's common translations stay its first). Both are searched over
the same index in one run, each a fresh load of the table (`lexicon.DATA`). Sets, splits and the hit rule are
bench/hubness.py's (hit@1 / nDCG@10, hybrid and dense); answers are bench/answers.py's phrase-correct (top 5).
users-real2 is a test set. Writes bench/results/lexicon_coverage{,_real}.{json,md}.
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import answers
from common import machine, write
from hubness import MODES, golden_sets, items, scores, tables

from kotae import Kotae
from kotae.config import Settings
from kotae.embed import DEFAULT_ENGINES, get_embedder
from kotae.search import lexicon

ROOT = answers.ROOT


def use(path: str) -> None:
    lexicon.DATA = path
    lexicon.bundled.cache_clear()
    lexicon.on_demand.cache_clear()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("candidate", help="a lexicon file built by scripts/build_lexicon.py")
    ap.add_argument("--real", metavar="SHARED", help="also the real files of SHARED/samples and users-real(2)")
    ap.add_argument("--index", help="index folder to reuse (default: a temporary one)")
    args = ap.parse_args()
    names = golden_sets(bool(args.real))
    questions = items(names)
    sources = {"bundled": lexicon.DATA, "candidate": os.path.abspath(args.candidate)}
    results: dict[str, Any] = {}
    correct: dict[str, dict[str, list[float]]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        k = Kotae.open(args.index or tmp, settings=Settings(), embedder=get_embedder(DEFAULT_ENGINES[0]))
        real = [os.path.join(args.real, "samples", f) for f in answers.REAL] if args.real else []
        k.index([os.path.join(ROOT, "samples", "docs"), *real])
        k.self_calibrate()
        chunks = k.store.document_frequencies([])[1]
        for label, path in sources.items():
            use(path)
            results[label] = {mode: scores(k, questions, mode) for mode in MODES}
            for r in answers.score_sets(k, names, None):
                pool = "real" if r["set"].startswith("users-real") else "samples"
                part = "test" if r["set"] == "users-real2" else r["split"]
                for g in (f"{r['set']}/{r['split']}", f"{pool}/{part}"):
                    correct.setdefault(label, {}).setdefault(g, []).append(r["correct"])
            print(label, {m: results[label][m].get("samples/fit") for m in MODES}, flush=True)
        use(sources["bundled"])
    m = machine()
    labels = list(sources)
    lines = [(f"English ↔ Japanese lexicon: bundled (JMdict common words) against {args.candidate} (plus uncommon "
              f"entries through two- and three-word glosses), over one index of samples/docs"
              f"{' and the real files of ' + args.real + '/samples' if args.real else ''} ({chunks} chunks), one run. "
              f"Retrieval hit@1 / nDCG@10 (rule either, top 10, answerable questions); answers phrase-correct (top 5). "
              f"Choices on samples/fit; users-real2 is a test set. Machine: {m['cpu']}, {m['cores']} cores. Command: "
              f"`python bench/lexicon_coverage.py {' '.join(sys.argv[1:])}`."), ""]
    lines += tables({v: results[v] for v in labels})
    lines += ["### answers (phrase-correct)", "", "| group | n | " + " | ".join(labels) + " |",
              "|---|---|" + "---|" * len(labels)]
    for g in sorted(correct["bundled"], key=lambda g: (g.split("/")[0] in answers.SETS, g)):
        vals = [correct[lb][g] for lb in labels]
        lines.append(f"| {g} | {len(vals[0])} | " + " | ".join(f"{sum(v) / len(v):.3f}" for v in vals) + " |")
    write("lexicon_coverage_real" if args.real else "lexicon_coverage",
          {"machine": m, "chunks": chunks, "candidate": args.candidate, "results": results,
           "answers": {lb: {g: sum(v) / len(v) for g, v in per.items()} for lb, per in correct.items()}},
          "\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())

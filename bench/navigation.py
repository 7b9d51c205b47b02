"""Tables of contents and indexes placed behind the passages (`search.navigation_last`), off against on.

    python bench/navigation.py --shared ../shared/data [--index /tmp/ans-real]   # → results/navigation.{json,md}

One index of samples/docs plus the real files of SHARED/samples (as `bench/answers.py --real`). For the
questions of bench/golden/users-real.jsonl (its own fit/held-out split) and users-real2.jsonl (a test set,
never used for a choice), both ways on the same index: passage 1 holds a must_contain phrase, the top 5 do,
the extractive answer does (phrase-correct), and how many questions have a table of contents or an index
(`lowinfo.navigation`) among their top 5 hits. Also the navigation chunks found per file.
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
from collections import Counter
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from answers import REAL, diagnose
from common import machine, write
from hubness import items

from kotae import Kotae
from kotae.config import Settings, overlay
from kotae.embed import DEFAULT_ENGINES, get_embedder
from kotae.search.lowinfo import navigation

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WAYS = {"off": False, "on": True}


def score(k: Kotae, nav: set[str]) -> list[dict[str, Any]]:
    rows = []
    for name, it, split in items(["users-real", "users-real2"]):
        d = diagnose(it, k)
        hits = k.search(it.question, mode="hybrid", top_k=5).hits
        rows.append({"set": name, "split": "test" if name == "users-real2" else split, "id": it.id,
                     "top1": float(1 in d["phrase_in_sources"]), "top5": float(bool(d["phrase_in_sources"])),
                     "correct": d["correct"], "navigation_in_top5": float(any(h.chunk.id in nav for h in hits))})
    return rows


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shared", default=os.path.join(ROOT, "..", "shared", "data"))
    ap.add_argument("--index", help="index folder to reuse (default: a temporary one)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        k = Kotae.open(args.index or tmp, settings=Settings(), embedder=get_embedder(DEFAULT_ENGINES[0]))
        k.index([os.path.join(ROOT, "samples", "docs"), *[os.path.join(args.shared, "samples", f) for f in REAL]])
        texts = dict(k.store.chunk_texts())
        chunks = k.store.chunks(list(texts))
        nav = {c.id for r, c in chunks.items() if navigation(texts[r], c.heading)}
        per_file = Counter(c.file for c in chunks.values() if c.id in nav)
        results = {way: score(k.using(settings=overlay(Settings(), {"search.navigation_last": on}, "bench")), nav)
                   for way, on in WAYS.items()}
    lines = ["| set | split | n | " + " | ".join(f"{m} {w}" for m in ("passage 1", "top 5", "answer correct",
                                                                     "contents in top 5") for w in WAYS) + " |",
             "|---|---|---|" + "---|" * 4 * len(WAYS)]
    table = {}
    for key in sorted({(r["set"], r["split"]) for r in results["off"]}):
        row = {}
        for way, rows in results.items():
            part = [r for r in rows if (r["set"], r["split"]) == key]
            row["n"] = len(part)
            for m in ("top1", "top5", "correct", "navigation_in_top5"):
                row[f"{m} {way}"] = sum(r[m] for r in part)
        table["/".join(key)] = row
        lines.append(f"| {key[0]} | {key[1]} | {row['n']} | " + " | ".join(
            str(int(row[f"{m} {w}"])) for m in ("top1", "top5", "correct", "navigation_in_top5") for w in WAYS) + " |")
    changed = [f"{a['id']} ({'+' if b['correct'] > a['correct'] else '-'})" for a, b in
               zip(results["off"], results["on"], strict=True) if a["correct"] != b["correct"]]
    m = machine()
    md = (f"Tables of contents and indexes behind the passages (`search.navigation_last`), off against on, on one "
          f"index of samples/docs and the real files ({len(texts)} chunks, {len(nav)} of them navigation: "
          + ", ".join(f"{f} {n}" for f, n in per_file.most_common()) + "). Counts of questions. Answers changed: "
          + (", ".join(changed) or "none") + f". Machine: {m['cpu']}, {m['cores']} cores. "
          "Command: `python bench/navigation.py --shared ../shared/data`.\n\n" + "\n".join(lines) + "\n")
    write("navigation", {"machine": m, "navigation_chunks": dict(per_file), "table": table, "changed": changed,
                         "rows": results}, md)
    print(md)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

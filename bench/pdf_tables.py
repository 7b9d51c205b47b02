"""PDF tables as rows: page hit@1/@5 on the 10-Q golden set, with and without table rows, and pages/s.

    python bench/pdf_tables.py [--data ../shared/data] [--variants off,on] [--name pdf_tables]

All 20 filings of sec-10q/ go into one temporary index per variant (default settings, bundled e5 model,
hybrid search, top 5). "off" reads PDFs with table detection switched off (the reader before tables),
"on" with it. A question hits at k when one of the first k passages is on one of its pages (`pages`, or
the pages of an `also` file). Reported per split of bench/golden/sec10q.jsonl: fit (tuned on) and
held-out (reported). Writes bench/results/pdf_tables.{json,md}.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import machine, write

from kotae import Kotae
from kotae.ingest import pdf_table_pages

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GOLDEN = os.path.join(ROOT, "bench", "golden", "sec10q.jsonl")


def _targets(q: dict) -> set[tuple[str, int]]:
    out = {(os.path.basename(q["file"]), p) for p in q["pages"]}
    for extra in q.get("also", []):
        out |= {(os.path.basename(extra["file"]), p) for p in extra["pages"]}
    return out


def run(variant: str, files: list[str], questions: list[dict]) -> dict:
    real = pdf_table_pages.read_tables
    if variant == "off":
        pdf_table_pages.read_tables = lambda *a, **k: []  # the reader as it was before tables
    try:
        with tempfile.TemporaryDirectory() as tmp, Kotae.open(os.path.join(tmp, "index.db")) as kotae:
            started = time.perf_counter()
            kotae.index(files)
            seconds = time.perf_counter() - started
            pages = sum(d.pages for d in kotae.documents())
            rows = []
            for q in questions:
                hits = kotae.search(q["question"], mode="hybrid", top_k=5).hits
                found = [(os.path.basename(h.chunk.file), h.chunk.page) for h in hits]
                want = _targets(q)
                rows.append({"id": q["id"], "split": q["split"], "category": q["category"],
                             "hit@1": found[:1] != [] and found[0] in want, "hit@5": any(f in want for f in found),
                             "top": found[:5]})
    finally:
        pdf_table_pages.read_tables = real
    summary = {}
    for split in ("fit", "held-out"):
        part = [r for r in rows if r["split"] == split]
        summary[split] = {k: round(sum(r[k] for r in part) / max(1, len(part)), 3) for k in ("hit@1", "hit@5")}
        summary[split]["n"] = len(part)
    return {"variant": variant, "index_seconds": round(seconds, 1), "pages": pages,
            "pages_per_s": round(pages / seconds, 2), "summary": summary, "questions": rows}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", default=os.path.join(ROOT, "..", "shared", "data"))
    parser.add_argument("--variants", default="off,on")
    parser.add_argument("--name", default="pdf_tables", help="results file name (one per variant run apart)")
    args = parser.parse_args()
    folder = os.path.join(args.data, "sec-10q")
    files = sorted(os.path.join(folder, f) for f in os.listdir(folder) if f.endswith(".pdf"))
    with open(GOLDEN, encoding="utf-8") as f:
        questions = [json.loads(line) for line in f if line.strip()]
    questions = [q for q in questions if q.get("answerable", True)]
    results = [run(v, files, questions) for v in args.variants.split(",")]
    lines = ["# PDF tables as rows: sec-10q page hit (hybrid, top 5, all 20 filings in one index)", "",
             "| variant | fit hit@1 | fit hit@5 | held-out hit@1 | held-out hit@5 | pages | index s | pages/s |",
             "|---|---|---|---|---|---|---|---|"]
    for r in results:
        s = r["summary"]
        lines.append(f"| {r['variant']} | {s['fit']['hit@1']} | {s['fit']['hit@5']} | {s['held-out']['hit@1']} | "
                     f"{s['held-out']['hit@5']} | {r['pages']} | {r['index_seconds']} | {r['pages_per_s']} |")
    lines += ["", (f"Questions: {GOLDEN} ({len(questions)} answerable; n per split in the JSON). "
                   "pages/s: indexing end to end (read, chunk, embed, store).")]
    write(args.name, {"machine": machine(), "data": folder, "results": results}, "\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())

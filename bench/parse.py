"""PDF parsing quality: reading order, table cells, headings, and pages/s, before and after a change.

    python bench/parse.py --label after [--data ../shared/data] [--speed-files 4] [--baseline-src /tmp/main-ro/src]
    PYTHONPATH=/tmp/main-ro/src python bench/parse.py --label before   # the same bench over main's code

Each run stores bench/results/parse_runs/<label>.json; parse.{json,md} then show every stored label
side by side (the kotae source each label ran is recorded with it).

Data (../shared/data):
- samples/docling/pdf/sources/*.pdf with groundtruth/*.md (docling's reference markdown):
  - reading order: normalised edit distance (Levenshtein / longer length) between the reader's page
    texts joined and the reference, both normalised: markdown syntax stripped (heading marks, table
    pipes and rule rows, emphasis, image placeholders, links), NFKC, lower case, whitespace collapsed;
  - table cells: the set of distinct normalised cells of the reference's pipe tables against the cells
    of the reader's table sections (kind "table" or "rows", a row label's "›" path split in cells: "column: value | column: value" rows, or pipe rows):
    precision, recall, F1; and "cell recall in text": the share of reference cells found anywhere in
    the reader's normalised text (order-free, so a reader without tables is not scored 0 there).
- samples/unstructured/pdf/multi-column*.pdf and every other sample PDF (no reference): the number of
  headings found, a sample of them, and the share of sections whose innermost heading looks wrong
  (`suspect`: a table cell, a number line, a sentence, or a running header with its page number).
- sec-10q/*.pdf (the first --speed-files): pages/s of read_document (ocr auto) over the files, wall
  time on this machine, a fresh process per measurement, this source and --baseline-src alternately.
"""
from __future__ import annotations

import argparse
import difflib
import glob
import json
import os
import re
import subprocess
import sys
import time
import unicodedata
from collections import Counter
from typing import Any

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import RESULTS, machine, write

import kotae
from kotae.errors import DocumentError
from kotae.ingest import read_document
from kotae.types import ParsedDocument

RUNS = os.path.join(RESULTS, "parse_runs")
MULTI_COLUMN = ("normal_4pages", "table_mislabeled_as_picture")  # two columns; a two-page spread (seen rendered)
# the files with reference tables are those with cells (2305.03393v1-pg9, normal_4pages, redp5110_sampled,
# table_mislabeled_as_picture); the others are one column of text


# --- text normalisation and metrics (pure) -------------------------------------------------------
_MD_RULE = re.compile(r"^\s*\|?\s*:?-{1,}:?\s*(\|\s*:?-{1,}:?\s*)*\|?\s*$")
_MD_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+", re.MULTILINE)
_MD_IMAGE = re.compile(r"<!--.*?-->|!\[[^\]]*\]\([^)]*\)", re.DOTALL)
_MD_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")
_MD_EMPHASIS = re.compile(r"(\*\*|__|\*|`)")
_MD_LIST = re.compile(r"^\s*([-*+]|\d+[.)])\s+", re.MULTILINE)
_SPACE = re.compile(r"\s+")


def strip_markdown(md: str) -> str:
    """Markdown as plain text: heading marks, rule rows, pipes, emphasis, images and link targets removed."""
    lines = [ln for ln in md.split("\n") if not _MD_RULE.match(ln)]
    text = "\n".join(ln.strip().strip("|").replace("|", " ") for ln in lines)
    text = _MD_IMAGE.sub(" ", text)
    text = _MD_LINK.sub(r"\1", text)
    text = _MD_HEADING.sub("", text)
    text = _MD_LIST.sub("", text)
    return _MD_EMPHASIS.sub("", text)


def normalise(text: str) -> str:
    text = unicodedata.normalize("NFKC", text).lower()
    text = text.replace("\ufffe", "").replace("\u00ad", "")
    return _SPACE.sub(" ", text).strip()


def edit_distance(a: str, b: str) -> int:
    """Levenshtein distance, one numpy row per character of `a` (insertions by a running minimum)."""
    if not a or not b:
        return max(len(a), len(b))
    codes = {c: i for i, c in enumerate(set(a) | set(b))}
    bb = np.array([codes[c] for c in b], dtype=np.int32)
    steps = np.arange(len(b) + 1, dtype=np.int32)
    row = steps.copy()
    for i, ch in enumerate(a, start=1):
        sub = row[:-1] + (bb != codes[ch])
        cur = np.empty_like(row)
        cur[0] = i
        cur[1:] = np.minimum(sub, row[1:] + 1)
        row = np.minimum.accumulate(cur - steps) + steps
    return int(row[-1])


def normalised_distance(a: str, b: str) -> float:
    return edit_distance(a, b) / max(1, len(a), len(b))


_WORD = re.compile(r"\w+")


def out_of_order(ours: str, ref: str) -> float:
    """Reading order alone: of the words both normalised texts hold (as a multiset), the share that is not on their
    longest common subsequence (0: every shared word in the reference's order). Words only one text holds (a
    cover page the reference leaves out, a glyph it spells otherwise) do not count, unlike in the edit distance."""
    a, b = _WORD.findall(ours), _WORD.findall(ref)
    common = sum((Counter(a) & Counter(b)).values())
    if not common:
        return 0.0
    lcs = sum(block.size for block in difflib.SequenceMatcher(None, a, b, autojunk=False).get_matching_blocks())
    return 1 - lcs / common


def reference_cells(md: str) -> set[str]:
    """Distinct normalised cells of the pipe tables in a markdown reference."""
    cells: set[str] = set()
    for line in md.split("\n"):
        if line.strip().startswith("|") and not _MD_RULE.match(line):
            cells |= {normalise(c) for c in line.strip().strip("|").split("|")}
    return {c for c in cells if c}


def table_cells(doc: ParsedDocument) -> set[str]:
    """Distinct normalised cells of the reader's table sections ("col: value | col: value" or pipe rows)."""
    cells: set[str] = set()
    for section in doc.sections:
        if section.kind not in ("table", "rows"):  # rows: PDF table rows (kotae.ingest.pdf_table_pages)
            continue
        for line in section.text.split("\n"):
            for part in re.split(r"\||›", line.strip().strip("|")):
                name, sep, value = part.partition(": ")
                cells |= {normalise(name), normalise(value)} if sep else {normalise(part)}
    return {c for c in cells if c}


def values_only(doc: ParsedDocument) -> list[str]:
    """Page texts with each table row ("rows" section) as its cells' values alone ("column: value" → "value"):
    the reading order of what the page prints, without the column names a row repeats for search."""
    pages = list(doc.pages)
    for sec in sorted((s for s in doc.sections if s.kind == "rows"), key=lambda s: (s.page, -s.start)):
        text = pages[sec.page - 1]
        cells = [part.partition(": ")[2] or part for part in sec.text.split(" | ")]
        pages[sec.page - 1] = text[: sec.start] + " ".join(cells) + text[sec.start + len(sec.text):]
    return pages


def f1(found: set[str], reference: set[str]) -> tuple[float, float, float]:
    hit = len(found & reference)
    p = hit / len(found) if found else 0.0
    r = hit / len(reference) if reference else 0.0
    return p, r, (2 * p * r / (p + r) if p + r else 0.0)


_CHAPTER = re.compile(r"^(第[0-9０-９一二三四五六七八九十百]+[編章節款目条]|part|chapter|section|article|appendix)\b",
                      re.IGNORECASE)


def suspect(label: str) -> str | None:
    """Why a heading label looks like something other than a heading, or None."""
    text = unicodedata.normalize("NFKC", label).strip()
    chars = [c for c in text if not c.isspace()]
    letters = [c for c in chars if c.isalpha()]
    digits = [c for c in chars if c.isdigit()]
    if len(letters) < 3:
        return "number or cell"
    if len(digits) / len(chars) > 0.3:
        return "number line"
    words = text.split()
    if len(words) >= 3 and sum(len(w) == 1 for w in words) / len(words) > 0.6:
        return "spaced cell"  # 「７ 時 間」
    if len(text) > 60 or (len(words) > 8 and text[:1].isdigit() and not _CHAPTER.match(text)):
        return "sentence"
    if re.search(r"\D\s\d{1,4}$", text) and len(words) >= 3:
        return "running header with page number"
    return None


def heading_stats(doc: ParsedDocument) -> dict[str, Any]:
    labels = [s.heading[-1] for s in doc.sections if s.heading]
    distinct = list(dict.fromkeys(labels))
    bad = [lab for lab in labels if suspect(lab)]
    return {"sections": len(doc.sections), "with_heading": len(labels), "distinct_headings": len(distinct),
            "suspect_share": round(len(bad) / max(1, len(doc.sections)), 3),
            "suspect_samples": list(dict.fromkeys(bad))[:5], "samples": distinct[:8]}


# --- runs ---------------------------------------------------------------------------------------
def _read(path: str) -> tuple[ParsedDocument | None, float, str]:
    start = time.perf_counter()
    try:
        doc = read_document(path)
    except DocumentError as exc:
        return None, time.perf_counter() - start, str(exc)
    return doc, time.perf_counter() - start, ""


def groundtruth_rows(data: str) -> list[dict[str, Any]]:
    rows = []
    base = os.path.join(data, "samples/docling/pdf")
    for pdf in sorted(glob.glob(os.path.join(base, "sources/*.pdf"))):
        name = os.path.splitext(os.path.basename(pdf))[0]
        ref_path = os.path.join(base, "groundtruth", name + ".md")
        if not os.path.exists(ref_path):
            continue
        with open(ref_path, encoding="utf-8") as f:
            md = f.read()
        doc, seconds, error = _read(pdf)
        row: dict[str, Any] = {"file": name, "multi_column": name in MULTI_COLUMN, "seconds": round(seconds, 2)}
        if doc is None:
            rows.append({**row, "error": error})
            continue
        ours, ref = normalise("\n".join(doc.pages)), normalise(strip_markdown(md))
        values = normalise("\n".join(values_only(doc)))
        ref_cells = reference_cells(md)
        p, r, f = f1(table_cells(doc), ref_cells)
        in_text = sum(c in ours for c in ref_cells) / len(ref_cells) if ref_cells else None
        row.update(pages=len(doc.pages), edit_distance=round(normalised_distance(ours, ref), 4),
                   edit_distance_values=round(normalised_distance(values, ref), 4),
                   out_of_order=round(out_of_order(values, ref), 4),
                   table_cells=len(ref_cells), cell_precision=round(p, 3), cell_recall=round(r, 3),
                   cell_f1=round(f, 3), cell_recall_in_text=None if in_text is None else round(in_text, 3),
                   ocr_pages=sorted({s.page for s in doc.sections if s.ocr}), headings=heading_stats(doc))
        rows.append(row)
        print(f"  {name}: ed {row['edit_distance']}  cell F1 {row['cell_f1']}", flush=True)
    return rows


def heading_rows(data: str, max_pages: int) -> list[dict[str, Any]]:
    rows = []
    paths = sorted(glob.glob(os.path.join(data, "samples/unstructured/pdf/*.pdf")))
    paths += sorted(glob.glob(os.path.join(data, "samples/pdfminer/*/*.pdf")))
    for pdf in paths:
        doc, seconds, error = _read(pdf)
        name = os.path.relpath(pdf, os.path.join(data, "samples"))
        if doc is None:
            rows.append({"file": name, "error": error[:120]})
            continue
        rows.append({"file": name, "pages": len(doc.pages), "seconds": round(seconds, 2),
                     "ocr_pages": sorted({s.page for s in doc.sections if s.ocr})[:max_pages],
                     "warnings": [w[:160] for w in doc.warnings][:3], **heading_stats(doc)})
        print(f"  {name}: {rows[-1]['distinct_headings']} headings, suspect {rows[-1]['suspect_share']}", flush=True)
    return rows


_SPEED = """
import glob, json, os, sys, time
from kotae.ingest import read_document
paths = sorted(glob.glob(os.path.join(sys.argv[1], "sec-10q/*.pdf")))[: int(sys.argv[2])]
pages, start = 0, time.perf_counter()
for path in paths:
    pages += len(read_document(path).pages)
seconds = time.perf_counter() - start
print(json.dumps({"files": [os.path.basename(p) for p in paths], "pages": pages, "seconds": round(seconds, 2),
                  "pages_per_s": round(pages / seconds, 2), "load_1": round(os.getloadavg()[0], 2)}))
"""


def speed(data: str, files: int, source: str) -> dict[str, Any]:
    """read_document over the first `files` 10-Qs, in a fresh process importing kotae from `source`."""
    env = {**os.environ, "PYTHONPATH": source, "OPENBLAS_NUM_THREADS": "1"}
    done = subprocess.run([sys.executable, "-c", _SPEED, data, str(files)], env=env, capture_output=True,
                          text=True, check=True)
    return {"source": source, **json.loads(done.stdout.strip().splitlines()[-1])}


def paired_speed(data: str, files: int, sources: list[str], rounds: int) -> list[dict[str, Any]]:
    """Speed of each source, alternating, `rounds` times: the load of a shared machine hits all alike."""
    return [speed(data, files, src) for _ in range(rounds) for src in sources]


# --- report --------------------------------------------------------------------------------------
def _cell(run: dict[str, Any], file: str, key: str) -> Any:
    for row in run["groundtruth"]:
        if row["file"] == file:
            return "err" if "error" in row else row.get(key, "–")
    return ""


def report(runs: dict[str, dict[str, Any]]) -> str:
    labels = sorted(runs, key=lambda lab: (lab != "before", lab))
    first = runs[labels[0]]
    out = ["# PDF parsing: reading order, table cells, headings, speed", "",
           ("Command: `python bench/parse.py --label LABEL` (before: main's source on PYTHONPATH). "
           "Data: ../shared/data/samples (docling groundtruth; unstructured and pdfminer PDFs), sec-10q. "
           "Edit distance: normalised Levenshtein of normalised text (markdown stripped), lower is better; "
           "ed values: the same with each table row's cells as values alone (a row repeats its column names "
           "for search, the reference prints them once: this is the reading order of what the page shows). "
           "Cell F1: distinct table cells of table sections vs the reference's pipe tables; "
           "in text: reference cells found anywhere in the text. Suspect headings: share of sections whose "
           "innermost heading looks like a table cell, number line, sentence or running header."), ""]
    for lab in labels:
        m = runs[lab]["machine"]
        out.append(f"- **{lab}**: kotae {m['kotae']} from `{runs[lab]['source']}` (commit {runs[lab]['commit']}), "
                   f"{m['date']}, {m['cpu']} × {m['cores']}, load {m['loadavg_1_5_15']}")
    out += ["", "## Reading order and tables (docling groundtruth)", "",
            "| file | multi-col | " + " | ".join(f"ed {lab}" for lab in labels) + " | "
            + " | ".join(f"ed values {lab}" for lab in labels) + " | "
            + " | ".join(f"out of order {lab}" for lab in labels) + " | "
            + " | ".join(f"cell F1 {lab}" for lab in labels) + " | "
            + " | ".join(f"in text {lab}" for lab in labels) + " |",
            "|---|---|" + "---|" * (5 * len(labels))]
    for row in first["groundtruth"]:
        f = row["file"]
        cells = [str(_cell(runs[lab], f, "edit_distance")) for lab in labels]
        cells += [str(_cell(runs[lab], f, "edit_distance_values")) for lab in labels]
        cells += [str(_cell(runs[lab], f, "out_of_order")) for lab in labels]
        cells += [str(_cell(runs[lab], f, "cell_f1")) if row.get("table_cells") else "–" for lab in labels]
        cells += [str(_cell(runs[lab], f, "cell_recall_in_text")) if row.get("table_cells") else "–"
                  for lab in labels]
        out.append(f"| {f} | {'yes' if f in MULTI_COLUMN else ''} | " + " | ".join(cells) + " |")
    out += ["", "## Headings on real PDFs (sections; suspect share; samples)", "",
            "| file | " + " | ".join(f"headings {lab} | suspect {lab}" for lab in labels) + " | samples (last label) |",
            "|---|" + "---|---|" * len(labels) + "---|"]
    rows_by = {lab: {r["file"]: r for r in runs[lab]["headings"] + runs[lab]["groundtruth_headings"]}
               for lab in labels}
    for name in rows_by[labels[0]]:
        cols = []
        for lab in labels:
            r = rows_by[lab].get(name, {})
            cols += [str(r.get("distinct_headings", r.get("error", "")[:30])), str(r.get("suspect_share", ""))]
        last = rows_by[labels[-1]].get(name, {})
        sample = "; ".join(str(s)[:40] for s in last.get("samples", [])[:4]).replace("|", "/")
        out.append(f"| {name} | " + " | ".join(cols) + f" | {sample} |")
    out += ["", "## Speed (read_document over sec-10q files, ocr auto, one process per measurement)", "",
            ("Paired: each label's run measures its own source and --baseline-src alternately, so both see "
             "the same machine load (2 shared cores: absolute numbers vary with other jobs, the ratio less)."), "",
            "| run | source | files | pages | seconds | pages/s | load |", "|---|---|---|---|---|---|---|"]
    for lab in labels:
        for s in runs[lab].get("speed_paired", []):
            out.append(f"| {lab} | `{s['source']}` | {len(s['files'])} | {s['pages']} | {s['seconds']} | "
                       f"{s['pages_per_s']} | {s['load_1']} |")
    return "\n".join(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--label", default="after")
    parser.add_argument("--data", default=os.path.join(ROOT, "..", "shared", "data"),
                        help="the shared data folder (from a worktree: /work/shared/data)")
    parser.add_argument("--speed-files", type=int, default=4)
    parser.add_argument("--baseline-src", help="a second kotae src/ to time alternately (e.g. main's checkout)")
    parser.add_argument("--report-only", action="store_true", help="rebuild parse.{json,md} from stored runs")
    parser.add_argument("--show", help="comma-separated labels parse.md shows side by side (default: every stored run)")
    args = parser.parse_args()
    os.makedirs(RUNS, exist_ok=True)
    if not args.report_only and not os.path.isdir(os.path.join(args.data, "samples")):
        parser.error(f"{args.data} has no samples/ folder; pass --data PATH_TO/shared/data")
    if not args.report_only:
        source = os.path.dirname(os.path.dirname(os.path.abspath(kotae.__file__)))
        commit = os.popen(f"git -C {source} rev-parse --short HEAD 2>/dev/null").read().strip()
        print("groundtruth", flush=True)
        gt = groundtruth_rows(args.data)
        print("headings", flush=True)
        hd = heading_rows(args.data, 50)
        print("speed", flush=True)
        run = {"label": args.label, "source": source, "commit": commit, "machine": machine(),
               "groundtruth": gt, "headings": hd,
               "speed_paired": paired_speed(args.data, args.speed_files,
                                            [source] + ([args.baseline_src] if args.baseline_src else []), 2),
               "groundtruth_headings": [{"file": "docling/" + r["file"], **r.get("headings", {})} for r in gt]}
        with open(os.path.join(RUNS, f"{args.label}.json"), "w", encoding="utf-8") as f:
            json.dump(run, f, ensure_ascii=False, indent=2)
    runs = {}
    for path in sorted(glob.glob(os.path.join(RUNS, "*.json"))):
        with open(path, encoding="utf-8") as f:
            run = json.load(f)
        runs[run["label"]] = run
    shown = {lab: runs[lab] for lab in args.show.split(",")} if args.show else runs
    write("parse", {"runs": runs}, report(shown))


if __name__ == "__main__":
    main()

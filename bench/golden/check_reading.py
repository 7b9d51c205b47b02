"""Check the reading golden sets (sec10q.jsonl, layout.jsonl) against the files they cite.

    python bench/golden/check_reading.py --shared ../shared/data [--set sec10q|layout|all]

Checks the schema (fields, types, categories), the split rule (fit / held-out alternating within each
category, in file order), that every cited file exists and every cited page is within it, and reports for
each question whether `must_contain` is found on its pages in today's extraction (kotae's own PDF reader,
`kotae.ingest.pdf.read_pdf`, OCR auto as indexing does). A layout question noted "garbled today" is expected to be missing;
one not so noted is expected to be found. Exit status 1 on a schema, split or page error, 0 otherwise
(a phrase that today's reader garbles is a finding, not an error).
"""
from __future__ import annotations

import argparse
import json
import os
import re
import sys
from collections.abc import Iterable
from typing import Any

from kotae.eval.metrics import cell_values

HERE = os.path.dirname(os.path.abspath(__file__))
SETS = {"sec10q": os.path.join(HERE, "sec10q.jsonl"), "layout": os.path.join(HERE, "layout.jsonl")}
CATEGORIES = {"sec10q": {"statement", "segment", "line-item", "ratio", "text-table"},
              "layout": {"multi-column", "table", "header-footer", "vertical"}}
REQUIRED = {"id": str, "question": str, "answerable": bool, "category": str, "file": str, "pages": list,
            "must_contain": str, "answer": str, "split": str, "note": str}
GARBLED = "garbled today"


def needle(phrase: str) -> re.Pattern[str]:
    """`phrase` as a pattern that ignores whitespace (line breaks, '6,607 )') and, for a figure, does not
    match inside a longer number ('7,457' is not found in '77,457')."""
    body = r"\s*".join(re.escape(c) for c in phrase if not c.isspace())
    pre = r"(?<![\d.,])" if phrase[:1].isdigit() else ""
    post = r"(?![\d]|[.,]\d)" if phrase[-1:].isdigit() else ""
    return re.compile(pre + body + post, re.IGNORECASE)


def contains(text: str, phrase: str) -> bool:
    """Whether `phrase` occurs in `text`, whitespace-insensitively (see `needle`), in a table row also with the
    row's column names left out (`kotae.eval.metrics.cell_values`)."""
    return bool(needle(phrase).search(text) or needle(phrase).search(cell_values(text).replace(" | ", " ")))


def load(path: str) -> list[dict[str, Any]]:
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def schema_errors(name: str, items: list[dict[str, Any]]) -> list[str]:
    """Missing or mistyped fields, unknown categories, duplicate ids, and splits that break the rule."""
    errors: list[str] = []
    seen: set[str] = set()
    per_category: dict[str, int] = {}
    for it in items:
        qid = it.get("id", "?")
        for field, kind in REQUIRED.items():
            if not isinstance(it.get(field), kind):
                errors.append(f"{qid}: field {field!r} missing or not {kind.__name__}")
        if qid in seen:
            errors.append(f"{qid}: duplicate id")
        seen.add(qid)
        if it.get("category") not in CATEGORIES[name]:
            errors.append(f"{qid}: category {it.get('category')!r} not one of {sorted(CATEGORIES[name])}")
        pages = it.get("pages") or []
        if not pages or not all(isinstance(p, int) and p >= 1 for p in pages):
            errors.append(f"{qid}: pages must be a non-empty list of 1-based page numbers")
        if not it.get("must_contain", "").strip():
            errors.append(f"{qid}: must_contain is empty")
        k = per_category.get(it.get("category", ""), 0)
        per_category[it.get("category", "")] = k + 1
        expected = "fit" if k % 2 == 0 else "held-out"
        if it.get("split") != expected:
            errors.append(f"{qid}: split {it.get('split')!r}, the rule (alternating within category) gives "
                          f"{expected!r}")
    return errors


def evidence(it: dict[str, Any]) -> list[tuple[str, list[int]]]:
    """(file, pages) pairs that count as the right place: the question's own and any `also` entries
    (the same figure printed as a comparative in another filing)."""
    return [(it["file"], list(it["pages"]))] + [(a["file"], list(a["pages"])) for a in it.get("also", [])]


def read_pages(shared: str, files: Iterable[str]) -> dict[str, list[str]]:
    """Today's cleaned page texts, as kotae indexes them (OCR auto: pages without a text layer are OCR'd)."""
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), "src"))
    from kotae.ingest.pdf import read_pdf

    out: dict[str, list[str]] = {}
    for rel in sorted(set(files)):
        path = os.path.join(shared, rel)
        with open(path, "rb") as f:
            out[rel] = list(read_pdf(path, f.read(), ocr="auto").pages)
    return out


def check(name: str, items: list[dict[str, Any]], shared: str) -> tuple[list[str], list[dict[str, Any]]]:
    """(errors, one finding per question: found on which cited pages)."""
    errors = schema_errors(name, items)
    files = [f for it in items for f, _ in evidence(it)]
    missing = sorted({f for f in files if not os.path.exists(os.path.join(shared, f))})
    errors += [f"file not found: {os.path.join(shared, f)}" for f in missing]
    texts = read_pages(shared, [f for f in files if f not in missing])
    findings = []
    for it in items:
        found: list[str] = []
        for rel, pages in evidence(it):
            if rel not in texts:
                continue
            for p in pages:
                if p > len(texts[rel]):
                    errors.append(f"{it['id']}: page {p} beyond {rel} ({len(texts[rel])} pages)")
                elif contains(texts[rel][p - 1], it["must_contain"]):
                    found.append(f"{rel}:{p}")
        garbled = GARBLED in it.get("note", "")
        findings.append({"id": it["id"], "category": it["category"], "found": found, "garbled_noted": garbled,
                         "as_noted": bool(found) != garbled})
    return errors, findings


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--shared", default=os.path.join(os.path.dirname(os.path.dirname(HERE)), "..", "shared",
                                                     "data"))
    ap.add_argument("--set", choices=("sec10q", "layout", "all"), default="all")
    args = ap.parse_args()
    names = list(SETS) if args.set == "all" else [args.set]
    status = 0
    for name in names:
        if not os.path.exists(SETS[name]):
            print(f"{name}: {SETS[name]} not written yet")
            continue
        items = load(SETS[name])
        errors, findings = check(name, items, args.shared)
        cats: dict[str, list[int]] = {}
        for f in findings:
            c = cats.setdefault(f["category"], [0, 0])
            c[0] += 1
            c[1] += bool(f["found"])
        splits = {s: sum(it["split"] == s for it in items) for s in ("fit", "held-out")}
        print(f"{name}: {len(items)} questions, splits {splits}")
        for cat, (n, found) in sorted(cats.items()):
            print(f"  {cat}: {n} questions, must_contain found in today's extraction: {found}")
        for f in findings:
            if not f["as_noted"]:
                state = "found" if f["found"] else "NOT found"
                print(f"  note: {f['id']} must_contain {state} today, but the note says "
                      f"{'garbled' if f['garbled_noted'] else 'nothing about garbling'}")
            elif not f["found"]:
                print(f"  garbled today (as noted): {f['id']}")
        for e in errors:
            print(f"  ERROR {e}")
        status |= bool(errors)
    return status


if __name__ == "__main__":
    sys.exit(main())

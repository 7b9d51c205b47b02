"""Does an answer say what the documents hold, and only that? samples/golden-trust.jsonl, scored by kind.

    python bench/trust.py [--label NAME]

Index: samples/docs plus samples/trust (blank form templates), default settings, the bundled e5 model,
self-calibrated gate. Every question is asked once through `Kotae.ask` (extractive). Scores per kind, reported
apart for the "fit" half (which may be used to choose a knob) and the "held-out" half (never used so):
- off-topic: refused (「わからない」).
- partial: answered, the answer holds one of `must_contain`, and is marked partial (`completeness`) with
  what is missing named (`missing`).
- blank-value: reported as a value the document leaves blank (`completeness == "blank"`), with the form
  cited; a refusal counts as "refused" (no harm, no help), any other answer as a wrong answer.
- list-answer: the answer text holds every phrase of `must_contain_all` (whitespace removed).
Writes bench/results/trust{_LABEL}.{json,md}.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import machine, write

from kotae import Kotae
from kotae.config import Settings

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GOLDEN = os.path.join(ROOT, "samples", "golden-trust.jsonl")
KINDS = ("off-topic", "partial", "blank-value", "list-answer")


def _squash(s: str) -> str:
    return "".join(s.split())


def score(item: dict, ans: dict) -> dict:
    """One question's outcome: ok (bool) and what happened, from the answer's dict."""
    kind, text = item["kind"], _squash(ans["answer"])
    completeness = ans.get("completeness", "complete")
    if not ans["found_in_docs"]:
        return {"ok": kind == "off-topic", "outcome": "refused"}
    if kind == "off-topic":
        return {"ok": False, "outcome": "answered"}
    if kind == "partial":
        holds = any(_squash(m) in text for m in item["must_contain"])
        marked = completeness == "partial" and bool(ans.get("missing"))
        return {"ok": holds and marked, "outcome": f"{'holds' if holds else 'lacks'} answer, {completeness}"}
    if kind == "blank-value":
        files = {s["file"] for s in ans["sources"][:3]}
        ok = completeness == "blank" and item["file"] in files
        return {"ok": ok, "outcome": "blank" if completeness == "blank" else "wrong answer"}
    missing = [m for m in item["must_contain"] if _squash(m) not in text]
    return {"ok": not missing, "outcome": f"{len(item['must_contain']) - len(missing)}/{len(item['must_contain'])}"}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--label", default="", help="suffix of the result files (compare two trees side by side)")
    args = ap.parse_args()
    with open(GOLDEN, encoding="utf-8") as f:
        items = [json.loads(line) for line in f if line.strip()]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        docs = os.path.join(tmp, "docs")
        shutil.copytree(os.path.join(ROOT, "samples", "docs"), docs)
        shutil.copy(os.path.join(ROOT, "samples", "trust", "forms.md"), docs)
        k = Kotae.open(os.path.join(tmp, "index"), settings=Settings())
        t0 = time.perf_counter()
        k.index([docs])
        index_s = time.perf_counter() - t0
        for it in items:
            ans = k.ask(it["question"]).to_dict()
            rows.append({"id": it["id"], "kind": it["kind"], "split": it["split"], "question": it["question"],
                         "answer": ans["answer"], "found": ans["found_in_docs"],
                         "completeness": ans.get("completeness", "complete"), "missing": ans.get("missing", []),
                         **score(it, ans)})
        calibration = k.calibration().describe()
        k.close()
    table = {}
    for kind in KINDS:
        for split in ("fit", "held-out"):
            sel = [r for r in rows if r["kind"] == kind and r["split"] == split]
            table[f"{kind}/{split}"] = {"n": len(sel), "ok": sum(r["ok"] for r in sel)}
    label = f"_{args.label}" if args.label else ""
    md = [f"# Trust set{label.replace('_', ' ')}: samples/golden-trust.jsonl", "",
          f"Index: samples/docs + samples/trust, default settings, {calibration}; indexed in {index_s:.1f} s.", "",
          "| kind | fit ok | held-out ok |", "| --- | ---: | ---: |"]
    for kind in KINDS:
        f, h = table[f"{kind}/fit"], table[f"{kind}/held-out"]
        md.append(f"| {kind} | {f['ok']}/{f['n']} | {h['ok']}/{h['n']} |")
    md += ["", "| id | kind | split | ok | outcome | answer |", "| --- | --- | --- | --- | --- | --- |"]
    for r in rows:
        a = r["answer"].replace("|", "\\|").replace("\n", " ")
        md.append(f"| {r['id']} | {r['kind']} | {r['split']} | {'✓' if r['ok'] else '✗'} | {r['outcome']} | "
                  f"{a[:160]} |")
    write(f"trust{label}", {"machine": machine(), "table": table, "rows": rows}, "\n".join(md))
    return 0


if __name__ == "__main__":
    sys.exit(main())

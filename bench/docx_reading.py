"""How close kotae's reading of real DOCX files is to their reference text: docling's DOCX samples and groundtruth.

    python bench/docx_reading.py [--data ../shared/data] [--before OLD/src]

For every `samples/docling/docx/sources/*.docx` with a `groundtruth/*.md`: the normalised edit distance between
kotae's page texts and the reference markdown stripped of its markup (bench/parse.py's `normalise`,
`strip_markdown`, `normalised_distance`; lower is better), and both lengths. A reference prints a table once as
a pipe table while kotae repeats the column names in every row (`column: value | …`, what search needs), so
table files keep a distance even when nothing is lost; the reference's list marks are stripped with its markdown
(`- `, `1. `), so kotae's bullets ("• ") are stripped too, while Word's automatic numbers ("1.2", 「第3条」) stay; a file whose text is much SHORTER than the reference lost
content. `--before` reads the same files with another kotae source tree (each tree in its own process), side by
side. Writes bench/results/docx_reading.{json,md}.
"""
from __future__ import annotations

import argparse
import glob
import json
import os
import subprocess
import sys
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import machine, write

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MEASURE = """
import glob, json, os, sys
sys.path.insert(0, {bench!r})
from parse import normalise, normalised_distance, strip_markdown
from kotae.errors import DocumentError
from kotae.ingest import read_document
import re
BULLET = re.compile(r"^[•◦▪・] ", re.MULTILINE)
out = {{}}
for src in sorted(glob.glob(os.path.join({base!r}, "sources", "*.docx"))):
    name = os.path.basename(src)
    ref_path = os.path.join({base!r}, "groundtruth", name + ".md")
    if not os.path.exists(ref_path):
        continue
    with open(ref_path, encoding="utf-8") as f:
        ref = normalise(strip_markdown(f.read()))
    try:
        ours = normalise(BULLET.sub("", chr(10).join(read_document(src).pages)))
    except DocumentError as e:
        out[name] = {{"error": str(e)}}
        continue
    out[name] = {{"edit_distance": round(normalised_distance(ours, ref), 4), "chars": len(ours), "reference": len(ref)}}
print(json.dumps(out))
"""


def measure(src: str, base: str) -> dict[str, Any]:
    code = MEASURE.format(bench=os.path.join(ROOT, "bench"), base=base)
    env = {**os.environ, "PYTHONPATH": src}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=os.path.join(ROOT, "..", "shared", "data"))
    ap.add_argument("--before", help="another kotae src/ folder to read the same files with")
    args = ap.parse_args()
    base = os.path.join(args.data, "samples", "docling", "docx")
    if not glob.glob(os.path.join(base, "sources", "*.docx")):
        print(f"no DOCX samples under {base}", file=sys.stderr)
        return 1
    runs = {"this tree": measure(os.path.join(ROOT, "src"), base)}
    if args.before:
        runs["before"] = measure(args.before, base)
    names = sorted(runs["this tree"])
    labels = list(runs)
    m = machine()
    lines = [(f"kotae's reading of docling's DOCX samples against their reference markdown (normalised edit distance, "
             f"lower is better; chars: kotae's text / the reference's). Machine: {m['cpu']}, {m['cores']} cores. "
             f"Command: `python bench/docx_reading.py{' --before ' + args.before if args.before else ''}`."), "",
             "| file | " + " | ".join(f"ed {lb}" for lb in labels) + " | " + " | ".join(f"chars {lb}" for lb in labels)
             + " | reference chars |", "|---|" + "---|" * (2 * len(labels) + 1)]

    def cell(run: dict[str, Any], name: str, key: str) -> str:
        row = run.get(name, {})
        return "error" if "error" in row else str(row.get(key, "–"))

    for name in names:
        ref = runs["this tree"][name].get("reference", "–")
        lines.append(f"| {name} | " + " | ".join(cell(runs[lb], name, "edit_distance") for lb in labels) + " | "
                     + " | ".join(cell(runs[lb], name, "chars") for lb in labels) + f" | {ref} |")
    means = {lb: sum(r["edit_distance"] for r in runs[lb].values() if "edit_distance" in r)
             / max(1, sum("edit_distance" in r for r in runs[lb].values())) for lb in labels}
    lines += ["", "Mean edit distance: " + ", ".join(f"{lb} {v:.4f}" for lb, v in means.items()) + "."]
    write("docx_reading", {"runs": runs, "mean": means, "before": args.before}, "\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())

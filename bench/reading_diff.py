"""Does a change alter what kotae reads? The same files read by two commits, sections and pages compared.

    python bench/reading_diff.py --base 2b9265c~1 ../shared/data/sec-10q     # this tree against a commit

Each file is read with `read_document` (default options) by this tree and by `--base` (checked out into a
temporary git worktree, run with its own src/ on the same virtual environment); reported per file: sections
(headings with their pages) added or removed and pages whose parsed content differs. Nothing is written:
the report goes to stdout.
"""
from __future__ import annotations

import argparse
import glob
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DUMP = r"""
import hashlib, json, sys
from kotae.ingest import read_document
out = {}
for p in sys.argv[2:]:
    try:
        d = read_document(p)
    except Exception as e:  # a file kotae refuses (encrypted, corrupt): its message is what is compared
        out[p] = {"sections": [f"error: {e}"], "pages": []}
        continue
    out[p] = {"sections": [repr(s) for s in d.sections],
              "pages": [hashlib.sha1(repr(pg).encode()).hexdigest() for pg in d.pages]}
json.dump(out, open(sys.argv[1], "w"))
"""


def read_with(src: str, files: list[str], out: str) -> dict:
    env = {**os.environ, "PYTHONPATH": src}
    subprocess.run([sys.executable, "-c", DUMP, out, *files], check=True, env=env)
    with open(out, encoding="utf-8") as f:
        return json.load(f)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", required=True, help="the commit to compare against")
    ap.add_argument("folder", help="a folder of files to read (PDF, DOCX, …; not recursive)")
    args = ap.parse_args()
    files = sorted(p for p in glob.glob(os.path.join(os.path.abspath(args.folder), "*")) if os.path.isfile(p))
    with tempfile.TemporaryDirectory() as tmp:
        tree = os.path.join(tmp, "base")
        subprocess.run(["git", "-C", ROOT, "worktree", "add", "--detach", "-q", tree, args.base], check=True)
        try:
            before = read_with(os.path.join(tree, "src"), files, os.path.join(tmp, "before.json"))
        finally:
            subprocess.run(["git", "-C", ROOT, "worktree", "remove", "--force", tree], check=True)
        after = read_with(os.path.join(ROOT, "src"), files, os.path.join(tmp, "after.json"))
    pages = changed_pages = sections = 0
    for p in files:
        a, b = before[p], after[p]
        pages += len(b["pages"])
        sections += len(b["sections"])
        moved = sum(x != y for x, y in zip(a["pages"], b["pages"], strict=False)) + abs(len(a["pages"]) - len(b["pages"]))
        changed_pages += moved
        gone, new = sorted(set(a["sections"]) - set(b["sections"])), sorted(set(b["sections"]) - set(a["sections"]))
        if moved or gone or new:
            print(f"{os.path.basename(p)}: {moved} page(s) differ, sections −{len(gone)} +{len(new)}")
            for s in gone[:5]:
                print(f"  − {s[:160]}")
            for s in new[:5]:
                print(f"  + {s[:160]}")
    print(f"{len(files)} files, {pages} pages ({changed_pages} differ), {sections} sections; base {args.base}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

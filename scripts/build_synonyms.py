"""Build kotae's compact synonym table from the Sudachi synonym dictionary.

    python scripts/build_synonyms.py [../shared/data/sudachi-synonyms/synonyms.txt]

Writes src/kotae/data/synonyms/synonyms.tsv.gz: one line per entry, `group <TAB> flag <TAB> tokens`, where
tokens are the entry's search tokens as kotae's analyser makes them (Sudachi SplitMode.A normalised forms
for Japanese, stemmed lower-case English), space-separated. Entries with expansion flag 2 (never used:
kept upstream only as a deletion record) and entries with no search token are left out. Re-run it when
the analyser or the Sudachi dictionary changes: the tokens must be those the index holds.
"""
from __future__ import annotations

import csv
import gzip
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "src"))

from kotae.search.analyze import analyze  # noqa: E402

OUT = os.path.join(ROOT, "src", "kotae", "data", "synonyms", "synonyms.tsv.gz")


def main() -> int:
    src = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "..", "shared", "data", "sudachi-synonyms",
                                                             "synonyms.txt")
    rows, kept = 0, []
    with open(src, encoding="utf-8", newline="") as f:
        for rec in csv.reader(f):
            if len(rec) < 9 or not rec[0].strip():
                continue
            rows += 1
            group, flag, word = rec[0].strip(), (rec[2].strip() or "0"), rec[8].strip()
            if flag == "2" or not word:
                continue
            tokens = analyze(word)
            if tokens:
                kept.append(f"{int(group)}\t{flag}\t{' '.join(tokens)}")
    kept = list(dict.fromkeys(kept))  # spelling variants often analyse to the same tokens
    with gzip.open(OUT, "wt", encoding="utf-8", compresslevel=9) as out:
        out.write("\n".join(kept) + "\n")
    print(f"{rows} entries read from {src}, {len(kept)} written to {OUT} ({os.path.getsize(OUT)} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

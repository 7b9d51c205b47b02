"""Check bench/golden/users-real.jsonl against the real documents, as kotae itself reads them.

    python bench/golden/check.py                      # documents under ../shared/data/samples
    python bench/golden/check.py --shared /path/to/data

Exit status 0 = all good, 1 = problems were printed. `file` is relative to <shared>/samples. Page texts come
from kotae.ingest.read_document (the pages kotae indexes and cites, 1-based), so every must_contain phrase
is checked, whitespace removed, against the text kotae extracts. The item rules (fields, split, categories,
languages, cross-page, unanswerable key words) are those of samples/check_golden_users.py.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from functools import cache
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(ROOT / "samples"))
sys.path.insert(0, str(ROOT / "src"))

import check_golden_users as users

SET = HERE / "users-real.jsonl"
MINIMUM_JA = {"total": 15, "cross-lingual": 3, "table": 3, "cross-page": 2}
MINIMUM_EN = {"total": 10, "table": 3, "cross-page": 1}

# Key words of the unanswerable items: none may occur in a document the set refers to.
REAL_UNANSWERABLE_KEYWORDS = {
    "この発表の実験で使ったGPUは何ですか。": ["GPU", "グラフィックス"],
    "What is the licence price of DB2 for i?": ["price", "licence", "pricing"],
}


def load_items(path: Path, problems: list[str]) -> list[tuple[int, object]]:
    items: list[tuple[int, object]] = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        try:
            items.append((number, json.loads(line)))
        except json.JSONDecodeError as exc:
            problems.append(f"{path.name}:{number}: invalid JSON ({exc})")
    return items


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", default=str(ROOT.parent / "shared" / "data"),
                        help="the shared data folder (default ../shared/data from the repository root)")
    args = parser.parse_args(argv)
    samples = Path(args.shared) / "samples"
    if not samples.is_dir():
        print(f"{samples}: no such folder; pass --shared <folder holding samples/>")
        return 1
    from kotae.errors import KotaeError
    from kotae.ingest import read_document

    problems: list[str] = []

    @cache
    def pages_of(name: str) -> dict[int, str] | None:
        path = samples / name
        if not path.is_file():
            return None
        try:
            doc = read_document(str(path))
        except KotaeError as exc:
            problems.append(f"{name}: kotae cannot read it ({exc})")
            return None
        return {i: text for i, text in enumerate(doc.pages, 1)}

    def units_of(name: str) -> list[str]:
        return list((pages_of(name) or {}).values())

    items = load_items(SET, problems)
    dicts = [it for _, it in items if isinstance(it, dict)]

    def check(item, where):
        lang = "ja" if str(item.get("id", "")).startswith("rja") else "en"
        return users.check_user_item(item, lang, pages_of, units_of, where, "rja" if lang == "ja" else "ren",
                                     REAL_UNANSWERABLE_KEYWORDS)

    found, counts = users.check_user_set(items, SET.name, check, {})
    problems += found
    for prefix, minimum in (("rja", MINIMUM_JA), ("ren", MINIMUM_EN)):
        part = [it for it in dicts if str(it.get("id", "")).startswith(prefix)]
        for category, least in minimum.items():
            have = len(part) if category == "total" else sum(1 for it in part if it.get("category") == category)
            if have < least:
                problems.append(f"{SET.name}: {have} {prefix} {category} items, at least {least} wanted")
    files = sorted({it["file"] for it in dicts if isinstance(it.get("file"), str)})
    texts = {name: units_of(name) for name in files}
    problems += users.keyword_problems(dicts, texts, SET.name, REAL_UNANSWERABLE_KEYWORDS)
    splits = {s: sum(1 for it in dicts if it.get("split") == s) for s in users.SPLITS}
    langs = {p: sum(1 for it in dicts if str(it.get("id", "")).startswith(p)) for p in ("rja", "ren")}
    print(f"{SET.name}: {len(dicts)} items (Japanese {langs['rja']}, English {langs['ren']}; "
          + ", ".join(f"{c} {counts[c]}" for c in sorted(users.USER_CATEGORIES))
          + f"; fit {splits['fit']}, held-out {splits['held-out']}) over {len(files)} files")
    for problem in problems:
        print("PROBLEM", problem)
    print("OK" if not problems else f"{len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    sys.exit(main())

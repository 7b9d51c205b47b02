"""Training groups for kotae's reranker from JaQuAD *train*: (question, its paragraph, kotae's hard negatives).

    python scripts/reranker/mine.py ../shared/data/jaquad-train OUT_DIR [--paragraphs 0]

The paragraphs of a sample of articles (0: all of them) are indexed with kotae itself (e5 + BM25, one chunk per
paragraph), and each question is searched in hybrid mode, so the negatives are the passages the reranker will
really see above or beside the answer. A candidate that contains the answer text is never a negative. Articles
are split by a hash of their title: ~10 % are `val` (kept out of training, used to pick the checkpoint), the
rest `train`. Writes OUT_DIR/paragraphs.jsonl (`pid`, `title`, `text`, `split`) and OUT_DIR/groups.jsonl (`q`,
`pid`, `negs`: paragraph ids best first, `rank` of the answer's paragraph in the hybrid list (0: not in it),
`answers`, `starts`: the answers' character offsets, `split`). JaQuAD train is a training set (CC BY-SA 3.0);
kotae's reported sets (JSQuAD valid, the golden questions) are never read here.
"""
from __future__ import annotations

import argparse
import glob
import hashlib
import json
import os
import random
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "src"))

from kotae.config import Settings  # noqa: E402
from kotae.facade import Kotae  # noqa: E402
from kotae.types import Record  # noqa: E402

POOL = 30  # ranks searched: the reranker's default candidate pool


def split_of(title: str) -> str:
    return "val" if hashlib.sha1(title.encode()).digest()[0] % 10 == 0 else "train"


def load(folder: str) -> list[tuple[str, str, list[dict]]]:  # type: ignore[type-arg]
    """(article title, paragraph text, its questions) for every paragraph, in file order."""
    out = []
    for path in sorted(glob.glob(os.path.join(folder, "jaquad_train_*.json"))):
        with open(path, encoding="utf-8") as fh:
            for art in json.load(fh)["data"]:
                for p in art["paragraphs"]:
                    out.append((art["title"], p["context"], p["qas"]))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("data")
    ap.add_argument("out")
    ap.add_argument("--paragraphs", type=int, default=0, help="paragraphs indexed (whole articles, sampled; 0: all)")
    ap.add_argument("--index", default=None, help="index folder (default: a temporary one)")
    ap.add_argument("--seed", type=int, default=13)
    a = ap.parse_args(argv)
    rows = load(a.data)
    rng = random.Random(a.seed)
    titles = sorted({t for t, _, _ in rows})
    rng.shuffle(titles)
    chosen, n = set(), 0
    per_title: dict[str, int] = {}
    for t, _, _ in rows:
        per_title[t] = per_title.get(t, 0) + 1
    for t in titles:
        if a.paragraphs and n >= a.paragraphs:
            break
        chosen.add(t)
        n += per_title[t]
    paras = [(f"p{i}", t, c, qas) for i, (t, c, qas) in enumerate(rows) if t in chosen]
    os.makedirs(a.out, exist_ok=True)
    with open(os.path.join(a.out, "paragraphs.jsonl"), "w", encoding="utf-8") as out:
        for pid, t, c, _ in paras:
            out.write(json.dumps({"pid": pid, "title": t, "text": c, "split": split_of(t)}, ensure_ascii=False) + "\n")
    folder = a.index or tempfile.mkdtemp(prefix="kotae-mine-")
    t0 = time.time()
    with Kotae.open(folder, settings=Settings()) as k:
        if not k.documents():
            k.index_records([Record(pid, c, t) for pid, t, c, _ in paras], "jaquad-train-sample")
        print(f"indexed {len(paras)} paragraphs of {len(chosen)} articles in {time.time() - t0:.0f} s", flush=True)
        text = {pid: c for pid, _, c, _ in paras}
        written = 0
        with open(os.path.join(a.out, "groups.jsonl"), "w", encoding="utf-8") as out:
            for pid, title, _, qas in paras:
                for qa in qas:
                    answers = [x["text"] for x in qa["answers"] if x["text"].strip()]
                    res = k.search(qa["question"], mode="hybrid", top_k=POOL)
                    ranked = [h.chunk.file for h in res.hits]
                    negs = [r for r in ranked if r != pid and not any(ans in text[r] for ans in answers)]
                    rank = ranked.index(pid) + 1 if pid in ranked else 0
                    out.write(json.dumps({"q": qa["question"], "pid": pid, "negs": negs, "rank": rank,
                                          "answers": answers, "starts": [x["answer_start"] for x in qa["answers"]],
                                          "split": split_of(title)}, ensure_ascii=False) + "\n")
                    written += 1
                    if written % 1000 == 0:
                        print(f"{written} questions, {time.time() - t0:.0f} s", flush=True)
    print(f"wrote {written} groups to {a.out} in {time.time() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

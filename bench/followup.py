"""Follow-up questions: retrieval of the last turn of two- and three-turn dialogues, three ways.

    python bench/followup.py                 # writes bench/results/followup.{json,md}
    python bench/followup.py --index DIR     # reuse (or build) the samples index in DIR

Data: bench/golden/followup.jsonl (ja and en dialogues over samples/docs, written before any tuning, each
with a `split`: fit or held-out). For the last turn, hybrid retrieval (top 5) is scored with the phrase rule
(a hit: a retrieved chunk holds one of `must_contain`) when the search is
(a) the last turn alone, (b) the last turn with the earlier turns' topic words carried (kotae.answer.followup,
what kotae does without an LLM), (c) the reference standalone question (what a perfect rewrite would give). Besides follow-ups, the set holds
topic switches (kind "switch": the last turn names a new topic, its reference is itself), where carrying
must not hurt.
Fit and held-out are reported apart: anything tuned on this set is tuned on `fit` only.
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
from kotae.answer.followup import retrieval_question
from kotae.config import Settings
from kotae.eval.metrics import Evidence, Retrieved, hit_at, judge

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GOLDEN = os.path.join(ROOT, "bench", "golden", "followup.jsonl")
WAYS = ("alone", "carried", "reference")
K = 5


def searched(d: dict, way: str) -> str:
    if way == "alone":
        return d["turns"][-1]
    if way == "carried":
        return retrieval_question(d["turns"])
    return d["standalone"]


def score(k: Kotae, dialogues: list[dict]) -> list[dict]:
    rows = []
    for d in dialogues:
        ev = Evidence(d["file"], (), tuple(d["must_contain"]))
        row = {"id": d["id"], "lang": d["lang"], "split": d["split"], "kind": d.get("kind", "follow-up"),
               "turns": len(d["turns"])}
        for way in WAYS:
            q = searched(d, way)
            hits = k.search(q, mode="hybrid", top_k=K).hits
            units = judge([Retrieved(h.chunk.file, h.chunk.page, h.chunk.text) for h in hits], ev, "phrase")
            row[way] = {"query": q, "hit@1": hit_at(units, 1), "hit@5": hit_at(units, K)}
        rows.append(row)
    return rows


def summary(rows: list[dict]) -> dict:
    out: dict = {}
    groups = [("follow-up", "ja"), ("follow-up", "en"), ("follow-up", "all"), ("switch", "all")]
    for split in ("fit", "held-out"):
        for kind, lang in groups:
            rs = [r for r in rows if r["split"] == split and r["kind"] == kind and lang in (r["lang"], "all")]
            out[f"{split} / {kind} / {lang}"] = {"n": len(rs), **{f"{way} {m}": sum(r[way][m] for r in rs) / len(rs)
                                                       for way in WAYS for m in ("hit@1", "hit@5")}}
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--index", help="an index of samples/docs to reuse (built there when missing)")
    ap.add_argument("--golden", default=GOLDEN)
    args = ap.parse_args()
    with open(args.golden, encoding="utf-8") as f:
        dialogues = [json.loads(line) for line in f if line.strip()]
    with tempfile.TemporaryDirectory() as tmp:
        location = args.index or tmp
        with Kotae.open(location, settings=Settings()) as k:
            t0 = time.perf_counter()
            k.index([os.path.join(ROOT, "samples", "docs")])
            index_s = time.perf_counter() - t0
            rows = score(k, dialogues)
            version, model = k.index_version(), k.embedder.model_id
    s = summary(rows)
    lines = ["| split / kind / lang | n | " + " | ".join(f"{w} hit@1 | {w} hit@5" for w in WAYS) + " |",
             "|---" * (2 + 2 * len(WAYS)) + "|"]
    for key, v in s.items():
        lines.append(f"| {key} | {v['n']} | " + " | ".join(f"{v[f'{w} hit@1']:.3f} | {v[f'{w} hit@5']:.3f}"
                                                           for w in WAYS) + " |")
    missed = [f"- {r['id']} ({r['split']}): carried `{r['carried']['query']}`" for r in rows
              if not r["carried"]["hit@5"]]
    m = machine()
    header = (f"Follow-up dialogues (bench/golden/followup.jsonl: {len(rows)} dialogues, "
              f"{sum(r['lang'] == 'ja' for r in rows)} ja / {sum(r['lang'] == 'en' for r in rows)} en), "
              f"retrieval of the last turn over samples/docs, hybrid, top {K}, phrase rule; {model}, default "
              f"settings; indexing took {index_s:.0f} s{' (the --index was reused)' if index_s < 5 else ''}. alone = the last turn as asked; carried = with the earlier "
              "turns' topic words (kotae without an LLM); reference = the dialogue's standalone question. "
              f"Machine: {m['cpu']}, {m['cores']} cores. Command: `python bench/followup.py`.\n\n")
    body = "\n".join(lines) + "\n\nLast turns carrying missed at 5:\n\n" + ("\n".join(missed) or "- none")
    write("followup", {"machine": m, "index_version": version, "summary": s, "rows": rows}, header + body)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The e5 tokenizer: exactness and cost of the shortcuts kotae takes, on SciFact and JSQuAD text.

    python bench/tokenizer.py [--limit N]     # needs ../shared/data (scifact, jsquad-valid corpora)

- counts: `E5Tokenizer.count` through `tokenizers`' Unigram (what chunking uses on large jobs) against the exact
  lattice's `len(encode(...))`, text by text, and the time of each;
- ids without the prefix set (how a short text is tokenised before the first long one builds it) against ids
  with it, on the texts under tokenizer.SHORT characters;
- the cost of loading e5-small-onnx (tokenizer tables, model file, onnxruntime session), and of building the
  prefix set and the `tokenizers` model that are left out of it.
Writes bench/results/tokenizer.{json,md}.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import machine, write

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(ROOT, "..", "shared", "data")


def texts(limit: int | None) -> list[str]:
    out: list[str] = []
    for name in ("scifact", "jsquad-valid"):
        with open(os.path.join(DATA, name, "corpus.jsonl"), encoding="utf-8") as f:
            out += [json.loads(line)["text"] for line in f][:limit]
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--limit", type=int, help="at most N texts of each corpus")
    args = ap.parse_args()
    from kotae.embed import e5_tokenizer
    from kotae.embed.e5_onnx import PREFIX, E5SmallOnnx

    t0 = time.perf_counter()
    engine = E5SmallOnnx()
    load_s = time.perf_counter() - t0
    f = engine._file
    corpus = [PREFIX["passage"] + t for t in texts(args.limit)]

    def fresh(**overrides: int) -> e5_tokenizer.E5Tokenizer:
        saved = {k: getattr(e5_tokenizer, k) for k in overrides}
        for k, v in overrides.items():
            setattr(e5_tokenizer, k, v)
        try:
            return e5_tokenizer.E5Tokenizer(f.pieces, f.scores, f.norm, f.unk)
        finally:
            for k, v in saved.items():
                setattr(e5_tokenizer, k, v)

    exact = fresh()
    t0 = time.perf_counter()
    exact.encode("x" * (e5_tokenizer.SHORT + 1))  # builds the prefix set
    prefix_set_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    want = [len(exact.encode(t)) for t in corpus]
    exact_s = time.perf_counter() - t0
    fast = fresh()
    e5_tokenizer.FAST_AFTER, saved = 0, e5_tokenizer.FAST_AFTER
    try:
        t0 = time.perf_counter()
        fast.count("x")  # builds the `tokenizers` model
        build_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        got = [fast.count(t) for t in corpus]
        fast_s = time.perf_counter() - t0
    finally:
        e5_tokenizer.FAST_AFTER = saved
    short = [t for t in corpus if len(t) <= e5_tokenizer.SHORT]
    bounded = fresh(SHORT=10**9)
    bounded_diff = sum(bounded.encode(t) != exact.encode(t) for t in short)
    chars = sum(map(len, corpus))
    res = {"texts": len(corpus), "characters": chars, "count_differences": sum(a != b for a, b in zip(want, got)),
           "exact_s": round(exact_s, 2), "fast_count_s": round(fast_s, 2),
           "exact_us_per_char": round(1e6 * exact_s / chars, 3), "fast_us_per_char": round(1e6 * fast_s / chars, 3),
           "fast_model_build_s": round(build_s, 2), "short_texts": len(short), "short_id_differences": bounded_diff,
           "engine_load_s": round(load_s, 2), "prefix_set_build_s": round(prefix_set_s, 2)}
    m = machine()
    md = (f"SciFact and JSQuAD corpus texts as passages ({res['texts']} texts, {chars:,} characters). "
          f"Machine: {m['cpu']}, {m['cores']} cores, load average at start {m['loadavg_1_5_15'][0]}. Command: "
          f"`python bench/tokenizer.py{'' if args.limit is None else f' --limit {args.limit}'}`.\n\n"
          "| measure | value |\n|---|---|\n"
          f"| token counts differing, `tokenizers` vs exact lattice | {res['count_differences']} of {res['texts']} |\n"
          f"| exact lattice (ids) | {res['exact_s']} s, {res['exact_us_per_char']} µs/character |\n"
          f"| `tokenizers` count | {res['fast_count_s']} s, {res['fast_us_per_char']} µs/character "
          f"({exact_s / fast_s:.1f}× faster) |\n"
          f"| building the `tokenizers` model (once) | {res['fast_model_build_s']} s |\n"
          f"| ids differing without the prefix set (texts ≤ {e5_tokenizer.SHORT} characters) | "
          f"{bounded_diff} of {len(short)} |\n"
          f"| loading e5-small-onnx (graph cached) | {res['engine_load_s']} s |\n"
          f"| building the prefix set (at the first long text) | {res['prefix_set_build_s']} s |")
    write("tokenizer", {"machine": m, "results": res}, md)
    return 0


if __name__ == "__main__":
    sys.exit(main())

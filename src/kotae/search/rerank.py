"""Cross-encoder reranking: the top fused hits are rescored by a model that reads query and passage together.

A reranker is named by a spec, `prefix:<arg>`:

- `onnx:<dir>`: an ONNX export of a cross-encoder; `<dir>` holds `model.onnx` and `tokenizer.json`
  (onnxruntime and tokenizers are kotae dependencies; export with
  `optimum-cli export onnx --model cross-encoder/ms-marco-MiniLM-L-6-v2 --task text-classification <dir>`).
- `st:<name or path>`: a sentence-transformers `CrossEncoder` (`pip install 'kotae[rerank-st]'`).

Recommended models: English `cross-encoder/ms-marco-MiniLM-L-6-v2`; multilingual and Japanese
`BAAI/bge-reranker-v2-m3` or the small `hotchpotch/japanese-reranker-cross-encoder-xsmall-v1`.
Scores are the model's raw relevance (higher = more relevant), comparable only within one model.
"""
from __future__ import annotations

import logging
import os
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from kotae.errors import ConfigError, KotaeError

RERANKERS: dict[str, Callable[[str], Reranker]] = {}
EXPORT_HINT = "export one with optimum: optimum-cli export onnx --model <name> <dir>"
log = logging.getLogger("kotae")


def register(prefix: str) -> Callable[[Callable[[str], Reranker]], Callable[[str], Reranker]]:
    """Register a factory for reranker specs `prefix:<arg>` (built-ins use this too)."""

    def deco(factory: Callable[[str], Reranker]) -> Callable[[str], Reranker]:
        RERANKERS[prefix] = factory
        return factory

    return deco


def get_reranker(spec: str) -> Reranker:
    """Build the reranker named by `spec` ("onnx:<dir>", "st:<model>", …); raise ConfigError if it can't."""
    from kotae import plugins

    prefix, _, arg = spec.partition(":")
    plugins.load(readers=False)  # the built-in rerankers beyond this module's register themselves
    if prefix not in RERANKERS:
        plugins.load()  # a plug-in's
    if prefix not in RERANKERS:
        raise ConfigError(f"unknown reranker {spec!r}; known prefixes: {', '.join(sorted(RERANKERS))}")
    return RERANKERS[prefix](arg)


def load_reranker(spec: str | None) -> Reranker | None:
    """Like `get_reranker`, but never raises: None plus one WARNING line when there is no usable model."""
    if not spec:
        log.warning("rerank skipped: no reranker given; pass --reranker SPEC or set KOTAE_RERANKER "
                    "(e.g. onnx:<dir> or st:cross-encoder/ms-marco-MiniLM-L-6-v2)")
        return None
    try:
        return get_reranker(spec)
    except KotaeError as e:
        log.warning("rerank skipped: %s", e)
    except Exception as e:  # noqa: BLE001  (a third-party loader can fail in any way; search goes on)
        first = (str(e).strip().splitlines() or [""])[0]
        log.warning("rerank skipped: %s could not be loaded (%s: %s)", spec, type(e).__name__, first)
    return None


class Reranker(ABC):
    """Scores (query, passage) pairs jointly; subclasses implement `score`."""

    name: str = "base"

    @abstractmethod
    def score(self, query: str, passages: Sequence[str]) -> np.ndarray:
        """Relevance of each passage to `query`, shape (len(passages),); higher = more relevant."""


class CrossEncoderReranker(Reranker):
    """A sentence-transformers CrossEncoder, by hub name or local path."""

    def __init__(self, model: str, batch_size: int = 16) -> None:
        try:
            from sentence_transformers import CrossEncoder
        except ImportError as e:  # optional extra
            raise ConfigError(f"st:{model} needs sentence-transformers; "
                              "pip install 'kotae[rerank-st]'") from e
        self._model = CrossEncoder(model)
        self.name = f"st:{model}"
        self.batch_size = batch_size

    def score(self, query: str, passages: Sequence[str]) -> np.ndarray:
        if not passages:
            return np.zeros(0, dtype=np.float32)
        out = self._model.predict([(query, p) for p in passages], batch_size=self.batch_size,
                                  show_progress_bar=False, convert_to_numpy=True)
        out = np.asarray(out, dtype=np.float32)
        return out[:, 0] if out.ndim == 2 else out


_FEEDS = ("input_ids", "attention_mask", "token_type_ids")
_DTYPES = {"tensor(int64)": np.int64, "tensor(int32)": np.int32}


class OnnxReranker(Reranker):
    """An ONNX cross-encoder run with onnxruntime on the CPU, tokenised by `tokenizer.json`."""

    def __init__(self, directory: str, max_length: int = 512, batch_size: int = 16) -> None:
        try:
            import onnxruntime as ort
            from tokenizers import Tokenizer
        except ImportError as e:  # both are kotae dependencies: a broken install
            raise ConfigError(f"onnx:{directory} needs onnxruntime and tokenizers; "
                              "pip install onnxruntime tokenizers") from e
        spec = f"onnx:{directory}"
        if not directory or not os.path.isdir(directory):
            raise ConfigError(f"{spec} is not a directory ({EXPORT_HINT})")
        model, tok = os.path.join(directory, "model.onnx"), os.path.join(directory, "tokenizer.json")
        for path in (model, tok):
            if not os.path.isfile(path):
                raise ConfigError(f"{spec} has no {os.path.basename(path)} ({EXPORT_HINT})")
        try:
            self._tok = Tokenizer.from_file(tok)
        except Exception as e:
            raise ConfigError(f"{spec}: tokenizer.json could not be read ({e}); {EXPORT_HINT}") from e
        try:
            self._sess = ort.InferenceSession(model, _session_options(ort),
                                              providers=["CPUExecutionProvider"])
        except Exception as e:
            first = (str(e).strip().splitlines() or [""])[0]
            raise ConfigError(f"{spec}: model.onnx could not be loaded ({first}); {EXPORT_HINT}") from e
        self._inputs = {i.name: _DTYPES.get(i.type, np.int64) for i in self._sess.get_inputs()}
        unknown = sorted(set(self._inputs) - set(_FEEDS))
        if unknown or "input_ids" not in self._inputs:
            raise ConfigError(f"{spec}: model.onnx takes inputs {sorted(self._inputs)}; a cross-encoder "
                              f"export takes {', '.join(_FEEDS)} ({EXPORT_HINT})")
        self._tok.no_padding()  # padded per batch below, to the batch's longest pair
        self._tok.enable_truncation(max_length)
        self._pad = next((i for t in ("[PAD]", "<pad>") if (i := self._tok.token_to_id(t)) is not None), 0)
        self.name = spec
        self.batch_size = batch_size

    def score(self, query: str, passages: Sequence[str]) -> np.ndarray:
        out = np.zeros(len(passages), dtype=np.float32)
        order = sorted(range(len(passages)), key=lambda i: len(passages[i]))  # similar lengths: less padding
        for lo in range(0, len(order), self.batch_size):
            idx = order[lo : lo + self.batch_size]
            out[idx] = self._run(self._tok.encode_batch([(query, passages[i]) for i in idx]))
        return out

    def _run(self, encodings: Sequence[Any]) -> np.ndarray:
        width = max(len(e.ids) for e in encodings)
        arrays = {name: np.full((len(encodings), width), self._pad if name == "input_ids" else 0, np.int64)
                  for name in _FEEDS}
        for row, e in enumerate(encodings):
            n = len(e.ids)
            arrays["input_ids"][row, :n] = e.ids
            arrays["attention_mask"][row, :n] = e.attention_mask
            arrays["token_type_ids"][row, :n] = e.type_ids
        feeds = {name: arrays[name].astype(dtype) for name, dtype in self._inputs.items()}
        logits = np.asarray(self._sess.run(None, feeds)[0], dtype=np.float32)
        return logits[:, 0] if logits.ndim == 2 else logits.reshape(len(encodings))


def _session_options(ort):  # type: ignore[no-untyped-def]
    # onnxruntime's default pool takes every core and spins between calls; next to numpy, the
    # embedder and a server's threads that oversubscribes the CPU (and in a container os.cpu_count()
    # reports the host's cores). A small cross-encoder on 30 pairs gains little past a few threads.
    opts = ort.SessionOptions()
    env = os.environ.get("KOTAE_RERANK_THREADS") or os.environ.get("OMP_NUM_THREADS") or ""
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    opts.intra_op_num_threads = int(env) if env.isdigit() and int(env) > 0 else min(cpus, 8)
    opts.inter_op_num_threads = 1
    opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
    opts.log_severity_level = 3  # errors only: exports' graph-cleanup warnings would clutter the CLI
    return opts


@register("onnx")
def _onnx(arg: str) -> Reranker:
    return OnnxReranker(arg)


@register("st")
def _st(arg: str) -> Reranker:
    if not arg:
        raise ConfigError("give the sentence-transformers cross-encoder as st:<name or path>")
    return CrossEncoderReranker(arg)

"""kotae (答え): answers only from your documents, with page-accurate citations.

    from kotae import Kotae, Settings

The library's one door is `Kotae` (kotae.facade); `Settings` is the one settings tree (kotae.config).
Both, and the types a caller or a plug-in needs, are imported from here when first used, so
`import kotae` stays cheap.
"""
import os as _os
from importlib import import_module as _import
from typing import Any as _Any

# The bundled e5 engine runs its own threads; BLAS threads fighting it on a small machine cost
# more than they give (measured: query embedding 29 ms -> 10 ms on 2 cores with one BLAS thread).
for _var in ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    _os.environ.setdefault(_var, "1")

__version__ = "0.1.0"

_EXPORTS = {
    "Kotae": "kotae.facade", "Calibration": "kotae.facade", "PageImage": "kotae.facade",
    "preview_chunks": "kotae.facade", "migrate": "kotae.facade", "load_llm": "kotae.facade", "load_embedder": "kotae.facade",
    "discover": "kotae.facade", "file_kind": "kotae.facade",
    "Collections": "kotae.collections", "Settings": "kotae.config", "load_settings": "kotae.config", "LLMSettings": "kotae.config",
    "Answer": "kotae.types", "Chunk": "kotae.types", "DocumentInfo": "kotae.types", "Hit": "kotae.types",
    "Record": "kotae.types", "Source": "kotae.types",
    "Filter": "kotae.store.base", "Store": "kotae.store.base",
    "Embedder": "kotae.embed.base", "LLM": "kotae.answer.llm", "LLMError": "kotae.answer.llm",
    "Reranker": "kotae.search.rerank", "SearchResult": "kotae.search.searcher",
    "IndexReport": "kotae.pipeline", "RecordsReport": "kotae.records",
    "KotaeError": "kotae.errors", "ConfigError": "kotae.errors", "DocumentError": "kotae.errors",
    "NotFound": "kotae.errors",
}
__all__ = ["__version__", *_EXPORTS]  # noqa: PLE0604


def __getattr__(name: str) -> _Any:
    if name in _EXPORTS:
        value = getattr(_import(_EXPORTS[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'kotae' has no attribute {name!r}")

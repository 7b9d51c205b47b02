"""One typed settings tree, a section per stage. Defaults are documented guesses until `kotae eval` measures."""
from __future__ import annotations

import hashlib
import json
import os
from dataclasses import asdict, dataclass, field

from kotae.search.searcher import SearchSettings

DEFAULT_INDEX = os.environ.get("KOTAE_INDEX", ".kotae")
# None: an index's own model, and for a new index the fastest bundled engine (kotae.embed.choose_embedder)
DEFAULT_MODEL = os.environ.get("KOTAE_EMBED_MODEL") or None


@dataclass(frozen=True)
class ChunkSettings:
    max_tokens: int = 256  # e5-small reads 512 tokens; shorter chunks cite more precisely
    overlap_tokens: int = 48  # the previous chunk's tail sentences, up to this many tokens
    min_tokens: int = 32  # smaller sections merge into a neighbour on the same page
    contextual_prefix: bool = False  # prepend "file › heading path" to what is embedded and keyword-indexed

    def key(self) -> str:
        """A short hash: an index whose chunks were cut differently is re-chunked."""
        return hashlib.sha1(json.dumps(asdict(self), sort_keys=True).encode()).hexdigest()[:12]


@dataclass(frozen=True)
class IndexSettings:
    chunk: ChunkSettings = field(default_factory=ChunkSettings)
    tags: tuple[str, ...] = ()
    cut_references: bool = False
    ocr: str = "auto"  # "auto": OCR pages without a usable text layer, and images; "always": every page; "off"


@dataclass(frozen=True)
class Settings:
    index: str = DEFAULT_INDEX
    model: str | None = DEFAULT_MODEL
    indexing: IndexSettings = field(default_factory=IndexSettings)
    search: SearchSettings = field(default_factory=SearchSettings)

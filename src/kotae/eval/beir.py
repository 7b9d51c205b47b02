"""The BEIR layout: `corpus.jsonl`, `queries*.jsonl` and qrels TSV files, read into plain data.

qrels live in `qrels/<split>.tsv` or `qrels-<split>.tsv` (`query-id<TAB>corpus-id<TAB>score`, one header
line); queries in `queries-<split>.jsonl`, else `queries.jsonl`, else the only `queries*.jsonl`.
Only queries with at least one relevant (score > 0) document are evaluated, in queries-file order.
"""
from __future__ import annotations

import glob
import json
import os
from collections.abc import Iterable
from dataclasses import dataclass, field

from kotae.errors import KotaeError


@dataclass(frozen=True)
class CorpusDoc:
    id: str
    title: str
    text: str

    @property
    def passage(self) -> str:
        """The one chunk a corpus entry becomes: title and text."""
        return f"{self.title}\n{self.text}" if self.title else self.text


@dataclass(frozen=True)
class BeirData:
    name: str
    split: str
    corpus: list[CorpusDoc]
    queries: list[tuple[str, str]]  # (id, text) of the evaluated queries, in file order
    qrels: dict[str, dict[str, int]]  # query id → corpus id → grade
    warnings: list[str] = field(default_factory=list)


def find_splits(folder: str) -> dict[str, str]:
    """split name → qrels file, from `qrels/*.tsv` and `qrels-*.tsv`."""
    found: dict[str, str] = {}
    for path in sorted(glob.glob(os.path.join(folder, "qrels", "*.tsv"))):
        found[os.path.basename(path)[: -len(".tsv")]] = path
    for path in sorted(glob.glob(os.path.join(folder, "qrels-*.tsv"))):
        found.setdefault(os.path.basename(path)[len("qrels-") : -len(".tsv")], path)
    return found


def pick_split(folder: str, split: str | None) -> tuple[str, str]:
    """(split, qrels file): the requested split, or the only one present."""
    splits = find_splits(folder)
    if not splits:
        raise KotaeError(f"{folder}: no qrels found (expected qrels/<split>.tsv or qrels-<split>.tsv)")
    if split is None:
        if len(splits) > 1:
            raise KotaeError(f"{folder} has qrels for splits {', '.join(sorted(splits))}; pick one with --split")
        split = next(iter(splits))
    if split not in splits:
        raise KotaeError(f"{folder} has no qrels for split {split!r}; found: {', '.join(sorted(splits))}")
    return split, splits[split]


def queries_file(folder: str, split: str) -> str:
    for name in (f"queries-{split}.jsonl", "queries.jsonl"):
        if os.path.isfile(os.path.join(folder, name)):
            return os.path.join(folder, name)
    found = sorted(glob.glob(os.path.join(folder, "queries*.jsonl")))
    if len(found) == 1:
        return found[0]
    if not found:
        raise KotaeError(f"{folder}: no queries.jsonl found")
    raise KotaeError(f"{folder}: several queries files and none named queries-{split}.jsonl or queries.jsonl")


def parse_qrels(lines: Iterable[str], source: str = "qrels") -> dict[str, dict[str, int]]:
    """query id → corpus id → grade; the header line (and blank lines) are skipped."""
    out: dict[str, dict[str, int]] = {}
    for n, line in enumerate(lines, 1):
        parts = line.rstrip("\r\n").split("\t")
        if not line.strip() or (n == 1 and not _is_number(parts[-1])):
            continue  # the header line
        try:
            q, d, score = parts
            out.setdefault(q, {})[d] = int(float(score))
        except ValueError as e:
            raise KotaeError(f"{source} line {n}: expected query-id<TAB>corpus-id<TAB>score") from e
    return out


def _is_number(s: str) -> bool:
    try:
        float(s)
    except ValueError:
        return False
    return True


def parse_jsonl(lines: Iterable[str], source: str, need: tuple[str, ...]) -> list[dict]:  # type: ignore[type-arg]
    out = []
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            d = json.loads(line)
            missing = [key for key in need if key not in d]
            if missing:
                raise KeyError(missing[0])
        except (json.JSONDecodeError, KeyError, TypeError) as e:
            raise KotaeError(f"{source} line {n}: expected a JSON object with {', '.join(need)} ({e})") from e
        out.append(d)
    return out


def select_queries(queries: list[dict], qrels: dict[str, dict[str, int]],  # type: ignore[type-arg]
                   limit: int | None = None) -> list[tuple[str, str]]:
    """(id, text) of the queries that have a relevant document, in file order, the first `limit`."""
    chosen = [(str(q["_id"]), str(q["text"])) for q in queries
              if any(g > 0 for g in qrels.get(str(q["_id"]), {}).values())]
    return chosen[:limit] if limit is not None else chosen


def _first_of_each(corpus: list[CorpusDoc]) -> list[CorpusDoc]:
    seen: set[str] = set()
    out = []
    for d in corpus:
        if d.id not in seen:
            seen.add(d.id)
            out.append(d)
    return out


def load_beir(folder: str, split: str | None = None, limit_queries: int | None = None) -> BeirData:
    """Read a BEIR folder; `limit_queries` keeps the first N evaluated queries by file order."""
    if not os.path.isdir(folder):
        raise KotaeError(f"{folder}: no such folder")
    split, qrels_path = pick_split(folder, split)
    corpus_path = os.path.join(folder, "corpus.jsonl")
    if not os.path.isfile(corpus_path):
        raise KotaeError(f"{folder}: no corpus.jsonl found")
    qpath = queries_file(folder, split)
    with open(qrels_path, encoding="utf-8") as f:
        qrels = parse_qrels(f, qrels_path)
    with open(qpath, encoding="utf-8") as f:
        raw_queries = parse_jsonl(f, qpath, ("_id", "text"))
    with open(corpus_path, encoding="utf-8") as f:
        corpus = [CorpusDoc(str(d["_id"]), str(d.get("title") or ""), str(d["text"]))
                  for d in parse_jsonl(f, corpus_path, ("_id", "text"))]
    warnings = []
    unique = _first_of_each(corpus)
    if len(unique) < len(corpus):
        warnings.append(f"{len(corpus) - len(unique)} duplicate corpus id(s) in corpus.jsonl; kept the first of each")
        corpus = unique
    known = {str(q["_id"]) for q in raw_queries}
    missing = [q for q in qrels if q not in known]
    if missing:
        warnings.append(f"{len(missing)} judged query id(s) are not in {os.path.basename(qpath)}")
    ids = {d.id for d in corpus}
    unknown = {d for rel in qrels.values() for d in rel if d not in ids}
    if unknown:
        warnings.append(f"{len(unknown)} judged document id(s) are not in corpus.jsonl")
    queries = select_queries(raw_queries, qrels, limit_queries)
    name = os.path.basename(os.path.normpath(os.path.abspath(folder)))
    return BeirData(name, split, corpus, queries, {q: qrels[q] for q, _ in queries}, warnings)

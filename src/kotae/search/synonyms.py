"""Synonym groups for keyword search (the Sudachi synonym dictionary, bundled in kotae/data/synonyms).

Each entry of a group is held as the search tokens the analyser makes of it, so 時間外労働 is the token run
(時間, 外, 労働) and salary is (salari). `matches` finds the entries in a token sequence, longest first;
`group_terms` names their groups as index terms (syn1464), which the index stores beside a chunk's own
tokens and a question searches with a lower weight; `expansion_phrases` names the other entries of the
question's groups instead (for an index that holds no group terms). The dictionary's expansion-control
flag is honoured: an entry with flag 1 never starts an expansion from a question, but is found in a
document (it is what another entry expands to); flag 2 entries are not bundled.

kotae's own workplace groups (kotae/data/synonyms/workplace.txt: クビ ↔ 解雇, "side job" ↔ 副業, numbered from
WORKPLACE_BASE) join the same tables while WORKPLACE names that file (the default).
"""
from __future__ import annotations

import gzip
import marshal
import os
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from kotae.search import lookup

MEMO_FORMAT = 2  # bump when the parsed tables change shape or content rules (from_rows)
PREFIX = "syn"  # group terms: syn<group number>; FTS5 and the PostgreSQL store keep them as one term
DATA = os.path.join(os.path.dirname(os.path.dirname(__file__)), "data", "synonyms", "synonyms.tsv.gz")
WORKPLACE_FILE = os.path.join(os.path.dirname(DATA), "workplace.txt")
# kotae's own workplace groups, in the index and the questions' keyword search (bench/README.md,
# "workplace_synonyms.py": retrieval up on the fit and held-out halves and on golden-users3, written before they
# were measured on it); the extractive sentence choice keeps Sudachi's groups (kotae.answer.ask). None: Sudachi's
# groups only.
WORKPLACE: str | None = WORKPLACE_FILE
WORKPLACE_BASE = 900000
# Entries that are a single one-character kana token match particles and fragments, not words.
_KANA = range(0x3040, 0x30FF + 1)


@dataclass(frozen=True)
class Synonyms:
    entries: dict[tuple[str, ...], tuple[tuple[int, bool], ...]]  # tokens → (group, starts an expansion)
    groups: dict[int, tuple[tuple[str, ...], ...]]  # group → its entries' tokens
    prefixes: frozenset[tuple[str, ...]]  # every proper prefix of an entry: where a longer match may go on

    @classmethod
    def from_rows(cls, rows: Sequence[tuple[int, int, tuple[str, ...]]]) -> Synonyms:
        """From (group, expansion flag, tokens) rows; flag 2 rows and one-kana entries are dropped."""
        entries: dict[tuple[str, ...], dict[int, bool]] = {}
        groups: dict[int, list[tuple[str, ...]]] = {}
        for group, flag, tokens in rows:
            if flag == 2 or not tokens or (len(tokens) == 1 and len(tokens[0]) == 1 and ord(tokens[0]) in _KANA):
                continue
            seen = entries.setdefault(tokens, {})
            seen[group] = seen.get(group, False) or flag == 0
            members = groups.setdefault(group, [])
            if tokens not in members:
                members.append(tokens)
        prefixes = frozenset(t[:k] for t in entries for k in range(1, len(t)))
        return cls({t: tuple(g.items()) for t, g in entries.items()}, {g: tuple(m) for g, m in groups.items()},
                   prefixes)


def parse(lines: Sequence[str]) -> list[tuple[int, int, tuple[str, ...]]]:
    """Rows of the bundled table: `group <TAB> flag <TAB> space-separated tokens`."""
    rows = []
    for line in lines:
        parts = line.rstrip("\n").split("\t")
        if len(parts) == 3 and parts[2]:
            rows.append((int(parts[0]), int(parts[1]), tuple(parts[2].split(" "))))
    return rows


def workplace_rows(lines: Sequence[str]) -> list[tuple[int, int, tuple[str, ...]]]:
    """Rows of the workplace groups: one group per line (`#` lines are comments), entries separated by commas,
    each entry analysed into its search tokens; every entry expands and is found (flag 0)."""
    from kotae.search.analyze import analyze

    rows: list[tuple[int, int, tuple[str, ...]]] = []
    groups = [line for line in lines if line.strip() and not line.lstrip().startswith("#")]
    for n, line in enumerate(groups, 1):
        for entry in line.split(","):
            tokens = tuple(analyze(entry.strip()))
            if tokens:
                rows.append((WORKPLACE_BASE + n, 0, tokens))
    return rows


@lru_cache(maxsize=2)
def bundled(workplace: bool = True) -> Synonyms:
    """The bundled dictionary, with kotae's workplace groups when WORKPLACE names them (`workplace` False:
    Sudachi's groups alone). Loaded once per process; parsed once per installation: the parsed tables are
    kept in the user's cache, `marshal`led, which loads ~8x faster than parsing the table again."""
    extra = WORKPLACE if workplace else None
    memo = _memo_path(extra)
    try:
        with open(memo, "rb") as fh:
            entries, groups, prefixes = marshal.load(fh)
        return Synonyms(entries, groups, prefixes)
    except (OSError, EOFError, ValueError, TypeError):
        pass
    with gzip.open(DATA, "rt", encoding="utf-8") as f:
        rows = parse(f.readlines())
    if extra:
        with open(extra, encoding="utf-8") as f:
            rows += workplace_rows(f.readlines())
    syn = Synonyms.from_rows(rows)
    try:
        os.makedirs(os.path.dirname(memo), exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(memo), prefix=".tmp-", suffix=".marshal")
        with os.fdopen(fd, "wb") as out:
            marshal.dump((syn.entries, syn.groups, syn.prefixes), out)
        os.replace(tmp, memo)  # atomic: a concurrent reader sees the whole file or none
    except OSError:
        pass
    return syn


@lru_cache(maxsize=2)
def on_demand(workplace: bool = True) -> Synonyms:
    """The bundled dictionary for questions (`workplace` as `bundled`): its entries looked up one by one in an
    SQLite copy kept in the user cache (`kotae.search.lookup`, built once per installation from `bundled`), so a
    one-shot `kotae ask` does not load all of it (bench/cold_start.py). Indexing uses `bundled` (every chunk looks
    up many runs)."""
    path = _memo_path(WORKPLACE if workplace else None).removesuffix(".marshal") + ".sqlite3"
    names = ("entries", "groups", "prefixes")
    tables = lookup.open_tables(path, names)
    if tables is None:
        syn = bundled(workplace)
        lookup.build(path, {"entries": syn.entries.items(), "groups": syn.groups.items(),
                            "prefixes": ((k, True) for k in syn.prefixes)})
        tables = lookup.open_tables(path, names)
        if tables is None:
            return syn
    return Synonyms(tables["entries"], tables["groups"], tables["prefixes"])  # type: ignore[arg-type]


def _memo_path(workplace: str | None) -> str:
    # named by the table's, the workplace groups' (when used) and this module's size and mtime, MEMO_FORMAT and
    # Python's marshal version: any change to one of them reads the table again
    sources = (DATA, __file__, *([workplace] if workplace else []))
    return lookup.cache_path("synonyms", *sources, version=MEMO_FORMAT) + ".marshal"


def matches(tokens: Sequence[str], syn: Synonyms, *, query: bool, every: bool = False) -> list[tuple[int, int, int]]:
    """(start, end, group) of the dictionary entries in `tokens`, by start: every entry of two or more tokens
    (休日出勤手当 holds 休日出勤 and 休日出勤手当), a one-token entry only where no longer entry covers it (the
    労働 of 時間外労働 is not 労働), or also there with `every` (what the documents may hold a word as: 給与 and
    天引き of 給与天引き). In a question (`query`) only entries that may start an expansion count."""
    found: list[tuple[int, int, int]] = []
    covered: set[int] = set()
    singles: list[tuple[int, int]] = []
    for i in range(len(tokens)):
        size = 1
        while True:
            run = tuple(tokens[i : i + size])
            entry = syn.entries.get(run, ())
            groups = [g for g, starts in entry if starts or not query]
            if size == 1:
                singles.extend((i, g) for g in groups)
            elif entry:  # a flag-1 entry expands nothing, but its words are its own, not single entries
                found.extend((i, i + size, g) for g in groups)
                covered.update(range(i, i + size))
            if run not in syn.prefixes or i + size >= len(tokens):
                break
            size += 1
    found.extend((i, i + 1, g) for i, g in singles if every or i not in covered)
    return sorted(found)


def group_terms(tokens: Sequence[str], syn: Synonyms, *, query: bool) -> list[str]:
    """The group terms (syn<number>) of the entries in `tokens`, once each, in order."""
    return list(dict.fromkeys(f"{PREFIX}{g}" for _, _, g in matches(tokens, syn, query=query)))


def expansion_phrases(tokens: Sequence[str], syn: Synonyms, limit: int = 40) -> list[str]:
    """The other entries of the question's synonym groups, as space-joined token phrases (at most `limit`)."""
    runs = {tuple(tokens[i:j]) for i in range(len(tokens)) for j in range(i + 1, min(len(tokens), i + 8) + 1)}
    out: dict[str, None] = {}
    for _, _, g in matches(tokens, syn, query=True):
        for member in syn.groups.get(g, ()):
            if member not in runs:  # the question holds it already
                out[" ".join(member)] = None
    return list(out)[:limit]


def held_through_groups(query_tokens: Sequence[str], passage_tokens: Sequence[str], syn: Synonyms) -> list[str]:
    """The question's tokens a passage holds only as another entry of their synonym group (the 残業 of a
    question in a passage that says 時間外労働)."""
    have = set(passage_tokens)
    text = " " + " ".join(passage_tokens) + " "
    out: list[str] = []
    for a, b, g in matches(query_tokens, syn, query=True):
        missing = [t for t in query_tokens[a:b] if t not in have]
        if missing and any(f" {' '.join(m)} " in text for m in syn.groups.get(g, ())):
            out += missing
    return out


def with_group_terms(keyword_text: str, syn: Synonyms) -> str:
    """A chunk's analysed keyword text with the group terms of its entries appended (index side)."""
    extra = group_terms(keyword_text.split(), syn, query=False)
    return keyword_text + (" " + " ".join(extra) if extra else "")

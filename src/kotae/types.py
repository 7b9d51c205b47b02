"""The data that flows through kotae: small frozen dataclasses, no I/O.

ingest → ParsedDocument(pages, sections) → chunking → Chunk → embed/store → search → Hit → answer → Answer
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Section:
    """A run of text on one page under one heading path, as a reader found it.

    `text` is the cleaned display text (original width); `start` is its character offset
    into the cleaned text of its page, so a chunk can point back into the page.
    """

    page: int  # 1-based (PDF page number; 1 for formats without pages)
    heading: tuple[str, ...]  # heading path, outermost first; () when none
    text: str
    start: int = 0
    rows: tuple[int, int] | None = None  # CSV: first and last data row (1-based, inclusive)
    kind: str = "text"  # "text" | "table" | "rows"
    ocr: bool = False  # the page's text was recognised by OCR, not read from a text layer


@dataclass(frozen=True)
class Word:
    """One OCR'd word: its text, where it lies in the page's cleaned text (-1 when cleaning dropped it),
    and its box, origin at the top left, in the units of its PageWords."""

    text: str
    start: int
    end: int
    x0: float
    y0: float
    x1: float
    y1: float


@dataclass(frozen=True)
class PageWords:
    """The word boxes of one OCR'd page, so a viewer can highlight an OCR'd passage."""

    page: int  # 1-based
    width: float  # the page's size in `unit`
    height: float
    unit: str  # "pt" (PDF points) | "px" (image pixels)
    lang: str  # the Tesseract languages that read it, e.g. "jpn+jpn_vert" or "eng"
    words: tuple[Word, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"page": self.page, "width": self.width, "height": self.height, "unit": self.unit,
                "lang": self.lang, "words": [[w.text, w.start, w.end, w.x0, w.y0, w.x1, w.y1] for w in self.words]}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> PageWords:
        return cls(d["page"], d["width"], d["height"], d["unit"], d["lang"],
                   tuple(Word(w[0], w[1], w[2], w[3], w[4], w[5], w[6]) for w in d["words"]))


@dataclass(frozen=True)
class ParsedDocument:
    """What a reader returns: page texts plus the sections that tile them."""

    path: str  # the file as the user named it
    kind: str  # "pdf" | "docx" | "xlsx" | "pptx" | "csv" | "text" | "markdown" | "html" | "image"
    pages: tuple[str, ...]  # cleaned text of each page, index 0 = page 1
    sections: tuple[Section, ...]
    warnings: tuple[str, ...] = ()  # e.g. "page 3 has no text layer"
    title: str = ""
    ocr: tuple[PageWords, ...] = ()  # the OCR'd pages, with their word boxes


@dataclass(frozen=True)
class Chunk:
    """The unit that is embedded, keyword-indexed, retrieved and cited."""

    id: str  # stable: same document, place and text give the same id
    doc_id: str
    file: str
    page: int
    heading: tuple[str, ...]
    text: str  # display text
    start: int  # character offsets into the page's cleaned text
    end: int
    lang: str  # "ja" | "en" | "mixed" | "other"
    ordinal: int = 0  # position in the document
    rows: tuple[int, int] | None = None
    tokens: int = 0  # length in the embedding model's tokens
    ocr: bool = False  # the text was recognised by OCR (it may hold misread characters)

    @property
    def anchor(self) -> str:
        """Where a citation points: `file p.N › heading › subheading`, `file p.N (OCR) › …` for OCR'd text;
        `book.xlsx sheet 2 › …` and `deck.pptx slide 3 › …` for workbooks and decks."""
        head = " › ".join(self.heading)
        return (f"{self.file} {page_label(self.file, self.page)}" + (" (OCR)" if self.ocr else "")
                + (f" › {head}" if head else ""))


_PAGE_WORDS = {".xlsx": "sheet ", ".xlsm": "sheet ", ".pptx": "slide "}


def page_label(file: str, page: int) -> str:
    """How a page of `file` is named in a citation: "p.3", "sheet 3" (Excel) or "slide 3" (PowerPoint)."""
    dot = file.rfind(".")
    word = _PAGE_WORDS.get(file[dot:].lower(), "p.") if dot >= 0 else "p."
    return f"{word}{page}"


@dataclass(frozen=True)
class DocumentInfo:
    """A document as the index knows it."""

    id: str
    path: str
    file: str
    kind: str
    sha256: str
    pages: int
    chunks: int
    lang: str
    indexed_at: str  # ISO 8601, UTC
    tags: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()


@dataclass(frozen=True)
class Record:
    """A pre-split passage to index as one chunk as it is (a BEIR corpus entry, a row of a database)."""

    id: str  # kept as the chunk's file, so results name the record
    text: str
    title: str = ""  # the chunk's heading


@dataclass(frozen=True)
class Hit:
    """A retrieved chunk with the score and rank each stage gave it (None: stage not run)."""

    chunk: Chunk
    similarity: float | None = None
    bm25: float | None = None
    fused: float | None = None
    rerank: float | None = None
    dense_rank: int | None = None
    keyword_rank: int | None = None


@dataclass(frozen=True)
class Source:
    """A numbered source of an answer, as printed and returned by --json and the API."""

    n: int
    hit: Hit
    excerpt: str

    def to_dict(self) -> dict[str, Any]:
        c = self.hit.chunk
        return {
            "n": self.n,
            "file": c.file,
            "page": c.page,
            "heading": " › ".join(c.heading) or None,
            "chunk_id": c.id,
            "ocr": c.ocr,
            "excerpt": self.excerpt,
            "similarity": _round(self.hit.similarity),
            "bm25": _round(self.hit.bm25),
            "fused": _round(self.hit.fused),
            "rerank": _round(self.hit.rerank),
        }


@dataclass(frozen=True)
class Answer:
    question: str
    answer: str
    found_in_docs: bool
    mode: str  # "extractive" | "llm"
    sources: tuple[Source, ...]
    timings_ms: dict[str, float | None] = field(default_factory=dict)
    index_version: str = ""
    notices: tuple[str, ...] = ()
    also_retrieved: tuple[Source, ...] = ()  # retrieved but not cited (LLM answers)
    citations: dict[str, int] = field(default_factory=dict)  # valid, invalid, unsupported, weak, attached
    calibration: dict[str, Any] = field(default_factory=dict)  # how the index's gate was fitted (Kotae.ask)
    # "complete"; "partial" (a part of the question is not in the documents), "blank" (the documents leave the
    # asked value blank: a form template) or "none" (refused); `missing` names what the documents lack
    completeness: str = "complete"
    missing: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "question": self.question,
            "answer": self.answer,
            "found_in_docs": self.found_in_docs,
            "mode": self.mode,
            "sources": [s.to_dict() for s in self.sources],
            "timings_ms": {k: _round(v, 2) for k, v in self.timings_ms.items()},
            "index_version": self.index_version,
            "notices": list(self.notices),
            "also_retrieved": [s.to_dict() for s in self.also_retrieved],
            "citations": dict(self.citations),
            "calibration": dict(self.calibration),
            "completeness": self.completeness,
            "missing": list(self.missing),
        }


def _round(x: float | None, nd: int = 4) -> float | None:
    return None if x is None else round(float(x), nd)

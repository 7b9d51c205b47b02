"""Request and response bodies, as the OpenAPI schema at /docs describes them."""
from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from kotae.facade import Filter

Mode = Literal["dense", "keyword", "hybrid", "hybrid+rerank"]  # kotae.search.MODES
Status = Literal["queued", "indexing", "indexed", "failed"]


class Filters(BaseModel):
    """Restricts the search to some documents (applied inside the search)."""

    model_config = ConfigDict(extra="forbid")
    file: str | None = Field(None, description='glob on the file name or path, e.g. "*.pdf"')
    kind: str | None = Field(None, description="pdf, docx, xlsx, pptx, csv, text, markdown, html, image")
    lang: str | None = Field(None, description="ja, en, mixed, other")
    tags: list[str] = Field(default_factory=list, description="documents with all of these tags")
    since: str | None = Field(None, description="indexed at or after (ISO date)")
    until: str | None = Field(None, description="indexed before (ISO date)")

    def to_filter(self) -> Filter:
        return Filter(file=self.file, kind=self.kind, lang=self.lang, tags=tuple(self.tags),
                      since=self.since, until=self.until)


class QueryIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    question: str = Field(..., min_length=1, max_length=2000, examples=["給料はいつ支払われますか"])
    mode: Mode = "hybrid"
    top_k: int = Field(5, ge=1, le=50)
    filters: Filters | None = None


class SourceOut(BaseModel):
    model_config = ConfigDict(extra="allow")
    n: int
    file: str
    page: int
    heading: str | None
    chunk_id: str
    excerpt: str
    similarity: float | None
    bm25: float | None
    fused: float | None
    rerank: float | None


class AnswerOut(BaseModel):
    """The result shape of `kotae ask --json` (fields the core adds later pass through unchanged)."""

    model_config = ConfigDict(extra="allow")
    question: str
    answer: str
    found_in_docs: bool
    mode: str
    sources: list[SourceOut]
    timings_ms: dict[str, float | None]
    index_version: str
    notices: list[str]


class DocumentOut(BaseModel):
    """A document and where it is on its way into the index."""

    id: str
    file: str
    status: Status
    message: str = Field("", description="why indexing failed, or the reader's warnings")
    kind: str | None = None
    pages: int | None = None
    chunks: int | None = Field(None, description="known once indexed")
    lang: str | None = None
    indexed_at: str | None = None
    tags: list[str] = Field(default_factory=list)
    uploaded: bool = Field(False, description="the file lives in the server's upload folder")


class UploadOut(DocumentOut):
    already_indexed: bool = Field(False, description="the same content was already in the index")


class PageTextOut(BaseModel):
    """A page as the text the index holds: what the UI shows for kinds without page images."""

    id: str
    file: str
    kind: str
    page: int
    text: str
    highlights: list[tuple[int, int]] = Field(description="[start, end) character offsets of the marked passages")


class DeletedOut(BaseModel):
    id: str
    file: str
    deleted: bool = True


class HealthOut(BaseModel):
    status: Literal["ok"] = "ok"
    documents: int
    indexing: bool
    index_version: str
    calibration: dict[str, Any] = {}  # how the gate's thresholds were chosen, with a one-line "summary"

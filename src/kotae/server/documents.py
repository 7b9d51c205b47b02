"""Routes for documents: upload, list, status, delete, and page images with highlighted passages."""
from __future__ import annotations

import os
from typing import Annotated, Any

from fastapi import APIRouter, File, Query, Response, UploadFile
from fastapi.concurrency import run_in_threadpool

from kotae.errors import NotFound
from kotae.server import uploads
from kotae.server.context import Context
from kotae.server.errors import ApiError, ErrorOut
from kotae.server.schemas import DeletedOut, DocumentOut, PageTextOut, UploadOut
from kotae.server.worker import Job
from kotae.types import DocumentInfo

WAIT_SECONDS = 600.0
MAX_HIGHLIGHTS = 20
_ERRORS: dict[int | str, dict[str, Any]] = {code: {"model": ErrorOut} for code in (401, 404, 413, 415, 422)}


def router(ctx: Context) -> APIRouter:
    r = APIRouter(tags=["documents"], responses={401: {"model": ErrorOut}})

    @r.post("/documents", status_code=202, response_model=UploadOut, responses=_ERRORS)
    async def upload(response: Response, file: Annotated[UploadFile, File(description="the document")],
                     wait: Annotated[bool, Query(description="wait until indexed (200), not 202")] = False
                     ) -> UploadOut:
        """Upload one document. It is indexed in the background: the answer is 202 with its id and
        status `queued`; poll `GET /documents/{id}` (or pass `wait=true`) for the chunk count.
        Content already in the index is not indexed twice: 200 with `already_indexed: true`."""
        name = uploads.safe_name(file.filename)
        tmp, sha256, _ = await uploads.save(file, ctx.upload_dir, ctx.max_upload_bytes)
        try:
            await run_in_threadpool(uploads.sniff, tmp, name)
            same = next((d for d in ctx.kotae.documents() if d.sha256 == sha256), None)
            if same is not None:
                response.status_code = 200
                return UploadOut(**_info_out(ctx, same).model_dump(), already_indexed=True)
            job = ctx.worker.pending(sha256)
            if job is None:
                final = uploads.reserve(ctx.upload_dir, name)
                os.replace(tmp, final)
                job = ctx.worker.submit(final, os.path.basename(final), sha256)
        finally:
            if os.path.exists(tmp):
                os.remove(tmp)
        if wait:
            await run_in_threadpool(ctx.worker.wait, job.id, WAIT_SECONDS)
            if job.status == "failed":
                raise ApiError(422, "indexing_failed", job.message)
            if job.status == "indexed":
                response.status_code = 200
                info = ctx.kotae.document(job.id)
                if info is not None:
                    return UploadOut(**_info_out(ctx, info).model_dump())
        return UploadOut(**_job_out(job).model_dump())

    @r.get("/documents", response_model=list[DocumentOut])
    def list_documents() -> list[DocumentOut]:
        """Every document: indexed ones from the index, plus uploads queued, indexing or failed."""
        jobs = {j.id: j for j in ctx.worker.jobs()}
        out = {d.id: _info_out(ctx, d, jobs.get(d.id)) for d in ctx.kotae.documents()}
        for j in jobs.values():
            out.setdefault(j.id, _job_out(j))
        return sorted(out.values(), key=lambda d: (d.file.casefold(), d.id))

    @r.get("/documents/{doc_id}", response_model=DocumentOut, responses=_ERRORS)
    def get_document(doc_id: str) -> DocumentOut:
        """One document and its indexing status (queued, indexing, indexed, failed + message)."""
        job = ctx.worker.job(doc_id)
        info = ctx.kotae.document(doc_id)
        if info is not None:
            return _info_out(ctx, info, job)
        if job is not None:
            return _job_out(job)
        raise _unknown(doc_id)

    @r.delete("/documents/{doc_id}", response_model=DeletedOut, responses=_ERRORS)
    def delete_document(doc_id: str) -> DeletedOut:
        """Remove a document from the index (and its upload); it is never retrieved again."""
        job = ctx.worker.forget(doc_id)
        try:
            info = ctx.kotae.remove(doc_id) if ctx.kotae.document(doc_id) else None
        except NotFound:
            info = None
        if info is None and job is None:
            raise _unknown(doc_id)
        path = info.path if info else job.path  # type: ignore[union-attr]
        if _uploaded(ctx, path):
            try:
                os.remove(path)
            except FileNotFoundError:
                pass
        return DeletedOut(id=doc_id, file=info.file if info else job.file)  # type: ignore[union-attr]

    @r.get("/documents/{doc_id}/pages/{page}.png", response_class=Response, responses={
        200: {"content": {"image/png": {}}, "description": "the page; X-Kotae-Highlights: boxes drawn"},
        **_ERRORS})
    def page_image(doc_id: str, page: int,
                   highlight: Annotated[str, Query(description="chunk ids to mark, comma-separated")] = "",
                   scale: Annotated[float, Query(ge=0.25, le=4.0, description="pixels per PDF point "
                                                 "(images: per 1/72 inch, never above their own size)")] = 1.5,
                   ) -> Response:
        """A PDF page or an image's frame as PNG, with the passages of the given chunks highlighted
        (on OCR'd pages, through the word boxes OCR recorded)."""
        ids = [c for c in dict.fromkeys(highlight.split(",")) if c.strip()][:MAX_HIGHLIGHTS]
        try:
            image = ctx.kotae.page_image(doc_id, page, ids, scale)
        except NotFound as e:
            raise ApiError(404, e.code, str(e)) from e
        png, boxes = image.png, image.highlights
        return Response(png, media_type="image/png",
                        headers={"X-Kotae-Highlights": str(boxes), "Cache-Control": "private, max-age=300"})

    @r.get("/documents/{doc_id}/pages/{page}/text", response_model=PageTextOut, responses=_ERRORS)
    def page_text(doc_id: str, page: int,
                  highlight: Annotated[str, Query(description="chunk ids to mark, comma-separated")] = "",
                  ) -> PageTextOut:
        """A page as the text the index read from it, with the passages of the given chunks as offsets: the
        view of documents without a page renderer (DOCX, XLSX, PPTX, CSV, text, HTML)."""
        ids = [c for c in dict.fromkeys(highlight.split(",")) if c.strip()][:MAX_HIGHLIGHTS]
        try:
            found = ctx.kotae.page_text(doc_id, page, ids)
        except NotFound as e:
            raise ApiError(404, e.code, str(e)) from e
        d = found.document
        return PageTextOut(id=d.id, file=d.file, kind=d.kind, page=page, text=found.text,
                           highlights=[list(h) for h in found.highlights])  # type: ignore[misc]

    return r


def _unknown(doc_id: str) -> ApiError:
    return ApiError(404, "document_not_found", f"no document {doc_id}; see GET /documents")


def _uploaded(ctx: Context, path: str) -> bool:
    return os.path.dirname(os.path.abspath(path)) == os.path.abspath(ctx.upload_dir)


def _info_out(ctx: Context, d: DocumentInfo, job: Job | None = None) -> DocumentOut:
    status = job.status if job is not None and job.status in ("queued", "indexing") else "indexed"
    return DocumentOut(id=d.id, file=d.file, status=status,  # type: ignore[arg-type]
                       message="; ".join(d.warnings), kind=d.kind, pages=d.pages, chunks=d.chunks,
                       lang=d.lang, indexed_at=d.indexed_at, tags=list(d.tags),
                       uploaded=_uploaded(ctx, d.path))


def _job_out(j: Job) -> DocumentOut:
    return DocumentOut(id=j.id, file=j.file, status=j.status, message=j.message,  # type: ignore[arg-type]
                       chunks=j.chunks, uploaded=True)

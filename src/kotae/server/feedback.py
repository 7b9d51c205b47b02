"""Routes for feedback: 👍/👎 on an answer, the passage that holds the right answer, a corrected answer.
Stored in the index with the index version; `kotae eval export-feedback` makes a golden set of them."""
from __future__ import annotations

from typing import Any, Literal

from fastapi import APIRouter
from pydantic import BaseModel, ConfigDict, Field

from kotae.server.context import Context
from kotae.server.errors import ErrorOut

_ERRORS: dict[int | str, dict[str, Any]] = {code: {"model": ErrorOut} for code in (400, 401, 404, 413, 422)}


class FeedbackIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    question: str = Field(..., min_length=1, max_length=2000)
    rating: Literal["up", "down"]
    message_id: str | None = Field(None, description="the turn of a conversation this is about")
    cited: list[str] = Field(default_factory=list, description="chunk ids the answer cited")
    right_chunk: str | None = Field(None, description="the chunk id of the passage that holds the answer")
    corrected: str | None = Field(None, max_length=4000, description="the right answer, in the user's words")


class FeedbackCreated(BaseModel):
    id: str


def router(ctx: Context) -> APIRouter:
    r = APIRouter(prefix="/feedback", tags=["feedback"], responses=_ERRORS)

    @r.post("", status_code=201, response_model=FeedbackCreated)
    def add(body: FeedbackIn) -> dict[str, str]:
        """Rate an answer (with the right passage and a corrected answer, optionally)."""
        kotae = ctx.kotae
        fb = kotae.add_feedback(body.question, body.rating, message_id=body.message_id, cited=body.cited,
                                right_chunk=body.right_chunk, corrected=body.corrected)
        return {"id": fb.id}

    @r.get("")
    def all_feedback() -> list[dict[str, Any]]:
        """Every feedback stored, oldest first."""
        kotae = ctx.kotae
        return [fb.to_dict() for fb in kotae.feedback()]

    return r

"""Feedback → golden set: each rated answer that says where its answer lies becomes one golden item. Pure.

- 👍 on an answer from the documents: the question as searched, with the cited passages' file and pages.
- 👍 on a refusal (「わからない」): an unanswerable item.
- 👎 with "the right passage is this one": that passage's file and page, and the corrected answer if given.
- 👎 without a passage says only that the answer was wrong, not where the right one is: skipped.
The question is the one retrieval searched (a follow-up made to stand alone); the latest feedback on a
question wins.
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from kotae.facade import Feedback


def golden_items(feedback: Iterable[Feedback]) -> tuple[list[dict[str, Any]], int]:
    """The golden-set lines (as `kotae eval run` reads them) and the number of feedback left out."""
    items: dict[str, dict[str, Any]] = {}
    skipped = 0
    for fb in feedback:
        item = golden_item(fb)
        if item is None:
            skipped += 1
            continue
        key = item["question"].strip()
        if key in items:
            skipped += 1  # an older rating of the same question
        items[key] = item
    return list(items.values()), skipped


def golden_item(fb: Feedback) -> dict[str, Any] | None:
    """One feedback as a golden item, or None when it does not say where the answer lies."""
    question = fb.standalone or fb.question
    base: dict[str, Any] = {"id": f"fb-{fb.id[:12]}", "question": question, "category": "feedback",
                            "note": f"{fb.rating} {fb.created} on {fb.index_version}"}
    if fb.question != question:
        base["asked"] = fb.question
    evidence = fb.evidence or {}
    if fb.rating == "up" and not fb.found_in_docs and not fb.right_chunk:
        return {**base, "answerable": False, "category": "feedback-unanswerable"}
    if not (evidence.get("file") and evidence.get("pages")):
        return None
    return {**base, "answerable": True, "file": evidence["file"], "pages": list(evidence["pages"]),
            "answer": fb.corrected or ""}

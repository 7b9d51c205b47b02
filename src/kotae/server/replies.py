"""An answer as the chat doors show it (/v1 and MCP): the sources under the text, the structured citations,
and the refusal decision with its reason."""
from __future__ import annotations

import re
from typing import Any

from kotae.facade import SearchResult, readable
from kotae.types import Answer, Source

_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff]")


def sources_text(sources: tuple[Source, ...], question: str) -> str:
    """The numbered sources as lines under the answer ("" when there are none), in the question's language."""
    if not sources:
        return ""
    title = "出典" if _CJK.search(question) else "Sources"
    return f"\n\n{title}:\n" + "\n".join(f"[{s.n}] {s.hit.chunk.anchor}" for s in sources)


def citations(sources: tuple[Source, ...]) -> list[dict[str, Any]]:
    """Each numbered source: where it is (file, page, heading, ids) and the whole passage."""
    return [{**s.to_dict(), "doc_id": s.hit.chunk.doc_id, "passage": readable(s.hit.chunk.text, s.hit.chunk.heading)} for s in sources]


def decision(answer: Answer, result: SearchResult | None) -> dict[str, Any]:
    """Whether the documents answer it, why not when they do not, and what was searched."""
    gate = result.gate if result is not None else None
    reason = ""
    if not answer.found_in_docs:
        reason = (gate.explanation or gate.reason) if gate is not None else ""
        reason = reason or next((n for n in answer.notices if n.startswith("not found")), "")
    return {"found_in_docs": answer.found_in_docs, "abstained": not answer.found_in_docs, "reason": reason,
            "searched": answer.question, "mode": answer.mode, "index_version": answer.index_version,
            "notices": list(answer.notices)}

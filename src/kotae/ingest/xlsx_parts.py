"""What an XLSX package holds beside its cells, per sheet: charts, cell notes (comments) and pictures.

openpyxl reads neither in read-only mode (it drops charts on loading, and notes need the full reader), so they are
found through the package's relationships: workbook → sheet part → its drawing → charts, and sheet part → its
comments part. Sheets come in the workbook's order (worksheets and chart sheets alike), as openpyxl lists them.
"""
from __future__ import annotations

import posixpath
import zipfile
from dataclasses import dataclass, field
from typing import Any

from kotae.ingest.charts import parse_part

__all__ = ["SheetParts", "sheet_parts"]

_REL = "{http://schemas.openxmlformats.org/package/2006/relationships}Relationship"
_R_ID = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}id"
_MAIN = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"
MAX_NOTES = 5000


@dataclass
class SheetParts:
    charts: list[Any] = field(default_factory=list)  # `c:chartSpace` elements
    notes: list[tuple[str, str]] = field(default_factory=list)  # (cell reference, note text)
    pictures: list[bytes] = field(default_factory=list)  # the pictures its drawing places (for OCR)


def _rels(z: zipfile.ZipFile, part: str) -> list[tuple[str, str, str]]:
    """A part's relationships: (id, type's last word, target part name)."""
    folder, name = posixpath.split(part)
    path = posixpath.join(folder, "_rels", name + ".rels")
    root = parse_part(z.read(path)) if path in z.namelist() else None
    out = []
    for rel in root.iter(_REL) if root is not None else ():
        target = rel.get("Target") or ""
        target = target.lstrip("/") if target.startswith("/") else posixpath.normpath(posixpath.join(folder, target))
        out.append((rel.get("Id") or "", (rel.get("Type") or "").rsplit("/", 1)[-1], target))
    return out


def _notes(root: Any) -> list[tuple[str, str]]:
    out = []
    for comment in root.iter(_MAIN + "comment"):
        body = comment.find(_MAIN + "text")
        text = " ".join("".join(t.text or "" for t in body.iter(_MAIN + "t")).split()) if body is not None else ""
        if text:
            out.append((comment.get("ref") or "", text))
        if len(out) >= MAX_NOTES:
            break
    return out


def sheet_parts(z: zipfile.ZipFile) -> list[SheetParts]:
    """Each sheet's charts and notes, in the workbook's sheet order."""
    book = "xl/workbook.xml"
    root = parse_part(z.read(book)) if book in z.namelist() else None
    if root is None:
        return []
    targets = {rid: target for rid, _, target in _rels(z, book)}
    out = []
    for sheet in root.iter(_MAIN + "sheet"):
        part = targets.get(sheet.get(_R_ID) or "", "")
        found = SheetParts()
        for _, kind, target in _rels(z, part) if part else ():
            if kind == "drawing":
                for _, kind2, item in _rels(z, target):
                    if item not in z.namelist():
                        continue
                    if kind2 == "image":
                        found.pictures.append(z.read(item))
                    space = parse_part(z.read(item)) if kind2 == "chart" else None
                    if space is not None:
                        found.charts.append(space)
            elif kind == "comments" and target in z.namelist():
                notes = parse_part(z.read(target))
                if notes is not None:
                    found.notes += _notes(notes)
        out.append(found)
    return out

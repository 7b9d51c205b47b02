"""Strict Office Open XML (ISO/IEC 29500 Strict, Word's "Strict Open XML Document") read as Transitional.

A Strict package names its parts' XML namespaces and relationship types under http://purl.oclc.org/ooxml/…
where a Transitional one says http://schemas.openxmlformats.org/…/2006/…; python-docx, openpyxl and python-pptx
know only the latter ("no relationship of type …officeDocument"). The text-bearing markup is otherwise the
same, so the package is rewritten in memory with the Transitional names, after `zipcap.check_zip` has
bounded the archive.
"""
from __future__ import annotations

import io
import re
import zipfile

from kotae.ingest.zipcap import check_zip

STRICT = b"http://purl.oclc.org/ooxml/"
# http://purl.oclc.org/ooxml/<family>/<rest> → http://schemas.openxmlformats.org/<family>/2006/<rest>
_NAME = re.compile(rb"http://purl\.oclc\.org/ooxml/([A-Za-z]+)/")
# the few whose Transitional names are spelled differently
_RENAMED = ((b"officeDocument/2006/relationships/extendedProperties",
             b"officeDocument/2006/relationships/extended-properties"),
            (b"officeDocument/2006/extendedProperties", b"officeDocument/2006/extended-properties"))
_XML = (".xml", ".rels")


def package(path: str, data: bytes) -> bytes:
    """The Office file's bytes for python-docx, openpyxl or python-pptx: checked against the zip limits
    before anything is inflated (DocumentError if over), and rewritten as Transitional when Strict."""
    archive = check_zip(path, data)
    return transitional(archive) if is_strict(archive) else data


def is_strict(archive: zipfile.ZipFile) -> bool:
    """Whether the package's root relationships use the Strict names."""
    try:
        return STRICT in archive.read("_rels/.rels")
    except KeyError:
        return False


def transitional(archive: zipfile.ZipFile) -> bytes:
    """The package with every XML part's Strict names replaced by the Transitional ones."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for info in archive.infolist():
            data = archive.read(info)
            if info.filename.lower().endswith(_XML) and STRICT in data:
                data = _NAME.sub(rb"http://schemas.openxmlformats.org/\1/2006/", data)
                for old, new in _RENAMED:
                    data = data.replace(old, new)
            z.writestr(info, data)
    return out.getvalue()


__all__ = ["is_strict", "package", "transitional"]

"""Decide a file's kind from its content (magic bytes, sniffing), the extension only as a tie-break."""

from __future__ import annotations

import os
import zipfile

from kotae.errors import DocumentError, UnsupportedType
from kotae.ingest.encoding import decode_bytes
from kotae.ingest.registry import extensions, plugin_kind, supported_extensions
from kotae.ingest.zipcap import check_zip

# Binary formats we recognise only to name them in the error.
_MAGIC = (
    (b"\x89PNG\r\n\x1a\n", "PNG image"),
    (b"\xff\xd8\xff", "JPEG image"),
    (b"GIF87a", "GIF image"),
    (b"GIF89a", "GIF image"),
    (b"II*\x00", "TIFF image"),
    (b"MM\x00*", "TIFF image"),
    (b"II+\x00", "TIFF image"),  # BigTIFF
    (b"MM\x00+", "TIFF image"),
    (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "legacy Office file (.doc/.xls/.ppt)"),
    (b"{\\rtf", "RTF document"),
    (b"%!PS", "PostScript file"),
    (b"\x1f\x8b", "gzip archive"),
    (b"7z\xbc\xaf\x27\x1c", "7-Zip archive"),
    (b"Rar!", "RAR archive"),
    (b"\x7fELF", "executable"),
    (b"RIFF", "audio/video file"),
    (b"ID3", "MP3 audio"),
)
_IMAGE_KINDS = ("PNG image", "JPEG image", "TIFF image")
_ZIP_KINDS = (("mimetype", "EPUB book"),)
# zip-based kinds: the part that marks them, and how a user names the format (in errors)
_OFFICE = (
    ("word/document.xml", "docx", "DOCX", "Word"),
    ("xl/workbook.xml", "xlsx", "XLSX", "Excel"),
    ("ppt/presentation.xml", "pptx", "PPTX", "PowerPoint"),
)
_OFFICE_EXTENSIONS = {".docx": _OFFICE[0], ".xlsx": _OFFICE[1], ".xlsm": _OFFICE[1], ".pptx": _OFFICE[2]}


# What a folder walk says of a file it does not read, by extension: what it is, and what to do.
_NOT_READ = {
    **dict.fromkeys((".xls", ".doc", ".ppt"), "legacy Office file: save it as .xlsx, .docx or .pptx"),
    **dict.fromkeys((".ods", ".odt", ".odp"), "OpenDocument file: save it as .xlsx, .docx or .pptx"),
    **dict.fromkeys((".pages", ".numbers", ".key"), "Apple iWork file: export it as PDF"),
    ".rtf": "RTF document: save it as .docx",
    ".epub": "EPUB book: convert it to PDF or HTML",
    **dict.fromkeys((".zip", ".7z", ".rar", ".gz", ".tgz", ".tar", ".lzh"), "archive: unpack it and index the folder"),
    **dict.fromkeys((".gif", ".bmp", ".webp", ".heic", ".svg"), "image type not read by OCR: convert it to PNG or JPEG"),
    **dict.fromkeys((".mp3", ".mp4", ".m4a", ".wav", ".mov", ".avi"), "audio or video"),
    **dict.fromkeys((".exe", ".dll", ".so", ".dylib", ".bin", ".iso", ".dmg"), "program or disk image"),
    **dict.fromkeys((".json", ".xml", ".yaml", ".yml", ".log", ".ini", ".cfg"),
                    "data or log file: rename it .txt to index it as text"),
}
# the same, by what the content turned out to be (for files named explicitly and uploads)
_FIX_BY_CONTENT = {
    "legacy Office file (.doc/.xls/.ppt)": "save it as .docx, .xlsx or .pptx and index that",
    "RTF document": "save it as .docx and index that",
    "EPUB book": "convert it to PDF or HTML",
    "GIF image": "convert it to PNG or JPEG",
}


def skip_reason(path: str) -> str | None:
    """Why a folder walk does not read `path` ("hidden file", "legacy Office file: save it as …", "unsupported
    type .abc"), or None when it does. Pure: decided from the name."""
    name = os.path.basename(path)
    if name.startswith(("~$", ".~lock.")):
        return "Office lock file (the document is open somewhere)"
    if name.startswith("."):
        return "hidden file"
    ext = extension(path)
    if ext in supported_extensions():
        return None
    if not ext:
        return "no extension: name it with its type's (.txt, .pdf, …)"
    return _NOT_READ.get(ext, f"unsupported type {ext}")


def extension(path: str) -> str:
    """The lower-case extension of `path`, with its dot ("" when none)."""
    return os.path.splitext(path)[1].lower()


def is_supported(path: str) -> bool:
    """True when a folder walk should index `path`: a supported extension, not an Office lock file."""
    name = os.path.basename(path)
    if name.startswith(("~$", ".~lock.")):
        return False
    return extension(path) in supported_extensions()  # hidden files are the walk's own choice


def supported_fix() -> str:
    """The fix of an unsupported type: "supported types are .pdf, …; convert it to one of them"."""
    return "supported types are " + ", ".join(supported_extensions()) + "; convert it to one of them"


def _unsupported(path: str, what: str) -> UnsupportedType:
    fix = _FIX_BY_CONTENT.get(what)
    return UnsupportedType(path, f"unsupported file type ({what})",
                           f"{fix} (supported types are {', '.join(supported_extensions())})" if fix
                           else supported_fix())


def reader_kind(path: str, data: bytes) -> str:
    """The kind whose reader reads this file: a plug-in's when it registered the file's extension, else
    what the content says (`detect_kind`)."""
    return plugin_kind(extension(path)) or detect_kind(path, data)


def _builtin_kind_of(ext: str) -> str | None:
    """The built-in kind that declares extension `ext`, if any."""
    return next((k for k in ("csv", "text", "markdown", "html", "image") if ext in extensions(k)), None)


def _zip_kind(path: str, data: bytes) -> str:
    """docx, xlsx or pptx by the part the container holds (its central directory within `zipcap` limits)."""
    office = _OFFICE_EXTENSIONS.get(extension(path))
    try:
        names = set(check_zip(path, data).namelist())
    except (zipfile.BadZipFile, ValueError, OSError) as exc:
        if office is not None:
            _, _, label, app = office
            raise DocumentError(
                path,
                f"not a valid {label} file (corrupt zip archive: {exc})",
                f"open it in {app} and save it again",
            ) from exc
        raise _unsupported(path, "corrupt zip archive") from exc
    for part, kind, _, _ in _OFFICE:
        if part in names:
            return kind
    for prefix, what in _ZIP_KINDS:
        if any(n.startswith(prefix) for n in names):
            raise _unsupported(path, what)
    raise _unsupported(path, "zip archive")


def _has_pdf_header(data: bytes) -> bool:
    """%PDF- at the start, or within the first KB after binary junk (as PDF readers accept);
    a text file that merely mentions "%PDF-" is not a PDF."""
    at = data.find(b"%PDF-", 0, 1024)
    return at == 0 or (at > 0 and (not data[:at].strip() or b"\x00" in data[:at]))


def _head_text(data: bytes) -> str:
    """The first characters of a text file, leniently decoded, for sniffing only."""
    head = data[:2048]
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return head.decode("utf-16", errors="ignore")
    return head.decode("utf-8", errors="ignore").lstrip("\ufeff")


def _looks_like_html(head: str) -> bool:
    start = head.lstrip().lower()
    if start.startswith("<?xml"):
        return "<html" in start
    return start.startswith(("<!doctype html", "<html"))


def detect_kind(path: str, data: bytes) -> str:
    """Return the reader kind for `data`: "pdf", "docx", "xlsx", "pptx", "csv", "text", "markdown", "html" or "image"
    (a PNG, JPEG or TIFF named .png, .jpg, .jpeg, .tif or .tiff).

    Raises UnsupportedType for binary content of any other kind, DocumentError where the
    extension promises a format the content is not (a .docx that is not a zip, a .pdf without
    a %PDF- header).
    """
    ext = extension(path)
    if _has_pdf_header(data):
        return "pdf"
    if data.startswith((b"PK\x03\x04", b"PK\x05\x06")):
        return _zip_kind(path, data)
    for magic, what in _MAGIC:
        if data.startswith(magic):
            # An image is read (by OCR) only when named as one: OCR on a mislabelled upload surprises.
            if what in _IMAGE_KINDS and _builtin_kind_of(ext) == "image":
                return "image"
            raise _unsupported(path, what)
    if ext == ".pdf":
        raise DocumentError(path, "malformed PDF (no %PDF- header)", "export or download the PDF again")
    if ext in _OFFICE_EXTENSIONS:
        _, kind, label, app = _OFFICE_EXTENSIONS[ext]
        raise DocumentError(
            path,
            f"not a valid {label} file (it is not a zip archive)",
            f"open it in {app} and save it as .{kind} again",
        )
    named = _builtin_kind_of(ext)
    if _looks_like_html(_head_text(data)) or named == "html":
        return "html"
    if named in ("csv", "text", "markdown"):
        return named
    if decode_bytes(data) is not None:
        return "text"
    raise _unsupported(path, "binary file of unknown type")

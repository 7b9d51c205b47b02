"""Uploads: a safe file name, the body streamed to disk under a size limit, the type sniffed from content
(or, for a plug-in reader's type, from the extension: the reader registry decides what is accepted)."""
from __future__ import annotations

import hashlib
import os
import re
import tempfile
import unicodedata

from fastapi import UploadFile

from kotae.errors import DocumentError, UnsupportedType
from kotae.facade import file_kind
from kotae.server.errors import ApiError

_RESERVED = re.compile(r'[<>:"|?*]')
MAX_NAME = 120  # characters, extension included


def safe_name(raw: str | None) -> str:
    """The last path component of `raw`, without control characters or leading dots; letters of any
    script (Japanese included) are kept. Never empty, never a path."""
    name = unicodedata.normalize("NFC", raw or "").replace("\\", "/").rsplit("/", 1)[-1]
    name = "".join(ch for ch in name if not unicodedata.category(ch).startswith("C"))
    name = _RESERVED.sub("_", name).strip(" .\u3000")
    stem, ext = os.path.splitext(name)
    if len(ext) > 12 or not stem:
        stem, ext = name, ""
    stem = stem[: MAX_NAME - len(ext)].rstrip(" .")
    return (stem or "upload") + ext


def reserve(directory: str, name: str) -> str:
    """Create and return `directory/name`, or `name-2`, `name-3`… when it is taken (atomically)."""
    stem, ext = os.path.splitext(name)
    for n in range(1, 10_000):
        path = os.path.join(directory, name if n == 1 else f"{stem}-{n}{ext}")
        try:
            os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644))
        except FileExistsError:
            continue
        return path
    raise ApiError(500, "internal_error", f"no free file name for {name} in {directory}")


async def save(upload: UploadFile, directory: str, limit: int) -> tuple[str, str, int]:
    """Write the upload to a temporary file in `directory`: (path, sha256, size). 413 past `limit` bytes."""
    os.makedirs(directory, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=".upload-", suffix=".part")
    digest, size = hashlib.sha256(), 0
    try:
        with os.fdopen(fd, "wb") as f:
            while block := await upload.read(1 << 20):
                size += len(block)
                if size > limit:
                    raise ApiError(413, "too_large", f"{safe_name(upload.filename)} is over the "
                                   f"{limit / (1024 * 1024):.4g} MB upload limit; split it into smaller "
                                   "files")
                digest.update(block)
                f.write(block)
    except BaseException:
        os.remove(tmp)
        raise
    return tmp, digest.hexdigest(), size


def sniff(path: str, name: str) -> str:
    """The reader kind of the saved file named `name`: a plug-in reader's kind when it registered the name's
    extension, else the built-in kind its content shows; 415 for types kotae cannot read."""
    with open(path, "rb") as f:
        data = f.read()
    if not data:
        raise ApiError(422, "unreadable_document",
                       f"{name}: file is empty; check the file and upload it again")
    try:
        return file_kind(name, data)
    except DocumentError as e:  # UnsupportedType → 415; content that contradicts its extension → 422
        status = 415 if isinstance(e, UnsupportedType) else 422
        code = "unsupported_type" if status == 415 else "unreadable_document"
        raise ApiError(status, code, f"{name}: {e.reason}" + (f"; {e.fix}" if e.fix else "")) from e

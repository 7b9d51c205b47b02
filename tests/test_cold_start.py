"""What a one-shot `kotae ask` no longer recomputes: the vocabulary in one decode, piece ids built in C, the model
file's digest and the parsed synonym table kept in the user cache (and recomputed when their source changes)."""
from __future__ import annotations

import hashlib
import mmap
import os

import numpy as np

from kotae.embed import e5_convert
from kotae.embed.e5_onnx import file_digest
from kotae.embed.e5_tokenizer import piece_ids
from kotae.search import synonyms


def test_pieces_decode_as_one_string_like_one_by_one():
    words = ["▁the", "", "s", "日本", "😀", "", "▁", "ab"]
    blob = b"".join(w.encode() for w in words)
    offs = np.cumsum([0] + [len(w.encode()) for w in words]).astype(np.uint32)
    assert e5_convert._pieces(blob, offs, len(words)) == words
    nul = ["a\x00b", "c"]  # a piece holding a NUL cannot be split on NULs: decoded one by one
    blob = b"".join(w.encode() for w in nul)
    assert e5_convert._pieces(blob, np.array([0, 3, 4], np.uint32), 2) == nul


def test_piece_ids_keep_the_first_id_and_skip_empty_and_unk():
    pieces = ["<unk>", "a", "", "b", "a", "<unk>", "c"]

    def loop(unk: int) -> dict[str, int]:  # the definition: first id wins, empty pieces and <unk> skipped
        ids: dict[str, int] = {}
        for i, p in enumerate(pieces):
            if p and i != unk:
                ids.setdefault(p, i)
        return ids

    for unk in (0, 5, 6):
        assert piece_ids(pieces, unk) == loop(unk)


def test_file_digest_is_remembered_until_the_file_changes(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    path = tmp_path / "model.bin"
    path.write_bytes(b"weights v1" * 100)

    def digest() -> str:
        with open(path, "rb") as fh, mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as m:
            return file_digest(str(path), m)

    want = hashlib.sha256(path.read_bytes()).hexdigest()[:12]
    assert digest() == want
    (memo,) = os.listdir(tmp_path / "cache" / "kotae")
    (tmp_path / "cache" / "kotae" / memo).write_text("remembered12")
    assert digest() == "remembered12"  # read back, not hashed again
    path.write_bytes(b"weights v2!" * 100)  # new size and mtime: a new key
    assert digest() == hashlib.sha256(path.read_bytes()).hexdigest()[:12]


def test_bundled_synonyms_from_the_cache_equal_the_parsed_table(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    synonyms.bundled.cache_clear()
    try:
        parsed = synonyms.bundled()  # parses and writes the cache
        assert os.path.exists(synonyms._memo_path(synonyms.WORKPLACE))
        synonyms.bundled.cache_clear()
        cached = synonyms.bundled()
        assert cached == parsed and cached is not parsed
        with open(synonyms._memo_path(synonyms.WORKPLACE), "wb") as fh:
            fh.write(b"not marshal")  # a damaged cache is parsed again
        synonyms.bundled.cache_clear()
        assert synonyms.bundled() == parsed
    finally:
        synonyms.bundled.cache_clear()


def test_opening_an_index_and_its_model_imports_no_reader_library(tmp_path):
    """A one-shot `kotae ask` pays for no reader: openpyxl, python-pptx, python-docx, bs4, ftfy and
    charset_normalizer are imported when a file is read, not when a store or an embedder is opened."""
    import subprocess
    import sys

    code = ("import sys; from kotae.facade import Kotae; from kotae.store import open_store; "
            "from kotae.embed import get_embedder; "
            f"open_store({str(tmp_path / 'idx')!r}).close(); get_embedder('e5-small-onnx'); "
            "print(sorted(m for m in ('openpyxl', 'pptx', 'docx', 'bs4', 'ftfy', 'charset_normalizer') "
            "if m in sys.modules))")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert out.stdout.strip() == "[]", out.stderr


def test_readers_still_load_when_a_file_is_read(tmp_path):
    from kotae.ingest import supported_extensions

    assert {".xlsx", ".pptx", ".docx", ".html"} <= set(supported_extensions())

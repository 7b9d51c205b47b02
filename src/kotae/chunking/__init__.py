"""Chunking: sentences (Japanese and English) packed into token-budgeted, citable chunks.

Pure functions, plain data in and out; the token counter is passed in, nothing is read or loaded here.
"""

from kotae.chunking.chunker import chunk_document, chunk_id
from kotae.chunking.lang import detect_lang, question_lang
from kotae.chunking.sentences import split_sentences

__all__ = ["chunk_document", "chunk_id", "detect_lang", "question_lang", "split_sentences"]

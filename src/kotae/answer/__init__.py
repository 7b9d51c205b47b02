"""Answers: extractive by default (no LLM), built only from retrieved passages, with numbered citations."""
from kotae.answer.ask import ask, ask_stream, dont_know

__all__ = ["ask", "ask_stream", "dont_know"]

"""Answers: extractive by default (no LLM), built only from retrieved passages, with numbered citations."""
from kotae.answer.ask import ask, dont_know

__all__ = ["ask", "dont_know"]

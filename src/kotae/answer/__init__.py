"""Answers: extractive by default (no LLM), built only from retrieved passages, with numbered citations.

With an LLM (`get_llm("openai:MODEL")`, `get_llm("llamacpp:PATH.gguf")`), the model writes the answer and
its citations are verified in code (`kotae.answer.citations`).
"""
from kotae.answer.ask import ask, ask_stream, dont_know
from kotae.answer.llm import LLM, LLMError, LLMSettings, get_llm, register

__all__ = ["LLM", "LLMError", "LLMSettings", "ask", "ask_stream", "dont_know", "get_llm", "register"]

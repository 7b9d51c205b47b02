"""LLM backends behind one small interface: subclasses implement `stream`; `complete` lives on the base.

A backend is named by a spec `prefix:arg` ("openai:gpt-4o-mini", "llamacpp:/models/q.gguf") and built by
the factory registered for its prefix; built-ins register through the same `register` a plug-in would use.
A backend raises `LLMError` when the model could not answer (after its own retries), and nothing else:
`ask` turns that into the extractive answer with a notice.
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Sequence

from kotae.config import LONG_EVIDENCE, REWRITE, LLMSettings
from kotae.errors import ConfigError, KotaeError

Message = dict[str, str]  # {"role": "system" | "user" | "assistant", "content": "..."}
__all__ = ["LLM", "LLMS", "LONG_EVIDENCE", "REWRITE", "LLMError", "LLMSettings", "Message", "get_llm", "register"]


class LLMError(KotaeError):
    """The model gave no answer (after retries): the message names the endpoint and the cause."""


class LLM(ABC):
    """A chat model. `where` names it in notices (a URL or a file); `settings` drive `ask`."""

    name: str = "base"

    def __init__(self, settings: LLMSettings) -> None:
        self.settings = settings

    @property
    def where(self) -> str:
        return self.settings.spec or self.name

    @abstractmethod
    def stream(self, messages: Sequence[Message], *, temperature: float, max_tokens: int) -> Iterator[str]:
        """Yield the reply in pieces as the model produces them; raise `LLMError` on failure."""

    def complete(self, messages: Sequence[Message], *, temperature: float | None = None,
                 max_tokens: int | None = None) -> str:
        """The whole reply as one string."""
        s = self.settings
        return "".join(self.stream(messages, temperature=s.temperature if temperature is None else temperature,
                                   max_tokens=s.max_tokens if max_tokens is None else max_tokens))

    def count_tokens(self, text: str) -> int | None:
        """Length of `text` in the model's own tokens, when the backend can tell (None: estimate elsewhere)."""
        return None


Factory = Callable[[str, LLMSettings], LLM]
LLMS: dict[str, Factory] = {}


def register(prefix: str) -> Callable[[Factory], Factory]:
    """Register a factory for specs `prefix:<arg>` (built-ins and plug-ins alike, see `kotae.plugins`)."""

    def deco(factory: Factory) -> Factory:
        LLMS[prefix] = factory
        return factory

    return deco


def get_llm(spec: str, settings: LLMSettings | None = None) -> LLM:
    """Build the LLM named by `spec` ("openai:MODEL", "llamacpp:PATH.gguf", …)."""
    from kotae import plugins

    plugins.load(readers=False)  # the built-in backends register themselves
    prefix, _, arg = spec.partition(":")
    if prefix not in LLMS:
        plugins.load()  # a plug-in's
    if prefix not in LLMS:
        raise ConfigError(f"unknown LLM {spec!r}; use one of {', '.join(p + ':…' for p in sorted(LLMS))}")
    if not arg:
        raise ConfigError(f"LLM {spec!r} names no model; write {prefix}:MODEL (e.g. openai:gpt-4o-mini)")
    return LLMS[prefix](arg, (settings or LLMSettings()).with_(spec=spec))

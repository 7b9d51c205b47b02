"""LLM backends behind one small interface: subclasses implement `stream`; `complete` lives on the base.

A backend is named by a spec `prefix:arg` ("openai:gpt-4o-mini", "llamacpp:/models/q.gguf") and built by
the factory registered for its prefix; built-ins register through the same `register` a plug-in would use.
A backend raises `LLMError` when the model could not answer (after its own retries), and nothing else:
`ask` turns that into the extractive answer with a notice.
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace

from kotae.errors import ConfigError, KotaeError

Message = dict[str, str]  # {"role": "system" | "user" | "assistant", "content": "..."}
LONG_EVIDENCE = ("fewer", "summarise")
REWRITE = ("off", "hyde")


@dataclass(frozen=True)
class LLMSettings:
    """How to reach and drive the model; see `kotae.answer.config` for the flags and variables that set it."""

    spec: str | None = None  # "openai:MODEL" | "llamacpp:PATH.gguf"; None: extractive answers only
    base_url: str | None = None  # OpenAI-compatible endpoint, e.g. http://localhost:11434/v1 (Ollama)
    api_key: str | None = None  # from the environment only, never a flag
    timeout: float = 60.0  # seconds per request
    retries: int = 2  # retries with backoff on 429/5xx, timeouts and dropped connections
    temperature: float = 0.1
    max_tokens: int = 512  # answer budget, reserved out of `context`
    context: int = 4096  # the model's context window in tokens (prompt + answer)
    long_evidence: str = "fewer"  # over budget: "fewer" (best passages that fit) | "summarise" (map-reduce)
    # "hyde": the dense search also embeds a passage the model writes for the question (bench/query_expansion.py:
    # MRR@10 on the sample golden sets 0.773 → 0.796 ja, 0.904 → 0.911 en, even with a 1.5B local model)
    rewrite: str = "hyde"

    def __post_init__(self) -> None:
        if self.rewrite not in REWRITE:
            raise ConfigError(f"unknown query rewriting {self.rewrite!r}; choose one of {', '.join(REWRITE)}")
        if self.long_evidence not in LONG_EVIDENCE:
            raise ConfigError(f"unknown long-evidence strategy {self.long_evidence!r}; "
                              f"choose one of {', '.join(LONG_EVIDENCE)}")
        if self.context <= self.max_tokens:
            raise ConfigError(f"LLM context {self.context} must exceed the answer budget {self.max_tokens} "
                              "tokens; raise --llm-context or lower --llm-max-tokens")

    def with_(self, **changes: object) -> LLMSettings:
        return replace(self, **changes)  # type: ignore[arg-type]


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
    """Register a factory for specs `prefix:<arg>` (built-ins use this too)."""

    def deco(factory: Factory) -> Factory:
        LLMS[prefix] = factory
        return factory

    return deco


def get_llm(spec: str, settings: LLMSettings | None = None) -> LLM:
    """Build the LLM named by `spec` ("openai:MODEL", "llamacpp:PATH.gguf", …)."""
    _load_builtins()
    prefix, _, arg = spec.partition(":")
    if prefix not in LLMS:
        raise ConfigError(f"unknown LLM {spec!r}; use one of {', '.join(p + ':…' for p in sorted(LLMS))}")
    if not arg:
        raise ConfigError(f"LLM {spec!r} names no model; write {prefix}:MODEL (e.g. openai:gpt-4o-mini)")
    return LLMS[prefix](arg, (settings or LLMSettings()).with_(spec=spec))


def _load_builtins() -> None:
    from kotae.answer import llamacpp_llm, openai_llm  # noqa: F401  (registration side effect)

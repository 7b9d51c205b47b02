"""`openai:MODEL`: any OpenAI-compatible chat endpoint through the official `openai` client.

OpenAI itself, Ollama (http://localhost:11434/v1), vLLM, llama.cpp's server, LM Studio, and Gemini's
OpenAI-compatible endpoint. The client retries 429/5xx, timeouts and dropped connections with
exponential backoff (honouring Retry-After); what still fails becomes one `LLMError`.
"""
from __future__ import annotations

from collections.abc import Iterator, Sequence
from http import HTTPStatus
from typing import Any

from kotae.answer.llm import LLM, LLMError, LLMSettings, Message, register
from kotae.errors import ConfigError

LOCAL_KEY = "not-needed"  # local servers ignore the key, but the client insists on one


class OpenAILLM(LLM):
    name = "openai"

    def __init__(self, model: str, settings: LLMSettings) -> None:
        super().__init__(settings)
        import openai

        key = settings.api_key or (LOCAL_KEY if settings.base_url else None)
        if not key:
            raise ConfigError(f"{settings.spec} needs an API key; set OPENAI_API_KEY or KOTAE_LLM_API_KEY, "
                              "or point --llm-base-url at a local server")
        self.model = model
        self._openai = openai
        self.client = openai.OpenAI(api_key=key, base_url=settings.base_url, timeout=settings.timeout,
                                    max_retries=settings.retries)

    @property
    def where(self) -> str:
        return str(self.client.base_url).rstrip("/")

    def stream(self, messages: Sequence[Message], *, temperature: float, max_tokens: int) -> Iterator[str]:
        try:
            chunks: Any = self.client.chat.completions.create(
                model=self.model, messages=list(messages), temperature=temperature,  # type: ignore[arg-type]
                max_tokens=max_tokens, stream=True)
            for chunk in chunks:
                if chunk.choices and chunk.choices[0].delta.content:
                    yield chunk.choices[0].delta.content
        except Exception as e:  # only the client's and its transport's errors are translated, see _reason
            error = self._error(e)
            if error is None:
                raise
            raise error from e

    def complete(self, messages: Sequence[Message], *, temperature: float | None = None,
                 max_tokens: int | None = None) -> str:
        """One non-streaming request (the map step of map-reduce needs no tokens as they come)."""
        s = self.settings
        try:
            reply = self.client.chat.completions.create(
                model=self.model, messages=list(messages),  # type: ignore[arg-type]
                temperature=s.temperature if temperature is None else temperature,
                max_tokens=s.max_tokens if max_tokens is None else max_tokens)
        except Exception as e:  # as in stream
            error = self._error(e)
            if error is None:
                raise
            raise error from e
        return (reply.choices[0].message.content or "") if reply.choices else ""

    def _error(self, e: Exception) -> LLMError | None:
        reason = self._reason(e)
        return None if reason is None else LLMError(f"the LLM at {self.where} failed ({reason})")

    def _reason(self, e: Exception) -> str | None:
        """One phrase for the failures worth falling back on; None for bugs, which propagate."""
        o = self._openai
        if isinstance(e, o.APITimeoutError) or type(e).__name__.endswith("Timeout"):
            return f"no reply within {self.settings.timeout:g} s, {self._tries()}"
        if isinstance(e, o.APIStatusError):
            retried = e.status_code in (408, 409, 429) or e.status_code >= 500
            return f"{e.status_code} {_phrase(e.status_code)}" + (f", {self._tries()}" if retried else "")
        if isinstance(e, o.APIConnectionError):
            return f"could not connect, {self._tries()}"
        if isinstance(e, o.OpenAIError) or type(e).__module__.split(".")[0] in ("httpx", "httpx2", "httpcore"):
            return f"{type(e).__name__}: {e}"
        return None

    def _tries(self) -> str:
        n = self.settings.retries + 1
        return f"{n} attempt{'s' if n != 1 else ''}"


def _phrase(code: int) -> str:
    try:
        return HTTPStatus(code).phrase
    except ValueError:
        return "error"


@register("openai")
def _openai(model: str, settings: LLMSettings) -> Any:
    return OpenAILLM(model, settings)

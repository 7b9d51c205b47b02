"""`llamacpp:PATH.gguf`: a local GGUF model in-process through `llama-cpp-python` (extra `kotae[llamacpp]`).

The model is loaded once, when the backend is built; its context window is `LLMSettings.context`. The
chat template comes from the GGUF's metadata, so instruction-tuned models need no extra setup.
"""
from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from typing import Any

from kotae.answer.llm import LLM, LLMError, LLMSettings, Message, register
from kotae.errors import ConfigError


class LlamaCppLLM(LLM):
    name = "llamacpp"

    def __init__(self, path: str, settings: LLMSettings, threads: int | None = None) -> None:
        super().__init__(settings)
        if not os.path.isfile(path):
            raise ConfigError(f"no GGUF model at {path}; pass --llm llamacpp:/path/to/model.gguf")
        try:
            import llama_cpp  # type: ignore[import-not-found, unused-ignore]
        except ImportError as e:
            raise ConfigError(f"{settings.spec} needs llama-cpp-python; install it with "
                              "pip install 'kotae[llamacpp]'") from e
        self.path = path
        self.model = llama_cpp.Llama(model_path=path, n_ctx=settings.context, verbose=False,
                                     n_threads=threads or os.cpu_count() or 1, seed=0)

    @property
    def where(self) -> str:
        return self.path

    def stream(self, messages: Sequence[Message], *, temperature: float, max_tokens: int) -> Iterator[str]:
        try:
            chunks: Any = self.model.create_chat_completion(messages=list(messages),  # type: ignore[arg-type]
                                                            temperature=temperature, max_tokens=max_tokens,
                                                            stream=True)
            for chunk in chunks:
                piece = chunk["choices"][0]["delta"].get("content")
                if piece:
                    yield str(piece)
        except (ValueError, RuntimeError) as e:  # e.g. "Requested tokens (…) exceed context window"
            raise LLMError(f"the LLM at {self.path} failed ({e})") from e

    def count_tokens(self, text: str) -> int:
        return len(self.model.tokenize(text.encode("utf-8"), add_bos=False, special=False))


@register("llamacpp")
def _llamacpp(path: str, settings: LLMSettings) -> Any:
    return LlamaCppLLM(os.path.expanduser(path), settings)

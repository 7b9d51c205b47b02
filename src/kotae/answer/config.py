"""Choosing the LLM: command-line flags, then environment variables, then the `[llm]` table of the TOML
file named by $KOTAE_CONFIG, then the defaults of `LLMSettings`. The API key comes from the environment
only (KOTAE_LLM_API_KEY, else OPENAI_API_KEY), so it never lands in a shell history or a config file.

    kotae ask "…" --llm openai:gpt-4o-mini                       # OpenAI, key in OPENAI_API_KEY
    kotae ask "…" --llm openai:qwen2.5 --llm-base-url http://localhost:11434/v1   # Ollama
    kotae ask "…" --llm llamacpp:~/models/qwen2.5-1.5b-instruct-q4_k_m.gguf       # in-process GGUF
    KOTAE_LLM=openai:gpt-4o-mini kotae repl

    # $KOTAE_CONFIG, e.g. ~/.config/kotae.toml
    [llm]
    spec = "openai:qwen2.5"
    base_url = "http://localhost:11434/v1"
    timeout = 120
"""
from __future__ import annotations

import argparse
import dataclasses
import os
import tomllib
from collections.abc import Mapping
from typing import Any

from kotae.answer.llm import LLM, LONG_EVIDENCE, REWRITE, LLMSettings, get_llm
from kotae.errors import ConfigError

# setting → (flag dest, environment variable)
SOURCES = {
    "spec": ("llm", "KOTAE_LLM"),
    "base_url": ("llm_base_url", "KOTAE_LLM_BASE_URL"),
    "timeout": ("llm_timeout", "KOTAE_LLM_TIMEOUT"),
    "retries": ("llm_retries", "KOTAE_LLM_RETRIES"),
    "temperature": ("llm_temperature", "KOTAE_LLM_TEMPERATURE"),
    "max_tokens": ("llm_max_tokens", "KOTAE_LLM_MAX_TOKENS"),
    "context": ("llm_context", "KOTAE_LLM_CONTEXT"),
    "long_evidence": ("long_evidence", "KOTAE_LLM_LONG_EVIDENCE"),
    "rewrite": ("rewrite", "KOTAE_LLM_REWRITE"),
}
OFF = ("", "none", "off", "extractive")  # --llm none: extractive answers even when $KOTAE_LLM is set


def add_llm_args(parser: argparse.ArgumentParser) -> None:
    """The --llm flags (each defaults to its environment variable, then the config file)."""
    d = LLMSettings()
    g = parser.add_argument_group("LLM answers (default: extractive, no LLM)")
    g.add_argument("--llm", metavar="SPEC", help="openai:MODEL or llamacpp:PATH.gguf; none for extractive "
                                                 "($KOTAE_LLM)")
    g.add_argument("--llm-base-url", metavar="URL", help="OpenAI-compatible endpoint, e.g. "
                                                         "http://localhost:11434/v1 ($KOTAE_LLM_BASE_URL)")
    g.add_argument("--llm-timeout", type=float, metavar="S", help=f"seconds per request (default {d.timeout:g}; "
                                                                   "$KOTAE_LLM_TIMEOUT)")
    g.add_argument("--llm-retries", type=int, metavar="N", help=f"retries on 429/5xx/timeouts (default "
                                                                f"{d.retries}; $KOTAE_LLM_RETRIES)")
    g.add_argument("--llm-temperature", type=float, metavar="T", help=f"default {d.temperature}")
    g.add_argument("--llm-max-tokens", type=int, metavar="N", help=f"answer length limit (default {d.max_tokens})")
    g.add_argument("--llm-context", type=int, metavar="N", help=f"the model's context window in tokens "
                                                                f"(default {d.context}; $KOTAE_LLM_CONTEXT)")
    g.add_argument("--long-evidence", choices=LONG_EVIDENCE, help="when the passages exceed the context: "
                                                                  "fewer (best passages that fit, default) or "
                                                                  "summarise (map-reduce per source)")
    g.add_argument("--rewrite", choices=REWRITE, help="query rewriting by the LLM before the search: hyde (it "
                                                      "writes a passage that would answer; the dense search "
                                                      "embeds it with the question; default) or off "
                                                      "($KOTAE_LLM_REWRITE)")


def llm_settings(args: argparse.Namespace | None = None, env: Mapping[str, str] | None = None) -> LLMSettings:
    """Settings from flags, then environment, then $KOTAE_CONFIG's [llm] table, then defaults."""
    env = os.environ if env is None else env
    values: dict[str, Any] = {}
    values.update(_from_file(env.get("KOTAE_CONFIG")))
    for key, (_, var) in SOURCES.items():
        if env.get(var) is not None:
            values[key] = _typed(key, env[var], var)
    for key, (dest, _) in SOURCES.items():
        v = getattr(args, dest, None) if args is not None else None
        if v is not None:
            values[key] = _typed(key, v, "--" + dest.replace("_", "-"))
    if str(values.get("spec", "")).strip().lower() in OFF:
        values["spec"] = None
    return LLMSettings(**values, api_key=env.get("KOTAE_LLM_API_KEY") or env.get("OPENAI_API_KEY"))


def llm_from_args(args: argparse.Namespace | None = None, env: Mapping[str, str] | None = None) -> LLM | None:
    """The LLM the user chose, built once; None for extractive answers."""
    settings = llm_settings(args, env)
    return get_llm(settings.spec, settings) if settings.spec else None


def _from_file(path: str | None) -> dict[str, Any]:
    if not path:
        return {}
    try:
        with open(os.path.expanduser(path), "rb") as f:
            table = tomllib.load(f).get("llm", {})
    except FileNotFoundError as e:
        raise ConfigError(f"no config file at {path}; fix or unset KOTAE_CONFIG") from e
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{path} is not valid TOML ({e}); fix the file or unset KOTAE_CONFIG") from e
    unknown = set(table) - set(SOURCES)
    if unknown:
        raise ConfigError(f"{path}: unknown [llm] setting(s) {', '.join(sorted(unknown))}; "
                          f"known: {', '.join(SOURCES)} (the API key belongs in KOTAE_LLM_API_KEY)")
    return {k: _typed(k, v, f"{path} [llm] {k}") for k, v in table.items()}


_TYPES = {f.name: f.type for f in dataclasses.fields(LLMSettings)}


def _typed(key: str, value: Any, origin: str) -> Any:
    kind = _TYPES[key]
    try:
        if kind == "float":
            return float(value)
        if kind == "int":
            return int(value)
    except (TypeError, ValueError) as e:
        raise ConfigError(f"{origin} must be a{'n integer' if kind == 'int' else ' number'}, "
                          f"got {value!r}") from e
    return None if value is None else str(value)

"""Configuration: packaged defaults < user YAML file < environment < command-line flags.

The user file is ``--config FILE``, else ``$HORMA_CONFIG``, else
``~/.config/horma/config.yaml`` (``$XDG_CONFIG_HOME`` honoured) when it exists.
Keys are checked against the defaults, so a typo is an error naming the key,
and values are coerced to the default's type. Each value remembers where it
came from, so ``horma config show`` can say why a setting has its value;
secrets (API keys) are masked whenever the config is shown.
"""

from __future__ import annotations

import copy
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from horma.errors import HormaError

DEFAULTS_FILE = Path(__file__).parent / "_data" / "config_defaults.yaml"
SECRET_SUFFIXES = ("api_key", "_token", "secret", "password")
PROVIDER_ENV = {
    "ANTHROPIC_API_KEY": "providers.anthropic.api_key",
    "ANTHROPIC_BASE_URL": "providers.anthropic.base_url",
    "OPENAI_API_KEY": "providers.openai.api_key",
    "OPENAI_BASE_URL": "providers.openai.base_url",
}
LLM_OPTIONS = ("max_tokens", "temperature", "timeout", "max_retries", "retry_base_delay",
               "retry_max_delay", "tool_protocol")


class ConfigError(HormaError):
    """A config file or setting is wrong; worded for the user."""

    code = "config"
    exit_code = 5


def user_config_path() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "horma" / "config.yaml"


def _flatten(data: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in data.items():
        dotted = f"{prefix}{key}"
        if isinstance(value, Mapping):
            out.update(_flatten(value, dotted + "."))
        else:
            out[dotted] = value
    return out


def _coerce(key: str, value: Any, default: Any, source: str) -> Any:
    """Give ``value`` the type of ``default`` (env values arrive as strings)."""
    if value is None or (isinstance(value, str) and value.strip().lower() in ("null", "none", "")):
        return None
    try:
        if isinstance(default, bool):
            if isinstance(value, str):
                if value.strip().lower() not in ("1", "0", "true", "false", "yes", "no", "on", "off"):
                    raise ValueError(value)
                return value.strip().lower() in ("1", "true", "yes", "on")
            return bool(value)
        if isinstance(default, int) and not isinstance(value, bool):
            if isinstance(value, float) and not value.is_integer():
                raise ValueError(value)
            return int(value)
        if isinstance(default, float) and not isinstance(value, bool):
            return float(value)
        if default is None and isinstance(value, str):  # a number-or-null setting
            try:
                return int(value)
            except ValueError:
                try:
                    return float(value)
                except ValueError:
                    return value
    except (TypeError, ValueError):
        raise ConfigError(f"{source}: {key} must be a {type(default).__name__}, got {value!r}") from None
    if isinstance(default, str) and not isinstance(value, str):
        raise ConfigError(f"{source}: {key} must be a string, got {value!r}")
    return value


def is_secret(key: str) -> bool:
    leaf = key.rsplit(".", 1)[-1]
    return leaf == "token" or leaf.endswith(SECRET_SUFFIXES)


def mask(value: Any) -> Any:
    """A secret as ``****wxyz`` (the last four characters only for long keys)."""
    if value is None:
        return None
    text = str(value)
    return f"****{text[-4:]}" if len(text) >= 16 else "****"


@dataclass
class Config:
    """The effective configuration: dotted keys -> values, and where each came from."""

    values: dict[str, Any]
    sources: dict[str, str] = field(default_factory=dict)

    def get(self, key: str) -> Any:
        if key not in self.values:
            raise ConfigError(f"unknown config key {key!r}")
        return self.values[key]

    def model(self, role: str) -> str:
        """The model spec for a role (manager, retriever, primary, judge, feedback)."""
        return self.get(f"models.{role}")

    def llm_options(self, spec: str) -> dict[str, Any]:
        """Options for ``make_llm(spec, **options)``: shared LLM settings plus the provider's key."""
        opts = {k: self.values[f"llm.{k}"] for k in LLM_OPTIONS if self.values.get(f"llm.{k}") is not None}
        provider = spec.partition(":")[0]
        for k in ("api_key", "base_url"):
            value = self.values.get(f"providers.{provider}.{k}")
            if value is not None and not (k == "base_url" and "@" in spec):
                opts[k] = value
        return opts

    def llm(self, role: str, spec: str | None = None):
        """The LLM for a role, built from this config (``spec`` overrides the role's model)."""
        from horma.llm import make_llm

        spec = spec or self.model(role)
        return make_llm(spec, **self.llm_options(spec))

    def nested(self, masked: bool = True) -> dict[str, Any]:
        """The config as nested mappings, secrets masked unless ``masked`` is False."""
        out: dict[str, Any] = {}
        for key, value in self.values.items():
            node = out
            *parents, leaf = key.split(".")
            for p in parents:
                node = node.setdefault(p, {})
            node[leaf] = mask(value) if masked and is_secret(key) else value
        return out


def load_config(
    path: str | os.PathLike[str] | None = None,
    overrides: Mapping[str, Any] | None = None,
    env: Mapping[str, str] | None = None,
) -> Config:
    """The effective config: defaults, the user file, the environment, then ``overrides`` (CLI flags)."""
    env = os.environ if env is None else env
    defaults = _flatten(yaml.safe_load(DEFAULTS_FILE.read_text(encoding="utf-8")))
    values = copy.deepcopy(defaults)
    sources = {k: "default" for k in values}

    def put(key: str, value: Any, source: str) -> None:
        if key not in defaults:
            raise ConfigError(f"{source}: unknown config key {key!r}")
        values[key] = _coerce(key, value, defaults[key], source)
        sources[key] = source

    chosen = path or env.get("HORMA_CONFIG")
    file = Path(chosen).expanduser() if chosen else user_config_path()
    if chosen and not file.is_file():
        raise ConfigError(f"{file}: config file not found")
    if file.is_file():
        try:
            data = yaml.safe_load(file.read_text(encoding="utf-8")) or {}
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            where = f" at line {mark.line + 1}" if mark else ""
            raise ConfigError(f"{file}: malformed YAML{where}") from exc
        if not isinstance(data, Mapping):
            raise ConfigError(f"{file}: expected a mapping of sections, got {type(data).__name__}")
        for key, value in _flatten(data).items():
            put(key, value, str(file))
    for name, key in PROVIDER_ENV.items():
        if env.get(name):
            put(key, env[name], f"env {name}")
    for name, value in env.items():
        if name.startswith("HORMA_") and name != "HORMA_CONFIG":
            section, _, rest = name[6:].lower().partition("_")
            key = f"{section}.{rest}"
            if key in defaults:
                put(key, value, f"env {name}")
    for key, value in (overrides or {}).items():
        if value is not None:
            put(key, value, "flag")
    return Config(values, sources)

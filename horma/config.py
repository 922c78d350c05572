"""Configuration: one settings model, layered defaults < user YAML file < environment < command-line flags.

Every entry point (``horma.Memory``, the MCP server, the eval harness, the
CLI) builds from one :class:`Settings`, so a knob is declared, defaulted,
validated and documented once: here. The user file is ``--config FILE``, else
``$HORMA_CONFIG``, else ``~/.config/horma/config.yaml`` (``$XDG_CONFIG_HOME``
honoured) when it exists. A setting ``section.key`` is read from the
environment as ``HORMA_SECTION_KEY`` (``recall.budget``: ``HORMA_RECALL_BUDGET``).

Unknown keys are refused, in the file and in the environment (a ``HORMA_``
variable that starts with a section's name), with the list of known keys: a
typo must not leave a setting silently at its default. Each value remembers
where it came from, so ``horma config show --sources`` can say why a setting
has its value; secrets (API keys) are masked whenever settings are shown.

Why pydantic and not pydantic-settings: the per-key source (file, which
variable, flag) and the refusal of unknown ``HORMA_`` variables are the
point of this module, and pydantic-settings' environment source ignores
unknown variables and does not say where a value came from.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, SecretStr, ValidationError, field_validator

from horma.errors import HormaError

if TYPE_CHECKING:
    from horma.llm import LLM

ENV_PREFIX = "HORMA_"
CONFIG_ENV = "HORMA_CONFIG"
SECRET_SUFFIXES = ("api_key", "_token", "secret", "password")
# the providers' own variables, read too: a key already exported for the provider's SDK just works
PROVIDER_ENV = {
    "ANTHROPIC_API_KEY": "providers.anthropic.api_key",
    "ANTHROPIC_BASE_URL": "providers.anthropic.base_url",
    "OPENAI_API_KEY": "providers.openai.api_key",
    "OPENAI_BASE_URL": "providers.openai.base_url",
}
DEFAULT_MODEL = "anthropic:claude-sonnet-5-5"
NULLS = ("null", "none", "")


class ConfigError(HormaError):
    """A config file or setting is wrong; worded for the user."""

    code = "config"
    exit_code = 5


def user_config_path() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "horma" / "config.yaml"


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


SPEC = ": provider:model[@base_url]"


class ModelSettings(_Section):
    manager: str = Field(default=DEFAULT_MODEL,
                         description="model of the LLM manager (policies.manager: llm)" + SPEC)
    retriever: str = Field(default=DEFAULT_MODEL,
                           description="model of the LLM retriever (policies.retriever: llm)" + SPEC)
    primary: str = Field(default=DEFAULT_MODEL,
                         description="model of the primary agent, which answers from the context (ask, eval)" + SPEC)
    judge: str = Field(default=DEFAULT_MODEL, description="model of the LLM judge of answers (eval)" + SPEC)
    feedback: str = Field(default=DEFAULT_MODEL,
                          description="model of skill refinement's feedback writer (refine)" + SPEC)


class LLMSettings(_Section):
    max_tokens: int = Field(default=4096, ge=1, description="tokens per reply")
    temperature: float | None = Field(default=None, ge=0,
                                      description="sampling temperature; null: the provider's default")
    timeout: float = Field(default=120.0, gt=0, description="seconds per request")
    max_retries: int = Field(default=4, ge=0, description="retries on 429, 5xx and timeouts; then one clear error")
    retry_base_delay: float = Field(default=1.0, ge=0,
                                    description="seconds before the first retry; doubles each retry, with jitter")
    retry_max_delay: float = Field(default=30.0, ge=0, description="the longest wait between retries, in seconds")
    tool_protocol: Literal["auto", "native", "text"] = Field(
        default="auto", description="openai only: native tool calls, or the text protocol for servers without them")


class ProviderSettings(_Section):
    api_key: SecretStr | None = Field(default=None, description="API key (never enters a sandbox; masked when shown)")
    base_url: str | None = Field(default=None, description="endpoint; null: the provider's own")


class ProvidersSettings(_Section):
    anthropic: ProviderSettings = ProviderSettings()
    openai: ProviderSettings = ProviderSettings()


class SandboxSettings(_Section):
    backend: str = Field(default="auto", description="where agents' commands run: auto (docker, then bwrap, then "
                                                     "local), docker, bwrap or local")
    timeout: float = Field(default=10.0, gt=0, description="seconds an agent's sandbox command may take")
    unsafe_local: bool = Field(default=False, description="let an LLM agent run in the unisolated local backend")

    @field_validator("backend")
    @classmethod
    def _known_backend(cls, value: str) -> str:
        from horma.sandbox import SANDBOXES

        if value != "auto" and value not in SANDBOXES:
            raise ValueError(f"unknown sandbox backend; choose one of {SANDBOXES.choices()}")
        return value


class PolicySettings(_Section):
    manager: str = Field(default="heuristic", description="note-writing policy: heuristic (no LLM) or llm")
    retriever: str = Field(default="heuristic", description="recall policy: heuristic (no LLM) or llm")
    domain: str | None = Field(default=None, description="skill domain of the manager's policy "
                                                         "(skills/<domain>.yaml); null: the base skills only")


class RecallSettings(_Section):
    budget: int = Field(default=1000, ge=1,
                        description="context budget of a recall, in tokens (a ceiling, not a target)")


class AgentSettings(_Section):
    max_steps: int = Field(default=30, ge=1, description="actions an LLM agent may take in one run")
    max_format_errors: int = Field(default=3, ge=1, description="malformed replies in a row that end a run")
    max_repeats: int = Field(default=3, ge=1, description="the same action with the same result this often in a "
                                                          "row ends the run (stalled)")
    max_input_tokens: int | None = Field(default=None, ge=1,
                                         description="input tokens one run may spend; null: no cap")
    max_seconds: float | None = Field(default=None, gt=0, description="seconds one run may take; null: no cap")


class TrajectorySettings(_Section):
    max_files: int | None = Field(default=2000, ge=1, description="runs kept in each workspace's "
                                                                  ".horma/trajectories/, the oldest deleted past "
                                                                  "it; null: no cap")
    max_mb: float | None = Field(default=64, gt=0, description="MiB kept in .horma/trajectories/; null: no cap")


class SkillSettings(_Section):
    dir: Path | None = Field(default=None, description="the skill library folder; null: the project's skills/")


class MCPSettings(_Section):
    run_timeout: float = Field(default=10.0, ge=0.1, le=600,
                               description="seconds a client's run or search command may take")
    max_open: int = Field(default=16, ge=1, description="workspaces kept open at once; the least recently used "
                                                        "idle one is closed past it")
    idle_close: float = Field(default=900.0, ge=0, description="seconds after which an idle workspace is closed "
                                                               "(0: never); its next call reopens it")
    max_body: int = Field(default=4, ge=1, le=1024, description="with --http: the largest request body, in MiB")


class Settings(BaseModel):
    """Every setting of horma, one section per concern; build it with :func:`load_config`.

    Frozen: one object is shared by every part of a run, and a change goes
    through :meth:`override`, which validates it and records its source.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    models: ModelSettings = ModelSettings()
    llm: LLMSettings = LLMSettings()
    providers: ProvidersSettings = ProvidersSettings()
    sandbox: SandboxSettings = SandboxSettings()
    policies: PolicySettings = PolicySettings()
    recall: RecallSettings = RecallSettings()
    agent: AgentSettings = AgentSettings()
    trajectories: TrajectorySettings = TrajectorySettings()
    skills: SkillSettings = SkillSettings()
    mcp: MCPSettings = MCPSettings()

    _sources: dict[str, str] = PrivateAttr(default_factory=dict)

    @property
    def sources(self) -> dict[str, str]:
        """Where each setting's value came from: ``default``, a file, ``env NAME`` or ``flag``."""
        return {key: self._sources.get(key, "default") for key in KEYS}

    def get(self, key: str) -> Any:
        """The value of a dotted key (a secret unwrapped: the caller asked for it)."""
        if key not in KEYS:
            raise ConfigError(f"unknown config key {key!r}; known keys: {', '.join(KEYS)}")
        node: Any = self
        for part in key.split("."):
            node = getattr(node, part)
        return node.get_secret_value() if isinstance(node, SecretStr) else node

    def values(self) -> dict[str, Any]:
        """Dotted key -> value, every key, secrets unwrapped."""
        return {key: self.get(key) for key in KEYS}

    def override(self, values: Mapping[str, Any], source: str = "flag") -> Settings:
        """These settings with ``values`` (dotted keys; None: not given) on top, validated, sources kept."""
        merged = self.values()
        sources = dict(self._sources)
        for key, value in values.items():
            if value is None:
                continue
            _check_key(key, source)
            merged[key] = value
            sources[key] = source
        return _build(merged, sources)

    def model(self, role: str) -> str:
        """The model spec for a role (manager, retriever, primary, judge, feedback)."""
        return self.get(f"models.{role}")

    def llm_options(self, spec: str) -> dict[str, Any]:
        """Options for ``make_llm(spec, **options)``: shared LLM settings plus the provider's key."""
        opts = {k: v for k, v in self.llm.model_dump().items() if v is not None}
        provider = spec.partition(":")[0]
        for k in ("api_key", "base_url"):
            key = f"providers.{provider}.{k}"
            value = self.get(key) if key in KEYS else None
            if value is not None and not (k == "base_url" and "@" in spec):
                opts[k] = value
        return opts

    def llm_for(self, role: str, spec: str | None = None) -> LLM:
        """The LLM for a role, built from these settings (``spec`` overrides the role's model)."""
        from horma.llm import make_llm

        spec = spec or self.model(role)
        return make_llm(spec, **self.llm_options(spec))

    def nested(self, masked: bool = True) -> dict[str, Any]:
        """The settings as nested mappings, secrets masked unless ``masked`` is False."""
        out: dict[str, Any] = {}
        for key, value in self.values().items():
            node = out
            *parents, leaf = key.split(".")
            for p in parents:
                node = node.setdefault(p, {})
            if isinstance(value, Path):
                value = str(value)
            node[leaf] = mask(value) if masked and is_secret(key) else value
        return out


def _keys(model: type[BaseModel], prefix: str = "") -> Iterator[tuple[str, Any]]:
    """(dotted key, field) of every leaf setting, in declaration order."""
    for name, info in model.model_fields.items():
        kind = info.annotation
        if isinstance(kind, type) and issubclass(kind, BaseModel):
            yield from _keys(kind, f"{prefix}{name}.")
        else:
            yield f"{prefix}{name}", info


FIELDS = dict(_keys(Settings))
KEYS = tuple(FIELDS)
SECTIONS = tuple(Settings.model_fields)
ENV_KEYS = {ENV_PREFIX + key.replace(".", "_").upper(): key for key in KEYS}


def env_names(key: str) -> list[str]:
    """The environment variables that set ``key``: ``HORMA_...``, and a provider's own where it has one."""
    return [name for name, k in ENV_KEYS.items() if k == key] + [name for name, k in PROVIDER_ENV.items() if k == key]


def is_secret(key: str) -> bool:
    leaf = key.rsplit(".", 1)[-1]
    return leaf == "token" or leaf.endswith(SECRET_SUFFIXES)


def mask(value: Any) -> Any:
    """A secret as ``****wxyz`` (the last four characters only for long keys)."""
    if value is None:
        return None
    text = str(value)
    return f"****{text[-4:]}" if len(text) >= 16 else "****"


def _check_key(key: str, source: str) -> None:
    if key in FIELDS:
        return
    section = key.partition(".")[0]
    known = [k for k in KEYS if k.startswith(section + ".")] or list(KEYS)
    raise ConfigError(f"{source}: unknown config key {key!r}; known keys: {', '.join(known)}")


def _build(values: Mapping[str, Any], sources: Mapping[str, str]) -> Settings:
    """Validate dotted ``values``; an error names the key, the value and where it was set."""
    nested: dict[str, Any] = {}
    for key, value in values.items():
        node = nested
        *parents, leaf = key.split(".")
        for p in parents:
            node = node.setdefault(p, {})
        node[leaf] = value
    try:
        settings = Settings.model_validate(nested)
    except ValidationError as exc:
        first = exc.errors()[0]
        key = ".".join(str(part) for part in first["loc"])
        message = first["msg"].removeprefix("Value error, ")
        message = message[:1].lower() + message[1:]
        raise ConfigError(f"{sources.get(key, 'default')}: {key}: {message}, got {first['input']!r}") from None
    settings._sources.update(sources)
    return settings


def _flatten(data: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in data.items():
        dotted = f"{prefix}{key}"
        if isinstance(value, Mapping):
            out.update(_flatten(value, dotted + "."))
        else:
            out[dotted] = value
    return out


def _read_file(file: Path) -> dict[str, Any]:
    try:
        data = yaml.safe_load(file.read_text(encoding="utf-8")) or {}
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark else ""
        raise ConfigError(f"{file}: malformed YAML{where}") from exc
    if not isinstance(data, Mapping):
        raise ConfigError(f"{file}: expected a mapping of sections, got {type(data).__name__}")
    return _flatten(data)


def _from_env(env: Mapping[str, str]) -> Iterator[tuple[str, str, Any]]:
    """(key, source, value) the environment sets; an unknown ``HORMA_<SECTION>_...`` is refused.

    Other ``HORMA_`` variables (``HORMA_CONFIG``, the sandbox helpers' own) do
    not name a section and are not settings.
    """
    for name, key in PROVIDER_ENV.items():
        if env.get(name):
            yield key, f"env {name}", env[name]
    for name in sorted(env):
        if not name.startswith(ENV_PREFIX):
            continue
        setting = ENV_KEYS.get(name)
        if setting is None:
            rest = name[len(ENV_PREFIX):].lower()
            section = next((s for s in SECTIONS if rest.startswith(s + "_")), None)
            if section is not None:
                known = [n for n, k in ENV_KEYS.items() if k.startswith(section + ".")]
                raise ConfigError(f"env {name}: not a horma setting; known variables: {', '.join(known)}")
            continue
        value = env[name]
        yield setting, f"env {name}", None if value.strip().lower() in NULLS else value


def load_config(
    path: str | os.PathLike[str] | None = None,
    overrides: Mapping[str, Any] | None = None,
    env: Mapping[str, str] | None = None,
) -> Settings:
    """The effective settings: defaults, the user file, the environment, then ``overrides`` (CLI flags)."""
    environ: Mapping[str, str] = os.environ if env is None else env
    values: dict[str, Any] = {}
    sources: dict[str, str] = {}
    chosen = path or environ.get(CONFIG_ENV)
    file = Path(chosen).expanduser() if chosen else user_config_path()
    if chosen and not file.is_file():
        raise ConfigError(f"{file}: config file not found")
    if file.is_file():
        for key, value in _read_file(file).items():
            _check_key(key, str(file))
            values[key], sources[key] = value, str(file)
    for key, source, value in _from_env(environ):
        values[key], sources[key] = value, source
    return _build(values, sources).override(overrides or {})


def settings_table() -> str:
    """Every setting as a markdown table: key, environment variables, default, what it does.

    ``docs/configuration.md`` holds this table (a test keeps it equal), and
    ``horma config keys`` prints it: the settings are documented where they are declared.
    """
    rows = ["| key | environment | default | what it does |", "|---|---|---|---|"]
    for key, info in FIELDS.items():
        default = info.get_default()
        shown = "null" if default is None else str(default).lower() if isinstance(default, bool) else str(default)
        envs = ", ".join(f"`{n}`" for n in env_names(key))
        rows.append(f"| `{key}` | {envs} | `{shown}` | {info.description or ''} |")
    return "\n".join(rows) + "\n"

"""What every command that opens a memory runs with: the settings resolved once, the sandbox backend
resolved, and the policies checked before anything is written.

Shared by the ingest, recall, demo, import, upkeep and mcp commands.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from horma import trajectory_store
from horma.agents.policies import policy_class
from horma.config import Settings, load_config
from horma.sandbox import resolve_backend
from horma.workspace import WorkspaceError


@dataclass
class Setup:
    """What a command runs with: the settings (defaults < file < env < flags) resolved once, the backend
    resolved (never ``auto``), so every Memory the command opens uses the same sandbox."""

    settings: Settings

    @property
    def backend(self) -> str:
        return self.settings.sandbox.backend

    @property
    def unsafe_local(self) -> bool:
        return self.settings.sandbox.unsafe_local

    def llm(self, role: str, spec: str | None) -> Any:
        """The model for a role: ``--llm`` or the settings' ``models.<role>``; LLMError when unusable."""
        return self.settings.llm_for(role, spec)


def setup(config: Path | None, backend: str | None, unsafe_local: bool, flags: dict[str, Any] | None = None) -> Setup:
    """The settings of a command: its ``--config`` file, then the environment, then its flags (dotted keys)."""
    cfg = load_config(config, {"sandbox.backend": backend, "sandbox.unsafe_local": unsafe_local or None,
                               **(flags or {})})
    trajectory_store.configure_from(cfg)
    resolved = resolve_backend(cfg.sandbox.backend)
    return Setup(cfg.override({"sandbox.backend": resolved}, source=cfg.sources["sandbox.backend"]))


def check_policy(role: str, run: Setup) -> bool:
    """Refuse an unknown policy, or an LLM policy in an unisolated sandbox, before anything runs.

    Returns whether an LLM drives the role's policy (then the command builds a model for it).
    """
    llm_driven = policy_class(role, run.settings.get(f"policies.{role}"), label=role).llm_driven
    if llm_driven and run.backend == "local" and not run.unsafe_local:
        raise WorkspaceError(
            f"refusing to run an LLM {role} in the local sandbox (no isolation): "
            "use --backend docker or bwrap, or pass --unsafe-local"
        )
    return llm_driven

"""The agents' seam: manager and retriever policies as small Protocols, picked by name from a registry.

A :class:`~horma.agents.manager.Manager` archives units in code and hands each
new segment to a :class:`ManagerPolicy`; a
:class:`~horma.agents.retriever.Retriever` hands each query to a
:class:`RetrieverPolicy`. Both agents share :class:`SandboxedAgent`: the
workspace, the backend, the LLM, the limits, the lazily opened sandbox and the
one isolation check (``horma.sandbox.open_for_agent``). Everything that
differs between policies (whether an LLM drives them, whether they need a
sandbox at all) is a class attribute of the policy, so no caller compares
policy names.

The registries map a name to a class, or to ``"module:Class"`` so a policy's
module (and its dependencies) loads only when chosen, the way mini-swe-agent
picks environments: one lookup, and an unknown name is one error that lists
the choices. A user's own policy is one assignment away::

    from horma.agents.policies import MANAGER_POLICIES
    MANAGER_POLICIES["mine"] = MyManagerPolicy    # then Memory(ws, manager="mine")
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, runtime_checkable

from horma.errors import BadArgument
from horma.sandbox import Sandbox, View, open_for_agent
from horma.workspace import Unit, Workspace, WorkspaceError

if TYPE_CHECKING:
    from horma.agents.manager import Manager
    from horma.agents.retriever import Recall, Retriever


class PolicyError(WorkspaceError):
    """An unknown policy name, or a policy that cannot run with what it was given."""

    code = BadArgument.code
    exit_code = BadArgument.exit_code


@runtime_checkable
class ManagerPolicy(Protocol):
    """Organizes one archived segment into notes (the raw units are already on disk).

    ``llm_driven``: an LLM chooses the commands, so the manager needs an LLM
    and an isolated sandbox (unless the user allows the local one).
    ``needs_sandbox``: the policy runs commands in the write view; code that
    writes its notes itself sets it False and no sandbox is ever started.
    One policy object serves one Manager, so it may keep state between segments.
    """

    name: ClassVar[str]
    llm_driven: ClassVar[bool]
    needs_sandbox: ClassVar[bool]

    def organize(self, manager: Manager, segment: str, units: list[Unit]) -> None:
        """Reflect ``segment`` in ``notes/``, ``INDEX.md`` and the search index (the caller meters the cost)."""
        ...


@runtime_checkable
class RetrieverPolicy(Protocol):
    """Fills a context for one query by acting in the read view (commands, ``select``, ``done``)."""

    name: ClassVar[str]
    llm_driven: ClassVar[bool]

    def retrieve(self, retriever: Retriever, sandbox: Sandbox, context: Recall) -> None:
        """Select into ``context``; set its ``steps``, ``llm_calls`` and ``trace``."""
        ...


# name -> class, or "module:Class" imported on first use
MANAGER_POLICIES: dict[str, Any] = {
    "heuristic": "horma.agents.heuristic_manager:HeuristicManagerPolicy",
    "llm": "horma.agents.manager:LLMManagerPolicy",
}
RETRIEVER_POLICIES: dict[str, Any] = {
    "heuristic": "horma.agents.retriever:NavigatorPolicy",
    "llm": "horma.agents.retriever:LLMRetrieverPolicy",
}
_REGISTRIES = {"manager": MANAGER_POLICIES, "retriever": RETRIEVER_POLICIES}


def policy_names(role: str) -> tuple[str, ...]:
    """The names a ``role`` (``manager`` or ``retriever``) may be given, sorted."""
    return tuple(sorted(_REGISTRIES[role]))


def shared_policy_names() -> tuple[str, ...]:
    """Names valid for both roles: what ``--policy`` (one name for manager and retriever) accepts."""
    return tuple(sorted(set(MANAGER_POLICIES) & set(RETRIEVER_POLICIES)))


def policy_class(role: str, name: str, label: str | None = None) -> type:
    """The policy class registered as ``name`` for ``role``; PolicyError listing the choices if none.

    ``label`` words the error for the caller (the CLI says ``manager`` after
    ``--manager``; the library says ``manager policy``).
    """
    registry = _REGISTRIES[role]
    entry = registry.get(name) if isinstance(name, str) else None
    if entry is None:
        raise PolicyError(f"unknown {label or role + ' policy'} {name!r}; "
                          f"choose one of {', '.join(policy_names(role))}")
    if isinstance(entry, str):
        module, _, attr = entry.partition(":")
        entry = registry[name] = getattr(importlib.import_module(module), attr)
    return entry


def shared_policy_llm_driven(name: str) -> bool:
    """For one name that picks both the manager's and the retriever's policy (``--policy``):
    whether an LLM drives either; PolicyError listing the choices when not both registries know it."""
    if name not in shared_policy_names():
        raise PolicyError(f"unknown policy {name!r}; choose one of {', '.join(shared_policy_names())}")
    return any(policy_class(role, name).llm_driven for role in _REGISTRIES)


class SandboxedAgent:
    """What Manager and Retriever share: settings, one policy object, one lazily opened sandbox.

    The sandbox opens on first use, not in the constructor, so an agent whose
    policy never needs one (the heuristic manager) never starts one, and a
    start's cost is not part of the first record or recall. It is kept open
    across calls (a command costs milliseconds, a start does not) until
    :meth:`close` or the end of a ``with`` block.
    """

    role: ClassVar[str]  # "manager" or "retriever"
    view: ClassVar[View]

    def __init__(self, workspace: Workspace, policy: str = "heuristic", *, backend: str = "auto", llm=None,
                 allow_unsafe_local: bool = False, limits=None):
        cls = policy_class(self.role, policy)
        if cls.llm_driven and llm is None:
            raise PolicyError(f"the {policy} {self.role} needs an LLM (pass llm=... or --llm SPEC)")
        self.workspace = workspace
        self.policy = policy  # the registered name, as given
        self.impl = cls()
        self.backend = backend
        self.llm = llm
        self.allow_unsafe_local = allow_unsafe_local
        self.limits = limits
        self._sandbox: Sandbox | None = None

    @property
    def sandbox(self) -> Sandbox:
        """The session in this agent's view; an LLM-driven policy refuses an unisolated one here, at once."""
        if self._sandbox is None:
            self._sandbox = open_for_agent(
                self.workspace.root, self.backend, self.view,
                llm_driven=self.impl.llm_driven, allow_unsafe_local=self.allow_unsafe_local,
            )
        return self._sandbox

    def sandbox_commands(self) -> int:
        """Commands run in this agent's session so far (0 before it opens): what a call's Cost counts."""
        return self._sandbox.commands if self._sandbox is not None else 0

    @property
    def sandbox_open(self) -> bool:
        return self._sandbox is not None

    def close(self) -> None:
        if self._sandbox is not None:
            self._sandbox.close()
            self._sandbox = None

    def __enter__(self):
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


__all__ = [
    "MANAGER_POLICIES",
    "RETRIEVER_POLICIES",
    "ManagerPolicy",
    "PolicyError",
    "RetrieverPolicy",
    "SandboxedAgent",
    "policy_class",
    "policy_names",
    "shared_policy_llm_driven",
    "shared_policy_names",
]

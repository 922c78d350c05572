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

The seam runs one way: a policy gets the agent's settings (a
:class:`SandboxedAgent`) and its task, and returns a typed result
(:class:`Organized`, :class:`Retrieval`) that the Manager or the Retriever
applies: it never writes the manager's ingest log nor sets fields of the
retriever's ``Recall``, so this module imports neither of them.

The registries (:class:`horma.registry.Registry`) map a name to a class, or
to ``"module:Class"`` so a policy's module (and its dependencies) loads only
when chosen: one lookup, and an unknown name is one error that lists the
choices. A user's own policy is one call away::

    from horma.agents.policies import MANAGER_POLICIES
    MANAGER_POLICIES.register("mine", MyManagerPolicy)    # then Memory(ws, manager="mine")
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol, runtime_checkable

from horma.context import Context
from horma.errors import BadArgument
from horma.registry import Registry
from horma.sandbox import Limits, Sandbox, View, open_for_agent
from horma.workspace import Unit, Workspace, WorkspaceError


class PolicyError(WorkspaceError):
    """An unknown policy name, or a policy that cannot run with what it was given."""

    code = BadArgument.code
    exit_code = BadArgument.exit_code


@dataclass(frozen=True)
class OrganizeTask:
    """One archived segment for a manager policy to organize, with the skill library its notes follow."""

    segment: str  # workspace path of the segment's units file
    units: list[Unit]
    domain: str | None = None  # the skill domain (``policies.domain``)
    skills_dir: str | os.PathLike[str] | None = None  # the library (``skills.dir``); None: the project's


@dataclass
class Organized:
    """What a manager policy did: the Manager logs it (the policy never writes the ingest log); what it cost,
    the Manager's Meter measures."""

    # a run that ended before ``done`` (a limit, its format errors): status, faults, trajectory; logged "stopped"
    stopped: dict[str, Any] | None = None


@dataclass
class Retrieval:
    """How a retriever policy filled its context: the Retriever puts it on the Recall it returns (what it cost,
    the Retriever's Meter measures)."""

    steps: int = 0
    trace: str | None = None  # workspace-relative trajectory path
    stop: str = "done"  # done, or the limit or fault that ended the run
    faults: dict[str, int] = field(default_factory=dict)


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

    def organize(self, agent: SandboxedAgent, task: OrganizeTask) -> Organized:
        """Reflect the task's segment in ``notes/``, ``INDEX.md`` and the search index."""
        ...


@runtime_checkable
class RetrieverPolicy(Protocol):
    """Fills a context for one query by acting in the read view (commands, ``select``, ``done``)."""

    name: ClassVar[str]
    llm_driven: ClassVar[bool]

    def retrieve(self, agent: SandboxedAgent, sandbox: Sandbox, context: Context) -> Retrieval:
        """Select into ``context`` (its query, budget and date say what is asked); say how it went."""
        ...


MANAGER_POLICIES: Registry[type[ManagerPolicy]] = Registry("manager policy", PolicyError)
MANAGER_POLICIES.register("heuristic", "horma.agents.heuristic_manager:HeuristicManagerPolicy")
MANAGER_POLICIES.register("llm", "horma.agents.llm_manager:LLMManagerPolicy")
RETRIEVER_POLICIES: Registry[type[RetrieverPolicy]] = Registry("retriever policy", PolicyError)
RETRIEVER_POLICIES.register("heuristic", "horma.agents.retriever:NavigatorPolicy")
RETRIEVER_POLICIES.register("llm", "horma.agents.retriever:LLMRetrieverPolicy")
_REGISTRIES: dict[str, Registry[type[ManagerPolicy]] | Registry[type[RetrieverPolicy]]] = {
    "manager": MANAGER_POLICIES, "retriever": RETRIEVER_POLICIES}


def policy_names(role: str) -> tuple[str, ...]:
    """The names a ``role`` (``manager`` or ``retriever``) may be given, in registration order."""
    return _REGISTRIES[role].names()


def shared_policy_names() -> tuple[str, ...]:
    """Names valid for both roles: what ``--policy`` (one name for manager and retriever) accepts."""
    return tuple(n for n in MANAGER_POLICIES.names() if n in RETRIEVER_POLICIES)


def policy_class(role: str, name: str, label: str | None = None) -> type[ManagerPolicy] | type[RetrieverPolicy]:
    """The policy class registered as ``name`` for ``role``; PolicyError listing the choices if none.

    ``label`` words the error for the caller (the CLI says ``manager`` after
    ``--manager``; the library says ``manager policy``).
    """
    return _REGISTRIES[role].get(name, label)


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
                 allow_unsafe_local: bool = False, limits=None, timeout: float | None = None):
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
        self.timeout = timeout  # seconds per sandbox command (``sandbox.timeout``); None: the sandbox's default
        self._sandbox: Sandbox | None = None

    @property
    def sandbox(self) -> Sandbox:
        """The session in this agent's view; an LLM-driven policy refuses an unisolated one here, at once."""
        if self._sandbox is None:
            self._sandbox = open_for_agent(
                self.workspace.root, self.backend, self.view,
                llm_driven=self.impl.llm_driven, allow_unsafe_local=self.allow_unsafe_local,
                limits=Limits(timeout=self.timeout) if self.timeout is not None else None,
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
    "OrganizeTask",
    "Organized",
    "PolicyError",
    "Retrieval",
    "RetrieverPolicy",
    "SandboxedAgent",
    "policy_class",
    "policy_names",
    "shared_policy_llm_driven",
    "shared_policy_names",
]

"""The library API: give any agent loop a file-tree memory in three calls.

    mem = horma.Memory("./mem")                  # heuristic policies, best sandbox
    mem.record(units, slug="session-1")          # archive + organize
    ctx = mem.recall("When did Priya adopt her cat?", budget=1000)
    ctx.text, ctx.items, ctx.tokens, ctx.trace

Every setting comes from one :class:`horma.config.Settings` (the user's
config file and ``HORMA_*`` variables unless given). The manager and the
retriever are picked by policy name from the registries in
:mod:`horma.agents.policies`. Each keeps at most one sandbox session,
opened on first use and closed by :meth:`Memory.close` (or the ``with``
block), so a record or recall costs sandbox commands, not sandbox starts. The
default heuristic manager needs none: it writes notes in code on the host.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from typing import Any

from horma.agents.loop import RunLimits
from horma.agents.manager import Manager, RecordResult
from horma.agents.policies import policy_class
from horma.agents.retriever import Recall, Retriever
from horma.config import Settings, load_config
from horma.record_contract import accept
from horma.units import UNIT_FIELDS, as_unit  # noqa: F401 - as_unit, UNIT_FIELDS: re-exported (horma.memory.as_unit)
from horma.workspace import Unit, Workspace, WorkspaceError


def _resolve_llm(llm: Any, settings: Settings) -> Any:
    """``None`` stays None; a spec string (``anthropic:claude-sonnet-5-5``) becomes an LLM built with ``settings``
    (the provider's key, timeouts, retries)."""
    if llm is None or not isinstance(llm, str):
        return llm
    return settings.llm_for("manager", llm)


def _check_backend(sandbox: str | None) -> None:
    from horma.sandbox import SANDBOXES

    if sandbox is not None and sandbox != "auto":
        SANDBOXES.check(sandbox)


class Memory:
    """A workspace with a manager (writes) and a retriever (reads), built from one :class:`Settings`.

    ``settings`` defaults to :func:`horma.config.load_config` (defaults < the user's config file <
    ``HORMA_*`` variables); the other arguments are the flags on top of it, None meaning "as set".
    Without ``llm``, an LLM-driven policy gets the model its role names (``models.manager``,
    ``models.retriever``).
    """

    def __init__(
        self,
        workspace: str | os.PathLike[str] | Workspace,
        manager: str | None = None,
        retriever: str | None = None,
        sandbox: str | None = None,
        llm: Any = None,
        domain: str | None = None,
        *,
        allow_unsafe_local: bool | None = None,
        settings: Settings | None = None,
    ):
        # every setting is checked before the workspace folder is created: a refused call leaves no trace
        if not isinstance(workspace, (Workspace, str, os.PathLike)):
            raise WorkspaceError(f"workspace must be a path or a horma.Workspace, got {type(workspace).__name__}")
        _check_backend(sandbox)
        self.settings = (settings if settings is not None else load_config()).override({
            "policies.manager": manager, "policies.retriever": retriever, "policies.domain": domain,
            "sandbox.backend": sandbox, "sandbox.unsafe_local": allow_unsafe_local}, source="argument")
        s = self.settings
        self.workspace = workspace if isinstance(workspace, Workspace) else Workspace(workspace)
        self.llm = _resolve_llm(llm, s)
        limits, box = RunLimits.from_config(s), s.sandbox
        self.manager = Manager(self.workspace, s.policies.manager, llm=self._model("manager"), backend=box.backend,
                               allow_unsafe_local=box.unsafe_local, limits=limits, timeout=box.timeout,
                               domain=s.policies.domain, skills_dir=s.skills.dir)
        self.retriever = Retriever(self.workspace, s.policies.retriever, llm=self._model("retriever"),
                                   backend=box.backend, allow_unsafe_local=box.unsafe_local, limits=limits,
                                   timeout=box.timeout)
        if not isinstance(workspace, Workspace):
            Workspace.init(self.workspace.root)

    def _model(self, role: str) -> Any:
        """The LLM a role's policy gets: the one given, else the settings' model when an LLM drives it."""
        if self.llm is not None:
            return self.llm
        if policy_class(role, self.settings.get(f"policies.{role}")).llm_driven:
            return self.settings.llm_for(role)
        return None

    def record(
        self,
        units: Iterable[Unit | Mapping[str, Any]],
        slug: str = "segment",
        time: str | None = None,
        source: str | None = None,
        newlines: str = "refuse",
        goes_on: bool = True,
    ) -> RecordResult:
        """Archive the units as one segment, then organize notes, under :mod:`horma.record_contract`.

        An id already archived alike is unchanged, with other content a conflict (both listed in the
        result, never archived); ``time`` may be left out (now, UTC); a line break in a text is refused
        unless ``newlines="fold"``. A batch that goes on after the latest segment of its ``slug`` within half
        an hour is appended to it (a conversation recorded a message at a time is one folder of ``raw/``),
        unless ``goes_on`` is False (each batch a whole session of its own).
        """
        if source is not None and not isinstance(source, str):
            raise WorkspaceError(f"source must be a string, got {type(source).__name__}")
        batch = accept(units, newlines)
        return self.manager.record(batch.units, slug=slug, time=time, source=source, untimed=batch.untimed,
                                   goes_on=goes_on)

    def recall(self, query: str, budget: int | None = None, asked: str | None = None) -> Recall:
        """The context the retriever builds for ``query`` within ``budget`` tokens (None: ``recall.budget``).

        ``asked`` is when the question is asked (ISO date or time; default now): relative times in it
        ("10 days ago", "last Saturday") count from there.
        """
        return self.retriever.recall(query, self.settings.recall.budget if budget is None else budget, asked)

    def ask(self, question: str, budget: int | None = None) -> Any:
        """Recall, then let the primary agent answer from the context only (needs an LLM)."""
        from horma.agents.primary import answer

        if self.llm is None:
            raise WorkspaceError("answering needs an LLM (pass llm=... or --llm SPEC)")
        ctx = self.recall(question, budget)
        return answer(self.llm, question, ctx)

    def close(self) -> None:
        self.manager.close()
        self.retriever.close()

    def __enter__(self) -> Memory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

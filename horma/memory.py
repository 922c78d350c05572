"""The library API: give any agent loop a file-tree memory in three calls.

    mem = horma.Memory("./mem")                  # heuristic policies, best sandbox
    mem.record(units, slug="session-1")          # archive + organize
    ctx = mem.recall("When did Priya adopt her cat?", budget=1000)
    ctx.text, ctx.items, ctx.tokens, ctx.trace

The manager and the retriever are picked by policy name from the registries
in :mod:`horma.agents.policies`. Each keeps at most one sandbox session,
opened on first use and closed by :meth:`Memory.close` (or the ``with``
block), so a record or recall costs sandbox commands, not sandbox starts. The
default heuristic manager needs none: it writes notes in code on the host.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from typing import Any

from horma.agents.manager import Manager, RecordResult
from horma.agents.retriever import Recall, Retriever
from horma.record_contract import accept
from horma.units import UNIT_FIELDS, as_unit  # noqa: F401 - as_unit, UNIT_FIELDS: re-exported (horma.memory.as_unit)
from horma.workspace import Unit, Workspace, WorkspaceError


def resolve_llm(llm: Any):
    """``None`` stays None; a spec string (``anthropic:claude-sonnet-5-5``) becomes an LLM."""
    if llm is None or not isinstance(llm, str):
        return llm
    from horma.llm import make_llm

    return make_llm(llm)


def _check_backend(sandbox: object) -> None:
    from horma.sandbox import BACKENDS, SandboxError

    if sandbox != "auto" and sandbox not in BACKENDS:
        raise SandboxError(f"unknown sandbox backend {sandbox!r}; choose one of {', '.join(BACKENDS)} or auto")


class Memory:
    """A workspace with a manager (writes) and a retriever (reads)."""

    def __init__(
        self,
        workspace: str | os.PathLike[str] | Workspace,
        manager: str = "heuristic",
        retriever: str = "heuristic",
        sandbox: str = "auto",
        llm: Any = None,
        domain: str | None = None,
        *,
        allow_unsafe_local: bool = False,
        limits: Any = None,
    ):
        # every setting is checked before the workspace folder is created: a refused call leaves no trace
        if not isinstance(workspace, (Workspace, str, os.PathLike)):
            raise WorkspaceError(f"workspace must be a path or a horma.Workspace, got {type(workspace).__name__}")
        _check_backend(sandbox)
        self.workspace = workspace if isinstance(workspace, Workspace) else Workspace(workspace)
        self.llm = resolve_llm(llm)
        self.manager = Manager(self.workspace, manager, backend=sandbox, llm=self.llm, domain=domain,
                               allow_unsafe_local=allow_unsafe_local, limits=limits)
        self.retriever = Retriever(self.workspace, retriever, backend=sandbox, llm=self.llm,
                                   allow_unsafe_local=allow_unsafe_local, limits=limits)
        if not isinstance(workspace, Workspace):
            Workspace.init(self.workspace.root)

    def record(
        self,
        units: Iterable[Unit | Mapping[str, Any]],
        slug: str = "segment",
        time: str | None = None,
        source: str | None = None,
        newlines: str = "refuse",
    ) -> RecordResult:
        """Archive the units as one segment, then organize notes, under :mod:`horma.record_contract`.

        An id already archived alike is unchanged, with other content a conflict (both listed in the
        result, never archived); ``time`` may be left out (now, UTC); a line break in a text is refused
        unless ``newlines="fold"``.
        """
        if source is not None and not isinstance(source, str):
            raise WorkspaceError(f"source must be a string, got {type(source).__name__}")
        batch = accept(units, newlines)
        return self.manager.record(batch.units, slug=slug, time=time, source=source, untimed=batch.untimed)

    def recall(self, query: str, budget: int = 1000, asked: str | None = None) -> Recall:
        """The context the retriever builds for ``query`` within ``budget`` tokens.

        ``asked`` is when the question is asked (ISO date or time; default now): relative times in it
        ("10 days ago", "last Saturday") count from there.
        """
        return self.retriever.recall(query, budget, asked)

    def ask(self, question: str, budget: int = 1000):
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

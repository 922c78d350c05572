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
from horma.workspace import Unit, Workspace, WorkspaceError

UNIT_FIELDS = ("id", "time", "actor", "text")


def as_unit(item: Unit | Mapping[str, Any]) -> Unit:
    """A Unit, or a mapping with exactly its four string fields."""
    if isinstance(item, Unit):
        return item
    if not isinstance(item, Mapping):
        raise WorkspaceError(f"a unit must be a horma.Unit or a mapping, got {type(item).__name__}")
    missing = [k for k in UNIT_FIELDS if k not in item]
    if missing:
        raise WorkspaceError(f"unit {dict(item)!r:.80}: missing field {missing[0]!r}")
    extra = sorted(set(item) - set(UNIT_FIELDS))
    if extra:
        raise WorkspaceError(f"unit {item.get('id')!r}: unknown field {extra[0]!r}")
    bad = next((k for k in UNIT_FIELDS if not isinstance(item[k], str)), None)
    if bad:
        raise WorkspaceError(f"unit {item.get('id')!r}: field {bad!r} must be a string")
    return Unit(**{k: item[k] for k in UNIT_FIELDS})


def resolve_llm(llm: Any):
    """``None`` stays None; a spec string (``anthropic:claude-sonnet-4-5``) becomes an LLM."""
    if llm is None or not isinstance(llm, str):
        return llm
    from horma.llm import make_llm

    return make_llm(llm)


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
        self.workspace = workspace if isinstance(workspace, Workspace) else Workspace.init(workspace)
        self.llm = resolve_llm(llm)
        self.manager = Manager(self.workspace, manager, backend=sandbox, llm=self.llm, domain=domain,
                               allow_unsafe_local=allow_unsafe_local, limits=limits)
        self.retriever = Retriever(self.workspace, retriever, backend=sandbox, llm=self.llm,
                                   allow_unsafe_local=allow_unsafe_local, limits=limits)

    def record(
        self,
        units: Iterable[Unit | Mapping[str, Any]],
        slug: str = "segment",
        time: str | None = None,
        source: str | None = None,
    ) -> RecordResult:
        """Archive the units as one segment (units already archived are skipped), then organize notes."""
        batch = [as_unit(u) for u in units]
        return self.manager.record(batch, slug=slug, time=time, source=source)

    def recall(self, query: str, budget: int = 1000) -> Recall:
        """The context the retriever builds for ``query`` within ``budget`` tokens."""
        return self.retriever.recall(query, budget)

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

    def __enter__(self) -> "Memory":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

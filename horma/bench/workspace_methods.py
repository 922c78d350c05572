"""The memory methods over a horma workspace: ``horma`` (manager + retriever) and ``dense-notes`` (the notes,
embedded, with no navigation). The methods over the plain list of units and the interface are in
:mod:`horma.bench.methods`.
"""

from __future__ import annotations

import time as _time
from collections.abc import Sequence
from contextlib import ExitStack
from pathlib import Path
from typing import ClassVar

from horma.bench.methods import (
    MemoryMethod,
    MethodError,
    MethodOptions,
    check_embeddings,
    register_method,
)
from horma.context import ContextItem, Recall
from horma.core.text import count_tokens
from horma.llm.accounting import Cost
from horma.workspace import Unit


class WorkspaceMethod(MemoryMethod):
    """A :class:`horma.Memory` in ``workdir/workspace``, fed through its manager."""

    policy_roles: ClassVar[tuple[str, ...]] = ("manager", "retriever")

    def __init__(self, workdir: Path, options: MethodOptions | None = None):
        super().__init__(workdir, options)
        from horma.config import ConfigError
        from horma.llm import LLMError
        from horma.memory import Memory

        o = self.options
        llm_roles = self.llm_roles(o)
        self._ingest: ExitStack | None = None
        try:
            self.memory = Memory(self.workdir / "workspace", settings=o.settings)
        except (LLMError, ConfigError) as exc:
            role = llm_roles[0] if llm_roles else "manager"
            raise MethodError(f"method {self.name} with the {o.policies()[role]} {role} needs a model "
                              f"(--memory-llm SPEC): {exc}") from None

    def record(self, units: Sequence[Unit], slug: str, time: str | None = None) -> None:
        if self._ingest is None:  # the records up to ready() are one manager run: one notes-history commit
            self._ingest = ExitStack()
            self._ingest.enter_context(self.memory.manager.one_run())
        # benchmark sources are folded by their loaders (horma.units.check_unit); an ALFWorld step may hold more
        self.memory.record(list(units), slug=slug, time=time, newlines="fold")

    def ready(self) -> None:
        if self._ingest is not None:
            self._ingest.close()
            self._ingest = None

    def close(self) -> None:
        self.ready()
        self.memory.close()


@register_method
class Horma(WorkspaceMethod):
    """Organize, then retrieve: the retriever navigates the tree and selects under the budget."""

    name = "horma"
    UNLIMITED = 10**9

    def ready(self) -> None:
        super().ready()
        _ = self.memory.retriever.sandbox  # open the read-view session now, not inside the first recall

    def recall(self, query: str, budget: int | None, asked: str | None = None) -> Recall:
        return self.memory.recall(query, budget if budget is not None else self.UNLIMITED, asked=asked)


@register_method
class DenseNotes(WorkspaceMethod):
    """Embedding retrieval over note paragraphs: the manager's structure, without navigation."""

    name = "dense-notes"
    policy_roles: ClassVar[tuple[str, ...]] = ("manager",)  # retrieval is by embeddings: no retriever policy runs
    MAX_CHUNK_TOKENS = 200

    @classmethod
    def check(cls) -> None:
        check_embeddings(cls.name)

    def __init__(self, workdir: Path, options: MethodOptions | None = None):
        super().__init__(workdir, options)
        self._chunks: list[tuple[str, str]] | None = None  # (note path, chunk text)
        self._emb = None

    def record(self, units: Sequence[Unit], slug: str, time: str | None = None) -> None:
        super().record(units, slug, time)
        self._chunks = None

    def ready(self) -> None:
        super().ready()
        if self._chunks is None:
            self._index()

    def _index(self) -> None:
        from horma.bench.flat import FlatError, _encoder
        from horma.workspace import parse_note

        ws = self.memory.workspace
        chunks: list[tuple[str, str]] = []
        for f in ws.note_files():
            rel = ws.rel(f)
            note = parse_note(rel, f.read_text(encoding="utf-8"))
            chunks.extend((rel, c) for c in note_chunks(note.title, note.body, self.MAX_CHUNK_TOKENS))
        self._chunks = chunks
        if not chunks:
            self._emb = None
            return
        try:
            self._emb = _encoder().encode([c for _, c in chunks], batch_size=64,
                                          normalize_embeddings=True, show_progress_bar=False)
        except FlatError as exc:
            raise MethodError(str(exc)) from None

    def recall(self, query: str, budget: int | None, asked: str | None = None) -> Recall:
        from horma.bench.flat import _encoder

        t0 = _time.perf_counter()
        self.ready()
        if not self._chunks:
            return Recall(query=query, budget=budget, cost=Cost(wall_ms=(_time.perf_counter() - t0) * 1000))
        q = _encoder().encode([query], normalize_embeddings=True, show_progress_bar=False)[0]
        sims = self._emb @ q
        order = sorted(range(len(self._chunks)), key=lambda i: (-float(sims[i]), i))
        room = budget if budget is not None else 10**9
        items: list[ContextItem] = []
        for rank, i in enumerate(order):
            path, chunk = self._chunks[i]
            block = f"# {path}\n{chunk}"
            cost = count_tokens(block)
            if cost <= room:
                items.append(ContextItem(path=path, text=block, tokens=cost, refs=self.memory.workspace.refs_in(chunk),
                                         score=float(sims[i]), why=f"dense-notes rank {rank + 1}"))
                room -= cost
        text = "\n\n".join(i.text for i in items)
        return Recall(query=query, text=text, tokens=count_tokens(text), budget=budget, items=items,
                      cost=Cost(wall_ms=(_time.perf_counter() - t0) * 1000))


def note_chunks(title: str, body: str, max_tokens: int) -> list[str]:
    """A note body as paragraphs (blank-line separated), long ones split by lines, each under its title."""
    out: list[str] = []
    for para in (p.strip() for p in body.split("\n\n")):
        if not para:
            continue
        piece: list[str] = []
        used = 0
        for line in para.splitlines():
            cost = count_tokens(line)
            if piece and used + cost > max_tokens:
                out.append(f"{title}\n" + "\n".join(piece))
                piece, used = [], 0
            piece.append(line)
            used += cost
        if piece:
            out.append(f"{title}\n" + "\n".join(piece))
    return out

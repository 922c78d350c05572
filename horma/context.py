"""The context ``C``: what the retriever selected for the primary agent, within a token budget.

Every item keeps the unit ids it covers (provenance), so evidence recall and
the Jaccard reward are computed from what was selected, never guessed.

Raw lines are rendered compactly: one ``[date]`` header per day of a session
(``horma.core.talks.block``: the segments of a conversation recorded a
message at a time before session 21, a segment a turn, are still one block), then ``ID actor: text`` per unit,
in archive order. The turn text stays verbatim; only the repeated per-line
time is folded into the header, which roughly halves the overhead a budget
pays per turn.

Costs are linear. A token (``\\w+`` run or one punctuation character, see
:mod:`horma.tokens`) never contains whitespace, and the rendered text only
joins its pieces with whitespace: ``header + "\\n" + lines joined by "\\n"``
per block, blocks joined by ``"\\n\\n"``. So ``count_tokens(text)`` is
exactly the sum of the tokens of every header and every line, and the total
is kept as a running sum: ``tokens`` and ``room`` cost nothing, a selection
counts only its own lines (plus a block's header the first time it appears), and
``text`` is rendered on demand and cached until the next selection changes it.

Two types, one concept each: :class:`Context` is the builder (mutable, bound
to a workspace, keeping the budget's running sum), and :class:`Recall` is
what any recall hands back (a pydantic value: the text, its
:class:`ContextItem` items, the trace and the :class:`~horma.llm.accounting.Cost`),
whichever method built it: the retriever, a flat baseline, an eval method,
the MCP server.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, computed_field, field_serializer

from horma.core.talks import archive_order, session_name
from horma.core.text import count_tokens
from horma.filecheck import file_problem
from horma.llm.accounting import Cost
from horma.workspace import RAW_DIR, Workspace, WorkspaceError, parse_raw_line


class ItemSource(BaseModel):
    """Where one stretch of a context comes from, and why it was picked: a :class:`ContextItem` without its text.

    ``path``/``start``/``end`` name the workspace file and lines (None where
    the context was not cut from a workspace file: a flat baseline's turn);
    ``tokens`` is what it cost the budget (for a context's first lines of a
    day of a session, their ``[date]`` header too, so a context's items sum to
    its tokens); ``score`` and ``why`` are the ranking's score and a short reason,
    where the method that picked it knows them cheaply (None otherwise).
    A wire that states the context's text once (the MCP ``recall`` tool)
    lists its items as this.
    """

    model_config = ConfigDict(extra="forbid")
    path: str | None = None
    start: int | None = None
    end: int | None = None
    tokens: int
    refs: list[str] = Field(default_factory=list, description="The source unit ids these lines cover.")
    score: float | None = Field(default=None, description="The ranking's score, where the method knows one.")
    why: str | None = Field(default=None, description="A short reason it was picked (which signal matched).")


class ContextItem(ItemSource):
    """One stretch of a context: its text, with where it came from (:class:`ItemSource`)."""

    text: str


class Recall(BaseModel):
    """A recall's answer, whichever method built it: the context once, its items, and how it was obtained.

    ``text`` is the rendered context (``context`` in JSON, as ``horma recall
    --json`` has always printed it); ``refs`` every item's unit ids, first
    mention first, each once; ``steps``/``trace`` the retrieval's actions and
    its trajectory file (workspace-relative); ``stop`` how the run ended
    (``done``, or the limit or fault that ended it) and ``faults`` an LLM
    run's bad replies by kind (:data:`horma.agents.loop.FAULTS`); ``cost`` its
    tokens, LLM calls (``N_call``), sandbox commands, wall time and dollars.
    ``budget`` None: no limit.
    """

    model_config = ConfigDict(extra="ignore")  # ``refs`` is derived: a dump validates back
    query: str = ""
    text: str = Field(default="", validation_alias=AliasChoices("context", "text"), serialization_alias="context")
    tokens: int = 0
    budget: int | None = None
    asked: str | None = None  # YYYY-MM-DD the question was asked on
    items: list[ContextItem] = Field(default_factory=list)
    steps: int = 0
    trace: str | None = None
    stop: str = "done"
    faults: dict[str, int] = Field(default_factory=dict)
    cost: Cost = Field(default_factory=Cost)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def refs(self) -> list[str]:
        """Every item's refs, first mention first, each once."""
        return list(dict.fromkeys(r for item in self.items for r in item.refs))

    @field_serializer("cost")
    def _cost(self, cost: Cost) -> dict[str, Any]:
        return cost.as_dict()

    @classmethod
    def of(cls, items: list[ContextItem], text: str, **fields: Any) -> Recall:
        """A context made of ``items``, rendered as ``text``, costing the sum of their tokens."""
        return cls(text=text, tokens=sum(i.tokens for i in items), items=items, **fields)

    def as_dict(self) -> dict[str, Any]:
        """The JSON shape (``horma recall --json``, the MCP tool, ``ask``'s context)."""
        return self.model_dump(mode="json", by_alias=True)


@dataclass(frozen=True)
class Selection:
    """What one :meth:`Context.select` did, as fields code acts on; :meth:`observation` words it for the agent.

    ``status``: ``selected`` (lines ``start..end`` added, costing ``tokens``),
    ``duplicate`` (every line of ``start..end`` was already in), ``over_budget``
    (``start..end`` would cost ``tokens``, more than the ``left`` of ``budget``)
    or ``refused`` (``reason`` says why: the path or the range). ``left`` is
    the room after a selection, before a refused one.
    """

    status: Literal["selected", "duplicate", "over_budget", "refused"]
    path: str
    start: int | None = None
    end: int | None = None
    tokens: int = 0
    left: int = 0
    budget: int = 0
    reason: str = ""

    @property
    def selected(self) -> bool:
        return self.status == "selected"

    def observation(self) -> str:
        """The one line the retriever agent reads (and its trajectory records; training replays compare it)."""
        if self.status == "selected":
            return f"selected {self.path}:{self.start}-{self.end} ({self.tokens} tokens); {self.left} tokens left"
        if self.status == "duplicate":
            return f"already in context: {self.path}:{self.start}-{self.end}"
        if self.status == "over_budget":
            return (f"refused: {self.path}:{self.start}-{self.end} needs {self.tokens} tokens but only {self.left} "
                    f"of {self.budget} are left; select fewer lines")
        return f"refused: {self.reason}"


def human_time(time: str) -> str:
    """``2023-05-08 13:56`` -> ``8 May 2023``; anything else unchanged."""
    for fmt in ("%Y-%m-%d %H:%M", "%Y-%m-%d %H:%M:%S", "%Y-%m-%d", "%Y-%m-%dT%H:%M:%S"):
        try:
            d = dt.datetime.strptime(time.strip(), fmt)
        except ValueError:
            continue
        return f"{d.day} {d.strftime('%B %Y')}"
    return time


def _keep_selected(refs: list[str], new: dict[int, str]) -> list[str]:
    """The refs that some newly selected line starts with (``"<ref> "``), in order, duplicates kept.

    For a ref without a space, ``line.startswith(ref + " ")`` holds exactly
    when the line's text before its first space is ``ref``, so one set of
    line heads answers it; a ref with a space falls back to the scan.
    """
    heads = set()
    for line in new.values():
        head, sep, _ = line.partition(" ")
        if sep:
            heads.add(head)
    return [r for r in refs
            if (r in heads if " " not in r else any(line.startswith(f"{r} ") for line in new.values()))]


@dataclass
class Context:
    """A growing context. ``select`` is the retriever's terminal action that adds to it."""

    query: str
    budget: int
    workspace: Workspace
    items: list[ContextItem] = field(default_factory=list)
    asked: str | None = None  # YYYY-MM-DD the question is asked on: relative times in it count from there
    _lines: dict[str, dict[int, str]] = field(default_factory=dict)  # path -> lineno -> rendered
    _blocks: dict[str, dict[int, tuple[str, str]]] = field(default_factory=dict)  # path -> lineno -> its block
    _order: dict[str, tuple] = field(default_factory=dict)  # path -> where its segment comes in the archive
    _raw_files: dict[str, list[str]] = field(default_factory=dict)  # raw files never change once archived
    # count_tokens(text), kept as a running sum; the rendered text, None until asked after a change
    _tokens: int = field(default=0, init=False, repr=False, compare=False)
    _text: str | None = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self._lines:  # built with lines already in it: count them once
            self._tokens = count_tokens(self.text)

    @property
    def text(self) -> str:
        if self._text is None:
            self._text = self._render()
        return self._text

    @property
    def tokens(self) -> int:
        return self._tokens

    @property
    def room(self) -> int:
        return self.budget - self._tokens

    @property
    def refs(self) -> list[str]:
        """Every item's refs, first mention first, each once."""
        return list(dict.fromkeys(r for item in self.items for r in item.refs))

    def _render(self) -> str:
        blocks: dict[tuple[str, str], list[tuple[tuple, int, str]]] = {}  # (header, name) -> lines, first seen first
        for path, rows in self._lines.items():
            for n in sorted(rows):
                blocks.setdefault(self._blocks[path][n], []).append((self._order[path], n, rows[n]))
        return "\n\n".join(header + "\n" + "\n".join(line for *_, line in sorted(rows))
                             for (header, _), rows in blocks.items())

    def select(self, path: str, start: int | None = None, end: int | None = None, *,
               score: float | None = None, why: str | None = None) -> Selection:
        """Add lines ``start..end`` (1-based, inclusive; default the whole file) and say what happened.

        ``score`` and ``why``, when the caller's ranking knows them, go on the item it adds.

        A selection that would overflow the budget is refused, naming how much
        room is left. It costs the lines it reads and adds, whatever the
        context already holds.
        """
        path = path.strip().removeprefix("./")
        room = self.budget - self._tokens
        try:
            target = self.workspace.resolve(path)
        except WorkspaceError as exc:
            return Selection("refused", path, start, end, left=room, budget=self.budget, reason=str(exc))
        if problem := file_problem(target):
            return Selection("refused", path, start, end, left=room, budget=self.budget, reason=f"{path}: {problem}")
        rel = target.relative_to(self.workspace.root).as_posix()  # = workspace.rel(target): already resolved
        is_raw = rel.startswith(f"{RAW_DIR}/")
        all_lines = self._raw_files.get(rel) if is_raw else None
        if all_lines is None:
            all_lines = target.read_text(encoding="utf-8", errors="replace").splitlines()
            if is_raw:
                self._raw_files[rel] = all_lines
        first = 1 if start is None else int(start)
        last = len(all_lines) if end is None else min(int(end), len(all_lines))
        if first < 1 or first > last:
            return Selection("refused", rel, start, end, left=room, budget=self.budget,
                             reason=f"{rel}: bad line range {start}-{end} (file has {len(all_lines)} lines)")
        have = self._lines.get(rel, {})
        new: dict[int, str] = {}
        blocks: dict[int, tuple[str, str]] = {}  # a raw line: its day's header in its session's block
        exists = (lambda p: (self.workspace.root / p).is_file())  # an earlier segment of one name and minute
        name = session_name(rel, exists) if is_raw else rel
        self._order.setdefault(rel, archive_order(rel, exists))
        for n in range(first, last + 1):
            if n in have:
                continue
            line = all_lines[n - 1]
            unit = parse_raw_line(line) if is_raw else None
            new[n] = f"{unit.id} {unit.actor}: {unit.text}" if unit else line
            blocks[n] = (f"[{human_time(unit.time)}]", name) if unit else (f"# {rel}", rel)
        if not new:
            return Selection("duplicate", rel, first, last, left=room, budget=self.budget)
        text = "\n".join(new[n] for n in sorted(new))
        # the new lines, joined by "\n" (0 tokens) as they will be inside their blocks;
        # a block not yet shown pays its header once (the "\n"/"\n\n" around it: 0 tokens)
        shown = {b for rows in self._blocks.values() for b in rows.values()}
        cost = count_tokens(text) + sum(count_tokens(b[0]) for b in set(blocks.values()) - shown)
        before = self._tokens
        after = before + cost
        if after > self.budget:
            return Selection("over_budget", rel, first, last, tokens=cost, left=room, budget=self.budget)
        self._lines.setdefault(rel, {}).update(new)
        self._blocks.setdefault(rel, {}).update(blocks)
        self._tokens = after
        self._text = None
        lo, hi = min(new), max(new)
        if is_raw:
            # the units lines lo..hi cover (as Workspace.provenance reads them), kept when newly selected
            units = (parse_raw_line(line) for line in all_lines[lo - 1 : hi])
            refs = _keep_selected([u.id for u in units if u is not None], new)
        else:
            refs = self.workspace.refs_in(text)
        self.items.append(ContextItem(path=rel, start=lo, end=hi, text=text, tokens=cost, refs=refs,
                                      score=score, why=why))
        return Selection("selected", rel, lo, hi, tokens=cost, left=self.budget - after, budget=self.budget)

    def result(self, **trace: Any) -> Recall:
        """This context as a :class:`Recall` value; ``trace`` sets its other fields (steps, trace, stop,
        faults, cost)."""
        return Recall(query=self.query, text=self.text, tokens=self.tokens, budget=self.budget, asked=self.asked,
                      items=list(self.items), **trace)

    def as_dict(self) -> dict[str, Any]:
        return self.result().as_dict()

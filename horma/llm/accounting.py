"""What a model cost: calls, tokens from the provider's usage fields, wall time, dollars.

These feed the paper's metrics (input tokens per step, number of retrieval
calls ``N_call``), so they count what the provider reports, not an estimate.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace
from typing import Any

# USD per million tokens (input, output), list prices at the time of writing.
# A model not listed has an unknown cost (None) unless the user gives a price.
PRICES: dict[str, tuple[float, float]] = {
    "claude-sonnet-4-5": (3.0, 15.0),
    "claude-sonnet-4": (3.0, 15.0),
    "claude-3-7-sonnet": (3.0, 15.0),
    "claude-haiku-4-5": (1.0, 5.0),
    "claude-3-5-haiku": (0.8, 4.0),
    "claude-opus-4-1": (15.0, 75.0),
    "claude-opus-4": (15.0, 75.0),
    "gpt-4o": (2.5, 10.0),
    "gpt-4o-mini": (0.15, 0.6),
    "gpt-4.1": (2.0, 8.0),
    "gpt-4.1-mini": (0.4, 1.6),
    "gpt-4.1-nano": (0.1, 0.4),
    "gpt-5": (1.25, 10.0),
    "gpt-5-mini": (0.25, 2.0),
    "gpt-5-nano": (0.05, 0.4),
}


def price_for(model: str) -> tuple[float, float] | None:
    """The table's price for a model id, allowing dated ids (``claude-sonnet-4-5-20250929``)."""
    best = None
    for name, price in PRICES.items():
        if (model == name or model.startswith(name + "-")) and (best is None or len(name) > len(best[0])):
            best = (name, price)
    return best[1] if best else None


@dataclass
class Accounting:
    """Running totals for one LLM object; ``cost_usd`` is None when the price is unknown."""

    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    wall_s: float = 0.0
    retries: int = 0
    cost_usd: float | None = None
    price: tuple[float, float] | None = None

    def __post_init__(self) -> None:
        if self.price is not None and self.cost_usd is None:
            self.cost_usd = 0.0

    def record(self, input_tokens: int, output_tokens: int, wall_s: float) -> None:
        self.calls += 1
        self.input_tokens += input_tokens
        self.output_tokens += output_tokens
        self.wall_s += wall_s
        if self.price is not None:
            cost = (input_tokens * self.price[0] + output_tokens * self.price[1]) / 1e6
            self.cost_usd = (self.cost_usd or 0.0) + cost

    def as_dict(self) -> dict:
        d = asdict(self)
        d.pop("price")
        d["wall_s"] = round(self.wall_s, 3)
        return d


@dataclass
class Cost:
    """What one ``record``, ``recall`` or ``ask`` cost, returned with its result.

    Users of a memory ask what each add and search costs; the answer is
    measured, not estimated: the difference of the running totals (an LLM's
    :class:`Accounting`, a sandbox session's command count) around the call,
    plus its wall time. ``cost_usd`` is 0.0 when no model ran, None when a
    model ran whose price is not configured.
    """

    input_tokens: int = 0
    output_tokens: int = 0
    llm_calls: int = 0
    sandbox_commands: int = 0
    wall_ms: float = 0.0
    cost_usd: float | None = 0.0

    def __add__(self, other: Cost) -> Cost:
        usd = None if self.cost_usd is None or other.cost_usd is None else self.cost_usd + other.cost_usd
        return Cost(self.input_tokens + other.input_tokens, self.output_tokens + other.output_tokens,
                    self.llm_calls + other.llm_calls, self.sandbox_commands + other.sandbox_commands,
                    self.wall_ms + other.wall_ms, usd)

    def as_dict(self) -> dict:
        d = asdict(self)
        d["wall_ms"] = round(self.wall_ms, 3)
        if self.cost_usd is not None:
            d["cost_usd"] = round(self.cost_usd, 8)
        return d


class Meter:
    """Measures one call from its start: ``Meter(llm, commands)`` ... ``meter.cost()``.

    ``llm`` may be None (a zero-LLM policy); ``commands`` returns the running
    count of sandbox commands of whatever sessions the call uses.
    """

    def __init__(self, llm: Any, commands: Callable[[], int] = lambda: 0):
        self._stats = getattr(llm, "stats", None)
        self._before = replace(self._stats) if self._stats is not None else None
        self._commands = commands
        self._commands_before = commands()
        self._t0 = time.perf_counter()

    def cost(self) -> Cost:
        wall_ms = (time.perf_counter() - self._t0) * 1000
        commands = self._commands() - self._commands_before
        now, before = self._stats, self._before
        if now is None or before is None:
            return Cost(sandbox_commands=commands, wall_ms=wall_ms)
        calls = now.calls - before.calls
        if now.cost_usd is None:
            usd = None if calls else 0.0
        else:
            usd = now.cost_usd - (before.cost_usd or 0.0)
        return Cost(now.input_tokens - before.input_tokens, now.output_tokens - before.output_tokens, calls,
                    commands, wall_ms, usd)

"""The context ``C``: what the retriever selected for the primary agent, within a token budget.

Every item keeps the unit ids it covers (provenance), so evidence recall and
the Jaccard reward are computed from what was selected, never guessed.

Raw lines are rendered compactly: one ``[date]`` header per archive segment,
then ``ID actor: text`` per unit. The turn text stays verbatim; only the
repeated per-line time is folded into the header, which roughly halves the
overhead a budget pays per turn.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

from horma.tokens import count_tokens
from horma.workspace import RAW_DIR, Workspace, WorkspaceError, parse_raw_line


@dataclass
class ContextItem:
    path: str
    start: int
    end: int
    text: str
    tokens: int
    refs: list[str]

    def as_dict(self) -> dict:
        return {"path": self.path, "start": self.start, "end": self.end, "text": self.text,
                "tokens": self.tokens, "refs": self.refs}


def human_time(time: str) -> str:
    """``2023-05-08 13:56`` -> ``8 May 2023``; anything else unchanged."""
    for fmt in ("%Y-%m-%d %H:%M", "%Y-%m-%d %H:%M:%S", "%Y-%m-%d", "%Y-%m-%dT%H:%M:%S"):
        try:
            d = dt.datetime.strptime(time.strip(), fmt)
        except ValueError:
            continue
        return f"{d.day} {d.strftime('%B %Y')}"
    return time


@dataclass
class Context:
    """A growing context. ``select`` is the retriever's terminal action that adds to it."""

    query: str
    budget: int
    workspace: Workspace
    items: list[ContextItem] = field(default_factory=list)
    _lines: dict[str, dict[int, str]] = field(default_factory=dict)  # path -> lineno -> rendered
    _headers: dict[str, str] = field(default_factory=dict)

    @property
    def text(self) -> str:
        return self._render(self._lines)

    @property
    def tokens(self) -> int:
        return count_tokens(self.text)

    @property
    def room(self) -> int:
        return self.budget - self.tokens

    @property
    def refs(self) -> list[str]:
        seen: list[str] = []
        for item in self.items:
            seen.extend(r for r in item.refs if r not in seen)
        return seen

    def _render(self, lines: dict[str, dict[int, str]]) -> str:
        blocks = []
        for path, rows in lines.items():
            body = "\n".join(rows[n] for n in sorted(rows))
            blocks.append(f"{self._headers[path]}\n{body}")
        return "\n\n".join(blocks)

    def select(self, path: str, start: int | None = None, end: int | None = None) -> str:
        """Add lines ``start..end`` (1-based, inclusive; default the whole file) and say what happened.

        Returns an observation for the agent; a selection that would overflow
        the budget is refused, naming how much room is left.
        """
        path = path.strip().removeprefix("./")
        try:
            target = self.workspace.resolve(path)
        except WorkspaceError as exc:
            return f"refused: {exc}"
        if not target.is_file():
            return f"refused: {path}: no such file"
        rel = self.workspace.rel(target)
        all_lines = target.read_text(encoding="utf-8", errors="replace").splitlines()
        first = 1 if start is None else int(start)
        last = len(all_lines) if end is None else min(int(end), len(all_lines))
        if first < 1 or first > last:
            return f"refused: {rel}: bad line range {start}-{end} (file has {len(all_lines)} lines)"
        is_raw = rel.startswith(f"{RAW_DIR}/")
        new: dict[int, str] = {}
        for n in range(first, last + 1):
            if n in self._lines.get(rel, {}):
                continue
            line = all_lines[n - 1]
            unit = parse_raw_line(line) if is_raw else None
            new[n] = f"{unit.id} {unit.actor}: {unit.text}" if unit else line
            if unit and rel not in self._headers:
                self._headers[rel] = f"[{human_time(unit.time)}]"
        if not new:
            return f"already in context: {rel}:{first}-{last}"
        self._headers.setdefault(rel, f"# {rel}")
        trial = {p: dict(rows) for p, rows in self._lines.items()}
        trial.setdefault(rel, {}).update(new)
        before = self.tokens
        after = count_tokens(self._render(trial))
        if after > self.budget:
            if rel not in self._lines:
                del self._headers[rel]
            return (
                f"refused: {rel}:{first}-{last} needs {after - before} tokens but only "
                f"{self.budget - before} of {self.budget} are left; select fewer lines"
            )
        self._lines = trial
        text = "\n".join(new[n] for n in sorted(new))
        refs = self.workspace.provenance(rel, min(new), max(new)) if is_raw else self.workspace.refs_in(text)
        if is_raw:
            refs = [r for r in refs if any(new[n].startswith(f"{r} ") for n in new)]
        self.items.append(ContextItem(rel, min(new), max(new), text, after - before, refs))
        return f"selected {rel}:{min(new)}-{max(new)} ({after - before} tokens); {self.budget - after} tokens left"

    def as_dict(self) -> dict:
        return {"query": self.query, "context": self.text, "tokens": self.tokens,
                "items": [i.as_dict() for i in self.items]}

"""The heuristic retriever: a scripted navigator in the same action space as the LLM one.

It acts only through the sandbox (``hsearch``, or ``grep`` when the workspace
has no search index) and the two terminal actions ``select`` and ``done``,
and records every action in the trajectory format an LLM retriever writes,
so its traces can later teach a small retriever. It selects raw lines, with
their provenance, and the lines of notes someone wrote (an agent's
preferences note, a person's own page) that answer the question; the notes
the manager regenerates from raw only route. They take part through ``hsearch``: dates the session notes
anchored route a dated question to the turns they happened in; the context ends with the matches
(``hsearch --budget`` leaves the rest of the best sessions out); ``layers`` picks the note layers (for
ablations).
"""

from __future__ import annotations

import shlex
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from horma.context import Context
from horma.core import talks
from horma.core import text as ht
from horma.core.text import count_tokens
from horma.sandbox.views import index_dir
from horma.vectors import format_near, meaning
from horma.workspace import NOTES_DIR, RAW_DIR, WorkspaceError, parse_raw_line

HEADER_COST = 5  # tokens of the "[8 May 2023]" header a context shows once a day of a session
PAGE_CHARS = 12_000  # hsearch output per call, under the sandbox's output cap (about 200 --refs rows)
MIN_ROOM = 8  # below this many tokens no turn fits: stop searching
MAX_PAGES = 50
GREP_TERMS = 12
OWN_LINES = 3  # lines of notes someone wrote (an agent's preferences note) a context may open with


def _hits(output: str) -> Iterable[tuple[str, int, str]]:
    """``path:line:raw line`` rows of raw files and notes, in the order printed."""
    for row in output.splitlines():
        path, _, rest = row.partition(":")
        num, _, line = rest.partition(":")
        if path.startswith((f"{RAW_DIR}/", f"{NOTES_DIR}/")) and num.isdigit():
            yield path, int(num), line


def _more(output: str) -> int | None:
    last = output.rstrip().rsplit("\n", 1)[-1]
    if last.startswith("[more: hsearch --skip "):
        num = last.split()[3]
        return int(num) if num.isdigit() else None
    return None


def _pick(hits: Iterable[tuple[str, int, str]], context: Context,
          seen: set[tuple[str, int]]) -> dict[str, dict[int, int]]:
    """Greedily take ranked lines that fit the room left, costed as the context will render them.

    A row is either a raw line (costed here) or, from ``hsearch --refs``, its cost in tokens.
    Each chosen line maps to its rank: its place among every row ``seen`` so far (1 = the best).
    """
    room = context.room
    root = context.workspace.root
    shown = {_block(item.path, "", root) for item in context.items if item.path}
    chosen: dict[str, dict[int, int]] = {}
    for path, num, line in hits:
        if (path, num) in seen:
            continue
        seen.add((path, num))
        if line.isdigit():
            cost, block = int(line), _block(path, "", root)
        else:
            unit = parse_raw_line(line)
            if unit is None:
                continue
            cost, block = count_tokens(f"{unit.id} {unit.actor}: {unit.text}"), _block(path, unit.time, root)
        cost += 0 if block in shown else HEADER_COST
        if cost <= room:
            room -= cost
            shown.add(block)
            chosen.setdefault(path, {})[num] = len(seen)
        if room < MIN_ROOM:
            break
    return chosen


def _block(path: str, time: str, root: Path) -> tuple[str, str]:
    """The context block a line goes in (a day of a session: :func:`horma.core.talks.block`), by its own time,
    or where it is not at hand (a row of ``hsearch --refs``, a selected item) its segment's
    (``raw/<time>__<name>``); a note is a block of its own."""
    if not path.startswith(f"{RAW_DIR}/"):
        return "", path
    when = time or path.split("/")[1].partition("__")[0]
    return talks.block(path, when, lambda p: (root / p).is_file())


def _ranges(lines: Iterable[int]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for n in sorted(lines):
        if out and n == out[-1][1] + 1:
            out[-1] = (out[-1][0], n)
        else:
            out.append((n, n))
    return out


def _select_all(chosen: dict[str, dict[int, int]], context: Context, trajectory,
                why: Callable[[int], tuple[float | None, str]]) -> None:
    """Select each run of chosen lines; ``why`` gives an item's score and reason from its best rank."""
    for path, ranks in chosen.items():
        for start, end in _ranges(ranks):
            score, reason = why(min(ranks[n] for n in range(start, end + 1)))
            got = context.select(path, start, end, score=score, why=reason)
            trajectory.step("select", {"path": path, "start": start, "end": end}, got.observation())


def _hsearch_rank(rank: int) -> tuple[float | None, str]:
    return None, f"hsearch rank {rank}"  # hsearch --refs prints no score: the rank is what the navigator knows


def _grep_fallback(sandbox, context: Context, trajectory) -> None:
    """Without an index (e.g. one deleted by hand), rank grep matches by how many query words they hold."""
    words = [w for w in dict.fromkeys(ht.words(context.query)) if w not in ht.STOPWORDS][:GREP_TERMS]
    if not words:
        return
    pattern = "|".join(words)
    cmd = f"grep -rniE -e {shlex.quote(pattern)} {RAW_DIR} --include=units.log | head -n 2000"
    res = sandbox.exec(cmd)
    trajectory.step("bash", {"command": cmd}, res.output, exit_code=res.exit_code, elapsed_ms=round(res.elapsed_ms, 3))
    scored = []
    for path, num, line in _hits(res.output):
        unit = parse_raw_line(line)
        if unit is not None:
            text = unit.text.lower()
            scored.append((-sum(w in text for w in words), path, num, line))
    scored.sort()

    def why(rank: int) -> tuple[float | None, str]:
        matched = -scored[rank - 1][0]
        return float(matched), f"grep: {matched} of {len(words)} query words"

    _select_all(_pick([(p, n, ln) for _, p, n, ln in scored], context, set()), context, trajectory, why)


def navigate(sandbox, context: Context, trajectory, layers: Sequence[str] | None = None, cut: int = 0,
             page_chars: int = PAGE_CHARS, semantic: bool = True) -> None:
    """Fill ``context`` with the raw turns ``hsearch`` ranks best, page by page, then ``done``.

    ``layers`` names the note layers hsearch may route through (None: its default, dates; () none).
    ``cut`` (percent) stops at lines scoring below that share of the best one instead of
    filling the budget: fewer tokens and a higher Jaccard for some recall.
    ``page_chars`` caps each hsearch page (smaller pages: more calls, shorter
    observations, e.g. for transcripts that must fit a small model's context).
    ``semantic`` hands hsearch the units and own note lines nearest the query in embedding space (embedded here, on
    the host: the model does not run in the sandbox); off, the ranking is lexical (for ablations).
    """
    seen: set[tuple[str, int]] = set()
    skip = 0
    route = "" if layers is None else f"--layers {shlex.quote(','.join(layers) or 'none')} "
    if cut:
        route += f"--cut {int(cut)} "
    if context.asked:
        route += f"--today {shlex.quote(context.asked[:10])} "
    if semantic:
        near = meaning(str(index_dir(context.workspace.root)), context.query)
        if near.units or near.lines:
            route += f"--near {format_near(near.units, near.lines)} "
    for _ in range(MAX_PAGES):
        if context.room < MIN_ROOM:
            break
        # the query reaches hsearch on stdin (a here-string): no command-line limit caps its size
        own = f"--own {OWN_LINES} " if skip == 0 else ""
        cmd = (f"hsearch --refs --budget {context.room} --max-chars {page_chars} {route}{own}--skip {skip} -n 0 "
               f"--stdin <<< {shlex.quote(context.query)}")
        res = sandbox.exec(cmd)
        trajectory.step("bash", {"command": cmd}, res.output, exit_code=res.exit_code,
                        elapsed_ms=round(res.elapsed_ms, 3))
        if res.exit_code == 2 and "no search index" in res.output:
            _grep_fallback(sandbox, context, trajectory)
            break
        if res.exit_code >= 2:  # an index hsearch cannot read: say so rather than return an empty context
            raise WorkspaceError(f"search failed: {res.output.strip()[-300:]}")
        if res.exit_code != 0:
            break
        _select_all(_pick(_hits(res.output), context, seen), context, trajectory, _hsearch_rank)
        nxt = _more(res.output)
        if nxt is None or nxt <= skip:
            break
        skip = nxt
    trajectory.step("done", {}, f"done: {context.tokens} tokens, {len(context.refs)} units")

"""Give your own agent loop a horma memory: record what happens, recall before acting.

Run:  python examples/wrap_an_agent.py [WORKSPACE]   (default: a new temp folder)

The "agent" here replays the demo conversation one session at a time; a real
one would record its dialogue turns or environment steps the same way and put
``ctx.text`` into its prompt instead of the whole history.
"""

from __future__ import annotations

import sys
import tempfile
from itertools import groupby
from pathlib import Path

import horma
from horma.sources.jsonl import load_jsonl

HERE = Path(__file__).resolve().parent


def main(workspace: str) -> None:
    segments = load_jsonl(HERE / "demo_conversation.jsonl")
    with horma.Memory(workspace) as mem:  # heuristic manager + retriever, best sandbox available
        for seg in segments:
            # 1. the agent acts; every turn becomes a unit (id, time, actor, text)
            turns = [{"id": u.id, "time": u.time, "actor": u.actor, "text": u.text} for u in seg.units]
            # 2. record the session: archived verbatim, then organized into notes
            result = mem.record(turns, slug=seg.slug)
            print(f"recorded {result.archived} turns into {result.segment}")
        # 3. before the next action, recall what matters for it, within a token budget
        ctx = mem.recall("What did Tomás and Priya say about moving flats?", budget=250)
        print(f"\n{ctx.tokens} tokens from {len(ctx.items)} pieces; source units {', '.join(ctx.refs)}\n")
        print(ctx.text)
        # every piece carries its provenance: the file, lines and unit ids it came from
        for path, items in groupby(ctx.items, key=lambda i: i.path):
            print(f"\n{path}: " + "; ".join(f"lines {i.start}-{i.end} ({', '.join(i.refs)})" for i in items))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp(prefix="horma-example-"))

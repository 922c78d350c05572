"""How fast a large ChatGPT export imports: parsing, the first import, and a re-import that adds nothing.

Usage: .venv/bin/python bench/import_speed.py [--conversations 300] [--turns 20] [--json]

It writes a synthetic export in the real format (a ``mapping`` tree per
conversation with a system message, an edited prompt on a side branch and a
tool call) to a scratch folder, then times ``horma import chatgpt`` as a user
runs it (heuristic manager, local backend, so the figure is the import, not
the sandbox), and the same import again.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from horma.importers import importer

TOPICS = ["the garden", "a trip to Lima", "the piano", "a marathon", "the bakery", "a new job", "the dog"]


def node(nid: str, parent: str | None, children: list[str], role: str | None = None, text: str = "",
         t: float = 0.0, **extra) -> tuple[str, dict]:
    msg = None if role is None else {"id": nid, "author": {"role": role}, "create_time": t,
                                      "content": {"content_type": "text", "parts": [text]},
                                      "recipient": extra.get("recipient", "all"), "weight": extra.get("weight", 1.0)}
    return nid, {"id": nid, "message": msg, "parent": parent, "children": children}


def conversation(c: int, turns: int) -> dict:
    t0 = 1.7e9 + c * 86400
    nodes = [node(f"r{c}", None, [f"s{c}"]), node(f"s{c}", f"r{c}", [f"e{c}", f"m{c}-0"], "system", "", t0,
                                                  weight=0.0),
             node(f"e{c}", f"s{c}", [], "user", "an edited-away prompt", t0 + 1)]
    for i in range(turns):
        role = "user" if i % 2 == 0 else "assistant"
        nxt = [f"m{c}-{i + 1}"] if i + 1 < turns else []
        text = f"Conversation {c} turn {i}: about {TOPICS[(c + i) % len(TOPICS)]}, number {c * 1000 + i}."
        nodes.append(node(f"m{c}-{i}", f"s{c}" if i == 0 else f"m{c}-{i - 1}", nxt, role, text, t0 + 10 + i * 30))
    return {"title": f"Chat {c} about {TOPICS[c % len(TOPICS)]}", "create_time": t0, "update_time": t0 + 3600,
            "mapping": dict(nodes), "current_node": f"m{c}-{turns - 1}", "id": f"conv-{c}"}


def timed(argv: list[str]) -> tuple[float, dict]:
    t0 = time.perf_counter()
    out = subprocess.run(argv, capture_output=True, text=True, check=True)
    return time.perf_counter() - t0, json.loads(out.stdout)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--conversations", type=int, default=300)
    ap.add_argument("--turns", type=int, default=20)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="horma-import-bench-") as tmp:
        export = Path(tmp) / "conversations.json"
        export.write_text(json.dumps([conversation(c, args.turns) for c in range(args.conversations)]))
        t0 = time.perf_counter()
        got = importer("chatgpt").load(export, "me")
        parse_s = time.perf_counter() - t0
        argv = [sys.executable, "-m", "horma", "import", "chatgpt", str(export), "-w", f"{tmp}/mem",
                "--backend", "local", "--json"]
        first_s, first = timed(argv)
        again_s, again = timed(argv)
    result = {"conversations": args.conversations, "messages": got.units,
              "parse_s": round(parse_s, 2), "import_s": round(first_s, 1), "archived": first["archived"],
              "messages_per_s": round(got.units / first_s), "reimport_s": round(again_s, 1),
              "reimport_archived": again["archived"]}
    print(json.dumps(result) if args.json else "\n".join(f"{k}: {v}" for k, v in result.items()))


if __name__ == "__main__":
    main()

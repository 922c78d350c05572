#!/usr/bin/env python3
"""Writes bench/data/<set>_chats.json: a held-out set of user-assistant chats, in the LoCoMo JSON format.

Why a second set: every ranking change is decided on the dev sets (LoCoMo,
LongMemEval and bench/data/assistant_chats.json), and a set that decisions
are taken on stops measuring how well they generalise. These conversations
were written after the ranking they are run against, by writers who did not
read it, with the same rules and categories as the dev chats
(make_assistant_chats.py: paraphrase, current value, preference, assistant
said, earlier value, several turns). Use them to check a change, never to
choose one: a figure published from this set is the one closest to data the
project has not seen.

Two sets: ``holdout/`` (three conversations), whose misses were read in
session 16 to look for what the ranking lacks, and so is a dev set since;
and ``holdout2/`` (four), written in session 16 by writers who saw neither
the ranking nor holdout/'s figures: the held-out set now.

Each conversation is a module under <set>/ with one ``CONVERSATION`` dict
(``id``, ``user``, ``sessions``, ``questions``, the arguments of
make_assistant_chats.conversation). Every turn was written by hand for this
project; nothing is copied from another dataset.

Run: python bench/data/make_holdout_chats.py [--set holdout2] [--out FILE]
(checks the data, then rewrites the JSON next to it)
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from make_assistant_chats import CATEGORIES, build, check  # noqa: E402  (the dev set's rules, shared)


def conversations(folder: Path) -> list[dict]:
    """The CONVERSATION of every module in ``folder``, in file name order."""
    out = []
    for path in sorted(folder.glob("chat_*.py")):
        spec = importlib.util.spec_from_file_location(path.stem, path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        out.append(module.CONVERSATION)
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--set", default="holdout", help="the folder of chat_*.py modules next to this script "
                   "(holdout, holdout2); the JSON is written as <set>_chats.json next to it")
    p.add_argument("--out", type=Path, help="where to write the JSON instead")
    args = p.parse_args(argv)
    convs = conversations(HERE / args.set)
    try:
        if not convs:
            raise ValueError(f"no conversation in {args.set}/")
        counts = check(convs)
    except ValueError as exc:
        print(f"make_holdout_chats: {exc}", file=sys.stderr)
        return 1
    out = args.out or HERE / f"{args.set}_chats.json"
    out.write_text(json.dumps(build(convs), indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    total = sum(counts.values())
    by_cat = ", ".join(f"{CATEGORIES[c]} {n}" for c, n in sorted(counts.items()))
    print(f"wrote {out.name}: {len(convs)} conversations, {total} questions ({by_cat})")
    return 0


if __name__ == "__main__":
    sys.exit(main())

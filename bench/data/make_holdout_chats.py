#!/usr/bin/env python3
"""Writes bench/data/holdout_chats.json: a held-out set of user-assistant chats, in the LoCoMo JSON format.

Why a second set: every ranking change is decided on the dev sets (LoCoMo,
LongMemEval and bench/data/assistant_chats.json), and a set that decisions
are taken on stops measuring how well they generalise. These conversations
were written after the ranking they are run against, by writers who did not
read it, with the same rules and categories as the dev chats
(make_assistant_chats.py: paraphrase, current value, preference, assistant
said, earlier value, several turns). Use them to check a change, never to
choose one: a figure published from this set is the one closest to data the
project has not seen.

Each conversation is a module under holdout/ with one ``CONVERSATION`` dict
(``id``, ``user``, ``sessions``, ``questions``, the arguments of
make_assistant_chats.conversation). Every turn was written by hand for this
project; nothing is copied from another dataset.

Run: python bench/data/make_holdout_chats.py [--out FILE]  (checks the data, then rewrites the JSON next to it)
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


def conversations() -> list[dict]:
    """The CONVERSATION of every module in holdout/, in file name order."""
    out = []
    for path in sorted((HERE / "holdout").glob("chat_*.py")):
        spec = importlib.util.spec_from_file_location(path.stem, path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        out.append(module.CONVERSATION)
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", type=Path, default=HERE / "holdout_chats.json", help="where to write the JSON")
    args = p.parse_args(argv)
    convs = conversations()
    try:
        if not convs:
            raise ValueError("no conversation in holdout/")
        counts = check(convs)
    except ValueError as exc:
        print(f"make_holdout_chats: {exc}", file=sys.stderr)
        return 1
    out = args.out
    out.write_text(json.dumps(build(convs), indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    total = sum(counts.values())
    by_cat = ", ".join(f"{CATEGORIES[c]} {n}" for c, n in sorted(counts.items()))
    print(f"wrote {out.name}: {len(convs)} conversations, {total} questions ({by_cat})")
    return 0


if __name__ == "__main__":
    sys.exit(main())

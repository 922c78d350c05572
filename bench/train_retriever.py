#!/usr/bin/env python3
"""Training bench: a small retriever before training, after SFT on navigator traces, after a short GRPO run.

Questions come from one export of the first TRAIN + EVAL questions of the
split (file order); the last EVAL are held apart for evaluation, the first
TRAIN feed SFT and GRPO. Each evaluation runs every held-apart question as an
LLM retriever episode (greedy, the hf provider, the read-view sandbox) and
reports the share of valid episodes (every action well-formed, ended with
``done``), strict evidence recall and Jaccard at the budget. GRPO's mean
reward per step is in CKPT/train_log.jsonl and in the report.

Example (the docs/training.md table):
  python bench/train_retriever.py --data ../shared/data/locomo/locomo_dev.json --out /tmp/train-bench
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from horma.agents.loop import RunLimits
from horma.bench.metrics import mean
from horma.train.environment import RetrievalEnvironment, Task, load_tasks
from horma.train.export import export

console = Console(stderr=True)


def evaluate(model: str, tasks: list[Task], args: argparse.Namespace) -> dict:
    from horma.llm.hf import HFLLM

    llm = HFLLM(model, max_tokens=args.max_new_tokens)
    t0 = time.perf_counter()
    episodes = []
    with RetrievalEnvironment(backend=args.backend, limits=RunLimits(max_steps=args.episode_steps)) as env:
        for i, task in enumerate(tasks, 1):
            llm.reset()
            episodes.append(env.run(task, llm))
            console.print(f"  {model} {i}/{len(tasks)} {episodes[-1].actions} reward {episodes[-1].reward:.3f}",
                          highlight=False, markup=False)
    return {"model": model, "questions": len(tasks),
            "valid": round(sum(e.valid for e in episodes) / len(episodes), 4),
            "recall": round(mean(e.recall for e in episodes) or 0.0, 4),
            "jaccard": round(mean(e.reward for e in episodes) or 0.0, 4),
            "mean_tokens": round(mean(e.tokens for e in episodes) or 0.0, 1),
            "mean_actions": round(mean(e.steps for e in episodes) or 0.0, 2),
            "seconds": round(time.perf_counter() - t0, 1)}


def _kept_log(ckpt: Path) -> list[dict] | None:
    """The step log of a checkpoint a previous run finished (--resume), or None."""
    if not (ckpt / "model.safetensors").is_file():
        return None
    return [json.loads(line) for line in (ckpt / "train_log.jsonl").read_text().splitlines() if line.strip()]


def run(args: argparse.Namespace) -> dict:
    import torch

    from horma.train.grpo import train_grpo
    from horma.train.sft import train_sft

    torch.set_num_threads(args.threads)
    out = Path(args.out)
    t0 = time.perf_counter()
    summary = export(args.data, out / "data", split=args.split, limit=args.train + args.eval, budget=args.budget,
                     backend=args.backend)
    tasks = load_tasks(out / "data" / "grpo.jsonl")
    held, train = tasks[-args.eval:], tasks[: -args.eval]
    held_ids = {t.id for t in held}
    sft_lines = [line for line in (out / "data" / "sft.jsonl").read_text().splitlines()
                 if json.loads(line)["id"] not in held_ids]
    (out / "train_sft.jsonl").write_text("\n".join(sft_lines) + "\n")
    (out / "train_grpo.jsonl").write_text("".join(json.dumps(t.as_dict()) + "\n" for t in train))
    rows = [evaluate("smollm2", held, args)]
    sft_log = _kept_log(out / "ckpt-sft") if args.resume else None
    if sft_log is None:
        sft_log = train_sft(out / "train_sft.jsonl", out / "ckpt-sft", steps=args.sft_steps,
                            max_length=args.max_length, learning_rate=args.sft_lr,
                            echo=lambda line: console.print(line, markup=False))
    rows.append({**evaluate(str(out / "ckpt-sft"), held, args), "model": "after SFT"})
    grpo_log = _kept_log(out / "ckpt-grpo") if args.resume else None
    if grpo_log is None:
        grpo_log = train_grpo(out / "train_grpo.jsonl", out / "ckpt-grpo", model=str(out / "ckpt-sft"),
                              steps=args.grpo_steps, num_generations=args.generations,
                              max_new_tokens=args.max_new_tokens, episode_steps=args.episode_steps,
                              learning_rate=args.grpo_lr, backend=args.backend,
                              echo=lambda line: console.print(line.split(" episodes=")[0], markup=False))
    rows.append({**evaluate(str(out / "ckpt-grpo"), held, args), "model": "after SFT + GRPO"})
    rows[0]["model"] = "SmolLM2-135M (before)"
    return {"data": str(args.data), "split": args.split, "budget": args.budget, "train_questions": len(train),
            "held_apart": len(held), "navigator": {"jaccard": summary.mean_jaccard, "recall": summary.mean_recall},
            "sft_steps": args.sft_steps, "grpo_steps": args.grpo_steps, "threads": args.threads,
            "sft_loss": [r.get("loss") for r in sft_log],
            "grpo_mean_reward": [r.get("reward") for r in grpo_log],
            "rows": rows, "minutes": round((time.perf_counter() - t0) / 60, 1)}


def render(report: dict) -> None:
    table = Table(title=f"{report['held_apart']} held-apart questions, budget {report['budget']} "
                        f"(trained on {report['train_questions']})")
    for col in ("model", "valid episodes", "strict recall", "Jaccard", "mean tokens", "mean actions", "s"):
        table.add_column(col, justify="left" if col == "model" else "right")
    for r in report["rows"]:
        table.add_row(r["model"], f"{r['valid']:.2f}", f"{r['recall']:.3f}", f"{r['jaccard']:.3f}",
                      f"{r['mean_tokens']:.0f}", f"{r['mean_actions']:.1f}", f"{r['seconds']:.0f}")
    Console().print(table)
    Console().print(f"GRPO mean reward per step: {report['grpo_mean_reward']}; SFT loss per step: "
                    f"{report['sft_loss']}; navigator on the same questions: {report['navigator']}; "
                    f"{report['minutes']} min")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", required=True, help="LoCoMo file (locomo10.json format)")
    p.add_argument("--out", required=True, help="folder for the export, checkpoints and report.json")
    p.add_argument("--split", default="dev")
    p.add_argument("--train", type=int, default=40, help="questions for SFT and GRPO")
    p.add_argument("--eval", type=int, default=10, help="held-apart questions to evaluate on")
    p.add_argument("--budget", type=int, default=1000)
    p.add_argument("--sft-steps", type=int, default=8)
    p.add_argument("--sft-lr", type=float, default=5e-5)
    p.add_argument("--max-length", type=int, default=1280, help="SFT tokens per transcript")
    p.add_argument("--grpo-steps", type=int, default=2)
    p.add_argument("--grpo-lr", type=float, default=1e-6)
    p.add_argument("--generations", type=int, default=2)
    p.add_argument("--episode-steps", type=int, default=6, help="actions per episode")
    p.add_argument("--max-new-tokens", type=int, default=64)
    p.add_argument("--backend", default="auto", help="sandbox: auto, docker, bwrap (an LLM needs isolation)")
    p.add_argument("--resume", action="store_true", help="reuse checkpoints a previous run in --out finished")
    p.add_argument("--threads", type=int, default=1, help="torch threads (1 is fastest on a shared 2-core machine)")
    args = p.parse_args(argv)
    os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")
    report = run(args)
    Path(args.out, "report.json").write_text(json.dumps(report, indent=1) + "\n")
    render(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Training bench: a small retriever before training, after SFT on navigator traces, after a short GRPO run.

Questions come from one export of the first POOL questions of the split
(file order): the first TRAIN feed SFT and GRPO; the held-apart EVAL are the
first from conversations no training question comes from, so the model is
judged on a memory it never navigated in training. Each evaluation runs every held-apart question as an
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
import multiprocessing
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from rich.console import Console
from rich.table import Table

from horma.agents.loop import RunLimits
from horma.bench.metrics import mean
from horma.train.environment import RetrievalEnvironment, RetrievalTask, load_tasks
from horma.train.export import export
from horma.train.reward import Shaping

console = Console(stderr=True)


def _episodes(model: str, tasks: list[RetrievalTask], settings: dict) -> list[dict]:
    """One worker's share of an evaluation: its own model copy, torch threads and sandboxes."""
    import torch

    from horma.llm.hf import HFLLM

    torch.set_num_threads(settings["threads"])
    llm = HFLLM(model, max_tokens=settings["max_new_tokens"])
    out = []
    with RetrievalEnvironment(backend=settings["backend"],
                              limits=RunLimits(max_steps=settings["episode_steps"])) as env:
        for task in tasks:
            llm.reset()
            episode = env.run(task, llm)
            out.append(episode.as_dict())
            print(f"  {model} {task.id} {len(episode.actions)} actions, status {episode.status}, "
                  f"recall {episode.recall}", file=sys.stderr, flush=True)
    return out


def evaluate(model: str, tasks: list[RetrievalTask], args: argparse.Namespace) -> dict:
    """Every held-apart task as a greedy episode, split over ``--workers`` processes.

    Why processes: decoding a 135M model is bound by per-token overhead, not
    by arithmetic, so two single-thread workers finish twice as fast as one
    worker with two threads.
    """
    settings = {k: getattr(args, k) for k in ("threads", "max_new_tokens", "backend", "episode_steps")}
    t0 = time.perf_counter()
    shares = [tasks[i:: args.workers] for i in range(args.workers)]
    with ProcessPoolExecutor(args.workers, mp_context=multiprocessing.get_context("spawn")) as pool:
        episodes = [e for share in pool.map(_episodes, [model] * len(shares), shares, [settings] * len(shares))
                    for e in share]
    return {"model": model, "questions": len(tasks),
            "valid": round(sum(e["valid"] for e in episodes) / len(episodes), 4),
            "recall": round(mean(e["recall"] for e in episodes) or 0.0, 4),
            "jaccard": round(mean(e["reward"] for e in episodes) or 0.0, 4),
            "mean_tokens": round(mean(e["tokens"] for e in episodes) or 0.0, 1),
            "mean_actions": round(mean(e["steps"] for e in episodes) or 0.0, 2),
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

    torch.set_num_threads(args.threads * args.workers)
    out = Path(args.out)
    t0 = time.perf_counter()
    export(args.data, out / "data", split=args.split, limit=args.pool, budget=args.budget,
                     backend=args.backend)
    tasks = load_tasks(out / "data" / "grpo.jsonl")
    train = tasks[: args.train]
    seen = {t.workspace for t in train}
    held = [t for t in tasks[args.train:] if t.workspace not in seen][: args.eval]
    if len(held) < args.eval:
        raise SystemExit(f"only {len(held)} of the first {args.pool} questions come from conversations the "
                         f"training questions do not; raise --pool")
    train_ids = {t.id for t in train}
    sft_lines = [line for line in (out / "data" / "sft.jsonl").read_text().splitlines()
                 if json.loads(line)["id"] in train_ids]
    (out / "train_sft.jsonl").write_text("\n".join(sft_lines) + "\n")
    (out / "train_grpo.jsonl").write_text("".join(json.dumps(t.as_dict()) + "\n" for t in train))
    held_ids = {t.id for t in held}
    teacher = [r for r in map(json.loads, (out / "data" / "sft.jsonl").read_text().splitlines())
               if r["id"] in held_ids and r.get("source", "navigator") == "navigator"]
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
                              shaping=Shaping(format_penalty=args.format_penalty),
                              echo=lambda line: console.print(line.split(" episodes=")[0], markup=False))
    rows.append({**evaluate(str(out / "ckpt-grpo"), held, args), "model": "after SFT + GRPO"})
    rows[0]["model"] = "SmolLM2-135M (before)"
    return {"data": str(args.data), "split": args.split, "budget": args.budget, "train_questions": len(train),
            "held_apart": len(held), "held_conversations": sorted({Path(t.workspace).name for t in held}),
            "navigator": {"jaccard": round(mean(r["jaccard"] for r in teacher) or 0.0, 4),
                          "recall": round(mean(r["recall"] for r in teacher) or 0.0, 4),
                          "mean_actions": round(mean(sum(m["role"] == "assistant" for m in r["messages"])
                                                     for r in teacher) or 0.0, 2)},
            "sft_steps": args.sft_steps, "grpo_steps": args.grpo_steps, "threads": args.threads,
            "workers": args.workers, "settings": {k: v for k, v in vars(args).items() if k not in ("data", "out")},
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
    p.add_argument("--train", type=int, default=100, help="the first N questions feed SFT and GRPO")
    p.add_argument("--eval", type=int, default=50,
                   help="held-apart questions: the first N from conversations no training question comes from")
    p.add_argument("--pool", type=int, default=300, help="questions exported (file order) to draw both from")
    p.add_argument("--budget", type=int, default=1000)
    p.add_argument("--sft-steps", type=int, default=60)
    p.add_argument("--sft-lr", type=float, default=1e-4)
    p.add_argument("--max-length", type=int, default=4096, help="SFT tokens per transcript")
    p.add_argument("--grpo-steps", type=int, default=3)
    p.add_argument("--grpo-lr", type=float, default=1e-5)
    p.add_argument("--generations", type=int, default=4)
    p.add_argument("--format-penalty", type=float, default=0.05, help="GRPO reward shaping per malformed action")
    p.add_argument("--episode-steps", type=int, default=20, help="actions per episode (the navigator's take 3-19)")
    p.add_argument("--max-new-tokens", type=int, default=96)
    p.add_argument("--backend", default="auto", help="sandbox: auto, docker, bwrap (an LLM needs isolation)")
    p.add_argument("--resume", action="store_true", help="reuse checkpoints a previous run in --out finished")
    p.add_argument("--threads", type=int, default=1, help="torch threads per evaluation worker")
    p.add_argument("--workers", type=int, default=2, help="evaluation processes (training uses threads x workers)")
    args = p.parse_args(argv)
    os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")
    report = run(args)
    Path(args.out, "report.json").write_text(json.dumps(report, indent=1) + "\n")
    render(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())

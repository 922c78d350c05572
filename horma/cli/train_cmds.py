"""`horma train`: export navigator episodes, then SFT and GRPO a small retriever (the ``train`` extra)."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from horma.cli.common import console, err_console
from horma.config import load_config
from horma.errors import BadArgument, MissingExtra

train_app = typer.Typer(help="Train the retriever: export navigator episodes, SFT warm start, GRPO on J(C, E).",
                        no_args_is_help=True)

_MODEL = typer.Option("smollm2", "--model", "-m",
                      help="Base model: smollm2 (the bundled SmolLM2-135M-Instruct GGUF), a checkpoint folder, "
                           "or a .gguf file.")
_JSON = typer.Option(False, "--json", help="Print one JSON object for scripts.")
_LORA = typer.Option(False, "--lora", help="Train LoRA adapters (peft), merged into the saved checkpoint.")


def register(app: typer.Typer) -> None:
    app.add_typer(train_app, name="train")


EXTRA_HINT = "pip install 'horma[train]'"


@contextmanager
def _extra_modules() -> Iterator[None]:
    """A package the train extra brings, missing deep inside training (peft for --lora...), is the extra not
    installed, not a bug."""
    try:
        yield
    except ImportError as exc:
        raise MissingExtra(f"{exc}: {EXTRA_HINT}") from None


def _need_extra() -> None:
    try:
        import trl  # noqa: F401
    except ImportError:
        raise MissingExtra(f"training needs the train extra: {EXTRA_HINT}") from None
    os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")  # rollout_func is TRL's documented experimental hook


@train_app.command("export")
def export_cmd(
    data: Path = typer.Option(..., "--data", help="LoCoMo file (locomo10.json format)."),
    out: Path = typer.Option(..., "--out", help="Folder for sft.jsonl, grpo.jsonl and workspaces/."),
    split: str = typer.Option("dev", "--split", help="dev (first 7 conversations), test or all."),
    limit: int = typer.Option(0, "--limit", help="Only the first N questions (0: all)."),
    budget: int | None = typer.Option(None, "--budget", help="Context budget in tokens (default: recall.budget, "
                                                             "1000)."),
    categories: str = typer.Option("2,4,5", "--categories", help="LoCoMo categories to ask."),
    backend: str | None = typer.Option(None, "--backend", help="Sandbox for the navigator: auto, docker, bwrap, "
                                                               "local (default: sandbox.backend, auto)."),
    trajectories: list[Path] = typer.Option(
        [], "--trajectories",
        help="Also export these retriever trajectories (files, or folders such as WS/.horma/trajectories; "
             "repeatable): each whose query is an exported question becomes one more episode."),
    as_json: bool = _JSON,
) -> None:
    """Write OUT/sft.jsonl (navigator episodes as chat transcripts, messages + tools) and OUT/grpo.jsonl (tasks).

    Every conversation becomes a workspace (the manager's path) under OUT/workspaces;
    the zero-LLM navigator answers each question there, rendered in the LLM retriever's
    own system prompt and tools; each episode carries its Jaccard and strict recall.
    With --trajectories, LLM (or any) retriever runs on the same questions are added,
    scored by replaying their selections; files not used are counted by reason.

    Example: [bold]horma train export --data locomo10.json --split dev --limit 200 --out train/[/]
    Example: [bold]horma train export --data locomo10.json --out train/ --trajectories WS/.horma/trajectories[/]
    """
    from horma.train.export import export
    from horma.train.trajectories import trajectory_files

    settings = load_config(overrides={"recall.budget": budget, "sandbox.backend": backend})
    try:
        cats = frozenset(int(c) for c in categories.split(",") if c.strip())
    except ValueError:
        raise BadArgument(f"--categories must be a comma list of integers, got {categories!r}") from None
    trajectory_files(trajectories)  # a missing path: one error line before any progress or output
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=err_console, transient=as_json, disable=not err_console.is_terminal) as progress:
        bar = progress.add_task("export", total=None)

        def tick(what: str, done: int, total: int) -> None:
            progress.update(bar, description=what, completed=done, total=total)

        summary = export(data, out, split=split, limit=limit or None, budget=settings.recall.budget,
                         categories=cats, backend=settings.sandbox.backend, trajectories=trajectories,
                         on_progress=tick)
    if as_json:
        typer.echo(json.dumps(summary.as_dict()))
        return
    console.print(f"{summary.episodes} episodes -> {out / 'sft.jsonl'}, {summary.tasks} tasks -> "
                  f"{out / 'grpo.jsonl'} ({summary.no_evidence} without evidence); navigator Jaccard "
                  f"{summary.mean_jaccard}, strict recall {summary.mean_recall}")
    if trajectories:
        unused = ", ".join(f"{n} {reason}" for reason, n in sorted(summary.skipped.items())) or "none"
        console.print(f"{summary.trajectories} trajectory episodes (mean Jaccard {summary.trajectory_mean_jaccard}); "
                      f"trajectory files not used: {unused}")


@train_app.command("sft")
def sft_cmd(
    data: Path = typer.Option(..., "--data", help="sft.jsonl from `horma train export`."),
    out: Path = typer.Option(..., "--out", help="Checkpoint folder to write (safetensors + tokenizer)."),
    model: str = _MODEL,
    steps: int = typer.Option(20, "--steps", help="Optimizer steps."),
    lora: bool = _LORA,
    learning_rate: float = typer.Option(1e-4, "--lr", help="Learning rate."),
    max_length: int = typer.Option(4096, "--max-length",
                                   help="Tokens per transcript; longer ones are cut at the end. The loss is on the "
                                        "model's replies only."),
    as_json: bool = _JSON,
) -> None:
    """Supervised warm start on navigator transcripts (TRL SFTTrainer); loss per step in OUT/train_log.jsonl.

    The checkpoint is a retriever at once: [bold]horma recall WS "..." --retriever llm --llm hf:OUT[/]

    Example: [bold]horma train sft --data train/sft.jsonl --out ckpt-sft --steps 50[/]
    """
    _need_extra()
    from horma.train.sft import train_sft

    if steps <= 0:
        raise BadArgument("--steps must be positive")
    with _extra_modules():
        log = train_sft(data, out, model=model, steps=steps, lora=lora, learning_rate=learning_rate,
                        max_length=max_length, echo=None if as_json else console.print)
    if as_json:
        typer.echo(json.dumps({"out": str(out), "steps": log}))


@train_app.command("grpo")
def grpo_cmd(
    tasks: Path = typer.Option(..., "--tasks", help="grpo.jsonl from `horma train export`."),
    out: Path = typer.Option(..., "--out", help="Checkpoint folder to write (safetensors + tokenizer)."),
    model: str = _MODEL,
    steps: int = typer.Option(10, "--steps", help="Optimizer steps."),
    generations: int = typer.Option(2, "--generations", help="Episodes per task per step (GRPO's group size)."),
    prompts: int = typer.Option(1, "--tasks-per-step", help="Tasks per step."),
    max_new_tokens: int = typer.Option(64, "--max-new-tokens", help="Tokens per reply."),
    episode_steps: int = typer.Option(6, "--episode-steps", help="Actions per episode."),
    temperature: float = typer.Option(1.0, "--temperature", help="Sampling temperature of rollouts."),
    learning_rate: float = typer.Option(1e-6, "--lr", help="Learning rate."),
    format_penalty: float = typer.Option(0.0, "--format-penalty",
                                         help="Reward shaping: minus this per malformed action."),
    overflow_penalty: float = typer.Option(0.0, "--overflow-penalty",
                                           help="Reward shaping: minus this per select refused for the budget."),
    lora: bool = _LORA,
    backend: str = typer.Option("auto", "--backend", help="Sandbox for the episodes: auto, docker, bwrap, local."),
    unsafe_local: bool = typer.Option(False, "--unsafe-local",
                                      help="Let the model act in the unisolated local backend."),
    as_json: bool = _JSON,
) -> None:
    """GRPO (TRL GRPOTrainer) on the reward J(C, E); each rollout is a retrieval episode in the task's sandbox.

    The mean reward of every step is printed and logged to OUT/train_log.jsonl
    (with each episode's actions, reward and recall).

    Example: [bold]horma train grpo --tasks train/grpo.jsonl --model ckpt-sft --out ckpt-grpo --steps 20[/]
    """
    _need_extra()
    from horma.train.grpo import train_grpo
    from horma.train.reward import Shaping

    if steps <= 0 or generations < 2:
        raise BadArgument("--steps must be positive and --generations at least 2 (GRPO compares episodes of one "
                          "task)")
    with _extra_modules():
        log = train_grpo(tasks, out, model=model, steps=steps, num_generations=generations, prompts_per_step=prompts,
                         max_new_tokens=max_new_tokens, episode_steps=episode_steps, temperature=temperature,
                         learning_rate=learning_rate, lora=lora, shaping=Shaping(format_penalty, overflow_penalty),
                         backend=backend, allow_unsafe_local=unsafe_local,
                         echo=None if as_json else _echo_reward)
    if as_json:
        typer.echo(json.dumps({"out": str(out), "steps": log}))


def _echo_reward(line: str) -> None:
    console.print(line.split(" episodes=")[0], highlight=False)

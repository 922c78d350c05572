"""`horma eval locomo|longmemeval|alfworld|plot`: the paper's benchmarks, one command each.

Each command loads its benchmark into runner tasks, checks up front what the
run will need (the method's extras, a usable model unless --retrieval-only),
then runs with a progress bar, prints a summary table and writes
results.jsonl, summary.json and the plots into --out.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Table

from horma.cli.common import console, err_console, policy_llm_driven, shown
from horma.errors import BadArgument, NotFound

eval_app = typer.Typer(
    name="eval",
    help="Run a benchmark with a memory method: LoCoMo, LongMemEval, ALFWorld.",
    no_args_is_help=True,
    rich_markup_mode="rich",
)


def register(app: typer.Typer) -> None:
    app.add_typer(eval_app, name="eval")


_METHOD = typer.Option("horma", "--method", "-m",
                       help="full, truncation, window, bm25, dense, hybrid, dense-notes, horma, "
                            "or package.module:Class.")
_BUDGET = typer.Option(None, "--budget", "-b", help="Context budget in tokens (default: the benchmark's).")
_LLM = typer.Option(None, "--llm", help="Primary agent model spec (default: the config's models.primary).")
_JUDGE = typer.Option(None, "--judge", help="LLM-as-judge model spec (default: no judge; F1 only).")
_LIMIT = typer.Option(None, "--limit", "-n", help="Run only the first K instances.")
_WORKERS = typer.Option(1, "--workers", "-w", help="Parallel worker processes (one task each at a time).")
_OUT = typer.Option(None, "--out", "-o", help="Run folder (default runs/<bench>-<method>-<budget>); re-run to resume.")
_RETRIEVAL_ONLY = typer.Option(False, "--retrieval-only",
                               help="Measure retrieval only (evidence recall, Jaccard, tokens): no model needed.")
_MANAGER = typer.Option(None, "--manager", help="horma / dense-notes note-writing policy: heuristic (default) or llm.")
_RETRIEVER = typer.Option(None, "--retriever", help="horma recall policy: heuristic (default) or llm "
                                                   "(e.g. a trained checkpoint: --memory-llm hf:CKPT).")
_POLICY = typer.Option(None, "--policy", help="Shorthand for --manager P --retriever P: one policy for both roles.")
_MEMORY_LLM = typer.Option(None, "--memory-llm", help="Model spec for the llm manager / retriever "
                                                     "(default: --llm, else the config's models.retriever).")
_BACKEND = typer.Option(None, "--backend",
                        help="Sandbox for horma: auto, docker, bwrap or local (default: the config's).")
_UNSAFE = typer.Option(False, "--unsafe-local", help="Let llm policies run in the local sandbox (no isolation).")
_CONFIG = typer.Option(None, "--config", "-c",
                       help="Config file (default: $HORMA_CONFIG or ~/.config/horma/config.yaml).")
_JSON = typer.Option(False, "--json", help="Print the summary as JSON on stdout (progress goes to stderr).")


def _ints(text: str, what: str) -> list[int]:
    try:
        values = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise BadArgument(f"--{what} must be a comma-separated list of integers, got {text!r}") from None
    if not values:
        raise BadArgument(f"--{what} is empty")
    return values


def _names(text: str) -> list[str]:
    return [x.strip() for x in text.split(",") if x.strip()]


def _policies(policy: str | None, manager: str | None, retriever: str | None) -> dict[str, str | None]:
    """The manager's and the retriever's policy, each its own option, so a trained retriever can
    run over heuristic notes; ``--policy`` stays the shorthand for both. None: as the settings say."""
    from horma.agents.policies import policy_class

    chosen = {"manager": manager, "retriever": retriever}
    if policy is not None:
        policy_llm_driven(policy)  # a name both registries know, or one line listing them
        for role, name in chosen.items():
            if name is not None and name != policy:
                raise BadArgument(f"--policy {policy} sets the {role} too, so it conflicts with --{role} {name}; "
                                  "give --policy alone, or --manager and --retriever")
    chosen = {role: name or policy for role, name in chosen.items()}
    for role, name in chosen.items():
        if name is not None:
            policy_class(role, name, label=f"--{role}")  # an unknown name is a PolicyError, a bad_argument
    return chosen


def _settings(bench: str, method: str, budget: int | None, default_budget: int, llm: str | None,
              judge: str | None, out: Path | None, retrieval_only: bool, policies: dict[str, str | None],
              memory_llm: str | None, backend: str | None, unsafe_local: bool, config: Path | None, domain: str,
              **extra: Any):
    """Validate the common options and build the run settings; raises a HormaError on bad input."""
    from horma.bench.methods import MethodOptions, method_class
    from horma.bench.runner import RunSettings
    from horma.config import ConfigError, load_config
    from horma.llm import LLMError

    if budget is not None and budget <= 0:
        raise BadArgument(f"--budget must be a positive number of tokens, got {budget}")
    budget = default_budget if budget is None else budget
    cls = method_class(method)
    cls.check()
    cfg = load_config(config, {
        "sandbox.backend": backend, "sandbox.unsafe_local": unsafe_local or None,
        "policies.manager": policies["manager"], "policies.retriever": policies["retriever"],
        "policies.domain": domain,
        # one model for both memory roles when named: --memory-llm, else the primary's --llm
        "models.manager": memory_llm or llm, "models.retriever": memory_llm or llm})
    options = MethodOptions(cfg)
    llm_roles = cls.llm_roles(options)
    default_out = Path("runs") / f"{bench}-{method.replace(':', '_').replace('/', '_')}-{budget}"
    if retrieval_only:
        default_out = default_out.with_name(default_out.name + "-retrieval")
    settings = RunSettings(method=method, budget=budget, out=out or default_out, retrieval_only=retrieval_only,
                           llm=llm or (None if retrieval_only else cfg.model("primary")),
                           judge=judge, options=options, **extra)
    try:
        for role in llm_roles:
            settings.make_llm(role, None)
    except (LLMError, ConfigError) as exc:
        needs = " and ".join(f"the {options.policies()[role]} {role}" for role in llm_roles)
        raise type(exc)(f"{needs} needs a model (--memory-llm SPEC): {exc}") from exc
    try:
        if not retrieval_only:
            settings.make_llm("primary", settings.llm)
            if judge:
                settings.make_llm("judge", judge)
    except (LLMError, ConfigError) as exc:
        hint = "; pass --retrieval-only to measure retrieval without a model" if not retrieval_only else ""
        raise type(exc)(f"{exc}{hint}") from exc
    return settings


def _execute(bench: str, tasks: Sequence[Any], settings, identity: dict[str, Any], workers: int,
             limit: int | None, json_out: bool, columns: Callable[[dict], list[tuple[str, str, str]]]) -> None:
    from horma.bench.plots import write_plots
    from horma.bench.runner import RunError, run_tasks

    progress = Progress(TextColumn(f"[bold]{bench}[/] {shown(settings.method)}"), BarColumn(),
                        MofNCompleteColumn(), TimeElapsedColumn(), TimeRemainingColumn(),
                        console=err_console, transient=False)
    bar = progress.add_task("run", total=None)

    def start(total: int, done: int) -> None:
        progress.update(bar, total=total, completed=done)

    with progress:
        result = run_tasks(tasks, settings, identity, workers=workers, limit=limit,
                           on_start=start, on_record=lambda rec: progress.advance(bar))
    for e in result.errors:
        err_console.print(f"[yellow]warning:[/] task {shown(e['task'])} failed: {shown(e['error'])}",
                          highlight=False, soft_wrap=True)
    if result.errors and not result.records:
        raise RunError(f"every task failed; first error: {result.errors[0]['error']}")
    plots = write_plots(settings.out)
    if json_out:
        print(json.dumps({**result.summary, "out": str(settings.out), "plots": [str(p) for p in plots]}, indent=1))
    else:
        # piped output gets a wide table: off a terminal rich assumes 80 columns and squeezes numbers to "…"
        out = console if console.is_terminal else Console(width=160)
        out.print(summary_table(result.summary, columns))
        console.print(f"{result.ran} run now, {result.resumed} resumed; results in "
                      f"[bold]{shown(str(settings.out))}[/] (results.jsonl, summary.json"
                      + "".join(f", {p.name}" for p in plots) + ")", highlight=False)
    if result.errors:
        raise typer.Exit(1)


def _fmt(value: Any, kind: str) -> str:
    if value is None:
        return "-"
    if kind == "pct":
        return f"{value:.3f}"
    if kind == "int":
        return f"{value:,.0f}"
    if kind == "ms":
        return f"{value:,.1f}"
    return f"{value:.2f}"


def qa_columns(overall: dict) -> list[tuple[str, str, str]]:
    cols = [("f1", "F1", "pct"), ("judge", "judge", "pct"), ("evidence_recall", "recall", "pct"),
            ("jaccard", "Jaccard", "pct"), ("context_tokens", "ctx tok", "int"), ("input_tokens", "in tok", "int"),
            ("llm_calls", "N_call", "num"), ("retrieval_ms_p50", "p50 ms", "ms"), ("retrieval_ms_p95", "p95 ms", "ms")]
    return [c for c in cols if c[0] in overall]


def agent_columns(overall: dict) -> list[tuple[str, str, str]]:
    cols = [("won", "success", "pct"), ("steps", "steps", "num"), ("tokens_per_step", "tok/step", "int"),
            ("context_tokens", "ctx tok", "int"), ("llm_calls", "N_call", "num"),
            ("recall_ms_p50", "recall p50 ms", "ms"), ("recall_ms_p95", "recall p95 ms", "ms")]
    return [c for c in cols if c[0] in overall]


def summary_table(summary: dict, columns: Callable[[dict], list[tuple[str, str, str]]]) -> Table:
    run = summary["run"]
    title = f"{run.get('bench')} · {run.get('method')} · budget {run.get('budget')}"
    table = Table(title=title)
    cols = columns(summary["overall"])
    table.add_column("category", no_wrap=True)
    table.add_column("n", justify="right")
    for _, name, _ in cols:
        table.add_column(name, justify="right", no_wrap=True)
    for cat, agg in summary["categories"].items():
        table.add_row(shown(cat), str(agg["n"]), *(_fmt(agg.get(k), kind) for k, _, kind in cols))
    agg = summary["overall"]
    table.add_row("[bold]overall[/]", f"[bold]{agg['n']}[/]",
                  *(f"[bold]{_fmt(agg.get(k), kind)}[/]" for k, _, kind in cols))
    return table


@eval_app.command("locomo")
def locomo(
    data: Path = typer.Option(..., "--data", "-d", help="A locomo10.json-format file."),
    split: str = typer.Option("dev", "--split", help="dev (first 7 conversations), test (last 3) or all."),
    categories: str = typer.Option("2,4,5", "--categories", help="LoCoMo categories: 1 multi-hop, 2 temporal, "
                                                                 "3 open-domain, 4 single-hop, 5 adversarial."),
    method: str = _METHOD, budget: int | None = _BUDGET, llm: str | None = _LLM, judge: str | None = _JUDGE,
    limit: int | None = _LIMIT, workers: int = _WORKERS, out: Path | None = _OUT,
    retrieval_only: bool = _RETRIEVAL_ONLY, manager: str | None = _MANAGER, retriever: str | None = _RETRIEVER,
    policy: str | None = _POLICY, memory_llm: str | None = _MEMORY_LLM,
    backend: str | None = _BACKEND, unsafe_local: bool = _UNSAFE, config: Path | None = _CONFIG,
    json_out: bool = _JSON,
) -> None:
    """LoCoMo: one memory per conversation, then every question of the chosen categories (default budget 10K).

    Example: [bold]horma eval locomo --data locomo10.json --split dev --method bm25 --retrieval-only[/]
    """
    from horma.bench.qa import locomo_tasks

    policies = _policies(policy, manager, retriever)
    cats = _ints(categories, "categories")
    bad = [c for c in cats if c not in (1, 2, 3, 4, 5)]
    if bad:
        raise BadArgument(f"--categories: unknown LoCoMo category {bad[0]} (1..5)")
    tasks = locomo_tasks(str(data), split, cats)
    if not tasks:
        raise BadArgument(f"{data}: no questions of categories {categories} in the {split} split")
    settings = _settings("locomo", method, budget, 10_000, llm, judge, out, retrieval_only, policies, memory_llm,
                         backend, unsafe_local, config, "locomo")
    identity = {"bench": "locomo", "data": str(Path(data).resolve()), "split": split, "categories": cats}
    _execute("locomo", tasks, settings, identity, workers, limit, json_out, qa_columns)


@eval_app.command("longmemeval")
def longmemeval(
    data: Path = typer.Option(..., "--data", "-d", help="A LongMemEval JSON file (e.g. longmemeval_s.json)."),
    types: str = typer.Option("", "--types", help="Comma-separated question types (default: all but multi-session)."),
    method: str = _METHOD, budget: int | None = _BUDGET, llm: str | None = _LLM, judge: str | None = _JUDGE,
    limit: int | None = _LIMIT, workers: int = _WORKERS, out: Path | None = _OUT,
    retrieval_only: bool = _RETRIEVAL_ONLY, manager: str | None = _MANAGER, retriever: str | None = _RETRIEVER,
    policy: str | None = _POLICY, memory_llm: str | None = _MEMORY_LLM,
    backend: str | None = _BACKEND, unsafe_local: bool = _UNSAFE, config: Path | None = _CONFIG,
    json_out: bool = _JSON,
) -> None:
    """LongMemEval: one memory per question from its dated haystack sessions (default budget 50K).

    Example: [bold]horma eval longmemeval --data longmemeval_s.json --method horma --llm anthropic:claude-sonnet-5-5 --judge anthropic:claude-sonnet-5-5[/]
    """  # noqa: E501 - the example command stays on one line, so it can be copied whole
    from horma.bench.longmemeval import DEFAULT_BUDGET, DEFAULT_TYPES, load_longmemeval

    policies = _policies(policy, manager, retriever)
    chosen = _names(types) or list(DEFAULT_TYPES)
    tasks = load_longmemeval(data, chosen)
    if not tasks:
        raise BadArgument(f"{data}: no questions of types {', '.join(chosen)}")
    settings = _settings("longmemeval", method, budget, DEFAULT_BUDGET, llm, judge, out, retrieval_only, policies,
                         memory_llm, backend, unsafe_local, config, "longmemeval")
    identity = {"bench": "longmemeval", "data": str(Path(data).resolve()), "types": sorted(chosen)}
    _execute("longmemeval", tasks, settings, identity, workers, limit, json_out, qa_columns)


@eval_app.command("alfworld")
def alfworld(
    games: Path = typer.Option(..., "--games", "-g",
                               help="Folder of ALFWorld games (official layout or examples/alfworld)."),
    split: str | None = typer.Option(None, "--split", help="Keep games whose path contains this (e.g. valid_unseen)."),
    agent: str = typer.Option("llm", "--agent", help="llm (the primary model acts) or expert (the engine's plan)."),
    max_steps: int = typer.Option(50, "--max-steps", help="Horizon per episode."),
    method: str = _METHOD, budget: int | None = _BUDGET, llm: str | None = _LLM,
    limit: int | None = _LIMIT, workers: int = _WORKERS, out: Path | None = _OUT,
    manager: str | None = _MANAGER, retriever: str | None = _RETRIEVER, policy: str | None = _POLICY,
    memory_llm: str | None = _MEMORY_LLM,
    backend: str | None = _BACKEND, unsafe_local: bool = _UNSAFE, config: Path | None = _CONFIG,
    json_out: bool = _JSON,
) -> None:
    """ALFWorld: act for up to 50 steps, recording each step into memory and recalling before each action (default limit 2200 tokens).

    Example: [bold]horma eval alfworld --games examples/alfworld --agent expert --method horma[/]
    """  # noqa: E501 - typer keeps a docstring's line breaks in --help: a wrapped line would show wrapped there
    from horma.bench.alfworld import DEFAULT_BUDGET, alfworld_tasks, check_installed

    policies = _policies(policy, manager, retriever)
    if max_steps < 1:
        raise BadArgument(f"--max-steps must be at least 1, got {max_steps}")
    check_installed()
    tasks = alfworld_tasks(str(games), split, agent)
    settings = _settings("alfworld", method, budget, DEFAULT_BUDGET, llm, None, out, agent == "expert", policies,
                         memory_llm, backend, unsafe_local, config, "alfworld", max_steps=max_steps)
    identity = {"bench": "alfworld", "games": str(Path(games).resolve()), "split": split, "agent": agent}
    _execute("alfworld", tasks, settings, identity, workers, limit, json_out, agent_columns)


@eval_app.command("plot")
def plot(
    runs: list[Path] = typer.Argument(..., help="Run folders (with summary.json); "
                                                "sibling runs of the same benchmark join each plot."),
) -> None:
    """Redraw the plots of finished runs (score vs tokens; ALFWorld steps vs tokens per step).

    Example: [bold]horma eval plot runs/locomo-bm25-10000-retrieval[/]
    """
    from horma.bench.plots import load_summary, write_plots

    for run in runs:
        if load_summary(run) is None:
            raise NotFound(f"{run}: no summary.json of a horma eval run")
        for p in write_plots(run):
            console.print(f"wrote {shown(str(p))}", highlight=False)

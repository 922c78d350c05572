"""`horma skills ...` (inspect, compare and roll back the skill library) and `horma refine`."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable
from pathlib import Path

import typer
from rich.table import Table

from horma import resources
from horma.cli.common import console, policy_llm_driven, shown
from horma.cli.options import CONFIG_OPT
from horma.config import load_config
from horma.errors import BadArgument, NotFound
from horma.skill_rounds import diff_rounds, rollback
from horma.skills import (
    BASE,
    find_skill,
    load_library,
    rounds,
)

skills_app = typer.Typer(help="Inspect, compare and roll back the YAML skill library.", no_args_is_help=True)

DOMAIN_OPT = typer.Option("locomo", "--domain", "-d", help="Skill domain (a file skills/<domain>.yaml).")


def register(app: typer.Typer) -> None:
    app.add_typer(skills_app, name="skills")
    app.command("refine")(refine_cmd)


SKILLS_DIR_HELP = "(default: the skills.dir setting, $HORMA_SKILLS_DIR, else the project's skills/)."


@skills_app.callback()
def _skills(
    ctx: typer.Context,
    skills_dir: Path = typer.Option(None, "--skills-dir", help=f"Library folder {SKILLS_DIR_HELP}"),
    config: Path | None = CONFIG_OPT,
) -> None:
    """The manager's skill library: base principles plus per-domain skills grown by `horma refine`."""
    ctx.obj = load_config(config, {"skills.dir": skills_dir}).skills.dir or resources.SKILLS


@skills_app.command("list")
def list_skills(
    ctx: typer.Context,
    domain: str = typer.Option(None, "--domain", "-d", help="Also list this domain's skills (default: base only)."),
    round: int = typer.Option(None, "--round", "-r", help="The domain's library as kept after this round."),
    json_out: bool = typer.Option(False, "--json", help="Print the skills as a JSON list."),
) -> None:
    """List the skills the manager would be given.

    Example: [bold]horma skills list --domain locomo[/]
    """
    skills = load_library(domain, round, ctx.obj)
    if json_out:
        console.print_json(json.dumps([s.entry() for s in skills]))
        return
    title = f"skills: base + {domain}" if domain else "skills: base"
    if round is not None:
        title += f" (round {round})"
    table = Table(title=title)
    for col in ("id", "kind", "round", "title", "heuristic"):
        table.add_column(col)
    for s in skills:
        opts = ", ".join(f"{k}={v}" for k, v in (s.heuristic or {}).items())
        table.add_row(s.id, s.kind, str(s.round), shown(s.title), shown(opts))
    console.print(table)


@skills_app.command("show")
def show_skill(
    ctx: typer.Context,
    skill_id: str = typer.Argument(..., help="Skill id, e.g. base_004 or exo_002."),
    json_out: bool = typer.Option(False, "--json", help="Print the entry as JSON."),
) -> None:
    """Print one skill in full.

    Example: [bold]horma skills show base_004[/]
    """
    where, skill = find_skill(skill_id, ctx.obj)
    if json_out:
        console.print_json(json.dumps({"file": f"{where}.yaml", **skill.entry()}))
        return
    console.print(f"[bold]{shown(skill.title)}[/] [dim]({skill.id}, {skill.kind}, round {skill.round}, "
                  f"{shown(str(ctx.obj / where))}.yaml)[/]")
    console.print(f"[bold]principle:[/] {shown(skill.principle)}")
    console.print(f"[bold]when:[/] {shown(skill.when)}")
    if skill.example:
        console.print(f"[bold]example:[/] {shown(skill.example)}")
    if skill.sources:
        console.print(f"[bold]sources:[/] {shown(', '.join(skill.sources))}")
    if skill.heuristic:
        console.print(f"[bold]heuristic:[/] {shown(json.dumps(skill.heuristic))}")


@skills_app.command("diff")
def diff(
    ctx: typer.Context,
    round_a: int = typer.Argument(..., help="Earlier round."),
    round_b: int = typer.Argument(..., help="Later round."),
    domain: str = DOMAIN_OPT,
    json_out: bool = typer.Option(False, "--json", help="Print added/removed/changed ids as JSON."),
) -> None:
    """What the library gained or lost between two kept rounds.

    Example: [bold]horma skills diff 0 2 --domain locomo[/]
    """
    d = diff_rounds(domain, round_a, round_b, ctx.obj)
    if json_out:
        console.print_json(json.dumps({
            "domain": domain, "from": round_a, "to": round_b,
            "added": [s.entry() for s in d.added], "removed": [s.entry() for s in d.removed],
            "changed": [b.entry() for _, b in d.changed],
        }))
        return
    console.print(f"[bold]{domain}[/]: round {round_a} -> round {round_b}: "
                  f"{len(d.added)} added, {len(d.removed)} removed, {len(d.changed)} changed")
    for s in d.added:
        console.print(f"[green]+ {s.id}[/] {shown(s.title)}: {shown(s.principle)}", highlight=False)
    for s in d.removed:
        console.print(f"[red]- {s.id}[/] {shown(s.title)}", highlight=False)
    for a, b in d.changed:
        console.print(f"[yellow]~ {b.id}[/] {shown(a.title)} -> {shown(b.title)}", highlight=False)


@skills_app.command("rounds")
def list_rounds(ctx: typer.Context, domain: str = DOMAIN_OPT) -> None:
    """List a domain's kept rounds and their library sizes.

    Example: [bold]horma skills rounds --domain locomo[/]
    """
    kept = rounds(domain, ctx.obj)
    if not kept:
        raise NotFound(f"domain {domain!r} has no kept rounds yet (run `horma refine` first)")
    for r in kept:
        n = len(load_library(domain, r, ctx.obj)) - len(load_library(None, root=ctx.obj))
        console.print(f"round {r}: {n} domain skills")


@skills_app.command("rollback")
def rollback_cmd(
    ctx: typer.Context,
    round: int = typer.Argument(..., help="The kept round to make current again."),
    domain: str = DOMAIN_OPT,
) -> None:
    """Make an earlier round's library current; later rounds are set aside, not deleted.

    Example: [bold]horma skills rollback 1 --domain locomo[/]
    """
    if domain == BASE:
        raise BadArgument("the base library has no rounds; roll back a domain")
    moved = rollback(domain, round, ctx.obj)
    size = len(load_library(domain, root=ctx.obj)) - len(load_library(None, root=ctx.obj))
    console.print(f"{domain}: rolled back to round {round} ({size} domain skills)")
    if moved:
        console.print(f"[dim]later rounds moved to {shown(str(moved[0].parent))}[/]")


REFINE_BENCHES = ("locomo",)


def refine_cmd(
    bench: str = typer.Argument(..., help=f"Benchmark: {', '.join(REFINE_BENCHES)}."),
    data: Path = typer.Option(..., "--data", help="Dataset file (locomo10.json format)."),
    split: str = typer.Option("dev", "--split", help="dev (first 7 conversations), test or all."),
    categories: str = typer.Option("2,4,5", "--categories", help="LoCoMo question categories."),
    rounds_: int = typer.Option(1, "--rounds", "-k", min=1, help="Refinement rounds."),
    limit: int = typer.Option(None, "--limit", "-n", min=1, help="Use only the first N questions."),
    llm: str = typer.Option(None, "--llm", help="Model for answers, feedback and skills "
                                                "(default: config models.primary / models.feedback)."),
    judge: str = typer.Option(None, "--judge", help="Judge model; without one, success is F1 >= --success-f1."),
    domain: str = typer.Option(None, "--domain", "-d", help="Skill domain to grow (default: the benchmark's name)."),
    out: Path = typer.Option(None, "--out", "-o", help="Run directory (default: runs/refine-<domain>-<time>)."),
    budget: int = typer.Option(10_000, "--budget", min=1, help="Context budget of H' (managed memory) in tokens."),
    policy: str | None = typer.Option(None, "--policy", help="Memory manager/retriever policy: heuristic or llm "
                                                            "(default: policies.manager / policies.retriever)."),
    backend: str | None = typer.Option(None, "--backend", help="Sandbox backend: auto, docker, bwrap or local "
                                                               "(default: sandbox.backend, auto)."),
    allow_unsafe_local: bool = typer.Option(False, "--allow-unsafe-local",
                                            help="Let an llm policy run in the unisolated local backend."),
    success_f1: float = typer.Option(0.5, "--success-f1", min=0.0, max=1.0,
                                     help="F1 at which an answer counts as a success (no judge)."),
    rerun_h: bool = typer.Option(False, "--rerun-h", help="Run H again every round (it does not depend on skills)."),
    max_new: int = typer.Option(8, "--max-new", min=1, help="Most new skills asked for per round."),
    skills_dir: Path = typer.Option(None, "--skills-dir", help=f"Library folder to grow {SKILLS_DIR_HELP}"),
    config: Path = typer.Option(None, "--config", help="Config file (models, keys, timeouts)."),
    json_out: bool = typer.Option(False, "--json", help="Print the report as JSON."),
) -> None:
    """Grow a domain's skill library by contrastive refinement: run tasks with raw history H and managed memory H', learn from where they differ.

    Example: [bold]horma refine locomo --data locomo_dev.json --rounds 2 --limit 40 --llm anthropic:claude-sonnet-5-5[/]
    """  # noqa: E501 - typer keeps a docstring's line breaks in --help: a wrapped line would show wrapped there
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from horma.bench.methods import MethodOptions
    from horma.bench.qa import locomo_tasks
    from horma.qa_arena import QAArena
    from horma.refine import RefineConfig, refine

    if bench not in REFINE_BENCHES:
        raise BadArgument(f"refine supports {', '.join(REFINE_BENCHES)}; got {bench!r}")
    if policy is not None:
        policy_llm_driven(policy)  # a name both registries know, or one line listing them
    try:
        cats = [int(c) for c in categories.split(",") if c.strip()]
    except ValueError:
        raise BadArgument(f"--categories must be comma-separated numbers, got {categories!r}") from None
    domain = domain or bench
    cfg = load_config(config, {
        "policies.manager": policy, "policies.retriever": policy, "policies.domain": domain,
        "models.manager": llm, "models.retriever": llm, "sandbox.backend": backend,
        "sandbox.unsafe_local": allow_unsafe_local or None, "skills.dir": skills_dir})
    library = cfg.skills.dir or resources.SKILLS
    load_library(domain, root=library)  # a missing or broken library fails before any data is read
    if not data.is_file():
        raise BadArgument(f"{data}: no such dataset file")
    qa_tasks = locomo_tasks(str(data), split, cats)
    arena = QAArena(
        domain, qa_tasks, cfg.llm_for("primary", llm),
        judge=cfg.llm_for("judge", judge) if judge else None, budget=budget, success_f1=success_f1,
        options=MethodOptions(cfg.override({"skills.dir": library})), limit=limit,
    )
    feedback_llm = cfg.llm_for("feedback", llm)
    stamp = dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    out = out or Path("runs") / f"refine-{domain}-{stamp}"
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=console, transient=json_out) as bar:
        def hook(label: str, total: int) -> Callable[[], None]:
            task_id = bar.add_task(label, total=total)
            return lambda: bar.advance(task_id)

        report = refine(arena, feedback_llm, out,
                        RefineConfig(rounds=rounds_, max_new_skills=max_new, rerun_h=rerun_h,
                                     skills_dir=library), hook)
    if json_out:
        console.print_json(json.dumps(report.as_dict()))
        return
    table = Table(title=f"refinement of {domain} ({len(arena.tasks())} tasks)")
    for col in ("round", "H", "H'", "exo", "endo", "added", "dup", "invalid", "skills"):
        table.add_column(col, justify="right" if col != "added" else "left")
    for r in report.rounds:
        table.add_row(str(r.round), f"{r.score_h:.3f}", f"{r.score_hp:.3f}", str(len(r.exogenous)),
                      str(len(r.endogenous)), ", ".join(r.added) or "-", str(len(r.duplicates)),
                      str(len(r.invalid)), str(r.library_size))
    console.print(table)
    console.print(f"run directory: {shown(str(out))} (log.jsonl, report.json, {Path(report.plot or '').name})")

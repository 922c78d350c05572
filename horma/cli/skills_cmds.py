"""`horma skills ...` (inspect, compare and roll back the skill library) and `horma refine`."""

from __future__ import annotations

import json
import os
from pathlib import Path

import typer
from rich.markup import escape
from rich.table import Table

from horma.cli.common import console, fail, user_errors
from horma.skills import (
    BASE,
    ENV_DIR,
    SkillError,
    diff_rounds,
    find_skill,
    library_dir,
    load_library,
    rollback,
    rounds,
)

skills_app = typer.Typer(help="Inspect, compare and roll back the YAML skill library.", no_args_is_help=True)

DOMAIN_OPT = typer.Option("locomo", "--domain", "-d", help="Skill domain (a file skills/<domain>.yaml).")


def register(app: typer.Typer) -> None:
    app.add_typer(skills_app, name="skills")


@skills_app.callback()
def _skills(
    skills_dir: Path = typer.Option(None, "--skills-dir", help=f"Library folder (default: ${ENV_DIR} or the project's skills/)."),
) -> None:
    """The manager's skill library: base principles plus per-domain skills grown by `horma refine`."""
    if skills_dir is not None:
        os.environ[ENV_DIR] = str(skills_dir)


@skills_app.command("list")
def list_skills(
    domain: str = typer.Option(None, "--domain", "-d", help="Also list this domain's skills (default: base only)."),
    round: int = typer.Option(None, "--round", "-r", help="The domain's library as kept after this round."),
    json_out: bool = typer.Option(False, "--json", help="Print the skills as a JSON list."),
) -> None:
    """List the skills the manager would be given.

    Example: [bold]horma skills list --domain locomo[/]
    """
    with user_errors(SkillError):
        skills = load_library(domain, round)
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
        table.add_row(s.id, s.kind, str(s.round), escape(s.title), escape(opts))
    console.print(table)


@skills_app.command("show")
def show_skill(
    skill_id: str = typer.Argument(..., help="Skill id, e.g. base_004 or exo_002."),
    json_out: bool = typer.Option(False, "--json", help="Print the entry as JSON."),
) -> None:
    """Print one skill in full.

    Example: [bold]horma skills show base_004[/]
    """
    with user_errors(SkillError):
        where, skill = find_skill(skill_id)
    if json_out:
        console.print_json(json.dumps({"file": f"{where}.yaml", **skill.entry()}))
        return
    console.print(f"[bold]{escape(skill.title)}[/] [dim]({skill.id}, {skill.kind}, round {skill.round}, "
                  f"{escape(str(library_dir() / where))}.yaml)[/]")
    console.print(f"[bold]principle:[/] {escape(skill.principle)}")
    console.print(f"[bold]when:[/] {escape(skill.when)}")
    if skill.example:
        console.print(f"[bold]example:[/] {escape(skill.example)}")
    if skill.sources:
        console.print(f"[bold]sources:[/] {escape(', '.join(skill.sources))}")
    if skill.heuristic:
        console.print(f"[bold]heuristic:[/] {escape(json.dumps(skill.heuristic))}")


@skills_app.command("diff")
def diff(
    round_a: int = typer.Argument(..., help="Earlier round."),
    round_b: int = typer.Argument(..., help="Later round."),
    domain: str = DOMAIN_OPT,
    json_out: bool = typer.Option(False, "--json", help="Print added/removed/changed ids as JSON."),
) -> None:
    """What the library gained or lost between two kept rounds.

    Example: [bold]horma skills diff 0 2 --domain locomo[/]
    """
    with user_errors(SkillError):
        d = diff_rounds(domain, round_a, round_b)
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
        console.print(f"[green]+ {s.id}[/] {escape(s.title)}: {escape(s.principle)}", highlight=False)
    for s in d.removed:
        console.print(f"[red]- {s.id}[/] {escape(s.title)}", highlight=False)
    for a, b in d.changed:
        console.print(f"[yellow]~ {b.id}[/] {escape(a.title)} -> {escape(b.title)}", highlight=False)


@skills_app.command("rounds")
def list_rounds(domain: str = DOMAIN_OPT) -> None:
    """List a domain's kept rounds and their library sizes.

    Example: [bold]horma skills rounds --domain locomo[/]
    """
    with user_errors(SkillError):
        kept = rounds(domain)
        if not kept:
            fail(f"domain {domain!r} has no kept rounds yet (run `horma refine` first)")
        for r in kept:
            n = len(load_library(domain, r)) - len(load_library(None))
            console.print(f"round {r}: {n} domain skills")


@skills_app.command("rollback")
def rollback_cmd(
    round: int = typer.Argument(..., help="The kept round to make current again."),
    domain: str = DOMAIN_OPT,
) -> None:
    """Make an earlier round's library current; later rounds are set aside, not deleted.

    Example: [bold]horma skills rollback 1 --domain locomo[/]
    """
    if domain == BASE:
        fail("the base library has no rounds; roll back a domain")
    with user_errors(SkillError):
        moved = rollback(domain, round)
        size = len(load_library(domain)) - len(load_library(None))
    console.print(f"{domain}: rolled back to round {round} ({size} domain skills)")
    if moved:
        console.print(f"[dim]later rounds moved to {escape(str(moved[0].parent))}[/]")

"""`horma trace`: replay what an agent did, step by step, from the trajectories a workspace keeps."""

from __future__ import annotations

import json
from pathlib import Path

import typer
from rich.table import Table

from horma.agents.trajectory import read_trajectory
from horma.cli.common import console, plain, shown
from horma.cli.options import JSON_OPT
from horma.errors import NotFound
from horma.workspace import Workspace, WorkspaceError


def register(app: typer.Typer) -> None:
    app.command("trace")(trace)


def _runs(ws: Workspace, role: str | None) -> list[Path]:
    runs = sorted(ws.trajectories.glob("*.jsonl"))
    return [p for p in runs if role is None or f"__{role}__" in p.name]


def _pick(runs: list[Path], run: str) -> Path:
    if run.isdigit() and 1 <= int(run) <= len(runs):
        return runs[int(run) - 1]
    matches = [p for p in runs if p.name == run or p.name.startswith(run) or p.stem == run]
    if len(matches) != 1:
        what = "no run" if not matches else f"{len(matches)} runs"
        raise WorkspaceError(f"{what} matching {run!r}; list them with `horma trace WS --list`")
    return matches[0]


def trace(
    workspace: Path = typer.Argument(..., help="Workspace folder."),
    run: str | None = typer.Argument(None, help="Run file name (or its prefix, or its number in --list); "
                                                "default the latest."),
    list_runs: bool = typer.Option(False, "--list", "-l", help="List the runs instead of replaying one."),
    role: str | None = typer.Option(None, "--role", help="Only runs of this role (manager, retriever)."),
    full: bool = typer.Option(False, "--full", help="Show whole observations, not the first lines."),
    json_out: bool = JSON_OPT,
) -> None:
    """Replay a retriever or manager trajectory step by step.

    Example: [bold]horma trace ./mem --list[/]  then  [bold]horma trace ./mem 3[/]
    """
    ws = Workspace.open(workspace)
    runs = _runs(ws, role)
    if list_runs:
        _list(runs, json_out)
        return
    if not runs:
        raise NotFound(f"{workspace}: no trajectories yet (run `horma recall` or an ingest first)")
    path = _pick(runs, run) if run else runs[-1]
    records = read_trajectory(path)
    if json_out:
        console.print_json(json.dumps({"run": path.name, "records": records}, ensure_ascii=False))
        return
    _replay(path, records, full)


def _list(runs: list[Path], json_out: bool) -> None:
    rows = []
    for i, p in enumerate(runs, 1):
        recs = read_trajectory(p)
        start = recs[0] if recs and recs[0].get("type") == "start" else {}
        end = recs[-1] if recs and recs[-1].get("type") == "end" else {}
        rows.append({"n": i, "run": p.name, "role": start.get("role", "?"), "task": start.get("task", ""),
                     "steps": sum(1 for r in recs if r.get("type") == "step"),
                     "status": end.get("status", "cut off")})
    if json_out:
        console.print_json(json.dumps(rows, ensure_ascii=False))
        return
    table = Table("#", "run", "role", "task", "steps", "status")
    for r in rows:
        table.add_row(str(r["n"]), shown(r["run"]), shown(r["role"]), shown(str(r["task"])[:60]), str(r["steps"]),
                      shown(r["status"]))
    console.print(table)


def _replay(path: Path, records: list[dict], full: bool) -> None:
    start = records[0] if records and records[0].get("type") == "start" else {}
    meta = {k: v for k, v in start.items() if k not in {"type", "task", "role"}}
    console.rule(f"[bold]{shown(path.name)}[/]")
    console.print(f"[bold]{shown(start.get('role', '?'))}[/]: {shown(start.get('task', ''), newlines=True)}",
                  highlight=False)
    if meta:
        console.print(f"[dim]{shown(json.dumps(meta, ensure_ascii=False)[:300])}[/]", highlight=False)
    for rec in records:
        if rec.get("type") == "step":
            _print_step(rec, full)
        elif rec.get("type") == "end":
            rest = {k: v for k, v in rec.items() if k not in {"type", "status"}}
            console.rule(f"[bold]end: {shown(str(rec.get('status')))}[/] [dim]{shown(json.dumps(rest)[:200])}[/]")
    if not records or records[-1].get("type") != "end":
        console.rule("[yellow]cut off: the run ended without an end record[/]")


def _print_step(rec: dict, full: bool) -> None:
    args = rec.get("args") or {}
    action = rec.get("action", "?")
    command = args.get("command") if action == "bash" and "command" in args else json.dumps(args, ensure_ascii=False)
    extra = [f"exit {rec['exit_code']}"] if rec.get("exit_code") not in (None, 0) else []
    if rec.get("elapsed_ms") is not None:
        extra.append(f"{rec['elapsed_ms']:.1f} ms")
    if rec.get("input_tokens"):
        extra.append(f"{rec['input_tokens']} in / {rec.get('output_tokens', 0)} out tokens")
    console.print(f"\n[bold cyan]{shown(rec.get('step', '?'))}. {shown(action)}[/] {shown(command, newlines=True)} "
                  f"[dim]{' · '.join(extra)}[/]", highlight=False)
    if rec.get("message"):
        console.print(f"[italic]{shown(rec['message'], newlines=True)}[/]", highlight=False)
    obs = str(rec.get("observation", ""))
    lines = obs.splitlines()
    if not full and len(lines) > 12:
        obs = "\n".join(lines[:12]) + f"\n[... {len(lines) - 12} more lines; --full shows all]"
    if obs:
        console.print(plain(obs), markup=False, highlight=False, style="dim")

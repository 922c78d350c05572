"""`horma config show`: the effective settings, secrets masked; `horma config keys`: every setting documented."""

from __future__ import annotations

import json
from pathlib import Path

import typer
import yaml

from horma.cli.common import console, shown
from horma.cli.options import CONFIG_OPT
from horma.config import FIELDS, env_names, is_secret, load_config, mask, settings_table

config_app = typer.Typer(help="Inspect horma's configuration.", no_args_is_help=True)


def register(app: typer.Typer) -> None:
    app.add_typer(config_app, name="config")


@config_app.command("show")
def show(
    config: Path | None = CONFIG_OPT,
    json_out: bool = typer.Option(False, "--json", help="Print the effective config as JSON."),
    sources: bool = typer.Option(False, "--sources", "-s", help="Also say where each value comes from."),
) -> None:
    """Print the effective config (defaults < file < environment < flags) with secrets masked.

    Example: [bold]horma config show --sources[/]
    """
    cfg = load_config(config)
    if json_out:
        data = cfg.nested()
        if sources:
            data = {"config": data, "sources": cfg.sources}
        console.print_json(json.dumps(data))
        return
    if not sources:
        console.print(yaml.safe_dump(cfg.nested(), sort_keys=False).rstrip(), markup=False, highlight=False)
        return
    width = max(len(k) for k in FIELDS)
    for key, value in cfg.values().items():
        value = mask(value) if is_secret(key) else value
        value = "null" if value is None else str(value)
        console.print(f"{shown(key):<{width}}  {shown(value)}  [dim]# {shown(cfg.sources[key])}[/]", highlight=False)


@config_app.command("keys")
def keys(
    json_out: bool = typer.Option(False, "--json", help="Print the settings as a JSON list."),
    markdown: bool = typer.Option(False, "--markdown", help="Print the markdown table of docs/configuration.md."),
) -> None:
    """List every setting: its key, environment variables, default and what it does.

    Set one in the config file as [bold]section: {key: value}[/], in the environment as
    [bold]HORMA_SECTION_KEY[/] (e.g. HORMA_RECALL_BUDGET=2000), or with a command's flag.
    """
    if markdown:
        typer.echo(settings_table(), nl=False)
        return
    rows = [{"key": key, "env": env_names(key), "default": info.get_default(), "description": info.description}
            for key, info in FIELDS.items()]
    if json_out:
        console.print_json(json.dumps(rows, default=str))
        return
    width = max(len(k) for k in FIELDS)
    for row in rows:
        default = "null" if row["default"] is None else row["default"]
        about = shown(f"{', '.join(row['env'])}: {row['description']}")
        console.print(f"{row['key']:<{width}}  {shown(default)}  [dim]{about}[/]", highlight=False)

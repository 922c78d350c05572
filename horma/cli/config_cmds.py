"""`horma config show`: the effective configuration, secrets masked."""

from __future__ import annotations

import json
from pathlib import Path

import typer
import yaml

from horma.cli.common import console, shown
from horma.config import is_secret, load_config, mask

config_app = typer.Typer(help="Inspect horma's configuration.", no_args_is_help=True)


def register(app: typer.Typer) -> None:
    app.add_typer(config_app, name="config")


@config_app.command("show")
def show(
    config: Path = typer.Option(None, "--config", "-c", help="Config file (default: $HORMA_CONFIG or ~/.config/horma/config.yaml)."),
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
    width = max(len(k) for k in cfg.values)
    for key, value in cfg.values.items():
        value = mask(value) if is_secret(key) else value
        value = "null" if value is None else str(value)
        console.print(f"{shown(key):<{width}}  {shown(value)}  [dim]# {shown(cfg.sources[key])}[/]", highlight=False)

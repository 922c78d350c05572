"""The paper's efficiency-performance views, as PNG files.

- conversations: score vs mean input tokens per question, one point per run
  (method and budget), log x: the upper left is better;
- ALFWorld: steps to finish vs input tokens per step, log x, marker size by
  success rate.

A run's plot shows every run of the same benchmark found next to it (sibling
folders of its ``--out`` with a ``summary.json``), so running each method into
``runs/<bench>-<method>`` builds the comparison as you go.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

SCORE_VS_TOKENS = "score_vs_tokens.png"
STEPS_VS_TOKENS = "steps_vs_tokens.png"


def load_summary(folder: Path) -> dict[str, Any] | None:
    path = folder / "summary.json"
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError:
        return None
    return data if isinstance(data, dict) and "run" in data and "overall" in data else None


def sibling_summaries(out: Path) -> list[dict[str, Any]]:
    """Summaries of runs of the same benchmark next to ``out`` (``out`` itself first)."""
    own = load_summary(out)
    if own is None:
        return []
    found = [own]
    parent = out.resolve().parent
    for folder in sorted(p for p in parent.iterdir() if p.is_dir() and p.resolve() != out.resolve()):
        other = load_summary(folder)
        if other is not None and other["run"].get("bench") == own["run"].get("bench"):
            found.append(other)
    return found


def label(summary: dict[str, Any]) -> str:
    run = summary["run"]
    name = run.get("method", "?")
    # "policy": a summary from before manager and retriever were chosen apart
    chosen = {role: run.get(role, run.get("policy", "heuristic")) for role in ("manager", "retriever")}
    if len(set(chosen.values())) > 1:
        name += " (" + ", ".join(f"{policy} {role}" for role, policy in chosen.items()) + ")"
    elif chosen["manager"] != "heuristic":
        name += f" ({chosen['manager']})"
    return f"{name} @{run['budget']}" if run.get("budget") else name


def score_of(overall: dict[str, Any]) -> tuple[str, float] | None:
    """The headline score: judge accuracy, else F1, else strict evidence recall (retrieval-only)."""
    for key, name in (("judge", "LLM-judge accuracy"), ("f1", "token F1"),
                      ("evidence_recall", "evidence recall (strict)")):
        if overall.get(key) is not None:
            return name, float(overall[key])
    return None


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def plot_score_vs_tokens(summaries: list[dict[str, Any]], path: Path) -> Path | None:
    points = []
    for s in summaries:
        score = score_of(s["overall"])
        tokens = s["overall"].get("input_tokens")
        if score is not None and tokens:
            points.append((label(s), float(tokens), score))
    # one y axis: runs scored another way (answered vs retrieval-only) stay off this plot
    points = [p for p in points if points and p[2][0] == points[0][2][0]]
    if not points:
        return None
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(6, 4.2), dpi=120)
    for name, x, (_metric, y) in points:
        ax.scatter([x], [y], s=60)
        ax.annotate(name, (x, y), textcoords="offset points", xytext=(6, 4), fontsize=8)
    ax.set_xscale("log")
    ax.set_xlabel("input tokens per question (mean, log scale)")
    ax.set_ylabel(points[0][2][0])
    ax.set_title(f"{summaries[0]['run'].get('bench', '')}: score vs tokens")
    ax.grid(True, which="both", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return path


def plot_steps_vs_tokens(summaries: list[dict[str, Any]], path: Path) -> Path | None:
    points = [(label(s), float(s["overall"]["tokens_per_step"]), float(s["overall"]["steps"]),
               float(s["overall"].get("won") or 0.0))
              for s in summaries if s["overall"].get("tokens_per_step") and s["overall"].get("steps") is not None]
    if not points:
        return None
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(6, 4.2), dpi=120)
    for name, x, y, won in points:
        ax.scatter([x], [y], s=30 + 170 * won)
        ax.annotate(f"{name} ({won:.0%} won)", (x, y), textcoords="offset points", xytext=(6, 4), fontsize=8)
    ax.set_xscale("log")
    ax.set_xlabel("input tokens per step (mean, log scale)")
    ax.set_ylabel("steps per episode (mean)")
    ax.set_title("ALFWorld: steps vs tokens per step")
    ax.grid(True, which="both", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return path


def write_plots(out: Path) -> list[Path]:
    """The plots for the run in ``out`` (with its sibling runs); the paths written."""
    summaries = sibling_summaries(out)
    if not summaries:
        return []
    if summaries[0]["run"].get("bench") == "alfworld":
        written = [plot_steps_vs_tokens(summaries, out / STEPS_VS_TOKENS)]
    else:
        written = [plot_score_vs_tokens(summaries, out / SCORE_VS_TOKENS)]
    return [p for p in written if p is not None]

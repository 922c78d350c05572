"""The refinement report as a picture: skills and score per round (the paper's Fig. 3e)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from horma.refine import RefineReport


def plot_growth(report: RefineReport, path: Path) -> Path:
    """Skills vs round and score vs round (the paper's Fig. 3e), as a PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    xs = [report.start_round - 1] + [r.round for r in report.rounds]
    sizes = [report.start_size] + [r.library_size for r in report.rounds]
    fig, (a, b) = plt.subplots(1, 2, figsize=(9, 3.4))
    a.plot(xs, sizes, marker="o", color="tab:purple")
    a.set(title=f"{report.domain}: skill library", xlabel="round", ylabel="domain skills")
    rx = [r.round for r in report.rounds]
    b.plot(rx, [r.score_h for r in report.rounds], marker="s", label="H (raw history)")
    b.plot(rx, [r.score_hp for r in report.rounds], marker="o", label="H' (managed memory)")
    b.set(title="score per round", xlabel="round", ylabel="mean score")
    b.legend(fontsize=8)
    a.set_ylim(0, max(sizes) + 1)
    a.yaxis.get_major_locator().set_params(integer=True)
    b.set_ylim(0, 1.05)
    for ax in (a, b):
        ax.set_xticks(xs if ax is a else rx)
        ax.grid(alpha=0.3)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path

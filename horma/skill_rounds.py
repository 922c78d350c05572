"""Changing a domain's kept rounds: a refinement round saved, two rounds compared, a rollback.

:mod:`horma.skills` reads the library and its rounds (what the agents use);
this module is what ``horma refine`` and ``horma skills diff|rollback`` change.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from horma.skills import (
    Skill,
    SkillError,
    domain_file,
    history_dir,
    load_library,
    read_skill_file,
    round_file,
    rounds,
    write_skill_file,
)
from horma.workspace import now_iso


def save_round(domain: str, round: int, skills: list[Skill],
               root: str | os.PathLike[str] | None = None) -> Path:
    """Write the domain's library and keep it as round ``round``'s snapshot."""
    header = f"horma skill library: domain {domain}, after refinement round {round} ({now_iso()})"
    write_skill_file(domain_file(domain, root), skills, header)
    snap = round_file(domain, round, root)
    write_skill_file(snap, skills, header)
    return snap


@dataclass(frozen=True)
class SkillDiff:
    added: list[Skill]
    removed: list[Skill]
    changed: list[tuple[Skill, Skill]]


def diff_rounds(domain: str, a: int, b: int, root: str | os.PathLike[str] | None = None) -> SkillDiff:
    """What changed in a domain's library from round ``a`` to round ``b``."""
    old = {s.id: s for s in load_library(domain, a, root) if s.kind != "base"}
    new = {s.id: s for s in load_library(domain, b, root) if s.kind != "base"}
    return SkillDiff(
        added=[s for i, s in new.items() if i not in old],
        removed=[s for i, s in old.items() if i not in new],
        changed=[(old[i], s) for i, s in new.items() if i in old and old[i] != s],
    )


def rollback(domain: str, round: int, root: str | os.PathLike[str] | None = None) -> list[Path]:
    """Make round ``round`` the domain's current library again.

    Later snapshots are moved to ``history/<domain>/rolled_back-<time>/`` rather
    than deleted, so a rollback can itself be undone by hand, and the next
    refinement round is numbered ``round + 1``. Returns the moved files.
    """
    snap = round_file(domain, round, root)
    if not snap.is_file():
        have = ", ".join(str(r) for r in rounds(domain, root)) or "none"
        raise SkillError(f"domain {domain!r} has no kept round {round} (rounds: {have})")
    skills = read_skill_file(snap)
    later = [r for r in rounds(domain, root) if r > round]
    moved: list[Path] = []
    if later:
        dest = history_dir(domain, root) / f"rolled_back-{now_iso().replace(':', '-')}"
        dest.mkdir(parents=True, exist_ok=True)
        for r in later:
            target = dest / f"round_{r}.yaml"
            shutil.move(str(round_file(domain, r, root)), target)
            moved.append(target)
    header = f"horma skill library: domain {domain}, rolled back to round {round} ({now_iso()})"
    write_skill_file(domain_file(domain, root), skills, header)
    return moved

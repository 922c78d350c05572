"""The YAML skill library: the manager's policy, grown by contrastive refinement.

Layout of a library folder (the project's ``skills/`` by default, or the
``skills.dir`` setting, ``$HORMA_SKILLS_DIR``):

- ``base.yaml``: domain-agnostic starting principles (kind ``base``).
- ``<domain>.yaml``: one file per domain (``locomo``, ``alfworld`` ...); it
  starts empty or nearly so and grows by refinement rounds.
- ``history/<domain>/round_<N>.yaml``: the domain file as it stood after round
  ``N`` (``round_0`` is the library refinement started from), kept so rounds
  can be compared (``horma skills diff``) and rolled back (``horma skills rollback``).

Each file is a YAML list of entries (see docs/skills.md). Loading validates
every entry and names the file and entry of any problem, because a silently
skipped skill would change the manager's policy without anyone noticing.

The optional ``heuristic:`` field of an entry names options of the zero-LLM
manager (:data:`HEURISTIC_OPTIONS`), so that a learned skill has an effect
offline too; options are only ever taken from that field, never read into prose.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from horma import resources
from horma.errors import BadArgument
from horma.workspace import atomic_write

BASE = "base"
HISTORY_DIR = "history"
KIND_PREFIX = {"exogenous": "exo_", "endogenous": "end_"}
_DOMAIN_RE = re.compile(r"^[a-z0-9][a-z0-9_\-]*$")
_ROUND_RE = re.compile(r"^round_(\d+)\.yaml$")

# Options of the zero-LLM manager a skill may switch on through ``heuristic:``.
# name -> (value type, what it does). The heuristic manager receives the dict
# built by :func:`heuristic_options` and applies the options it knows.
HEURISTIC_OPTIONS: dict[str, tuple[type, str]] = {
    "entity_notes": (bool, "one note per person/entity, linking every raw line that mentions it"),
    "session_notes": (bool, "one note per session/segment with its date, participants and key events"),
    "topic_notes": (bool, "group lines about the same topic or relation (family, work, hobbies) into topic notes"),
    "timeline": (bool, "a dated timeline note of events, newest segment last"),
    "anchor_relative_dates": (bool, "rewrite relative time words (yesterday, last week) as absolute dates from the "
                                    "segment date"),
    "verbatim_quotes": (bool, "copy the exact text of salient turns into notes instead of key phrases only"),
    "session_gists": (bool, "session notes give each turn's first words, not only its id, line and dates"),
    "quote_mentions": (bool, "people/entity/topic pages give each mention's first words, not only a pointer"),
    "keep_numbers": (bool, "always keep lines with numbers, counts, prices or durations in notes"),
    "track_state": (bool, "keep a current-state note (locations of objects, last known facts) updated per segment"),
    "max_key_phrases": (int, "how many key phrases a session note lists"),
}


class SkillError(BadArgument):
    """A skill file or entry that cannot be used; worded for the user."""


class Skill(BaseModel):
    """One entry of a skill library (the format of skills/*.yaml; the fields below are the schema)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(pattern=r"^[a-z][a-z0-9_\-]*$")
    kind: Literal["base", "exogenous", "endogenous"]
    title: str = Field(min_length=1)
    principle: str = Field(min_length=1)
    when: str = Field(min_length=1)
    example: str = ""
    round: int = Field(default=0, ge=0)
    sources: list[str] = Field(default_factory=list)
    heuristic: dict[str, bool | int] | None = None

    @field_validator("title", "principle", "when", "example", mode="before")
    @classmethod
    def _strip(cls, v: Any) -> Any:
        return v.strip() if isinstance(v, str) else v

    @field_validator("sources", mode="before")
    @classmethod
    def _sources(cls, v: Any) -> Any:
        if v is None:
            return []
        if isinstance(v, list):
            return [str(s) for s in v]
        return v

    @field_validator("heuristic", mode="before")
    @classmethod
    def _heuristic(cls, v: Any) -> Any:
        """``heuristic: verbatim_quotes`` is short for ``{verbatim_quotes: true}``."""
        if v is None or isinstance(v, dict):
            return v
        if isinstance(v, str):
            return {v: True}
        if isinstance(v, list) and all(isinstance(x, str) for x in v):
            return {x: True for x in v}
        raise ValueError("must be an option name, a list of names, or a mapping of option: value")

    @model_validator(mode="after")
    def _check(self) -> Skill:
        prefix = KIND_PREFIX.get(self.kind)
        if prefix and not self.id.startswith(prefix):
            raise ValueError(f"a {self.kind} skill's id must start with {prefix!r}")
        for name, value in (self.heuristic or {}).items():
            if name not in HEURISTIC_OPTIONS:
                known = ", ".join(sorted(HEURISTIC_OPTIONS))
                raise ValueError(f"heuristic option {name!r} is unknown (known: {known})")
            want = HEURISTIC_OPTIONS[name][0]
            if want is bool and not isinstance(value, bool):
                raise ValueError(f"heuristic option {name!r} takes true or false")
            if want is int and (isinstance(value, bool) or not isinstance(value, int)):
                raise ValueError(f"heuristic option {name!r} takes an integer")
        return self

    def entry(self) -> dict[str, Any]:
        """The entry as written to YAML (empty optional fields left out)."""
        d = self.model_dump()
        if not d["example"]:
            del d["example"]
        if d["heuristic"] is None:
            del d["heuristic"]
        return d


# -- files -------------------------------------------------------------------
def library_dir(root: str | os.PathLike[str] | None = None) -> Path:
    """The library folder: ``root``, else the ``skills.dir`` setting (config file, ``$HORMA_SKILLS_DIR``),
    else the project's ``skills/``. Code that holds its settings passes ``root`` (the manager does)."""
    if root is not None:
        return Path(root)
    from horma.config import load_config

    return load_config().skills.dir or resources.SKILLS


def _check_domain(domain: str) -> None:
    if not _DOMAIN_RE.match(domain) or domain in {BASE, HISTORY_DIR}:
        raise SkillError(f"{domain!r} is not a valid domain name (lowercase letters, digits, '-', '_')")


def domain_file(domain: str, root: str | os.PathLike[str] | None = None) -> Path:
    _check_domain(domain)
    return library_dir(root) / f"{domain}.yaml"


def domains(root: str | os.PathLike[str] | None = None) -> list[str]:
    """Domains that have a skill file."""
    d = library_dir(root)
    return sorted(p.stem for p in d.glob("*.yaml") if p.stem != BASE and _DOMAIN_RE.match(p.stem))


def _describe(loc: tuple) -> str:
    return ".".join(str(x) for x in loc) or "entry"


def parse_skills(text: str, where: str) -> list[Skill]:
    """Validate a skill file's text; errors name ``where``, the entry and the field."""
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        at = f" at line {mark.line + 1}" if mark else ""
        raise SkillError(f"{where}: malformed YAML{at}") from exc
    if data is None:
        return []
    if not isinstance(data, list):
        raise SkillError(f"{where}: a skill file is a YAML list of entries, got {type(data).__name__}")
    skills: list[Skill] = []
    seen: set[str] = set()
    for i, raw in enumerate(data, 1):
        label = f"entry {i}"
        if isinstance(raw, dict) and isinstance(raw.get("id"), str):
            label += f" ({raw['id']})"
        if not isinstance(raw, dict):
            raise SkillError(f"{where}: {label}: must be a mapping of fields, got {type(raw).__name__}")
        try:
            skill = Skill.model_validate(raw)
        except ValidationError as exc:
            err = exc.errors()[0]
            msg = err["msg"].removeprefix("Value error, ")
            field = _describe(err["loc"])
            raise SkillError(f"{where}: {label}: {field}: {msg}") from None
        if skill.id in seen:
            raise SkillError(f"{where}: {label}: duplicate id {skill.id!r}")
        seen.add(skill.id)
        skills.append(skill)
    return skills


def read_skill_file(path: Path) -> list[Skill]:
    if not path.is_file():
        raise SkillError(f"{path}: no such skill file")
    return parse_skills(path.read_text(encoding="utf-8"), str(path))


def write_skill_file(path: Path, skills: Iterable[Skill], header: str = "") -> None:
    """Write a skill file atomically, so a crash never leaves a half library."""
    entries = [s.entry() for s in skills]
    body = yaml.safe_dump(entries, sort_keys=False, allow_unicode=True, width=100) if entries else "[]\n"
    head = "".join(f"# {line}\n" if line else "#\n" for line in header.splitlines())
    atomic_write(path, head + body)


def load_library(
    domain: str | None,
    round: int | None = None,
    root: str | os.PathLike[str] | None = None,
) -> list[Skill]:
    """Base skills plus the domain's (as of refinement ``round`` when given).

    Ids are unique across the two files: a domain skill may not shadow a base one.
    """
    lib = library_dir(root)
    skills = read_skill_file(lib / f"{BASE}.yaml")
    if domain is None:
        if round is not None:
            raise SkillError("a round needs a domain: rounds are kept per domain")
        return skills
    if round is None:
        path = domain_file(domain, root)
        if not path.is_file():
            known = ", ".join(domains(root)) or "none"
            raise SkillError(f"no skill file for domain {domain!r} in {lib} (domains: {known})")
    else:
        path = round_file(domain, round, root)
        if not path.is_file():
            have = ", ".join(str(r) for r in rounds(domain, root)) or "none"
            raise SkillError(f"domain {domain!r} has no kept round {round} (rounds: {have})")
    own = read_skill_file(path)
    base_ids = {s.id for s in skills}
    for s in own:
        if s.id in base_ids:
            raise SkillError(f"{path}: skill {s.id!r} repeats an id of {BASE}.yaml")
    return skills + own


def find_skill(skill_id: str, root: str | os.PathLike[str] | None = None) -> tuple[str, Skill]:
    """The library file (``base`` or a domain) holding a skill, and the skill."""
    for name in [BASE, *domains(root)]:
        for s in read_skill_file(library_dir(root) / f"{name}.yaml"):
            if s.id == skill_id:
                return name, s
    raise SkillError(f"no skill with id {skill_id!r} in {library_dir(root)}")


# -- what the agents read ----------------------------------------------------
def render_for_prompt(domain: str | None, round: int | None = None,
                      root: str | os.PathLike[str] | None = None) -> str:
    """The skill library as prompt text for the manager (``prompts/skills.md.j2``)."""
    from horma.prompts import render_prompt

    skills = load_library(domain, round, root)
    return render_prompt(
        "skills",
        domain=domain,
        base=[s for s in skills if s.kind == "base"],
        learned=[s for s in skills if s.kind != "base"],
    )


def heuristic_options(domain: str | None, round: int | None = None,
                      root: str | os.PathLike[str] | None = None) -> dict[str, bool | int]:
    """Options for the zero-LLM manager, from the ``heuristic:`` fields of the library.

    Skills apply in library order (base first, then by round), so a later
    skill's setting of an option wins over an earlier one.
    """
    skills = load_library(domain, round, root)
    out: dict[str, bool | int] = {}
    for s in sorted(skills, key=lambda s: (s.kind != "base", s.round)):
        out.update(s.heuristic or {})
    return out


# -- duplicates --------------------------------------------------------------
_STOP = frozenset(
    [
        "a", "an", "and", "are", "as", "at", "be", "by", "for", "from", "in", "into", "is", "it", "its", "of",
        "on", "or", "that", "the", "their", "them", "then", "this", "to", "when", "where", "which", "while",
        "with", "each", "every", "any", "all", "not", "no", "do", "does", "should", "must", "can", "it's",
    ]
)


def principle_terms(text: str) -> frozenset[str]:
    """Content words of a principle, lowercased, lightly stemmed (plural/-ing/-ed)."""
    out = set()
    for w in re.findall(r"[a-z0-9]+", text.lower()):
        if w in _STOP or len(w) < 2:
            continue
        for suf in ("ing", "ed", "es", "s"):
            if len(w) > len(suf) + 3 and w.endswith(suf):
                w = w[: -len(suf)]
                break
        out.add(w)
    return frozenset(out)


def similarity(a: str, b: str) -> float:
    """Jaccard overlap of two texts' content words."""
    ta, tb = principle_terms(a), principle_terms(b)
    if not ta or not tb:
        return 0.0
    return len(ta & tb) / len(ta | tb)


DUPLICATE_THRESHOLD = 0.6


def find_duplicate(title: str, principle: str, existing: Iterable[Skill],
                   threshold: float = DUPLICATE_THRESHOLD) -> Skill | None:
    """An existing skill saying the same thing: same title, or principles overlapping >= threshold.

    The principle decides, not the title: the same rule under another name is
    still the same rule, and it would only make the prompt longer.
    """
    key = " ".join(sorted(principle_terms(title)))
    best: tuple[float, Skill | None] = (threshold, None)
    for s in existing:
        if key and key == " ".join(sorted(principle_terms(s.title))):
            return s
        sim = similarity(principle, s.principle)
        if sim >= best[0]:
            best = (sim, s)
    return best[1]


def next_id(kind: str, existing: Iterable[Skill]) -> str:
    """The next free ``exo_NNN`` / ``end_NNN`` id."""
    prefix = KIND_PREFIX[kind]
    nums = [int(s.id[len(prefix):]) for s in existing
            if s.id.startswith(prefix) and s.id[len(prefix):].isdigit()]
    return f"{prefix}{max(nums, default=0) + 1:03d}"


# -- rounds: history, diff, rollback -----------------------------------------
def history_dir(domain: str, root: str | os.PathLike[str] | None = None) -> Path:
    _check_domain(domain)
    return library_dir(root) / HISTORY_DIR / domain


def round_file(domain: str, round: int, root: str | os.PathLike[str] | None = None) -> Path:
    return history_dir(domain, root) / f"round_{round}.yaml"


def rounds(domain: str, root: str | os.PathLike[str] | None = None) -> list[int]:
    """Kept rounds of a domain, ascending."""
    d = history_dir(domain, root)
    if not d.is_dir():
        return []
    return sorted(int(m.group(1)) for p in d.iterdir() if (m := _ROUND_RE.match(p.name)))

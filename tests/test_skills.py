"""The YAML skill library: validation, prompt rendering, heuristic options, rounds and rollback."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from horma import resources
from horma.cli import app
from horma.skill_rounds import diff_rounds, rollback, save_round
from horma.skills import (
    HEURISTIC_OPTIONS,
    Skill,
    SkillError,
    domains,
    find_duplicate,
    heuristic_options,
    load_library,
    next_id,
    parse_skills,
    render_for_prompt,
    round_file,
    rounds,
)

GOOD = """
- id: exo_001
  kind: exogenous
  title: Keep Numbers
  principle: Keep every count, price and duration exactly as stated.
  when: A turn mentions a number.
  round: 1
  sources: [conv-1/q3]
  heuristic: keep_numbers
"""


@pytest.fixture
def lib(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the project's library, so tests never touch skills/."""
    root = tmp_path / "skills"
    root.mkdir()
    shutil.copy(resources.SKILLS / "base.yaml", root / "base.yaml")
    (root / "locomo.yaml").write_text("[]\n")
    monkeypatch.setenv("HORMA_SKILLS_DIR", str(root))
    return root


def skill(id: str, kind: str, title: str, principle: str, round: int = 1, **kw) -> Skill:
    return Skill(id=id, kind=kind, title=title, principle=principle, when="always", round=round, **kw)


def test_project_library_loads_for_every_domain() -> None:
    assert {"locomo", "alfworld"} <= set(domains(resources.SKILLS))
    base = load_library(None, root=resources.SKILLS)
    titles = {s.title for s in base}
    assert {"Entity Tracking", "Event Abstraction", "Relation Grouping", "Temporal Anchoring",
            "Verbatim Provenance"} <= titles
    for d in domains(resources.SKILLS):
        skills = load_library(d, root=resources.SKILLS)
        assert len({s.id for s in skills}) == len(skills)


def test_parse_good_entry_and_shorthand_heuristic() -> None:
    [s] = parse_skills(GOOD, "x.yaml")
    assert s.id == "exo_001" and s.round == 1 and s.sources == ["conv-1/q3"]
    assert s.heuristic == {"keep_numbers": True}
    assert s.entry()["heuristic"] == {"keep_numbers": True} and "example" not in s.entry()


@pytest.mark.parametrize("text, message", [
    ("- id: exo_001\n  kind: exogenous\n  title: T\n  when: w\n",
     "x.yaml: entry 1 (exo_001): principle: Field required"),
    ("- id: exo_001\n  kind: sideways\n  title: T\n  principle: p\n  when: w\n", "entry 1 (exo_001): kind"),
    ("- id: end_001\n  kind: exogenous\n  title: T\n  principle: p\n  when: w\n", "must start with 'exo_'"),
    ("- id: exo_001\n  kind: exogenous\n  title: T\n  principle: p\n  when: w\n  colour: red\n", "colour"),
    ("- id: exo_001\n  kind: exogenous\n  title: T\n  principle: p\n  when: w\n  heuristic: fly\n",
     "heuristic option 'fly' is unknown"),
    ("- id: exo_001\n  kind: exogenous\n  title: T\n  principle: p\n  when: w\n  heuristic: {max_key_phrases: true}\n",
     "takes an integer"),
    ("- id: exo_001\n  kind: exogenous\n  title: T\n  principle: p\n  when: w\n  round: -1\n", "round"),
    (GOOD + GOOD.replace("- id", "- id", 1), "entry 2 (exo_001): duplicate id 'exo_001'"),
    ("- just a string\n", "entry 1: must be a mapping"),
    ("id: exo_001\n", "a skill file is a YAML list"),
    ("- id: [unclosed\n", "x.yaml: malformed YAML at line"),
])
def test_schema_errors_name_file_entry_and_field(text: str, message: str) -> None:
    with pytest.raises(SkillError) as info:
        parse_skills(text, "x.yaml")
    assert message in str(info.value)


def test_domain_may_not_shadow_a_base_id(lib: Path) -> None:
    (lib / "locomo.yaml").write_text(
        "- id: base_001\n  kind: base\n  title: T\n  principle: p\n  when: w\n")
    with pytest.raises(SkillError, match=r"repeats an id of base\.yaml"):
        load_library("locomo")


def test_unknown_domain_and_bad_domain_name(lib: Path) -> None:
    with pytest.raises(SkillError, match=r"no skill file for domain 'chess'.*domains: locomo"):
        load_library("chess")
    with pytest.raises(SkillError, match="not a valid domain name"):
        load_library("../etc")


def test_render_and_heuristic_options_follow_the_library(lib: Path) -> None:
    (lib / "locomo.yaml").write_text(GOOD + """
- id: end_001
  kind: endogenous
  title: Short Key Phrases
  principle: List only the most telling phrases of a session.
  when: Writing a session note.
  round: 2
  heuristic: {max_key_phrases: 4, timeline: false}
""")
    text = render_for_prompt("locomo")
    assert "Temporal Anchoring" in text and "Keep Numbers" in text and "`end_001`, endogenous, round 2" in text
    assert "Keep Numbers" not in render_for_prompt(None)
    opts = heuristic_options("locomo")
    assert opts["keep_numbers"] is True and opts["max_key_phrases"] == 4
    assert opts["timeline"] is False  # the later (round 2) skill overrides the base one
    assert opts["entity_notes"] is True
    assert set(opts) <= set(HEURISTIC_OPTIONS)


def test_duplicates_are_judged_by_principle_not_title() -> None:
    lib = [skill("exo_001", "exogenous", "Verbatim Quote Preservation",
                 "Keep exact quotes of user statements in notes, not paraphrases.")]
    same = find_duplicate("Preserve Original Wording",
                          "Keep the exact quotes of user statements in the notes rather than paraphrases.", lib)
    assert same is not None and same.id == "exo_001"
    assert find_duplicate("verbatim quote preservation", "something else entirely", lib) is not None
    assert find_duplicate("Date Every Event", "Give each event an absolute calendar date.", lib) is None
    assert next_id("exogenous", lib) == "exo_002" and next_id("endogenous", lib) == "end_001"


def test_rounds_diff_and_rollback(lib: Path) -> None:
    a = skill("exo_001", "exogenous", "A", "alpha principle about numbers")
    b = skill("end_001", "endogenous", "B", "beta principle about dates", round=2)
    save_round("locomo", 0, [])
    save_round("locomo", 1, [a])
    save_round("locomo", 2, [a, b])
    assert rounds("locomo") == [0, 1, 2]
    d = diff_rounds("locomo", 0, 2)
    assert [s.id for s in d.added] == ["exo_001", "end_001"] and not d.removed
    assert [s.id for s in load_library("locomo", 1) if s.kind != "base"] == ["exo_001"]

    moved = rollback("locomo", 1)
    assert [s.id for s in load_library("locomo") if s.kind != "base"] == ["exo_001"]
    assert rounds("locomo") == [0, 1]
    assert [p.name for p in moved] == ["round_2.yaml"] and moved[0].is_file()  # set aside, not deleted
    with pytest.raises(SkillError, match="no kept round 7"):
        rollback("locomo", 7)


def test_cli_list_show_diff_rollback(lib: Path) -> None:
    runner = CliRunner()
    save_round("locomo", 0, [])
    save_round("locomo", 1, [skill("exo_001", "exogenous", "Keep Numbers", "Keep every count exactly.")])

    out = runner.invoke(app, ["skills", "list", "--domain", "locomo", "--json"])
    assert out.exit_code == 0, out.output
    assert "exo_001" in [s["id"] for s in json.loads(out.output)]

    out = runner.invoke(app, ["skills", "show", "exo_001", "--json"])
    assert out.exit_code == 0 and json.loads(out.output)["file"] == "locomo.yaml"

    out = runner.invoke(app, ["skills", "diff", "0", "1", "--domain", "locomo", "--json"])
    assert [s["id"] for s in json.loads(out.output)["added"]] == ["exo_001"]

    out = runner.invoke(app, ["skills", "rollback", "0", "--domain", "locomo"])
    assert out.exit_code == 0 and "rolled back to round 0" in out.output
    assert (lib / "locomo.yaml").read_text().rstrip().endswith("[]")
    assert not round_file("locomo", 1).exists()

    bad = runner.invoke(app, ["skills", "show", "exo_999"])
    assert bad.exit_code == 2 and "no skill with id 'exo_999'" in bad.output

    (lib / "locomo.yaml").write_text("- id: exo_001\n  kind: exogenous\n")
    before = (lib / "locomo.yaml").read_text()
    bad = runner.invoke(app, ["skills", "list", "--domain", "locomo"])
    assert bad.exit_code == 2 and "locomo.yaml: entry 1 (exo_001): title: Field required" in bad.output
    assert (lib / "locomo.yaml").read_text() == before

"""Contrastive refinement end to end: two rounds through a loopback LLM server speaking the real wire format."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest
from loopback import LoopbackServer, fault, say  # tests/ is on sys.path under pytest
from typer.testing import CliRunner

from horma import resources
from horma.cli import app
from horma.llm import make_llm
from horma.refine import (
    H_PRIME,
    H,
    Outcome,
    RefineConfig,
    RefineError,
    RefineTask,
    refine,
    shorten,
)
from horma.skill_proposals import ProposalError, parse_proposals, review_proposals
from horma.skills import heuristic_options, load_library, read_skill_file, rounds


@pytest.fixture
def lib(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "skills"
    root.mkdir()
    shutil.copy(resources.SKILLS / "base.yaml", root / "base.yaml")
    (root / "locomo.yaml").write_text("[]\n")
    monkeypatch.setenv("HORMA_SKILLS_DIR", str(root))
    return root


class OptionArena:
    """A tiny benchmark whose managed memory depends on the skill library, read fresh per run.

    ``q-count`` needs a number the default heuristic notes drop: H' answers it
    only once a skill switches on ``keep_numbers``. ``q-date`` is one where the
    raw history's noise misleads the answer model and the notes do not.
    ``q-easy`` both get right. Contexts are what each condition "saw".
    """

    domain = "locomo"
    history = "D1:1 Ann: I ran 3 marathons this year.\nD1:2 Bob: nice\n" + "D1:3 Bob: filler words\n" * 50

    def __init__(self) -> None:
        self.runs: list[tuple[str, int]] = []

    def tasks(self) -> list[RefineTask]:
        return [
            RefineTask("conv-1/q1", "How many marathons did Ann run?", "3", "single-hop",
                       "D1:1 Ann: I ran 3 marathons"),
            RefineTask("conv-1/q2", "When did Ann move?", "May 2023", "temporal"),
            RefineTask("conv-1/q3", "Who is Bob?", "Ann's friend", "single-hop"),
        ]

    def run(self, condition: str, tasks: Sequence[RefineTask], workdir: Path,
            advance: Callable[[], None]) -> dict[str, Outcome]:
        workdir.mkdir(parents=True, exist_ok=True)
        options = heuristic_options(self.domain)
        self.runs.append((condition, len(load_library(self.domain))))
        out = {}
        for t in tasks:
            if condition == H:
                ok = t.id != "conv-1/q2"
                ctx = self.history
            else:
                ok = t.id != "conv-1/q1" or bool(options.get("keep_numbers"))
                ctx = "notes/people/ann.md: ran marathons (D1:1)" + (" count: 3" if ok else "")
            out[t.id] = Outcome(t.id, ok, 1.0 if ok else 0.0, t.reference if ok else "unknown", ctx, len(ctx.split()))
            advance()
        return out


PROPOSALS_R1 = {"skills": [
    {"kind": "exogenous", "title": "Keep Exact Quantities",
     "principle": "Copy every count, amount and duration into the entity note exactly as stated.",
     "when": "A turn mentions a number.", "example": "notes/people/ann.md: ran 3 marathons (D1:1)",
     "sources": ["conv-1/q1", "not-a-task"], "heuristic": {"keep_numbers": True}},
    {"kind": "endogenous", "title": "Drop Small Talk",
     "principle": "Leave greetings and filler out of notes so the evidence stands out.",
     "when": "A turn carries no fact."},
    # the base Temporal Anchoring principle again, under another title: a duplicate
    {"kind": "exogenous", "title": "Calendar Everything",
     "principle": "Give every event an absolute date taken from the session date, resolving relative words "
                  "against it, and keep a dated timeline.",
     "when": "Always."},
    {"kind": "sideways", "title": "Bad Kind", "principle": "p", "when": "w"},
    {"kind": "endogenous", "title": "No When", "principle": "A principle with no trigger at all here."},
]}

PROPOSALS_R2 = {"skills": [
    # round 1's skill restated under another title: a duplicate
    {"kind": "endogenous", "title": "Filter Chit-Chat",
     "principle": "Leave greetings and filler out of the notes so that the evidence stands out.",
     "when": "Small talk."},
]}


def test_two_round_refinement_through_loopback(lib: Path, tmp_path: Path) -> None:
    arena = OptionArena()
    script = [
        # round 1: exogenous q1, endogenous q2 -> two feedback calls
        say("H' lost the count 3: the entity note kept the topic but not the number. Keep quantities."),
        fault(500),  # the endogenous feedback call fails (no retries configured): logged, skipped
        # augmentation: invalid JSON first, then the retry
        say('Here you go: {"skills": [{"kind": "exogenous", "title": "Oops" '),
        say("```json\n" + json.dumps(PROPOSALS_R1) + "\n```"),
        # round 2: q1 now succeeds with H' (keep_numbers), q2 still endogenous
        say("The notes left out the filler that misled H."),
        say(json.dumps(PROPOSALS_R2)),
    ]
    out = tmp_path / "run"
    with LoopbackServer("openai", script) as srv:
        llm = make_llm(f"openai:test-model@{srv.base_url}", api_key="sk-test", max_retries=0)
        report = refine(arena, llm, out, RefineConfig(rounds=2, context_cap=40))
        assert srv.remaining == 0
        bodies = [r.body for r in srv.requests]

    # round 1: sets, failed feedback, the retry, validation and dedup
    r1, r2 = report.rounds
    assert (r1.round, r2.round) == (1, 2)
    assert r1.exogenous == ["conv-1/q1"] and r1.endogenous == ["conv-1/q2"]
    assert r1.feedback_failed == ["conv-1/q2"]
    assert r1.added == ["exo_001", "end_001"]
    assert [d["duplicate_of"] for d in r1.duplicates] == ["base_004"]
    assert {i["proposal"] for i in r1.invalid} == {"4", "5"}
    assert r1.score_h == pytest.approx(2 / 3) and r1.score_hp == pytest.approx(2 / 3)

    # round 2: the learned heuristic option took effect; the restated skill was a duplicate
    assert r2.exogenous == [] and r2.endogenous == ["conv-1/q2"]
    assert r2.score_hp == pytest.approx(1.0) and r2.h_reused
    assert r2.added == [] and [d["duplicate_of"] for d in r2.duplicates] == ["end_001"]
    base = len(read_skill_file(resources.SKILLS / "base.yaml"))  # the shipped base library, then round 1's two
    assert arena.runs == [(H, base), (H_PRIME, base), (H_PRIME, base + 2)]

    # the library, its rounds and its sources
    skills = {s.id: s for s in read_skill_file(lib / "locomo.yaml")}
    assert list(skills) == ["exo_001", "end_001"]
    assert skills["exo_001"].sources == ["conv-1/q1"] and skills["exo_001"].round == 1
    assert skills["exo_001"].heuristic == {"keep_numbers": True}
    assert skills["end_001"].sources == []  # its only task's feedback call failed
    assert rounds("locomo") == [0, 1, 2]
    assert heuristic_options("locomo")["keep_numbers"] is True

    # what the model was told: both contexts (shortened), the evidence, the options
    fb = bodies[0]["messages"][-1]["content"]
    assert "How many marathons did Ann run?" in fb and "D1:1 Ann: I ran 3 marathons" in fb
    assert "tokens left out" in fb and "notes/people/ann.md" in fb
    assert bodies[0]["messages"][0]["role"] == "system"
    augment = bodies[3]["messages"]
    assert "keep_numbers" in augment[1]["content"] and "could not be used" in augment[-1]["content"]
    assert "H' lost the count 3" in augment[1]["content"]

    # every call and decision on disk
    calls = sorted((out / "round_1" / "calls").glob("*.json"))
    assert len(calls) == 4
    failed = json.loads(calls[1].read_text())
    assert "error" in failed and "500" in failed["error"]
    events = [json.loads(line)["event"] for line in (out / "log.jsonl").read_text().splitlines()]
    for e in ("contrastive_sets", "feedback_failed", "augment_invalid_json", "skill_added",
              "skill_duplicate", "skill_invalid", "round_end", "end"):
        assert e in events
    saved = json.loads((out / "report.json").read_text())
    assert [r["added"] for r in saved["rounds"]] == [["exo_001", "end_001"], []]
    assert len((out / "round_2" / "outcomes.jsonl").read_text().splitlines()) == 3
    assert (out / "skill_growth.png").read_bytes()[:4] == b"\x89PNG"

    # roll back to round 1 from the CLI: the library is round 1's, round 2 is set aside
    res = CliRunner().invoke(app, ["skills", "rollback", "0", "--domain", "locomo"])
    assert res.exit_code == 0, res.output
    assert read_skill_file(lib / "locomo.yaml") == []
    assert rounds("locomo") == [0]


def test_both_augmentation_replies_invalid_adds_nothing(lib: Path, tmp_path: Path) -> None:
    script = [say("feedback one"), say("feedback two"), say("no json here"), say("{still not json")]
    with LoopbackServer("anthropic", script) as srv:
        llm = make_llm(f"anthropic:test-model@{srv.base_url}", api_key="sk-test", max_retries=0)
        report = refine(OptionArena(), llm, tmp_path / "run", RefineConfig(rounds=1))
        assert srv.remaining == 0
    assert report.rounds[0].added == []
    assert read_skill_file(lib / "locomo.yaml") == []
    log = (tmp_path / "run" / "log.jsonl").read_text()
    assert "augment_skipped" in log and rounds("locomo") == [0, 1]


def test_broken_library_fails_before_any_llm_call(lib: Path, tmp_path: Path) -> None:
    (lib / "locomo.yaml").write_text("- id: exo_001\n  kind: exogenous\n")
    with LoopbackServer("openai", []) as srv:
        llm = make_llm(f"openai:m@{srv.base_url}", api_key="k", max_retries=0)
        with pytest.raises(Exception, match=r"locomo.yaml: entry 1 \(exo_001\): title"):
            refine(OptionArena(), llm, tmp_path / "run", RefineConfig())
        assert srv.requests == []
    assert rounds("locomo") == []


def test_no_tasks_is_an_error(lib: Path, tmp_path: Path) -> None:
    class Empty(OptionArena):
        def tasks(self) -> list[RefineTask]:
            return []

    with pytest.raises(RefineError, match="no tasks"):
        refine(Empty(), None, tmp_path / "run", RefineConfig())  # type: ignore[arg-type]


def test_parse_proposals_shapes() -> None:
    assert parse_proposals('{"skills": []}') == []
    assert parse_proposals('Sure:\n```json\n[{"kind": "exogenous"}]\n```') == [{"kind": "exogenous"}]
    assert parse_proposals('prefix {"skills": [{"a": 1}]} suffix') == [{"a": 1}]
    for bad in ("nothing", '{"skills": [', '{"other": 1}'):
        with pytest.raises(ProposalError):
            parse_proposals(bad)


def test_review_numbers_after_existing_ids(lib: Path) -> None:
    library = load_library("locomo")
    review = review_proposals(
        [{"kind": "exogenous", "title": "A", "principle": "keep quantities exactly", "when": "w"},
         {"kind": "exogenous", "title": "B", "principle": "name files after the people in them", "when": "w"}],
        library, 3, {"exogenous": ["t1"]})
    assert [s.id for s in review.accepted] == ["exo_001", "exo_002"]
    assert all(s.round == 3 and s.sources == ["t1"] for s in review.accepted)


def test_shorten_keeps_head_and_tail() -> None:
    text = " ".join(f"w{i}" for i in range(100))
    short, cut = shorten(text, 10)
    assert cut and short.startswith("w0 w1 w2 w3 w4") and short.endswith("w95 w96 w97 w98 w99")
    assert shorten("a b c", 10) == ("a b c", False)


def locomo_fixture(path: Path) -> Path:
    """A two-session conversation in the locomo10.json format, with three questions (written here)."""
    sample = {
        "sample_id": "conv-x",
        "conversation": {
            "speaker_a": "Ann", "speaker_b": "Bob",
            "session_1_date_time": "1:56 pm on 8 May, 2023",
            "session_1": [
                {"speaker": "Ann", "dia_id": "D1:1", "text": "I ran 3 marathons this year, the last one in Oslo."},
                {"speaker": "Bob", "dia_id": "D1:2", "text": "Impressive! I adopted a dog named Pixel yesterday."},
            ],
            "session_2_date_time": "10:00 am on 20 June, 2023",
            "session_2": [
                {"speaker": "Ann", "dia_id": "D2:1", "text": "I started a pottery class last week."},
                {"speaker": "Bob", "dia_id": "D2:2", "text": "Pixel chewed my shoes again."},
            ],
        },
        "qa": [
            {"question": "How many marathons did Ann run?", "answer": "3", "evidence": ["D1:1"], "category": 4},
            {"question": "What is the name of Bob's dog?", "answer": "Pixel", "evidence": ["D1:2"], "category": 4},
            {"question": "What instrument does Ann play?", "adversarial_answer": "violin", "evidence": [],
             "category": 5},
        ],
    }
    path.write_text(json.dumps([sample]))
    return path


def user_text(body: dict) -> str:
    """The first user message of an Anthropic request, as text (content may be a list of blocks)."""
    content = body["messages"][0]["content"]
    return content if isinstance(content, str) else "".join(b.get("text", "") for b in content)


def test_cli_refine_locomo_end_to_end(lib: Path, tmp_path: Path) -> None:
    """`horma refine locomo` on a fixture: real H (full) and H' (heuristic horma) runs, answers and
    feedback from a loopback Anthropic server; two rounds, the library and the run directory on disk."""
    data = locomo_fixture(tmp_path / "locomo.json")
    proposal = {"skills": [
        {"kind": "exogenous", "title": "Keep Counts", "heuristic": "keep_numbers",
         "principle": "Keep every count of things a person did, with the number as stated.",
         "when": "A turn states how many times something happened."},
        {"kind": "endogenous", "title": "Anchor Dates Again",  # base_004 restated: a duplicate
         "principle": "Give every event an absolute date taken from the session date, resolving relative "
                      "words against it, and keep a dated timeline.", "when": "Always."},
    ]}
    script = [
        say("3"), say("Rex"), say("Not mentioned in memory."),          # round 1, H: q0 right, q1 wrong, q2 right
        say("two"), say("Pixel"), say("Not mentioned in memory."),      # round 1, H': q0 wrong, q1 right, q2 right
        say("The count was dropped from the notes."),                   # feedback: exogenous conv-x/q0
        say("The notes put the dog's name next to its owner."),         # feedback: endogenous conv-x/q1
        say(json.dumps(proposal)),                                      # augmentation
        say("3"), say("Pixel"), say("Not mentioned in memory."),        # round 2, H' only: all right
        say("Owner and pet in one note again."),                        # feedback: conv-x/q1 (H is reused)
        say(json.dumps({"skills": [{"kind": "exogenous", "title": "Numbers Matter",  # exo_001 restated
                                    "principle": "Keep every count of the things a person did, with the "
                                                 "number exactly as stated.", "when": "Counts."}]})),
    ]
    out = tmp_path / "run"
    with LoopbackServer("anthropic", script) as srv:
        res = CliRunner().invoke(app, [
            "refine", "locomo", "--data", str(data), "--split", "all", "--rounds", "2",
            "--llm", f"anthropic:test-model@{srv.base_url}", "--backend", "local", "--out", str(out), "--json",
        ], env={"ANTHROPIC_API_KEY": "sk-test", "HORMA_LLM_MAX_RETRIES": "0"})
        assert res.exit_code == 0, res.output
        assert srv.remaining == 0
        first_answer, feedback = (user_text(srv.requests[i].body) for i in (0, 6))
    assert "Impressive! I adopted a dog named Pixel yesterday." in first_answer  # H saw the whole history
    assert "How many marathons did Ann run?" in feedback and "D1:1: I ran 3 marathons" in feedback

    report = json.loads(res.output[res.output.index("{"):])
    r1, r2 = report["rounds"]
    assert r1["exogenous"] == ["conv-x/q0"] and r1["endogenous"] == ["conv-x/q1"]
    assert r1["added"] == ["exo_001"] and r1["duplicates"][0]["duplicate_of"] == "base_004"
    assert r2["exogenous"] == [] and r2["endogenous"] == ["conv-x/q1"] and r2["added"] == []
    assert r2["duplicates"][0]["duplicate_of"] == "exo_001"
    assert r2["score_hp"] == pytest.approx(1.0) and r2["h_reused"]
    assert [s.id for s in read_skill_file(lib / "locomo.yaml")] == ["exo_001"]
    assert rounds("locomo") == [0, 1, 2]
    assert (out / "skill_growth.png").is_file() and (out / "round_2" / "report.json").is_file()
    assert any((out / "round_1" / "H_prime").rglob("notes/*"))  # H' really built a workspace


def test_cli_refine_bad_input(lib: Path, tmp_path: Path) -> None:
    runner = CliRunner()
    res = runner.invoke(app, ["refine", "locomo", "--data", str(tmp_path / "missing.json")])
    assert res.exit_code == 2 and "missing.json: no such dataset file" in res.output
    bad = tmp_path / "bad.json"
    bad.write_text('[{"sample_id": "x"')
    res = runner.invoke(app, ["refine", "locomo", "--data", str(bad), "--llm", "openai:m@http://127.0.0.1:9/v1"])
    assert res.exit_code == 2 and "bad.json" in res.output
    res = runner.invoke(app, ["refine", "chess", "--data", str(bad)])
    assert res.exit_code == 2 and "refine supports locomo" in res.output
    assert rounds("locomo") == []

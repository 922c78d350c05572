"""A question about two events gets each event's best turn first (horma.core.facets)."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import archive

from horma.core.facets import facets
from horma.core.text import words
from horma.index import open_index, rebuild
from horma.workspace import Unit, Workspace

# Event one (bird watching) fills a session of turns that repeat its words; event two (the workshop) is one
# long turn that says it once, among other things.
BIRDS = [
    Unit("b:1", "2023-03-04 09:00", "user", "I've taken up bird watching: every Saturday I walk the marsh "
                                            "with binoculars."),
    Unit("b:2", "2023-03-04 09:01", "assistant", "Bird watching at a marsh is a great start. Bird watching guides "
                                                 "suggest keeping a list of every bird you see."),
    Unit("b:3", "2023-03-04 09:02", "user", "Which bird watching app should I use to identify a bird by its song?"),
    Unit("b:4", "2023-03-04 09:03", "assistant", "For bird watching by ear, Merlin identifies a bird from its song."),
]
OTHER = [Unit(f"o:{i}", f"2023-04-0{i} 12:00", "user" if i % 2 else "assistant", t) for i, t in enumerate([
    "My sister is visiting next week.", "Lovely, what are you planning?", "A day at the museum and a concert.",
    "The science museum has a new exhibit.", "We booked tickets for Friday.", "Enjoy the concert!",
    "Work has been busy with the product launch.", "Launch weeks are hard; take breaks.", "I started cooking more.",
], 1)]
WORKSHOP = [
    Unit("w:1", "2023-06-10 18:00", "user", "Busy day: I dropped the car at the garage in the morning, had lunch with "
                                            "my sister near the river, answered a pile of emails, and in the evening I "
                                            "attended a workshop at the nature centre, then walked home in the rain."),
    Unit("w:2", "2023-06-10 18:01", "assistant", "That is a full day! How was the nature centre?"),
]
QUESTION = "How long had I been bird watching when I attended the workshop?"


@pytest.mark.parametrize(("question", "names", "parts"), [
    (QUESTION, set(), [["how", "long", "had", "i", "been", "bird", "watching"], ["i", "attended", "the", "workshop"]]),
    ("Which event happened first, the cultural festival or the start of my Spanish classes?", set(),
     [["which", "event", "happened", "first", "the", "cultural", "festival"],
      ["the", "start", "of", "my", "spanish", "classes"]]),
    ("How many days passed between the day I cancelled my subscription and the day I ordered the kit?", set(),
     [["the", "day", "i", "cancelled", "my", "subscription"], ["the", "day", "i", "ordered", "the", "kit"]]),
    ("When Jon lost his job, what did Gina open?", {"jon", "gina"}, []),  # "when" first: one side is empty
])
def test_a_question_about_two_events_splits_into_its_events(question: str, names: set[str], parts: list) -> None:
    assert facets(words(question), names) == parts


@pytest.mark.parametrize("question", [
    "What hobby is a therapy for John when away from the court?",  # a circumstance, no subject of its own
    "What diet did I try before the Mediterranean one?",  # the second part only dates the first
    "When did Jon go to the fair?",
    "Do I prefer tea or coffee?",  # each side one word: a choice between two things, not two events
    "What did Caroline and Melanie paint?",  # "and" without "between" joins names
])
def test_a_question_about_one_event_stays_whole(question: str) -> None:
    assert facets(words(question), {"john", "jon", "caroline", "melanie"}) == []


def test_each_event_of_the_question_gets_its_best_turn_first(tmp_path: Path) -> None:
    """Ranked whole, the bird watching session stands ahead of the workshop turn; with facets both lead."""
    ws = Workspace.init(tmp_path / "ws")
    for units, slug in ((BIRDS, "birds"), (OTHER, "other"), (WORKSHOP, "workshop")):
        archive(ws, units, slug)
    rebuild(ws, full=False)
    with open_index(ws, readonly=True) as s:
        ranked = s.rank(QUESTION)
        whole = s._rank(QUESTION, None, None, True)  # the same ranking without the facets
    assert {h.uid for h in ranked[:2]} == {"b:3", "w:1"}, [h.uid for h in ranked]
    assert "w:1" not in {h.uid for h in whole[:2]}, [h.uid for h in whole]
    assert [h.score for h in ranked] == sorted((h.score for h in ranked), reverse=True)  # still in score order
    assert len({h.uid for h in ranked}) == len(ranked)  # each unit once


def test_hsearch_in_a_sandbox_puts_each_event_first(tmp_path: Path, isolated_backend: str) -> None:
    """The rule is in the core that hsearch runs inside the sandbox: an LLM retriever gets it too."""
    from horma.sandbox import Limits, open_sandbox

    ws = Workspace.init(tmp_path / "ws")
    for units, slug in ((BIRDS, "birds"), (OTHER, "other"), (WORKSHOP, "workshop")):
        archive(ws, units, slug)
    rebuild(ws, full=False)
    with open_sandbox(ws.root, isolated_backend, "read", limits=Limits(timeout=20)) as box:
        r = box.exec(f"hsearch -n 2 --notes 0 --near none '{QUESTION}'")
    assert r.exit_code == 0, r.output
    got = [line.split(" | ")[0].rsplit(":", 2)[-2:] for line in r.output.splitlines()]
    assert sorted(":".join(g) for g in got) == ["b:3", "w:1"], r.output

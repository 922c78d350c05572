"""The chat sets (bench/data/user_chats.json, assistant_chats.json and the held-out holdout_chats.json and
holdout2_chats.json) are what their generators write, and every question is answerable."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from horma.bench.locomo import load_locomo, questions
from horma.core.text import STOPWORDS, words

DATA = Path(__file__).resolve().parent.parent / "bench" / "data"
CATEGORIES = {11, 12, 13, 14, 15, 16}
SETS = [("user_chats", 35), ("assistant_chats", 90), ("holdout_chats", 70), ("holdout2_chats", 100)]


@pytest.mark.parametrize(("name", "_"), SETS[:2])
def test_the_json_is_the_generators_output(tmp_path, name, _):
    script = tmp_path / f"make_{name}.py"
    script.write_text((DATA / f"make_{name}.py").read_text(encoding="utf-8"), encoding="utf-8")
    subprocess.run([sys.executable, str(script)], check=True, capture_output=True)
    assert json.loads((tmp_path / f"{name}.json").read_text()) == json.loads((DATA / f"{name}.json").read_text())


@pytest.mark.parametrize("held_out", ["holdout", "holdout2"])
def test_a_held_out_json_is_its_generators_output_and_shares_no_person_with_the_other_chats(tmp_path, held_out):
    out = tmp_path / f"{held_out}_chats.json"
    subprocess.run([sys.executable, str(DATA / "make_holdout_chats.py"), "--set", held_out, "--out", str(out)],
                   check=True, capture_output=True)
    held = json.loads(out.read_text())
    assert held == json.loads((DATA / f"{held_out}_chats.json").read_text())
    others = [c for name, _ in SETS if name != f"{held_out}_chats"
              for c in json.loads((DATA / f"{name}.json").read_text())]
    assert not {c["conversation"]["speaker_a"] for c in held} & {c["conversation"]["speaker_a"] for c in others}


@pytest.mark.parametrize(("name", "least"), SETS)
def test_every_question_has_evidence_in_its_conversation_and_a_known_category(name, least):
    convs = load_locomo(DATA / f"{name}.json")
    counts: Counter = Counter()
    for conv in convs:
        for q in questions(conv, CATEGORIES):
            assert q.evidence and not q.dropped_evidence, q.question
            counts[q.category] += 1
    assert set(counts) == CATEGORIES and sum(counts.values()) >= least
    assert all(n >= 4 for n in counts.values()), counts


@pytest.mark.parametrize(("name", "_"), SETS)
def test_paraphrase_questions_share_at_most_one_content_word_with_their_evidence(name, _):
    for conv in load_locomo(DATA / f"{name}.json"):
        for q in questions(conv, {11}):
            asked = {w for w in words(q.question) if w not in STOPWORDS}
            said = {w for e in q.evidence for w in words(conv.unit(e).text)}
            assert len(asked & said) <= 1, (q.question, asked & said)


def test_a_relative_time_question_names_its_evidence_day_counted_from_its_own_date():
    from horma.core.dates import relative_ranges

    asked = [q for conv in load_locomo(DATA / "assistant_chats.json") for q in questions(conv, {17})]
    assert len(asked) >= 8
    for conv in load_locomo(DATA / "assistant_chats.json"):
        last = conv.sessions[-1].time
        for q in questions(conv, {17}):
            assert q.asked and q.asked > last, q.question
            spans = relative_ranges(words(q.question), q.asked)
            assert spans and all(any(lo <= conv.unit(e).time < hi for lo, hi in spans) for e in q.evidence), \
                (q.question, spans)

"""The third dev set (bench/data/user_chats.json) is what its generator writes, and every question is answerable."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

from horma.bench.locomo import load_locomo, questions
from horma.core.text import STOPWORDS, words

DATA = Path(__file__).resolve().parent.parent / "bench" / "data"
CATEGORIES = {11, 12, 13, 14, 15, 16}


def test_the_json_is_the_generators_output(tmp_path):
    script = tmp_path / "make_user_chats.py"
    script.write_text((DATA / "make_user_chats.py").read_text(encoding="utf-8"), encoding="utf-8")
    subprocess.run([sys.executable, str(script)], check=True, capture_output=True)
    assert json.loads((tmp_path / "user_chats.json").read_text()) == json.loads((DATA / "user_chats.json").read_text())


def test_every_question_has_evidence_in_its_conversation_and_a_known_category():
    convs = load_locomo(DATA / "user_chats.json")
    counts: Counter = Counter()
    for conv in convs:
        for q in questions(conv, CATEGORIES):
            assert q.evidence and not q.dropped_evidence, q.question
            counts[q.category] += 1
    assert set(counts) == CATEGORIES and sum(counts.values()) >= 35
    assert all(n >= 4 for n in counts.values()), counts


def test_paraphrase_questions_share_at_most_one_content_word_with_their_evidence():
    for conv in load_locomo(DATA / "user_chats.json"):
        for q in questions(conv, {11}):
            asked = {w for w in words(q.question) if w not in STOPWORDS}
            said = {w for e in q.evidence for w in words(conv.unit(e).text)}
            assert len(asked & said) <= 1, (q.question, asked & said)

"""Metrics and judge parsing against worked examples."""

from __future__ import annotations

import pytest

from horma.bench.judge import judge_answer, parse_verdict
from horma.bench.metrics import (
    jaccard,
    locomo_f1,
    mean,
    multi_answer_f1,
    normalize_answer,
    percentile,
    says_not_available,
    strict_evidence_recall,
    token_f1,
)
from horma.llm.scripted import ScriptedLLM


def test_normalization_follows_locomo():
    # lower-case, commas and punctuation gone, articles and "and" dropped
    assert normalize_answer("The cat, and a Dog!") == "cat dog"
    assert normalize_answer("7 May, 2023.") == "7 may 2023"


def test_token_f1_worked_examples():
    assert token_f1("7 May 2023", "7 May 2023") == 1.0
    # prediction "May 2023" vs reference "7 May 2023": p = 2/2, r = 2/3 -> F1 = 0.8
    assert token_f1("May 2023", "7 May 2023") == pytest.approx(0.8)
    # stemming: "adopted cats" matches "adopt cat"
    assert token_f1("adopted cats", "adopt cat") == 1.0
    # "the" and "and" do not count: "a grey rabbit" vs "grey rabbit and hay"
    # pred {grey, rabbit}, ref {grey, rabbit, hay}: p = 1, r = 2/3 -> 0.8
    assert token_f1("a grey rabbit", "grey rabbit and hay") == pytest.approx(0.8)
    assert token_f1("Lisbon", "Porto") == 0.0
    assert token_f1("", "Porto") == 0.0


def test_multi_answer_f1_averages_best_matches_over_reference_parts():
    # reference parts: "pottery", "rabbit care"; prediction parts: "pottery", "rabbits"
    # pottery -> 1.0; "rabbit care" vs best "rabbits" (stem rabbit): p = 1, r = 1/2 -> 2/3
    assert multi_answer_f1("pottery, rabbits", "pottery, rabbit care") == pytest.approx((1 + 2 / 3) / 2)


def test_locomo_f1_by_category():
    assert locomo_f1("Lisbon", "Lisbon", 4) == 1.0
    assert locomo_f1("pottery, rabbits", "pottery, rabbit care", 1) == pytest.approx((1 + 2 / 3) / 2)
    # category 3 keeps the reference up to its first ';'
    assert locomo_f1("likely yes", "likely yes; because she said so", 3) == 1.0
    # category 5: right when the answer says the information is not there
    assert locomo_f1("Not mentioned in memory.", None, 5) == 1.0
    assert locomo_f1("No information available about that.", "deep blue", 5) == 1.0
    assert locomo_f1("deep blue", "deep blue", 5) == 0.0


def test_says_not_available():
    assert says_not_available("That is NOT mentioned in the conversation")
    assert says_not_available("The information is not available.")
    assert not says_not_available("In Lisbon.")


def test_strict_evidence_recall_needs_the_verbatim_turn():
    turns = ["I adopted a grey rabbit called Pebble on Sunday.", "Lena found an apartment near the river in Lisbon."]
    ctx = "[21 April 2023]\nD2:4 Nora: I adopted a grey rabbit   called Pebble on Sunday.\nnotes cite D2:3"
    # the first turn is there (whitespace folded); the second is only cited by id: it does not count
    assert strict_evidence_recall(ctx, turns) == 0.5
    assert strict_evidence_recall(ctx, []) is None


def test_jaccard_is_the_paper_reward():
    assert jaccard(["D1:1", "D1:2", "D2:1"], ["D1:1", "D2:4"]) == pytest.approx(1 / 4)
    assert jaccard(["D1:1"], ["D1:1"]) == 1.0
    assert jaccard([], ["D1:1"]) == 0.0
    assert jaccard(["D1:1"], []) is None


def test_percentile_and_mean():
    xs = [10.0, 20.0, 30.0, 40.0, 1000.0]
    assert percentile(xs, 50) == 30.0
    assert percentile(xs, 95) == pytest.approx(40 + 0.8 * 960)  # numpy's linear interpolation
    assert percentile([], 50) is None
    assert mean([1.0, None, 3.0]) == 2.0 and mean([None]) is None


@pytest.mark.parametrize("reply, expected", [
    ('{"reasoning": "same date", "label": "CORRECT"}', True),
    ('```json\n{"reasoning": "different city", "label": "WRONG"}\n```', False),
    ("The answer names the same place.\n\nlabel: correct", True),
    ('{"correct": false}', False),
    ("It is INCORRECT because the year differs.", False),
    ("Reasoning: matches the gold answer. Verdict: CORRECT", True),
    ('{"label": "CORRECT"', True),  # a cut-off object: the label field still reads
    ("I cannot tell.", None),
])
def test_parse_verdict(reply, expected):
    assert parse_verdict(reply)[0] is expected


def test_judge_answer_renders_the_prompt_and_reads_the_verdict():
    llm = ScriptedLLM(['{"reasoning": "same city", "label": "CORRECT"}', "gibberish"])
    v = judge_answer(llm, "Where is Lena moving?", "Lisbon", "She moves to Lisbon.")
    assert v.correct is True and v.reasoning == "same city" and v.input_tokens > 0
    prompt = llm.calls[0]["messages"][0]["content"]
    assert "Where is Lena moving?" in prompt and "Gold answer: Lisbon" in prompt and "She moves to Lisbon." in prompt
    assert "cannot be answered" not in prompt
    v2 = judge_answer(llm, "What did Bo adopt?", None, "a cat", abstain=True)
    assert v2.correct is None and v2.raw == "gibberish"
    assert "cannot be answered" in llm.calls[1]["messages"][0]["content"]

"""The LoCoMo loader on small fixtures written here in the locomo10 format (never the real data)."""

from __future__ import annotations

import copy
import json

import pytest

from horma.bench.locomo import (
    DatasetError,
    load_locomo,
    normalize_evidence,
    parse_session_time,
    questions,
    select_split,
)

SAMPLE = {
    "sample_id": "conv-x",
    "conversation": {
        "speaker_a": "Ada",
        "speaker_b": "Bo",
        "session_1_date_time": "1:56 pm on 8 May, 2023",
        "session_1": [
            {"speaker": "Ada", "dia_id": "D1:1", "text": "I adopted a cat named Pixel yesterday."},
            {"speaker": "Bo", "dia_id": "D1:2", "text": "Look at my garden!",
             "img_url": ["http://x"], "blip_caption": "a photo of tomato plants", "query": "garden"},
        ],
        "session_2_date_time": "10:04 am on 19 December, 2023",
        "session_2": [
            {"speaker": "Bo", "dia_id": "D2:1", "text": "How is Pixel?"},
            {"speaker": "Ada", "dia_id": "D2:2", "text": "Pixel learned to open doors."},
        ],
        "session_3_date_time": "9:00 am on 1 January, 2024",  # a date without turns: ignored
    },
    "qa": [
        {"question": "When did Ada adopt Pixel?", "answer": "7 May 2023", "evidence": ["D1:1"], "category": 2},
        {"question": "What grows in Bo's garden?", "answer": "tomatoes", "evidence": ["D1:2; D2:1"], "category": "4"},
        {"question": "What did Bo adopt?", "adversarial_answer": "a cat", "evidence": ["D:1:1", "D9:9"], "category": 5},
        {"question": "Who is older?", "answer": 3, "evidence": [], "category": 1},
        {"question": "What did Ada do last Sunday?", "answer": "adopted Pixel", "evidence": ["D1:1"], "category": 17,
         "question_date": "6:00 pm on 10 May, 2023"},
    ],
    "observation": {},
    "session_summary": {},
    "event_summary": {},
}


def write(tmp_path, data, name="locomo.json"):
    p = tmp_path / name
    p.write_text(json.dumps(data), encoding="utf-8")
    return p


def test_loads_units_times_captions_and_qa(tmp_path):
    [conv] = load_locomo(write(tmp_path, [SAMPLE]))
    assert conv.sample_id == "conv-x" and conv.speakers == ("Ada", "Bo")
    assert [s.index for s in conv.sessions] == [1, 2]
    assert conv.sessions[0].time == "2023-05-08 13:56" and conv.sessions[1].time == "2023-12-19 10:04"
    units = conv.units()
    assert [u.id for u in units] == ["D1:1", "D1:2", "D2:1", "D2:2"]
    assert units[1].text == "Look at my garden! [shares an image: a photo of tomato plants]"
    assert units[1].actor == "Bo" and units[1].time == "2023-05-08 13:56"
    assert units[0].line() == "D1:1 | 2023-05-08 13:56 | Ada: I adopted a cat named Pixel yesterday."
    assert conv.unit("D2:2").text == "Pixel learned to open doors."
    qa = conv.qa
    assert qa[0].evidence == ("D1:1",) and qa[0].answer == "7 May 2023" and qa[0].category_name == "temporal"
    assert qa[1].evidence == ("D1:2", "D2:1") and qa[1].category == 4
    assert qa[2].answer is None and qa[2].adversarial_answer == "a cat"
    assert qa[2].evidence == ("D1:1",) and qa[2].dropped_evidence == ("D9:9",)
    assert qa[3].answer == "3" and qa[3].evidence == () and qa[3].asked is None  # LoCoMo's own carry no date
    assert qa[4].asked == "2023-05-10 18:00"
    assert [q.index for q in questions(conv)] == [0, 1, 2]
    assert conv.sessions[0].slug(conv.sample_id) == "conv-x-session-1"


@pytest.mark.parametrize(
    "text,expected",
    [("1:56 pm on 8 May, 2023", "2023-05-08 13:56"), ("12:09 am on 1 June, 2022", "2022-06-01 00:09"),
     ("12:30 pm on 3 Sept, 2023", None), ("yesterday", None)],
)
def test_session_time(text, expected):
    if expected is None:
        with pytest.raises(ValueError, match="unrecognised date"):
            parse_session_time(text)
    else:
        assert parse_session_time(text) == expected


def test_normalize_evidence():
    assert normalize_evidence(["D8:6; D9:17", "D:11:26", "D", "D8:6"]) == ["D8:6", "D9:17", "D11:26"]


def mutated(change):
    data = [copy.deepcopy(SAMPLE)]
    change(data[0])
    return data


@pytest.mark.parametrize(
    "change,message",
    [
        (lambda s: s.pop("conversation"), "sample conv-x: missing field 'conversation'"),
        (lambda s: s["conversation"].pop("speaker_b"), "sample conv-x: conversation: missing field 'speaker_b'"),
        (lambda s: s["conversation"].update(session_2=[]), "session_2 is empty"),
        (lambda s: s["conversation"].pop("session_2_date_time"), "missing field 'session_2_date_time'"),
        (lambda s: s["conversation"].update(session_1_date_time="soon"), "session_1_date_time: unrecognised date"),
        (lambda s: s["conversation"]["session_1"][0].pop("text"), "session_1[0]: missing field 'text'"),
        (lambda s: s["conversation"]["session_2"][1].update(dia_id="D1:1"), "duplicate dia_id 'D1:1'"),
        (lambda s: s["qa"][0].pop("evidence"), "qa[0]: missing field 'evidence'"),
        (lambda s: s["qa"][1].update(category="x"), "qa[1]: field 'category' must be an integer"),
        (lambda s: s["qa"][0].pop("answer"), "qa[0]: missing field 'answer'"),
        (lambda s: s.update(qa={}), "field 'qa' must be list"),
        (lambda s: s["qa"][4].update(question_date="soon"), "qa[4]: question_date: unrecognised date 'soon'"),
        (lambda s: s["qa"][4].update(question_date=20230510), "qa[4]: field 'question_date' must be str, got int"),
    ],
)
def test_malformed_sample_names_sample_and_field(tmp_path, change, message):
    with pytest.raises(DatasetError, match=r"^sample conv-x") as err:
        load_locomo(write(tmp_path, mutated(change)))
    assert message in str(err.value)


def test_bad_files(tmp_path):
    text = json.dumps([SAMPLE])
    trunc = tmp_path / "t.json"
    trunc.write_text(text[: len(text) // 2])
    with pytest.raises(DatasetError, match="not valid JSON"):
        load_locomo(trunc)
    with pytest.raises(DatasetError, match="no such file"):
        load_locomo(tmp_path / "missing.json")
    with pytest.raises(DatasetError, match="expected a JSON list"):
        load_locomo(write(tmp_path, {"a": 1}))
    with pytest.raises(DatasetError, match="empty"):
        load_locomo(write(tmp_path, []))
    with pytest.raises(DatasetError, match="appears twice"):
        load_locomo(write(tmp_path, [SAMPLE, SAMPLE]))


def test_splits(tmp_path):
    data = []
    for i in range(10):
        s = copy.deepcopy(SAMPLE)
        s["sample_id"] = f"conv-{i}"
        data.append(s)
    convs = load_locomo(write(tmp_path, data))
    assert [c.sample_id for c in select_split(convs, "dev")] == [f"conv-{i}" for i in range(7)]
    assert [c.sample_id for c in select_split(convs, "test")] == ["conv-7", "conv-8", "conv-9"]
    assert len(select_split(convs, "all")) == 10
    with pytest.raises(DatasetError, match="unknown split"):
        select_split(convs, "train")

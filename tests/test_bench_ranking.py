"""bench/ranking.py --set: a sweep overrides a constant of the ranking's modules, or says in one line why not."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))

from ranking import override

from horma.core import search, updates


@pytest.fixture
def restored(monkeypatch: pytest.MonkeyPatch):
    """Whatever a test overrides goes back after it (monkeypatch restores what it set first)."""
    monkeypatch.setattr(search, "SEM_WEIGHT", search.SEM_WEIGHT)
    monkeypatch.setattr(updates, "TOP", updates.TOP)
    monkeypatch.setattr(updates, "MOVED_TO", updates.MOVED_TO)


def test_a_search_constant_and_another_modules_constant_are_set_as_their_type(restored) -> None:
    override("SEM_WEIGHT=1")
    override("updates.TOP=0")
    override("updates.MOVED_TO=12")
    assert search.SEM_WEIGHT == 1.0 and isinstance(search.SEM_WEIGHT, float)
    assert updates.TOP == 0 and isinstance(updates.TOP, int)
    assert updates.MOVED_TO == 12


@pytest.mark.parametrize(("item", "says"), [
    ("SEM_WEIGHT", "is not NAME=VALUE"),
    ("sem_weight=1", "is not NAME=VALUE"),
    ("nowhere.TOP=1", "'nowhere' is not a module of horma.core"),
    ("updates.NOPE=1", "'NOPE' is not a ranking constant of horma.core.updates"),
    ("updates.NOW=1", "horma.core.updates.NOW is not a number or a string"),
    ("updates.TOP=many", "'many' is not a number"),
    ("updates.TOP=2.5", "'2.5' is not a whole number"),
])
def test_a_bad_override_is_refused_with_its_reason_and_changes_nothing(restored, item: str, says: str) -> None:
    before = (search.SEM_WEIGHT, updates.TOP)
    with pytest.raises(ValueError, match=re.escape(says)):
        override(item)
    assert before == (search.SEM_WEIGHT, updates.TOP)

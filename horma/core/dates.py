"""Dates a query names: "October 24, 2023", "24 Oct 2023", "2023-10-24", "May 2023", "in June"."""

from __future__ import annotations

TYPE_CHECKING = False  # mypy reads it as true; a search does not import typing (13 ms at start-up)
if TYPE_CHECKING:  # a query without a date of its own never imports datetime
    import datetime as dt

MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
          "november", "december")
_MONTH = {m: i + 1 for i, m in enumerate(MONTHS)}
_MONTH.update({m[:3]: i + 1 for i, m in enumerate(MONTHS) if m != "may"})
_MONTH["sept"] = 9
_VERBS = frozenset(("may", "march", "mar"))
_BEFORE_MONTH = frozenset(("in", "of", "during", "since", "until", "early", "late", "mid", "last", "this", "next"))


def _year(w: str) -> int | None:
    return int(w) if len(w) == 4 and w.isdigit() and 1900 <= int(w) <= 2199 else None


def _dayn(w: str) -> int | None:
    w = w[:-2] if w[-2:] in ("st", "nd", "rd", "th") and w[:-2].isdigit() else w
    return int(w) if w.isdigit() and len(w) <= 2 and 1 <= int(w) <= 31 else None


def query_dates(words: list[str], today: str | None = None) -> list[tuple[int | None, int, int | None]]:
    """(year or None, month, day or None) for each date the words name: "October 24, 2023",
    "24 Oct 2023", "2023-10-24", "May 2023", "in June"; a bare year is left to the words. Asked on
    ``today`` (YYYY-MM-DD), "last September" is the latest September before this month, not every one."""
    out: list[tuple[int | None, int, int | None]] = []
    i = 0
    while i < len(words):
        w = words[i]
        y = _year(w)
        if y and i + 2 < len(words) and words[i + 1].isdigit() and words[i + 2].isdigit():
            mo, d = int(words[i + 1]), int(words[i + 2])
            if 1 <= mo <= 12 and 1 <= d <= 31:  # ISO 2023-10-24
                out.append((y, mo, d))
                i += 3
                continue
        month = _MONTH.get(w)
        if month:
            day = _dayn(words[i - 1]) if i > 0 else None
            nxt = words[i + 1] if i + 1 < len(words) else ""
            if day is None and _dayn(nxt):
                day = _dayn(nxt)
                nxt = words[i + 2] if i + 2 < len(words) else ""
            year = _year(nxt) or (_last(month, today) if today and i > 0 and words[i - 1] == "last" else None)
            # "may" and "march" are verbs too: only a day, a year or "in May" makes them a date
            if w not in _VERBS or day or year or (i > 0 and words[i - 1] in _BEFORE_MONTH):
                out.append((year, month, day))
        i += 1
    return out


def _last(month: int, today: str) -> int | None:
    """The year of the latest ``month`` before the month of ``today`` (YYYY-MM-DD): "last September"."""
    y, m = _year(today[:4]), today[5:7]
    if y is None or not m.isdigit():
        return None
    return y if month < int(m) else y - 1


def ranges(dates, years: list[int]) -> list[tuple[str, str]]:
    """ISO time ranges [lo, hi) for the dates; a date without a year spans every year the archive has."""
    out = []
    for y, mo, d in dates:
        for year in ([y] if y else years):
            if d:
                lo = f"{year:04d}-{mo:02d}-{d:02d}"
                hi = lo + "~"  # every time on that day sorts before it
            else:
                lo = f"{year:04d}-{mo:02d}"
                hi = f"{year:04d}-{mo:02d}~"
            out.append((lo, hi))
    return out


# -- time relative to the question's own date ------------------------------------------------------
_NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
            "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "couple": 2, "few": 3}
_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_UNITS = {"day": 1, "days": 1, "week": 7, "weeks": 7, "month": 30, "months": 30, "year": 365, "years": 365}


# -- a turn that says when ---------------------------------------------------------------------------
_POINT_WORDS = frozenset(("yesterday", "today", "tonight", "tomorrow", "recently"))
_PERIODS = frozenset(("night", "morning", "afternoon", "evening", "week", "weekend", "month", "year", "summer",
                      "winter", "spring", "fall", "autumn", *_WEEKDAYS))
_SPANS = frozenset(("day", "days", "week", "weeks", "weekend", "weekends", "month", "months", "year", "years"))
_SHIFTS = frozenset(("ago", "back", "before", "later"))


def says_when(words: list[str]) -> int:
    """1 when a turn holds a time expression ("yesterday", "last Friday", "two weekends ago", "on
    Saturday", "in July", "20 May"): the turn that answers "when did..." is the one that says when,
    most often in words the question does not use."""
    for i, w in enumerate(words):
        if w in _POINT_WORDS:
            return 1
        nxt = words[i + 1] if i + 1 < len(words) else ""
        if w in ("last", "this", "next", "past") and nxt in _PERIODS:
            return 1
        if w == "on" and nxt.rstrip("s") in _WEEKDAYS:
            return 1
        if w in _SHIFTS and i >= 2 and words[i - 1] in _SPANS and (
                words[i - 2].isdigit() or words[i - 2] in _NUMBERS or words[i - 2] in ("of", "several")):
            return 1
        if w == "other" and nxt == "day" and i and words[i - 1] == "the":
            return 1
    return int(bool(query_dates(words)))


_TIME_NOUNS = frozenset(("date", "day", "days", "month", "months", "year", "years", "time", "week", "weeks",
                         "weekend"))
# "when" asks only before a verb that asks ("When did...", "when is my trip?"); before anything else it joins
# two clauses ("what should I avoid when cooking", "where did I live when I first moved") and asks nothing
_ASKING = frozenset(("do", "does", "did", "is", "are", "was", "were", "am", "will", "would", "can", "could",
                     "should", "shall", "has", "have", "had", "might", "must"))
_RATE = frozenset(("a", "an", "per", "each", "every"))  # "how many days a week": how often, not when


def asks_when(words: list[str]) -> bool:
    """Whether a question asks for a time: "When did...", "what date / which month / what year...", "how many
    days ago / between...", "how long ago"; not "how many days a week" (how often), nor a "when" that joins
    two clauses."""
    for i, w in enumerate(words):
        nxt = words[i + 1] if i + 1 < len(words) else ""
        if w == "when" and nxt in _ASKING:
            return True
        if w in ("what", "which") and nxt in _TIME_NOUNS:
            return True
        if w == "how" and ((nxt == "long" and "ago" in words) or (
                nxt in ("many", "much") and i + 2 < len(words) and words[i + 2] in _TIME_NOUNS
                and (words[i + 3] if i + 3 < len(words) else "") not in _RATE)):
            return True
    return False


def _iso(d) -> str:
    return d.isoformat()


# "today" and "tonight" name the day a question is asked on. Asked about the past ("What did I eat
# today?") they route to that day's turns; in a request for now or later ("Can you recommend a show for me
# to watch tonight?") they name no turn, and routed they put whatever was said that day first (LongMemEval
# dev: a preference question's evidence 29th at 3000 tokens; docs/benchmarks.md, session 22).
_PAST = frozenset(("did", "was", "were", "had"))


# Holidays on one day of the calendar everywhere they are kept: (month, day, days) of the day or span a
# name says, the latest one up to the question's day. Those that move (Easter, Thanksgiving, Mother's Day)
# fall on different days in different countries and are left to the words.
_HOLIDAYS = {"christmas": (12, 24, 3), "halloween": (10, 31, 1), "valentine": (2, 14, 1), "valentines": (2, 14, 1)}
# Said of a time ("on Valentine's Day", "over Christmas"); "for Christmas" is as often a gift bought weeks before
_AT_TIME = frozenset(("on", "at", "over", "during"))
_EVE_DAY = {("christmas", "eve"): (12, 24, 1), ("christmas", "day"): (12, 25, 1), ("new", "eve"): (12, 31, 1),
            ("new", "day"): (1, 1, 1)}


def _holiday(words: list[str], i: int, now: dt.date) -> tuple[dt.date, dt.date] | None:
    """The latest day range up to ``now`` that the holiday named at ``words[i]`` covers: "Valentine's Day",
    "Christmas" (its eve to Boxing Day), "Christmas Eve", "New Year's Eve", "New Year's Day"."""
    import datetime as dt

    w = words[i]
    after = [x for x in words[i + 1:i + 4] if x != "s"]  # "new year's eve" -> "year", "eve"
    if w == "new":
        if not after or after[0] not in ("year", "years") or len(after) < 2 or after[1] not in ("eve", "day"):
            return None
        month, day, days = _EVE_DAY[("new", after[1])]
    else:
        month, day, days = _EVE_DAY.get((w, after[0] if after else ""), _HOLIDAYS[w])
    start = dt.date(now.year, month, day)
    if start > now:
        start = dt.date(now.year - 1, month, day)
    return (start, start + dt.timedelta(days=days))


def _named(words: list[str], i: int, now: dt.date) -> tuple[dt.date, dt.date] | None:
    """The day range [lo, hi) that the relative expression at ``words[i]`` names, counted from ``now``."""
    import datetime as dt

    one = dt.timedelta(days=1)
    w = words[i]
    if w == "yesterday":
        return (now - one, now)
    elif (w == "today" or w == "tonight") and not _PAST.isdisjoint(words):
        return (now, now + one)
    elif w == "ago" and i >= 1 and words[i - 1] in _UNITS:
        unit = _UNITS[words[i - 1]]
        j = i - 2
        if j >= 0 and words[j] == "of":  # "a couple of weeks ago"
            j -= 1
        if j >= 0 and words[j] in ("many", "much"):  # "How many days ago did I...": the amount is asked
            return None
        n = int(words[j]) if j >= 0 and words[j].isdigit() and len(words[j]) <= 3 else \
            _NUMBERS.get(words[j], 1) if j >= 0 else 1
        day = now - dt.timedelta(days=n * unit)
        slack = dt.timedelta(days={1: 1, 7: 3, 30: 14, 365: 60}[unit])
        return (day - slack, day + slack + one)
    elif w in ("last", "past", "previous") and i + 1 < len(words):
        nxt = words[i + 1]
        n = _NUMBERS.get(nxt) or (int(nxt) if nxt.isdigit() and len(nxt) <= 3 else 0)
        span = words[i + 2] if n and i + 2 < len(words) else nxt if w == "past" else ""
        if span in _UNITS:  # "in the past three months", "the last 2 weeks", "over the past month": up to today
            return (now - dt.timedelta(days=(n or 1) * _UNITS[span]), now + one)
        elif nxt in _WEEKDAYS:
            back = (now.weekday() - _WEEKDAYS.index(nxt)) % 7 or 7
            day = now - dt.timedelta(days=back)
            return (day, day + one)
        elif nxt == "week" or nxt == "weekend":
            monday = now - dt.timedelta(days=now.weekday() + 7)
            return (monday + dt.timedelta(days=5 if nxt == "weekend" else 0), monday + 7 * one)
        elif nxt == "month":
            first = now.replace(day=1)
            prev = (first - one).replace(day=1)
            return (prev, first)
        elif nxt == "night" and w == "last":
            return (now - one, now + one)  # the evening before, or this one's small hours
    elif w == "on" and i + 1 < len(words) and words[i + 1] in _WEEKDAYS and not _PAST.isdisjoint(words):
        back = (now.weekday() - _WEEKDAYS.index(words[i + 1])) % 7  # "What did I cook on Sunday?": the latest
        day = now - dt.timedelta(days=back)
        return (day, day + one)
    elif w in _AT_TIME and i + 1 < len(words) and (words[i + 1] in _HOLIDAYS or words[i + 1] == "new") \
            and not _PAST.isdisjoint(words):
        return _holiday(words, i + 1, now)
    elif w == "this" and i + 1 < len(words) and words[i + 1] in ("week", "month", "year"):
        nxt = words[i + 1]  # "this month": from its first day up to today
        start = now - dt.timedelta(days=now.weekday()) if nxt == "week" else \
            now.replace(day=1) if nxt == "month" else now.replace(month=1, day=1)
        return (start, now + one)
    return None


def relative_ranges(words: list[str], today: str) -> list[tuple[str, str]]:
    """ISO day ranges [lo, hi) that relative expressions name, counted from ``today`` (YYYY-MM-DD):
    "yesterday", "10 days ago", "a couple of weeks ago", "last Saturday", "last week", "last month" (the
    calendar's), "the past month" or "the last three weeks" (up to today), "this month" (so far), "last
    night", and, in a question about the past (:data:`_PAST`), "today", "tonight", "on Sunday" (the latest) and
    a holiday of fixed date ("on Valentine's Day", "over Christmas": :data:`_HOLIDAYS`). "How many days ago"
    asks for an amount and names no day.

    An amount of time ago is a window around its day (a day either side for days, three for weeks, a
    fortnight for months): people round ("two weeks ago" for twelve days).
    """
    import datetime as dt  # only a query with a date of its own pays for the import

    try:
        now = dt.date.fromisoformat(today[:10])
    except ValueError:
        return []
    out: list[tuple[dt.date, dt.date]] = []
    for i in range(len(words)):
        try:
            span = _named(words, i, now)
        except (OverflowError, ValueError):  # before year 1 or after 9999 ("10 days ago" asked on 2 January 1)
            continue
        if span:
            out.append(span)
    return [(_iso(lo), _iso(hi)) for lo, hi in out]


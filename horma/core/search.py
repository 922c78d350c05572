"""Ranking raw lines for a query over the index: what ``hsearch`` prints and the navigator selects."""

from __future__ import annotations

import math
import sqlite3

from horma.core import own_notes
from horma.core import text as ht
from horma.core.asking import kept
from horma.core.dates import asks_when, query_dates, ranges, relative_ranges
from horma.core.facets import facets, first_of_each
from horma.core.hit import Hit, distinct
from horma.core.talks import talk_column
from horma.core.updates import PHRASES, asks_now, newest_first

# Ranking weights. A reply usually answers the turn before it, so a turn also scores from its neighbours;
# sessions about the query lift their turns; a question naming a speaker leans toward that speaker's own
# turns; a note line that matches the query lends its score to the raw lines it cites.
PREV_WEIGHT = 0.7
NEXT_WEIGHT = 0.3
# A turn that asks ("What kind of counselling do you want to pursue?") matches the question's words and
# holds no answer: the turn after it, which answers, takes its whole score instead of PREV_WEIGHT of it.
ASKED_WEIGHT = 1.0
# Between a user and an assistant, a turn that matches nothing itself after the other side's statement (not a
# question) does not answer it: the user's next message after a reply is a new one, and the assistant's reply to
# a statement comments on it. It takes this share of what its neighbours lend (session 23: 0.5 and 0.7 gained on
# every chat set and LongMemEval, 0.5 more, and change nothing between people; 0.3 lost LongMemEval 0.014 at 750).
AFTER_REPLY = 0.5
# A person's turn two lines away, across another person's, goes on with the same story ("We adopted a cat" -
# "Aww!" - "We named her Nata"); not across an assistant's reply (session 16: LoCoMo 0.829 -> 0.844 at 300).
SAME_SPEAKER_WEIGHT = 0.3
SAME_TOP = 100  # best matches whose turns two lines away are read (all 500 lenders': 5 ms more at 10^5 units)
SESSION_WEIGHT = 1.5
SPEAKER_BOOST = 1.2
DATE_WEIGHT = 1.0
EXPAND_SESSIONS = 30  # after the matches, the rest of the best sessions (their other turns give context)
# "latest", "currently", "still", and "now" in other words ("these days", "at the moment": the phrases the
# update links read as "now"; session 22: +0.010-0.026 on three chat sets, nothing lower on any): later
# turns lean ahead (a knowledge update).
RECENCY = 0.3
_LATEST = frozenset(("latest", "current", "currently", "now", "nowadays", "recent", "recently", "newest", "anymore",
                     "still"))
# A question that asks when ("When did Jon go to the fair?") is answered by the turn that says when ("Yesterday,
# I went to a fair to show off my studio"), in other words: turns with a time (dates.says_when) lean ahead.
WHEN_BOOST = 1.5
MATCH_LIMIT = 2000  # best BM25 matches a query considers: its cost stays flat as the archive grows
LEND_TOP = 500  # best matches whose neighbours are read to lend to: at 10^5 units, 97 -> 80 ms a recall
DATE_CAP = 400  # a date naming more units than this (a whole busy month) only re-ranks matches
COST_POWER = 0.5
# Meaning: the host hands in the units nearest the query in embedding space (``--near``) with their
# cosine similarity. A similarity above the crowd (the mean of the neighbours handed in, at least
# CROWD_FLOOR) scores up to SEM_WEIGHT times the best BM25 match (linearly, the best neighbour scoring
# most), and then counts like a match: neighbours, sessions. The crowd sets the floor because how near
# is near depends on the archive: in a chat among friends about the same few things every turn is
# fairly near every question (LoCoMo: a mean of 0.44 over the 64 nearest), in a user's chat with an
# assistant about many things few are (0.20); only what stands above the rest tells anything.
# Under a crowd the floor is never below CROWD_FLOOR, a guard against noise only: in a user's chat
# about many things the answer to "Where do I live?" ("We're all moved into the duplex in St. Paul")
# stands at 0.19 among neighbours at 0.03-0.15, and a floor of 0.2 threw it away (user chats 0.97 ->
# 1.00 at 300 with 0.1, LongMemEval +0.007 at 750 and 1500; LoCoMo, whose crowds stand above 0.2,
# unchanged: docs/benchmarks.md, session 10). Without a crowd to tell what stands out (a tiny archive, a caller's
# short --near list) a similarity must reach SEM_FLOOR: "gondola" is not "a tandem bicycle" at 0.15.
SEM_WEIGHT = 0.5
SEM_FLOOR = 0.2
CROWD_FLOOR = 0.1
SEM_RELATIVE = 1
CROWD_MIN = 8  # fewer neighbours than this keep the fixed floor
# How far the words can be trusted: the share of the query's word weight (idf) that one of its best
# lexical matches holds. A question in other words than its turn ("what injury forced me to stop
# jogging?" against "shin splints, no running") matches only its common words; then meaning weighs up
# to 1 + SEM_ADAPT times more. A question whose words its turn uses keeps the weight above.
SEM_ADAPT = 1.0
COVER_TOP = 20  # lexical matches whose words are checked
# A question in the first person leans toward turns in the first person, one asking "you" toward turns
# in the second person (horma.core.text.person): in a chat with an assistant, "where do I live?" is
# answered by the user's "we moved to...", not the assistant's long reply repeating the words.
# Where one side is an assistant (a role label), "you" is that assistant: a question asking "you" leans
# toward its turns, whatever their pronouns (chats +0.04 at 300), and one in the first person toward the
# others' first-person turns (chats +0.01-0.03 at 150-200, LongMemEval +0.008 at 1000); by role it lost
# "several turns" questions (docs/benchmarks.md, session 10). A matched turn in no person ("Bought an
# e-Niro") takes the root: without, "what car do I drive?" got "I live in Leeds" (docs/benchmarks.md, s18).
PERSON_BOOST = 3.0
# Note layers: "dates" are the dates notes anchor ("yesterday = 7 May 2023"), each tied to the raw
# units the note line cites. Measured on both dev splits (docs/benchmarks.md, "note layers"): dates help
# LoCoMo's dated questions and change nothing where no question names a date. The manager's other pages
# lent a matching line's score to the units it cites, which diluted the ranking (people, topics,
# sessions: LoCoMo -0.01 to -0.15 at 300 tokens) or helped LoCoMo a little and hurt LongMemEval
# (entities: +0.008 / -0.015); the index no longer holds their lines (docs/benchmarks.md, session 19).
LAYERS = ("dates",)
DEFAULT_LAYERS = ("dates",)


def query_words(query: str) -> list[str]:
    """Distinct lower-cased words of the query without stop words."""
    return [w for w in dict.fromkeys(ht.words(query)) if w not in ht.STOPWORDS]


def _match(words: list[str]) -> str:
    return " OR ".join('"' + w.replace('"', '""') + '"' for w in words)


def _ids(ids) -> str:
    return "[" + ",".join(str(i) for i in ids) + "]"


class Searcher:
    """Ranks raw lines for a query; reads only the postings the query's words match."""

    def __init__(self, conn: sqlite3.Connection, layers: tuple[str, ...] = DEFAULT_LAYERS, *, root: str):
        """``root``: the workspace whose raw lines a turn that asks is read from (:mod:`horma.core.asking`).
        Always the caller's: inside a sandbox the index is mounted apart from the raw lines, and a root guessed
        from its path would find no line and silently discount nothing."""
        self.conn = conn
        self.layers = layers
        self.root = root
        self._actor_words: dict[str, str] | None = None
        self._assistants: set[str] | None = None
        self._talk_sql: str | None = None
        self._flags_sql: str | None = None

    @property
    def _flags(self) -> str:
        """The SQL of a unit's asks, says_when and person columns: NULL on an index from before versions 6, 7
        and 9, read-only (they come with the next write); read at the first query, as :attr:`_talk`."""
        if self._flags_sql is None:
            have = {r[1] for r in self.conn.execute("PRAGMA table_info(units)")}
            self._flags_sql = ", ".join(f"u.{c}" if c in have else "NULL" for c in ("asks", "says_when", "person"))
        return self._flags_sql

    @property
    def _talk(self) -> str:  # the SQL of a unit's talk, at the first query: a damaged file fails where callers look
        self._talk_sql = self._talk_sql or talk_column(self.conn)
        return self._talk_sql

    def actor_words(self) -> dict[str, str]:
        if self._actor_words is None:
            self._actor_words = {}
            for (name,) in self.conn.execute("SELECT name FROM actors"):
                for w in ht.words(name):
                    self._actor_words.setdefault(w, name)
        return self._actor_words

    def assistants(self) -> set[str]:
        """The actors named by an assistant's role label ("assistant", "AI", ...): who "you" is in a chat."""
        if self._assistants is None:
            self._assistants = {name for (name,) in self.conn.execute("SELECT name FROM actors")
                                if name.casefold() in ht.ASSISTANT_ROLES}
        return self._assistants

    def rank(self, query: str, near: dict[int, float] | None = None, today: str | None = None,
             sessions: bool = True) -> list[Hit]:
        """Raw lines, best first: the scored matches, then (``sessions``) the rest of the best sessions
        (score 0), which a budgeted context leaves out unless asked to fill; a question about two events
        puts each event's best turn first (:mod:`horma.core.facets`), one about the present each fact's
        newest value (:mod:`horma.core.updates`). ``near`` maps unit row ids to their cosine similarity with
        the query (the host's embedding search; without it the ranking is lexical), ``today`` (YYYY-MM-DD)
        is the date the question is asked on, which relative times count from."""
        ranked = self._rank(query, near, today, sessions)
        parts = facets(ht.words(query), set(self.actor_words())) if ranked else []
        tops = [self._rank(" ".join(p), near, today, False)[:1] for p in parts]
        ranked = distinct(first_of_each(ranked, [t[0] for t in tops if t])) if parts else ranked
        return newest_first(self.conn, ranked, self.assistants()) if asks_now(ht.words(query)) else ranked

    def _rank(self, query: str, near: dict[int, float] | None, today: str | None, sessions: bool) -> list[Hit]:
        words = asked_words = query_words(query)
        actors = self.actor_words()
        named = {actors[w] for w in words if w in actors}
        rest = [w for w in words if w not in actors]
        if rest:
            words = rest
        if not words and not near:
            return []
        match = _match(words) if words else ""
        base: dict[int, float] = {}
        if match:
            # bm25(), not FTS5's rank: SQLite keeps the LIMIT best as it scores (10^5 units: 8.6 ms, not 10.4)
            for rowid, score in self.conn.execute(
                    "SELECT rowid, -bm25(unit_text) FROM unit_text WHERE unit_text MATCH ? "
                    "ORDER BY bm25(unit_text), rowid LIMIT ?", (match, MATCH_LIMIT)):
                base[rowid] = score
        scale = max(base.values(), default=1.0)
        if near:
            top_sim = max(near.values()) if SEM_RELATIVE else 1.0
            floor = max(CROWD_FLOOR, sum(near.values()) / len(near)) if len(near) >= CROWD_MIN else SEM_FLOOR
            span = max(top_sim - floor, 1e-6)
            weight = SEM_WEIGHT * (1.0 + SEM_ADAPT * (1.0 - self._cover(words, base))) if SEM_ADAPT else SEM_WEIGHT
            for rowid, sim in near.items():
                if sim > floor:
                    base[rowid] = base.get(rowid, 0.0) + weight * scale * (sim - floor) / span
        dated = self._dated(query, today)
        if len(dated) > DATE_CAP:
            dated &= set(base)
        wanted = set(base) | dated
        lenders = sorted(base, key=base.__getitem__)[-LEND_TOP:] if len(base) > LEND_TOP else base
        wanted |= {i + d for i in lenders for d in (-1, 1)}
        if len(set(self.actor_words().values()) - self.assistants()) > 1:  # two lines away where people talk
            wanted |= {i + d for i in sorted(lenders, key=base.__getitem__)[-SAME_TOP:] for d in (-2, 2)}
        if not wanted:
            return []
        hits: dict[int, Hit] = {}
        asking, said, person = set(), set(), {}  # read with the hits: one query, not one a flag
        for row in self.conn.execute(
                f"SELECT u.id, u.seg, u.lineno, u.offset, u.uid, u.actor, u.time, u.cost, u.digest, {self._talk}, "
                f"{self._flags}, s.path FROM units u JOIN segments s ON s.id = u.seg "
                "WHERE u.id IN (SELECT value FROM json_each(?))", (_ids(wanted),)):
            hit = hits[row[0]] = Hit(row)
            hit.path = row[13]
            if row[10]:
                asking.add(hit.id)  # a question: the turn after it is its answer
            if row[11]:
                said.add(hit.id)  # holds a time expression
            person[hit.id] = row[12]
        session: dict[int, float] = {}  # by talk: a conversation recorded a message at a time is one
        for rowid, score in base.items():
            h = hits.get(rowid)
            if h is not None:
                session[h.talk] = session.get(h.talk, 0.0) + score
        top = max(session.values(), default=0.0) or 1.0
        # a turn that asks keeps its match but for the part of it in its questions
        keeps = kept(self.root, sorted((hits[i] for i in asking & set(base)), key=lambda h: -base[h.id]), asked_words)
        costs = sorted(h.cost for h in hits.values())
        typical = max(costs[len(costs) // 2], 1)
        said = said if WHEN_BOOST != 1 and asks_when(ht.words(query)) else set()
        ranked = []
        assistants = self.assistants()
        # ~2,500 candidates at 10^5 units: what lends nothing is skipped, the sums are taken in the same order
        hget, bget = hits.get, base.get
        for h in hits.values():
            hid, talk, actor = h.id, h.talk, h.actor
            prev, nxt = hget(hid - 1), hget(hid + 1)
            lent = 0.0
            if prev is not None and prev.talk == talk and (b := bget(prev.id)):
                lent += (ASKED_WEIGHT if prev.id in asking else PREV_WEIGHT) * b
            if nxt is not None and nxt.talk == talk and (b := bget(nxt.id)):
                lent += NEXT_WEIGHT * b
            if actor not in assistants:  # a person's turn two lines away, across another person's
                for mid, two in ((prev, hid - 2), (nxt, hid + 2)):
                    if (mid is not None and (b := bget(two)) and (t := hget(two)) is not None and t.talk == talk
                            and mid.actor != actor == t.actor and mid.actor not in assistants):
                        lent += SAME_SPEAKER_WEIGHT * b
            own = bget(hid, 0.0)
            s = own * keeps.get(hid, 1.0)
            if lent:
                if prev is not None and prev.talk == talk and (prev.actor in assistants) != (actor in assistants) \
                        and prev.id not in asking and not own:
                    lent *= AFTER_REPLY
                s += lent / max(1.0, h.cost / typical) ** COST_POWER
            if hid in dated:
                s += DATE_WEIGHT * scale
            if s <= 0:
                continue
            if actor in named:
                s *= SPEAKER_BOOST
            if hid in said:
                s *= WHEN_BOOST
            h.score = s + SESSION_WEIGHT * session.get(talk, 0.0) / top
            ranked.append(h)
        if RECENCY and ranked and (_LATEST & (have := set(ht.words(query))) or any(have >= p for p in PHRASES)):
            times = sorted({h.time for h in ranked})
            order = {t: i / max(len(times) - 1, 1) for i, t in enumerate(times)}
            for h in ranked:
                h.score *= 1.0 + RECENCY * order[h.time]
        paths = {h.seg: h.path for h in ranked}
        asked = ht.asked_person(ht.words(query)) if PERSON_BOOST != 1 else ht.NO_PERSON
        if asked != ht.NO_PERSON and ranked:
            lean = self._leaning(asked, ranked, person, base)
            for h in ranked:
                h.score *= lean.get(h.id, 1.0)
        ranked.sort(key=lambda h: (-h.score, h.path, h.lineno))
        return distinct(ranked + (self._rest_of_sessions(ranked, session, paths) if sessions else []))

    def _leaning(self, asked: int, ranked: list[Hit], person: dict, matched: dict) -> dict[int, float]:
        """The factor each ranked unit's score takes from a question in the first or second person (``person``:
        each unit's grammatical person, :func:`horma.core.text.person`); the others keep 1.

        Between people the turn's person decides; one in none takes half the lean in log terms if ``matched``
        by its own words or meaning (:data:`PERSON_BOOST`). With an assistant, "you" is it: "you" leans toward
        its turns whatever their pronouns; "I" is the one who talks to it, whose turns alone get the lean.
        """
        assistants = self.assistants()
        if asked == ht.SECOND and assistants:
            return {h.id: PERSON_BOOST for h in ranked if h.actor in assistants}
        lean = {asked: PERSON_BOOST, ht.NO_PERSON: math.sqrt(PERSON_BOOST)}
        return {h.id: lean[p] for h in ranked if (p := person.get(h.id)) in lean and h.actor not in assistants
                and (p == asked or h.id in matched)}

    def _cover(self, words: list[str], base: dict[int, float]) -> float:
        """The largest share of the query's idf mass one of its best lexical matches holds (0 to 1)."""
        if not words or not base:
            return 0.0
        top = sorted(base, key=lambda r: -base[r])[:COVER_TOP]
        n = self.conn.execute("SELECT max(id) FROM units").fetchone()[0] or 1  # about the count, in O(log n)
        held: dict[int, float] = dict.fromkeys(top, 0.0)
        total = 0.0
        for w in words:
            m = _match([w])
            df = self.conn.execute("SELECT count(*) FROM (SELECT rowid FROM unit_text WHERE unit_text MATCH ? "
                                   "LIMIT ?)", (m, MATCH_LIMIT)).fetchone()[0]
            idf = math.log(1.0 + n / (df + 0.5))
            total += idf
            if df:
                for (r,) in self.conn.execute("SELECT rowid FROM unit_text WHERE unit_text MATCH ? AND rowid IN "
                                              "(SELECT value FROM json_each(?))", (m, _ids(top))):
                    held[r] += idf
        return max(held.values()) / total if total else 0.0

    def _rest_of_sessions(self, ranked: list[Hit], session: dict[int, float], paths: dict[int, str]) -> list[Hit]:
        """The unmatched turns of the best-scoring sessions, best session first, each in archive order.

        They rank below every match, so they only fill a budget the matches
        leave free; what a session says around a match is often the answer.
        """
        best = sorted(session, key=lambda sid: -session[sid])[:EXPAND_SESSIONS]
        if not best:
            return []
        have = {h.id for h in ranked}
        order = {sid: i for i, sid in enumerate(best)}
        rest = []
        # The talks' segments first, then their units by segment: filtered on the talk in one join, SQLite
        # scanned every unit of the archive (28 ms a recall at 10^5 units; docs/benchmarks.md, session 20).
        for row in self.conn.execute(
                f"SELECT u.id, u.seg, u.lineno, u.offset, u.uid, u.actor, u.time, u.cost, u.digest, {self._talk}, "
                f"s.path FROM segments s JOIN units u ON u.seg = s.id WHERE s.id IN (SELECT s.id FROM segments s "
                f"WHERE {self._talk} IN (SELECT value FROM json_each(?)))", (_ids(best),)):
            if row[0] not in have:
                h = Hit(row)
                h.path = paths.setdefault(h.seg, row[10])
                rest.append(h)
        rest.sort(key=lambda h: (order[h.talk], h.id))  # a talk in the order it was archived
        return rest

    def _dated(self, query: str, today: str | None = None) -> set[int]:
        """Units from the days or months the query names (a question about a date leans toward it),
        relative ones ("10 days ago", "last Saturday") counted from ``today``, the question's date."""
        words = ht.words(query)
        dates = query_dates(words, today)
        spans = relative_ranges(words, today) if today else []
        if not dates and not spans:
            return set()
        years = self._years() if dates else []
        out: set[int] = set()
        for lo, hi in ranges(dates, years) + spans:
            out.update(r[0] for r in self.conn.execute(
                "SELECT id FROM units WHERE time >= ? AND time < ? LIMIT ?", (lo, hi, DATE_CAP + 1)))
            if "dates" in self.layers:  # dates the notes anchored ("yesterday = 7 May 2023") cite units too
                out.update(r[0] for r in self.conn.execute(
                    "SELECT unit FROM unit_dates WHERE day >= ? AND day < ? LIMIT ?", (lo, hi, DATE_CAP + 1)))
        return out

    def _years(self) -> list[int]:
        """The years the archive holds units of, found by stepping through the time index (one lookup a
        year): a date without its year ("in May") may be any of them."""
        out: list[int] = []
        at = "0"
        while (row := self.conn.execute("SELECT min(time) FROM units WHERE time >= ?", (at,)).fetchone())[0]:
            if not row[0][:4].isdigit():
                break
            out.append(int(row[0][:4]))
            at = f"{out[-1] + 1:04d}"
        return out

    def own_lines(self, query: str, n: int, near: dict[int, float] | None = None) -> list[tuple[str, int, str]]:
        """Up to ``n`` lines of notes someone wrote that answer the query (:mod:`horma.core.own_notes`):
        by its words (the speakers' names left out), or by meaning (``near``: note line row id -> cosine)."""
        words = [w for w in query_words(query) if w not in self.actor_words()] or query_words(query)
        return own_notes.own_lines(self.conn, words, _match(words), n, near)

    def note_lines(self, query: str, n: int) -> list[tuple[str, int, str]]:
        """The ``n`` best-matching note lines as (path, line number, text)."""
        words = query_words(query)
        if not words or n <= 0:
            return []
        return self.conn.execute(
            "SELECT n.path, l.lineno, l.text FROM note_text f JOIN note_lines l ON l.id = f.rowid "
            "JOIN notes n ON n.id = l.note WHERE note_text MATCH ? ORDER BY bm25(note_text), n.path, l.lineno "
            "LIMIT ?", (_match(words), n)).fetchall()

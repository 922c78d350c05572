"""Lines of notes someone wrote that answer a query, found by its words or by its meaning: ``hsearch --own``.

An agent keeps its own notes (a preferences file written through the memory
tool, ``notes/agent/``) and people write theirs by hand; the manager's
regenerated pages (people, entities, topics, sessions, timeline, state) are not
such notes. A line of them enters a context ahead of the raw lines when it
answers. By words, a line must hold a third of the query's words and score at
least half the best such line. By meaning, which the words miss when the
question is put another way ("What should you leave out of a stir-fry for
me?" against "- Allergic to peanuts and cashews"), a line's vector (the host
embeds it: ``note_lines.q``) must be at least :data:`OWN_SIM` like the query's
and within :data:`OWN_GAP` of the likest line. The host hands the likest lines
in with the nearest units (``--near ...,n<row id>:<similarity>``).

Stdlib only, like all of :mod:`horma.core`: ``hsearch`` runs it in the sandbox.
"""

from __future__ import annotations

import sqlite3

from horma.core import text as ht
from horma.core.layout import MANAGER_KINDS

# Chosen on bench/data/own_notes.json with bench/own_notes.py (docs/benchmarks.md, session 26), up to 3
# lines: a question put in other words finds its line 0.32 of the time by words, 0.915 / 0.872 / 0.809 /
# 0.681 with meaning at a floor of 0.2 / 0.25 / 0.3 / 0.35, while a question the notes cannot answer gets
# 1.06 / 0.71 / 0.47 / 0.47 lines (about 11 tokens each). A gap of 0.2 added lines and no answer.
OWN_SIM = 0.25
OWN_GAP = 0.1
STEM = 5  # words compared by their first letters: "allergic" meets "allergies"


def has_meaning(line: str) -> bool:
    """Whether a line of a note someone wrote gets a vector: a fact, not a markdown heading ("# Preferences")."""
    return not line.lstrip().startswith("#")


def own_lines(conn: sqlite3.Connection, words: list[str], match: str, n: int,
              near: dict[int, float] | None = None) -> list[tuple[str, int, str]]:
    """Up to ``n`` lines of notes someone wrote that answer the query, as (path, line number, text): those
    its ``words`` find (``match``: their FTS5 query), then those ``near`` it in meaning (note line row id ->
    cosine), likest first."""
    if n <= 0:
        return []
    out: list[tuple[str, int, str]] = []
    if words:
        need = max(1, -(-len(words) // 3))
        stems = {w[:STEM] for w in words}
        best = 0.0
        for path, kind, lineno, text, score in conn.execute(
                "SELECT n.path, n.kind, l.lineno, l.text, -bm25(note_text) FROM note_text f "
                "JOIN note_lines l ON l.id = f.rowid JOIN notes n ON n.id = l.note WHERE note_text MATCH ? "
                "ORDER BY bm25(note_text), n.path, l.lineno LIMIT 200", (match,)):
            if kind in MANAGER_KINDS:
                continue
            have = set(ht.words(text))
            if sum(any(h.startswith(s) for h in have) for s in stems) < need:
                continue
            best = best or score
            if score < best / 2 or len(out) >= n:
                break
            out.append((path, lineno, text))
    if near and len(out) < n:
        top = max(near.values())
        meant = [i for i, sim in sorted(near.items(), key=lambda x: -x[1]) if sim >= max(OWN_SIM, top - OWN_GAP)]
        rows = {r[0]: r[1:] for r in conn.execute(
            "SELECT l.id, n.path, n.kind, l.lineno, l.text FROM note_lines l JOIN notes n ON n.id = l.note "
            "WHERE l.id IN (SELECT value FROM json_each(?))", ("[" + ",".join(map(str, meant)) + "]",))}
        for i in meant:
            if i in rows and rows[i][1] not in MANAGER_KINDS:
                line = (rows[i][0], rows[i][2], rows[i][3])
                if line not in out:
                    out.append(line)
                if len(out) >= n:
                    break
    return out

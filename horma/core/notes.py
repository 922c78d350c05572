"""The note format as the index reads it: kind, front matter (title, sources) and citations.

A citation is ``(raw/<seg>/units.log:N)`` anywhere in a line, or ``(line N)``
in a note with a single source. The full YAML reading of a note (every
front-matter key, validation) is ``horma.note.parse_note`` on the host;
this is the tolerant subset the index and ``horma forget`` need, stdlib only.
"""

from __future__ import annotations

import re


def note_kind(rel: str) -> str:
    """``notes/people/ada.md`` -> ``people``; ``notes/timeline.md`` -> ``timeline``."""
    parts = rel.split("/")
    if len(parts) >= 3:
        return parts[1]
    return parts[-1][:-3] if parts[-1].endswith(".md") else parts[-1]


def _unquote(value: str) -> str:
    """A front-matter scalar: JSON-quoted (what Note.render writes), YAML single-quoted, or plain."""
    value = value.strip()
    if value.startswith('"'):
        import json  # only writers parse front matter; a search never imports it

        try:
            return str(json.loads(value))
        except ValueError:
            return value.strip('"')
    if len(value) >= 2 and value[0] == value[-1] == "'":
        return value[1:-1].replace("''", "'")
    return value


def front_matter(text: str) -> tuple[str, list[str], int]:
    """(title, raw source paths, index of the first body line) of a note; tolerant of hand edits."""
    lines = text.split("\n")
    if not lines or lines[0].strip() != "---":
        return "", [], 0
    title, sources = "", []  # type: tuple[str, list[str]]
    for i in range(1, len(lines)):
        line = lines[i]
        if line.strip() == "---":
            return title, sources, i + 1
        if line.startswith("title:"):
            title = _unquote(line[6:])
        else:
            s = line.strip()
            if s.startswith("- path:"):
                sources.append(_unquote(s[7:]))
    return title, [], 0  # no closing line: the whole file is body


_NOT_IN_PATH = frozenset(" \t\n()[]")
_CITATION = re.compile(r"\(?raw/[^\s()\[\]]*/units\.log:\d+(?:,\d+)*\)?|\(line \d+\)")


def citations(line: str, single_source: str | None = None) -> list[tuple[str, int]]:
    """The raw lines ``line`` cites, as (units file, line number): every ``raw/<seg>/units.log:N`` (or
    ``:N,M,...``, several lines of one segment), and
    with ``single_source`` (a note's one raw file) every ``(line N)``, which points into it."""
    out = []
    start = 0
    while True:
        i = line.find("raw/", start)
        if i < 0:
            break
        j = line.find("/units.log:", i)
        if j < 0:
            break
        k = j + len("/units.log:")
        e = k
        path_ok = _NOT_IN_PATH.isdisjoint(line[i:j])
        while True:  # ``:3`` or a segment's several lines at once, ``:3,11,13``
            while e < len(line) and line[e].isdigit():
                e += 1
            if e == k:
                break
            if path_ok:
                out.append((line[i:j] + "/units.log", int(line[k:e])))
            if e + 1 < len(line) and line[e] == "," and line[e + 1].isdigit():
                k = e = e + 1
                continue
            break
        start = max(e, i + 4)
    if single_source:
        i = line.find("(line ")
        while i >= 0:
            k = e = i + 6
            while e < len(line) and line[e].isdigit():
                e += 1
            if e > k and e < len(line) and line[e] == ")":
                out.append((single_source, int(line[k:e])))
            i = line.find("(line ", k)
    return out


def search_text(line: str) -> str:
    """``line`` as the note search indexes it: without its citations (``(raw/<seg>/units.log:N)``, ``:N,M``,
    ``(line N)``), whose units ``cites`` holds already.

    A citation's path is most of a note line's words, and none of them is what a line says: indexed, they
    were a fifth of the notes' postings on LoCoMo, and recall was the same without them on every dev set
    (docs/benchmarks.md, session 18). Insert and delete both read this, so a contentless row is removed
    with the very values it was built from.
    """
    return _CITATION.sub("", line)


def format_citation(path: str, *linenos: int) -> str:
    """The citation of raw lines of one segment, as notes write it: ``(raw/<seg>/units.log:N)``, or
    ``(raw/<seg>/units.log:N,M)`` for several: a page listing a session's mentions cites the segment's
    path once instead of once per line (the path is most of a citation's bytes)."""
    return f"({path}:{','.join(map(str, linenos))})"

"""A note's file: YAML front matter (title, time, sources, links) and a markdown body.

The one renderer and the one full reader of a note on the host; the index
reads the tolerant subset it needs with :mod:`horma.core.notes`.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import lru_cache

import yaml

from horma.workspace_error import WorkspaceError


@dataclass
class Note:
    """A note: YAML front matter (title, time, sources, links) and a markdown body."""

    path: str
    title: str
    body: str
    time: str | None = None
    sources: list[dict] = field(default_factory=list)
    links: list[str] = field(default_factory=list)
    extra: dict = field(default_factory=dict)

    def render(self) -> str:
        """The note's text: front matter, then the body. The one note renderer in horma.

        No YAML emitter runs (the heuristic manager renders thousands of notes
        a second): a string is written plain when only letters, digits and a
        few safe marks make it up (``title: Caroline``, paths), otherwise as a
        JSON string, which is a valid YAML double-quoted scalar; unit ids are
        always quoted. Nothing a title or unit id contains (colons, quotes,
        ``1:58``, ``no``) can turn into another YAML type when read back.
        Each source is one ``- path:`` line and one ``units:`` line, the form
        the search index reads a note's sources from. ``extra`` keys, rare and
        of any type, go through the YAML emitter.
        """
        lines = ["---", f"title: {_yaml_scalar(self.title)}"]
        if self.time:
            lines.append(f"time: {_yaml_scalar(str(self.time))}")
        if self.sources:
            lines.append("sources:")
            for s in self.sources:
                lines.append(f"- path: {_yaml_scalar(s['path'])}")
                lines.append(f"  units: [{', '.join(_yaml_str(str(u)) for u in s.get('units', []))}]")
        else:
            lines.append("sources: []")
        if self.links:
            lines.append("links:")
            lines.extend(f"- {_yaml_scalar(link)}" for link in self.links)
        else:
            lines.append("links: []")
        if self.extra:
            lines.append(yaml.dump(self.extra, Dumper=_Dumper, sort_keys=False, allow_unicode=True,
                                   width=1000).rstrip("\n"))
        lines.append("---")
        return "\n".join(lines) + "\n" + self.body.rstrip() + "\n"


_Dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
# What a JSON string may hold literally but YAML may not: C1 controls and DEL (not printable
# for YAML), line and paragraph separators (YAML would fold them), lone surrogates, non-characters.
_YAML_UNSAFE = re.compile("[\x7f-\x9f\u2028\u2029\ud800-\udfff\ufffe\uffff]")


_PLAIN = re.compile(r"[A-Za-z_][A-Za-z0-9_ .,/()'&+-]*")
# YAML 1.1 reads these as bool or null
_RESERVED = frozenset(["yes", "no", "on", "off", "true", "false", "y", "n", "null"])


@lru_cache(maxsize=1 << 16)
def _yaml_scalar(value: str) -> str:
    """``value`` as a block-context YAML scalar: plain when nothing in it can read as another type
    (``title: Caroline``), otherwise double-quoted."""
    if _PLAIN.fullmatch(value) and not value.endswith(" ") and value.lower() not in _RESERVED:
        return value
    return _yaml_str(value)


@lru_cache(maxsize=1 << 16)
def _yaml_str(value: str) -> str:
    """``value`` as a YAML double-quoted scalar (JSON's escapes are a subset of YAML's).

    Memoised (a pure function): a note re-renders the same unit ids and paths each time it changes.
    """
    out = json.dumps(value, ensure_ascii=False)
    if _YAML_UNSAFE.search(out):
        out = _YAML_UNSAFE.sub(lambda m: f"\\u{ord(m.group(0)):04x}", out)
    return out


def parse_note(path: str, text: str) -> Note:
    """Parse a note's front matter; a malformed one raises a WorkspaceError naming the file."""
    if not text.startswith("---\n"):
        raise WorkspaceError(f"{path}: note has no YAML front matter (must start with '---')")
    end = text.find("\n---", 4)
    if end < 0:
        raise WorkspaceError(f"{path}: front matter is not closed with '---'")
    try:
        meta = yaml.load(text[4:end], Loader=_Loader) or {}
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 2}" if mark else ""
        raise WorkspaceError(f"{path}: malformed YAML front matter{where}") from exc
    if not isinstance(meta, dict):
        raise WorkspaceError(f"{path}: front matter must be a mapping, got {type(meta).__name__}")
    if not isinstance(meta.get("title"), str) or not meta["title"].strip():
        raise WorkspaceError(f"{path}: front matter needs a non-empty 'title'")
    sources = meta.get("sources") or []
    if not isinstance(sources, list) or not all(
        isinstance(s, dict) and isinstance(s.get("path"), str) for s in sources
    ):
        raise WorkspaceError(f"{path}: 'sources' must be a list of {{path, units}} mappings")
    links = meta.get("links") or []
    if not isinstance(links, list):
        raise WorkspaceError(f"{path}: 'links' must be a list of note paths")
    body = text[end + 4 :].lstrip("-").lstrip("\n")
    extra = {k: v for k, v in meta.items() if k not in {"title", "time", "sources", "links"}}
    time = meta.get("time")
    return Note(
        path=path,
        title=meta["title"],
        body=body,
        time=str(time) if time is not None else None,
        sources=[{"path": s["path"], "units": [str(u) for u in s.get("units") or []]} for s in sources],
        links=[str(x) for x in links],
        extra=extra,
    )

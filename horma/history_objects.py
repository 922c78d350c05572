"""The git objects of the notes history: commits and trees, made and read with dulwich.

Kept apart from :mod:`horma.history` (the :class:`~horma.history.NotesHistory`
API: commit, log, diff, revert, rewrite) so that file reads as what a caller
does; this one is how a revision is built out of blobs (``build_tree``,
``make_commit``) and read back (``commit_of``). Storing objects and merging
packs is :mod:`horma.history_packs`.
"""

from __future__ import annotations

import stat
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING

from dulwich.objects import Commit, ShaFile, Tree
from dulwich.repo import Repo

from horma.workspace import WorkspaceError

if TYPE_CHECKING:  # dulwich 1.x types ids as a NewType of bytes
    from dulwich.objects import ObjectID

REV_LEN = 12  # hex digits of a revision as `horma log` prints it
AUTHOR = b"horma <horma@localhost>"
_FILE_MODE = stat.S_IFREG | 0o644
_DIR_MODE = stat.S_IFDIR


class HistoryError(WorkspaceError):
    """A bad revision or an unreadable history, worded for the user."""


def commit_of(repo: Repo, commit: ObjectID) -> Commit:
    """The commit object an id names; HistoryError if the id names another kind of object."""
    obj = repo[commit]
    if not isinstance(obj, Commit):
        raise HistoryError(f"{commit.decode()}: not a commit in the notes history")
    return obj


def short_rev(commit: bytes) -> str:
    return commit.decode()[:REV_LEN]


def diff_lines(data: bytes | None) -> list[str]:
    if data is None:
        return []
    lines = data.decode("utf-8", "replace").splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n\\ No newline at end of file\n"
    return lines


def make_commit(tree: ObjectID, parents: list[ObjectID], message: str, when: int | None = None) -> Commit:
    c = Commit()
    c.tree = tree
    c.parents = parents
    c.author = c.committer = AUTHOR
    c.author_time = c.commit_time = int(time.time()) if when is None else when
    c.author_timezone = c.commit_timezone = 0
    c.encoding = b"UTF-8"
    c.message = message.rstrip("\n").encode("utf-8") + b"\n"
    return c


TreeKey = tuple[tuple[bytes, int, "ObjectID"], ...]  # a tree's entries (name, mode, id), sorted by name


def build_tree(files: Mapping[str, ObjectID], new: dict[bytes, ShaFile],
                stored: dict[TreeKey, ObjectID] | None = None,
                built: dict[TreeKey, ObjectID] | None = None) -> ObjectID:
    """The root tree of ``{path: blob id}``; every tree object made goes into ``new``.

    ``stored`` maps the entries of trees already in the store to their ids: a
    folder whose entries did not change is not made again (serializing and
    hashing every folder of a large workspace was the part of a commit that
    grew with the notes). ``built`` receives the entries and id of every tree of this root.
    """
    root: dict = {}
    for rel, blob in files.items():
        node = root
        *folders, name = rel.split("/")
        for part in folders:
            node = node.setdefault(part, {})
        node[name] = blob

    def build(node: dict) -> ObjectID:
        key = tuple(sorted((name.encode("utf-8", "surrogateescape"), _DIR_MODE, build(value))
                           if isinstance(value, dict) else
                           (name.encode("utf-8", "surrogateescape"), _FILE_MODE, value)
                           for name, value in node.items()))
        tree_id = stored.get(key) if stored is not None else None
        if tree_id is None:
            tree = Tree()
            for name, mode, sha in key:
                tree.add(name, mode, sha)
            new[tree.id] = tree
            tree_id = tree.id
        if built is not None:
            built[key] = tree_id
        return tree_id

    return build(root)


__all__ = ["AUTHOR", "REV_LEN", "HistoryError", "TreeKey", "build_tree", "commit_of", "diff_lines", "make_commit",
           "short_rev"]

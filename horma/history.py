"""The notes history: every manager run is one commit of ``notes/`` and ``INDEX.md``.

The history is a bare git repository in ``.horma/history`` (hidden from every
agent, like the rest of ``.horma/``), written with dulwich, a pure-Python git
implementation: a pip dependency instead of a system one (many fresh machines
and slim images have no ``git``), objects written in-process (a commit per
recorded session must not cost process starts), and direct access to trees
and blobs, which :meth:`NotesHistory.rewrite` needs to remove forgotten units
from every revision. Any git tool can read it:
``git --git-dir WS/.horma/history log --stat``.

``raw/`` is not in the history: it is append-only and immutable to agents, so
it needs none. The interface, for any code that changes notes::

    history = NotesHistory(workspace)
    with workspace.writer():
        ...change notes/ or INDEX.md...
        rev = history.commit("what changed")   # None when nothing changed

Callers of :meth:`commit`, :meth:`revert` and :meth:`rewrite` hold the
workspace's writer lock (:meth:`Workspace.writer`); :meth:`log` and
:meth:`diff` only read. A workspace made before the history existed gets one
at its first commit.
"""

from __future__ import annotations

import datetime as dt
import difflib
import os
import shutil
from collections.abc import Callable
from contextlib import nullcontext
from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

from dulwich.errors import NotGitRepository
from dulwich.objects import Blob, ShaFile
from dulwich.repo import Repo

from horma.history_files import Snapshot, sync_notes_index, walk_notes, write_snapshot
from horma.history_objects import (
    HistoryError,
    TreeKey,
    build_tree,
    commit_of,
    diff_lines,
    make_commit,
    short_rev,
)
from horma.history_packs import HISTORY_DIR, clear_stale_locks, compact, drop_leftovers, store_objects
from horma.workspace import FileSig, Workspace

if TYPE_CHECKING:  # dulwich 1.x types ids and ref names as NewTypes of bytes
    from dulwich.objects import ObjectID
    from dulwich.refs import Ref

HEAD_REF = cast("Ref", b"HEAD")


@dataclass(frozen=True)
class Revision:
    """One commit of the notes history, newest first in :meth:`NotesHistory.log`."""

    rev: str  # the short id `horma log` prints and every command accepts
    id: str  # the full commit id
    time: str  # ISO 8601, UTC
    message: str
    added: int
    changed: int
    deleted: int

    def as_dict(self) -> dict:
        return {"rev": self.rev, "id": self.id, "time": self.time, "message": self.message,
                "added": self.added, "changed": self.changed, "deleted": self.deleted}


class NotesHistory:
    """The versioned ``notes/`` and ``INDEX.md`` of one workspace."""

    def __init__(self, workspace: Workspace):
        self.workspace = workspace
        self.path = workspace.meta / HISTORY_DIR
        self._repo: Repo | None = None
        self._blobs: dict[str, tuple[FileSig, ObjectID]] = {}  # path -> (signature, blob id) as last committed
        self._head: ObjectID | None = None  # the commit those blob ids belong to
        self._tree: ObjectID | None = None  # that commit's tree
        self._trees: dict[TreeKey, ObjectID] = {}  # that tree and its folders' trees, by their entries
        self._known: set[bytes] = set()  # object ids known to be in the store

    # -- reading the working files ------------------------------------------------
    def snapshot(self) -> Snapshot:
        """``notes/`` and ``INDEX.md`` as they are on disk: regular files only, links never followed."""
        # every file is read (the filter says yes to each), so data is never None
        return {rel: data for rel, _sig, data in walk_notes(str(self.workspace.root), lambda rel, sig: True)
                if data is not None}

    # -- the repository -------------------------------------------------------------
    @property
    def exists(self) -> bool:
        return (self.path / "HEAD").is_file()

    def repo(self, create: bool = False) -> Repo | None:
        """The repository (created with ``create``), or None when the workspace has no history yet."""
        if self._repo is None:
            if not self.exists:
                if not create:
                    return None
                drop_leftovers(self.workspace.meta)
                self.path.mkdir(parents=True, exist_ok=True)
                Repo.init_bare(str(self.path), default_branch=b"main").close()
            try:
                self._repo = Repo(str(self.path), bare=True)
            except NotGitRepository:
                raise HistoryError(f"{self.path}: not a readable notes history") from None
        return self._repo

    def close(self) -> None:
        if self._repo is not None:
            self._repo.close()
            self._repo = None

    def __enter__(self) -> NotesHistory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _existing_repo(self) -> Repo:
        """The repository, which a caller that found a revision in it knows exists."""
        repo = self.repo()
        if repo is None:
            raise HistoryError(f"{self.workspace.root}: no notes history yet (a manager run creates it)")
        return repo

    def head(self) -> ObjectID | None:
        repo = self.repo()
        if repo is None:
            return None
        try:
            return repo.refs[HEAD_REF]
        except KeyError:
            return None

    # -- writing ----------------------------------------------------------------------
    def commit(self, message: str) -> str | None:
        """Commit ``notes/`` and ``INDEX.md`` as they are; the new revision, or None when nothing changed.

        Only files whose signature changed since the last commit through this
        object are read again, and only the new objects are written (one small
        pack, :func:`horma.history_packs.store_objects`), so a commit after each
        recorded session costs a stat per note plus the notes that changed. Callers hold the writer lock,
        so a ref lock found now is a dead writer's and is cleared. The repository
        is closed after: an idle workspace holds no pack open.
        """
        try:
            return self._commit(message)
        finally:
            self.close()

    def _commit(self, message: str) -> str | None:
        clear_stale_locks(self.path)
        self.repo(create=True)
        repo = self._existing_repo()
        head = self.head()
        if head != self._head:
            self._blobs.clear()  # another writer committed or rewrote the history: trust nothing cached
            self._trees = {}
            self._tree = commit_of(repo, head).tree if head is not None else None
        new: dict[bytes, ShaFile] = {}  # objects this commit adds, written as one pack
        files: dict[str, ObjectID] = {}
        cached: dict[str, tuple[FileSig, ObjectID]] = {}
        root = str(self.workspace.root)
        for rel, sig, data in walk_notes(root, lambda rel, sig: self._blobs.get(rel, (None,))[0] != sig):
            if data is None:
                files[rel] = self._blobs[rel][1]
            else:
                blob = Blob.from_string(data)
                new[blob.id] = blob
                files[rel] = blob.id
            cached[rel] = (sig, files[rel])
        built: dict[TreeKey, ObjectID] = {}
        tree = build_tree(files, new, self._trees, built)
        if head is not None and self._tree == tree:
            self._blobs, self._head, self._trees = cached, head, built
            return None
        commit = make_commit(tree, [head] if head else [], message)
        new[commit.id] = commit
        store_objects(self.path, new, self._known)
        repo.refs.set_if_equals(HEAD_REF, head, commit.id)
        self._blobs, self._head, self._tree, self._trees = cached, commit.id, tree, built
        return short_rev(commit.id)

    def compact(self) -> int:
        """One delta-compressed pack for the whole history (regenerated notes differ by a few lines);
        how many packs it replaced. Takes the writer lock itself, only to swap packs: run it outside a request."""
        self.close()
        return compact(self.path, self.workspace.writer, everything=True)

    # -- reading ----------------------------------------------------------------------
    def log(self, limit: int | None = None) -> list[Revision]:
        """Revisions newest first (first parents), each with how many files it added, changed, deleted."""
        repo = self.repo()
        head = self.head()
        out: list[Revision] = []
        while repo is not None and head is not None and (limit is None or len(out) < limit):
            c = commit_of(repo, head)
            parent = c.parents[0] if c.parents else None
            added = changed = deleted = 0
            for (old_path, new_path), _modes, _ids in repo.object_store.tree_changes(
                    commit_of(repo, parent).tree if parent else None, c.tree):
                if old_path is None:
                    added += 1
                elif new_path is None:
                    deleted += 1
                else:
                    changed += 1
            when = dt.datetime.fromtimestamp(c.commit_time, dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
            out.append(Revision(short_rev(c.id), c.id.decode(), when, c.message.decode("utf-8", "replace").strip(),
                                added, changed, deleted))
            head = parent
        return out

    def resolve(self, rev: str) -> ObjectID:
        """The commit a revision names: a unique prefix (4+ hex digits) of a commit in the history."""
        text = rev.strip().lower()
        if len(text) < 4 or any(c not in "0123456789abcdef" for c in text):
            raise HistoryError(f"{rev!r} is not a revision: give the id `horma log` prints (4 or more hex digits)")
        if self.repo() is None:
            raise HistoryError(f"{self.workspace.root}: no notes history yet (a manager run creates it)")
        matches = [r for r in self._ancestry() if r.decode().startswith(text)]
        if not matches:
            raise HistoryError(f"{rev}: no such revision in the notes history (see `horma log`)")
        if len(matches) > 1:
            raise HistoryError(f"{rev}: ambiguous revision ({len(matches)} match); give more digits")
        return matches[0]

    def _ancestry(self) -> list[ObjectID]:
        """Every commit reachable from HEAD, newest first."""
        repo = self.repo()
        head = self.head()
        if repo is None or head is None:
            return []
        return [entry.commit.id for entry in repo.get_walker(include=[head])]

    def files_at(self, commit: ObjectID) -> Snapshot:
        """The tracked files as a revision recorded them."""
        repo = self._existing_repo()
        store = repo.object_store
        return {e.path.decode("utf-8", "surrogateescape"): store[e.sha].as_raw_string()
                for e in store.iter_tree_contents(commit_of(repo, commit).tree)}

    def diff(self, rev_a: str, rev_b: str | None = None) -> str:
        """A unified diff from ``rev_a`` to ``rev_b`` (default: the files on disk now)."""
        old = self.files_at(self.resolve(rev_a))
        new = self.files_at(self.resolve(rev_b)) if rev_b is not None else self.snapshot()
        out: list[str] = []
        for rel in sorted(set(old) | set(new)):
            a, b = old.get(rel), new.get(rel)
            if a == b:
                continue
            out.extend(difflib.unified_diff(
                diff_lines(a), diff_lines(b), fromfile=f"a/{rel}" if a is not None else "/dev/null",
                tofile=f"b/{rel}" if b is not None else "/dev/null"))
        return "".join(out)

    # -- changing the past ------------------------------------------------------------
    def revert(self, rev: str) -> str | None:
        """Put ``notes/`` and ``INDEX.md`` back as they were at ``rev``, as a new commit (undoable too).

        The search index's note tables follow (one incremental sync). Returns
        the new revision, or None when the files already were as at ``rev``.
        Callers hold the writer lock.
        """
        target = self.resolve(rev)
        self.commit("before revert: notes as they were")  # hand edits since the last run are kept in the history
        files = self.files_at(target)
        write_snapshot(self.workspace, files, current=self.snapshot())
        sync_notes_index(self.workspace)
        return self.commit(f"revert to {short_rev(target)}")

    def rewrite(self, transform: Callable[[Snapshot], Snapshot]) -> int:
        """Replay every revision through ``transform`` into a fresh repository that replaces this one.

        Messages, times and order are kept; revision ids change. The old
        repository is deleted whole, so no object it held (loose, packed, or
        unreachable) survives: this is how forgotten units leave the history.
        Returns how many revisions were replayed. Callers hold the writer lock.
        """
        repo = self.repo()
        if repo is None:
            return 0
        commits = list(reversed(self._ancestry_first_parent()))
        fresh_path = self.workspace.meta / f"{HISTORY_DIR}.new-{os.getpid()}"
        shutil.rmtree(fresh_path, ignore_errors=True)
        fresh_path.mkdir(parents=True)
        fresh = Repo.init_bare(str(fresh_path), default_branch=b"main")
        try:
            parent: ObjectID | None = None
            known: set[bytes] = set()
            for cid in commits:
                c = commit_of(repo, cid)
                new: dict[bytes, ShaFile] = {}
                ids: dict[str, ObjectID] = {}
                for rel, data in transform(self.files_at(cid)).items():
                    blob = Blob.from_string(data)
                    new[blob.id] = blob
                    ids[rel] = blob.id
                commit = make_commit(build_tree(ids, new), [parent] if parent else [],
                                      c.message.decode("utf-8", "replace"), when=c.commit_time)
                new[commit.id] = commit
                store_objects(fresh_path, new, known)
                parent = commit.id
            if parent is not None:
                fresh.refs.set_if_equals(HEAD_REF, None, parent)
        finally:
            fresh.close()
        compact(fresh_path, nullcontext, everything=True)  # one pack, not one per revision
        self.close()
        old = self.workspace.meta / f"{HISTORY_DIR}.old-{os.getpid()}"
        os.rename(self.path, old)
        os.rename(fresh_path, self.path)
        shutil.rmtree(old)
        self._blobs.clear()
        self._known.clear()
        self._head = self._tree = None
        self._trees = {}
        return len(commits)

    def _ancestry_first_parent(self) -> list[ObjectID]:
        repo = self.repo()
        out: list[ObjectID] = []
        head = self.head()
        while repo is not None and head is not None:
            out.append(head)
            parents = commit_of(repo, head).parents
            head = parents[0] if parents else None
        return out


__all__ = ["HISTORY_DIR", "HistoryError", "NotesHistory", "Revision"]

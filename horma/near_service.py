"""Meaning for commands inside a sandbox: a Unix socket on the host that answers a query with its nearest units.

Why: the embedding model runs on the host only (docs/architecture.md), yet an
LLM retriever types ``hsearch`` itself, inside the sandbox, where there is no
model. Each sandbox gets its own socket bind-mounted at
:data:`horma.sandbox.views.SANDBOX_NEAR_SOCKET` (a Unix socket crosses docker's
``--network none`` and bubblewrap's network namespace); ``hsearch`` writes the
query and reads back ``ID:SIM,...`` (and ``nID:SIM`` for the lines of notes someone
wrote), the list ``--near`` takes. A socket
serves only the workspace of the sandbox it belongs to and closes with it;
the model loads on the first question, not when the sandbox opens.

Wire format, one exchange per connection: the query as UTF-8 ending with a
newline (at most :data:`MAX_QUERY` bytes); the answer is one line, either the
pairs (empty when the index holds no vectors) or ``error: <why>``.
"""

from __future__ import annotations

import os
import shutil
import socket
import socketserver
import stat
import sys
import tempfile
import threading
import time

MAX_QUERY = 64 * 1024
READ_TIMEOUT = 10.0  # seconds a client may take to send its query
PREFIX = "horma-near-"
STALE_AFTER = 60.0  # seconds: a folder younger than this may belong to a service still binding its socket
_swept = False
_sweep_lock = threading.Lock()


def socket_root() -> str:
    """Where socket folders go: the temp directory, unless another user could not pass through it to the
    socket (a private ``TMPDIR`` such as pam_tmpdir's ``/tmp/user/0``, mode 0700), then ``/tmp``.

    A sandbox user other than the caller's (bwrap run as root) reaches the socket by its host path.
    """
    root = tempfile.gettempdir()
    path = os.path.abspath(root)
    while True:
        try:
            if not os.stat(path).st_mode & stat.S_IXOTH:
                return "/tmp"
        except OSError:
            return "/tmp"
        parent = os.path.dirname(path)
        if parent == path:
            return root
        path = parent


def sweep_stale() -> None:
    """Remove the socket folders of services whose process died (kill -9, power loss).

    A process that exits normally removes its folder, but one killed cannot, and a host serving sandboxes
    for weeks would gather a folder a kill in the temp directory. A folder is stale when it is this
    user's, older than :data:`STALE_AFTER`, and nobody answers on its socket. Run once a process, by the
    first service it starts.
    """
    global _swept
    with _sweep_lock:
        if _swept:
            return
        _swept = True
    root = socket_root()
    try:
        names = [n for n in os.listdir(root) if n.startswith(PREFIX)]
    except OSError:
        return
    for name in names:
        folder = os.path.join(root, name)
        try:
            st = os.lstat(folder)
        except OSError:
            continue
        if st.st_uid != os.getuid() or time.time() - st.st_mtime < STALE_AFTER or not os.path.isdir(folder):
            continue
        if not _answers(os.path.join(folder, "near.sock")):
            shutil.rmtree(folder, ignore_errors=True)


def _answers(path: str) -> bool:
    """Whether a service may still listen on ``path`` (connecting is enough: it is never sent a query).

    Only a refused connection or a missing socket say its process is gone; a timeout or a full backlog is a
    busy service, whose folder stays.
    """
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
        probe.settimeout(1.0)
        try:
            probe.connect(path)
        except (ConnectionRefusedError, FileNotFoundError, NotADirectoryError):
            return False
        except OSError:
            return True
    return True


class _Handler(socketserver.StreamRequestHandler):
    timeout = READ_TIMEOUT

    def handle(self) -> None:
        service: NearService = self.server.service  # type: ignore[attr-defined]
        try:
            line = self.rfile.readline(MAX_QUERY + 1)
            if not line:  # connected and closed without a word: another process asking whether this one lives
                return
            if len(line) > MAX_QUERY or not line.endswith(b"\n"):
                self.wfile.write(b"error: the query must be one line of at most 64 KiB\n")
                return
            self.wfile.write((service.answer(line.decode("utf-8", "replace").strip()) + "\n").encode("utf-8"))
        except OSError:  # the client went away: nobody is left to answer
            return


class _Server(socketserver.UnixStreamServer):
    """One question at a time, on one thread (the model runs one batch at a time anyway): a sandbox
    opening many connections queues in the listen backlog instead of piling up host threads; a client
    that stalls holds the line for READ_TIMEOUT at most."""


class NearService:
    """The socket of one sandbox: started with it, answering from ``index_folder``, closed with it."""

    def __init__(self, index_folder: str):
        sweep_stale()
        self.index_folder = index_folder
        self._dir = tempfile.mkdtemp(prefix=PREFIX, dir=socket_root())
        os.chmod(self._dir, 0o711)  # the sandbox user (another uid) passes through to the socket
        self.path = os.path.join(self._dir, "near.sock")
        self._server = _Server(self.path, _Handler)
        self._server.service = self  # type: ignore[attr-defined]
        os.chmod(self.path, 0o666)  # connect() needs write permission on the socket file
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._serve, name="horma-near", daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        """Answer connections until :meth:`close`, blocking between them.

        Not ``serve_forever``: its loop sees a shutdown only at its next poll, half a second apart, and every
        sandbox close waited for it (a ``horma recall`` from the shell spent 0.25-0.5 s of its 1.5 s there).
        Here :meth:`close` sets the flag, then one connection wakes the loop, which stops at once.
        """
        while not self._stopping.is_set():
            self._server.handle_request()

    def answer(self, query: str) -> str:
        """The nearest units as ``ID:SIM,...``, or ``error: ...`` (the sandbox then searches by words)."""
        if not query:
            return "error: empty query"
        from horma.embed import EmbedError
        from horma.vectors import format_near, meaning

        try:
            near = meaning(self.index_folder, query)
            return format_near(near.units, near.lines)
        except EmbedError as exc:
            return f"error: {exc}"
        except Exception as exc:  # an unreadable index or the like: the caller falls back to words, and says so
            return f"error: {type(exc).__name__}: {exc}"

    def close(self) -> None:
        """Stop answering and remove the socket.

        A sandbox nobody closed is closed by its ``__del__`` while the interpreter exits, when that daemon
        thread has been stopped for good: waiting for it never ended and the process hung at exit. The thread
        is only woken and waited for when it can still answer; at exit it goes with the process.
        """
        self._stopping.set()
        if self._thread.is_alive() and not sys.is_finalizing():
            _answers(self.path)  # the connection that wakes the loop: it sees the flag and stops
            self._thread.join(timeout=5)
        self._server.server_close()
        shutil.rmtree(self._dir, ignore_errors=True)

"""One persistent bash shell driven over pipes, shared by every sandbox backend.

Pipes instead of a pty: no escape codes, no echo, no bracketed paste. Each
command is read verbatim up to a NUL byte by bash's ``read`` (no fork, no
quoting) and runs through ``eval`` in the shell itself,
so ``cd`` persists, an unclosed quote is a syntax error rather than a hang, and
stdin is /dev/null so a bare ``cat`` cannot swallow the protocol. Output is
read in chunks into a bounded head + tail, so an output flood costs memory of
the cap, not of the flood.
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import selectors
import subprocess
import time
from dataclasses import dataclass

from horma.sandbox.spawner import popen

DEFAULT_TIMEOUT = 10.0
DEFAULT_OUTPUT_CAP = 16_000  # characters kept: half head, half tail
TIMEOUT_EXIT = 124
BULK_BYTES = 4096  # commands at least this long are read in blocks by head(1)
# The end-of-command line; compiled once, since a pattern holding each command's nonce
# would be compiled anew for every command (~0.13 ms).
_END = re.compile(rb"__HORMA_END_([0-9a-f]+)__ (\d+) (.*)\n")


@dataclass
class ExecResult:
    """What one command did. ``exit_code`` is 124 on timeout, as with timeout(1)."""

    command: str
    output: str
    exit_code: int
    elapsed_ms: float
    timed_out: bool = False
    truncated: bool = False

    def as_dict(self) -> dict:
        return {
            "command": self.command,
            "output": self.output,
            "exit_code": self.exit_code,
            "elapsed_ms": round(self.elapsed_ms, 3),
            "timed_out": self.timed_out,
            "truncated": self.truncated,
        }


class _Capture:
    """Keeps the first and last ``cap/2`` bytes of a stream and finds the end marker."""

    def __init__(self, cap: int, marker: bytes):
        self.half = max(cap // 2, 1)
        self.marker = marker
        self.head = bytearray()
        self.tail = bytearray()
        self.dropped = 0

    def feed(self, data: bytes) -> None:
        room = self.half - len(self.head)
        if room > 0:
            self.head += data[:room]
            data = data[room:]
        if data:
            self.tail += data
            keep = self.half + len(self.marker) + 64
            if len(self.tail) > keep:
                cut = len(self.tail) - keep
                self.dropped += cut
                del self.tail[:cut]

    def done(self) -> re.Match[bytes] | None:
        """The end line with this command's nonce (groups: nonce, exit code, cwd), if it has arrived."""
        for m in _END.finditer(bytes(self.head + self.tail)):
            if m.group(0).startswith(self.marker + b" "):
                return m
        return None


class PersistentShell:
    """A bash process started by ``argv`` that runs commands one at a time."""

    def __init__(
        self,
        argv: list[str],
        env: dict[str, str],
        cwd: str | None = None,
        output_cap: int = DEFAULT_OUTPUT_CAP,
    ):
        self.argv = argv
        self.env = env
        self.cwd = cwd
        self.output_cap = output_cap
        self.proc: subprocess.Popen[bytes] | None = None
        self.pwd: str | None = None

    def start(self) -> None:
        self.proc = popen(
            self.argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            env=self.env,
            cwd=self.cwd,
            start_new_session=True,
            bufsize=0,
        )

    @property
    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def run(self, command: str, timeout: float) -> ExecResult:
        """Run one command; on timeout the shell is killed and must be restarted by the caller."""
        if not self.alive:
            self.start()
        assert self.proc is not None and self.proc.stdin is not None and self.proc.stdout is not None
        nonce = secrets.token_hex(8)
        marker = f"__HORMA_END_{nonce}__".encode()
        body = command.replace("\0", "").encode()
        report = f"printf '\\n{marker.decode()} %d %s\\n' \"$?\" \"$PWD\"\n".encode()
        if len(body) < BULK_BYTES:
            script = b"IFS= read -r -d '' __horma_cmd\n" + body + b"\0" + b'eval "$__horma_cmd" </dev/null\n' + report
        else:
            # bash reads a pipe one byte per syscall (~0.75 us/byte): a large command (a manager's
            # heredoc of notes) goes through head(1), which reads in blocks and never past N bytes.
            # The payload comes last, so nothing after it can be swallowed.
            script = (
                f"__horma_cmd=$(head -c {len(body)}; printf x); __horma_cmd=${{__horma_cmd%x}}; "
                'eval "$__horma_cmd" </dev/null; '.encode()
                + report
                + body
            )
        cap = _Capture(self.output_cap, marker)
        t0 = time.monotonic()
        try:
            self.proc.stdin.write(script)
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            return ExecResult(command, "sandbox shell exited", 125, 0.0)
        fd = self.proc.stdout.fileno()
        deadline = t0 + timeout
        match = None
        eof = False
        # selectors (epoll/poll), not select.select: select cannot watch an fd above 1023, and a
        # server holding many workspaces opens far more than that.
        with selectors.DefaultSelector() as sel:
            sel.register(fd, selectors.EVENT_READ)
            while match is None:
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                if not sel.select(left):
                    continue
                chunk = os.read(fd, 65536)
                if not chunk:  # the shell died (exit, or killed by a limit)
                    eof = True
                    break
                cap.feed(chunk)
                match = cap.done()
        elapsed = (time.monotonic() - t0) * 1000
        if match is None:
            timed_out = not eof
            self.kill()
            out = self._render(cap, None)
            note = f"[timed out after {timeout:g}s]" if timed_out else "[sandbox shell exited]"
            code = TIMEOUT_EXIT if timed_out else 125
            return ExecResult(command, (out + "\n" + note).strip(), code, elapsed, timed_out, cap.dropped > 0)
        self.pwd = match.group(3).decode(errors="replace")
        return ExecResult(command, self._render(cap, match), int(match.group(2)), elapsed, False, cap.dropped > 0)

    def _render(self, cap: _Capture, match: re.Match[bytes] | None) -> str:
        data = bytes(cap.head + cap.tail)
        if match is not None:
            data = data[: match.start()]
        if cap.dropped:
            h = len(cap.head)
            data = (
                data[:h]
                + f"\n[... {cap.dropped} bytes of output cut ...]\n".encode()
                + data[h:]
            )
        text = data.decode(errors="replace")
        return text[:-1] if text.endswith("\n") else text

    def kill(self) -> None:
        if self.proc is None:
            return
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.proc.pid, 9)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(timeout=5)
        for stream in (self.proc.stdin, self.proc.stdout):
            if stream is not None:
                stream.close()
        self.proc = None

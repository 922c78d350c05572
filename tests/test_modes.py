"""A workspace any creator makes is readable by the sandbox user; a stopped or hung engine or an old 0700
workspace is one line saying what to run, and a busy engine is still there."""

from __future__ import annotations

import json
import os
import socket
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

import horma
from horma.sandbox import docker as docker_backend
from horma.workspace import Unit, Workspace

needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="the strict-umask case is root's (sandbox user 10001)")


def horma_cli(*args: object, umask: int = 0o077) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("HORMA_")}
    return subprocess.run([sys.executable, "-m", "horma", *map(str, args)], capture_output=True, text=True,
                          timeout=300, umask=umask, env=env, check=False)


def modes(root: Path) -> dict[str, int]:
    return {p.relative_to(root).as_posix(): stat.S_IMODE(p.stat().st_mode)
            for p in [root, *root.rglob("*")] if ".horma/trajectories" not in p.as_posix()
            and ".horma/history" not in p.as_posix()}


@needs_root
def test_root_with_umask_077_demo_and_recall_work_in_the_sandbox(tmp_path, isolated_backend):
    ws = tmp_path / "demo"
    demo = horma_cli("demo", "--workspace", ws, "--backend", isolated_backend)
    assert demo.returncode == 0, demo.stderr
    assert "S3:9" in demo.stdout  # the demo's recalls found their evidence in the sandbox
    got = horma_cli("recall", ws, "What is the name of Priya's cat?", "--backend", isolated_backend, "--json")
    assert got.returncode == 0, got.stderr
    assert json.loads(got.stdout)["items"], got.stdout
    for rel, mode in modes(ws).items():
        path = ws / rel if rel != "." else ws
        if path.is_dir():
            assert mode & 0o055 == 0o055, (rel, oct(mode))
        elif not path.name.endswith(".lock"):
            assert mode & 0o044 == 0o044, (rel, oct(mode))
    assert modes(ws)["raw/2024-05-11T19-20__session-4/units.log"] == 0o444


@needs_root
def test_a_workspace_made_unreadable_is_one_line_with_the_command_to_run(tmp_path, isolated_backend):
    ws = tmp_path / "mem"
    with horma.Memory(ws, sandbox="local") as mem:
        mem.record([Unit("A:1", "2024-01-02 09:00", "Ana", "My cat is called Miso.")], slug="one")
    for path in [ws, *ws.rglob("*")]:  # as an older horma left it under umask 077
        path.chmod(stat.S_IMODE(path.stat().st_mode) & 0o700)
    got = horma_cli("recall", ws, "cat's name", "--backend", isolated_backend)
    assert got.returncode == 7 and got.stderr.count("\n") == 1, got.stderr  # 7: sandbox (docs/errors.md)
    assert f"run `chmod -R a+rX {ws}` once" in got.stderr and "uid 10001" in got.stderr
    assert horma_cli("recall", ws, "cat's name", "--backend", isolated_backend, umask=0o022).returncode == 7
    subprocess.run(["chmod", "-R", "a+rX", str(ws)], check=True)
    assert horma_cli("recall", ws, "cat's name", "--backend", isolated_backend).returncode == 0


def test_writes_leave_the_callers_umask_as_it_was(tmp_path):
    old = os.umask(0o077)
    try:
        ws = Workspace.init(tmp_path / "ws")
        with horma.Memory(ws, sandbox="local") as mem:
            mem.record([Unit("A:1", "2024-01-02 09:00", "Ana", "Hello.")], slug="one")
        assert os.umask(0o077) == 0o077
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "ws" / "notes").stat().st_mode) == 0o755
    assert stat.S_IMODE((tmp_path / "ws" / "INDEX.md").stat().st_mode) == 0o644


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.parametrize("host", [f"tcp://127.0.0.1:{closed_port()}", "unix:///nonexistent/docker.sock"])
def test_a_stopped_docker_engine_is_one_line_saying_what_to_run(tmp_path, monkeypatch, host):
    monkeypatch.setenv("DOCKER_HOST", host)
    reason = docker_backend.status().reason
    assert reason.startswith("the docker daemon is not running: start it with `sudo systemctl start docker`")
    assert "Connection" not in reason and "Error" not in reason
    env = {**os.environ, "DOCKER_HOST": host}
    got = subprocess.run([sys.executable, "-m", "horma", "demo", "-w", str(tmp_path / "d"), "--backend", "docker"],
                         capture_output=True, text=True, timeout=120, env=env, check=False)
    assert got.returncode == 7 and got.stderr.count("\n") == 1, got.stderr  # 7: sandbox (docs/errors.md)
    assert "the docker daemon is not running" in got.stderr and "Traceback" not in got.stderr


@contextmanager
def slow_engine(delay_s: float) -> Iterator[str]:
    """A loopback docker engine (the Engine API's own JSON) that holds each answer ``delay_s`` seconds."""

    class Engine(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            time.sleep(delay_s)
            path = self.path.split("?")[0]
            if path == "/version":
                body = {"ApiVersion": "1.45", "MinAPIVersion": "1.24", "Version": "26.1.5"}
            elif path.endswith("/_ping"):
                body = "OK"
            elif path.endswith(f"/images/{docker_backend.IMAGE}/json"):
                body = {"Id": "sha256:" + "0" * 64, "RepoTags": [docker_backend.IMAGE]}
            else:
                self.send_error(404)
                return
            data = body.encode() if isinstance(body, str) else json.dumps(body).encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/plain" if isinstance(body, str) else "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Engine)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"tcp://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def test_a_busy_engine_that_answers_late_is_still_there(monkeypatch):
    """A loaded machine's engine answering in seconds is docker being available, not docker missing."""
    with slow_engine(4.0) as host:
        monkeypatch.setenv("DOCKER_HOST", host)
        st = docker_backend.status()
    assert st.available, st.reason


def test_a_hung_engine_is_one_line_saying_it_did_not_answer(monkeypatch):
    monkeypatch.setattr(docker_backend, "PROBE_TIMEOUT_S", 1)
    with slow_engine(3.0) as host:
        monkeypatch.setenv("DOCKER_HOST", host)
        st = docker_backend.status()
    assert not st.available
    assert st.reason == ("the docker engine did not answer within 1 s: it is up but busy or hung; "
                         "check `docker info`"), st.reason

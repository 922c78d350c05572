"""Concurrent docker sessions: no process removes another's container; containers of dead owners are reaped."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from conftest import require_backend

from horma.sandbox import docker as docker_backend


@pytest.fixture(autouse=True)
def _docker() -> None:
    """Asked when a test runs, once per session, with the reason that decided (not at collection, not twice)."""
    require_backend("docker")


REPO = Path(__file__).resolve().parents[1]
WORKER = textwrap.dedent("""
    import sys
    from horma.sandbox import open_sandbox
    from horma.workspace import Workspace
    ws = Workspace.init(sys.argv[1])
    with open_sandbox(ws.root, "docker") as held:          # held open while this process opens (and prunes) more
        for i in range(3):
            with open_sandbox(ws.root, "docker") as box:
                assert box.exec("echo $((6*7))").output.strip() == "42"
            assert held.exec(f"echo still-{i}").output.strip() == f"still-{i}", "my container was removed"
    print("ok")
""")


def test_two_processes_opening_docker_sandboxes_never_break_each_other(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    procs = [subprocess.Popen([sys.executable, "-c", WORKER, str(tmp_path / f"ws{i}")], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for i in range(2)]
    outs = [p.communicate(timeout=240) for p in procs]
    for p, (out, err) in zip(procs, outs, strict=True):
        assert p.returncode == 0 and out.strip() == "ok", err[-2000:]


def _container(client, labels: dict[str, str]):
    return client.containers.run(docker_backend.IMAGE, ["sleep", "infinity"], detach=True, network_mode="none",
                                 labels={docker_backend.LABEL: "1", **labels})


def test_stale_containers_are_reaped_and_live_or_foreign_ones_kept(tmp_path):
    import docker
    from docker.errors import NotFound

    dead = subprocess.Popen(["true"])
    dead.wait()
    mine = docker_backend.owner_labels()
    L = docker_backend.LABEL
    cases = {
        "dead owner": ({**mine, f"{L}.pid": str(dead.pid)}, True),
        "pid reused by a later process": ({**mine, f"{L}.start": "1"}, True),
        "before a reboot": ({**mine, f"{L}.boot": "0" * 36}, True),
        "live owner": (mine, False),
        "another pid namespace": ({**mine, f"{L}.pid": str(dead.pid), f"{L}.pidns": "pid:[1]"}, False),
        "another host": ({**mine, f"{L}.pid": str(dead.pid), f"{L}.host": "elsewhere"}, False),
    }
    client = docker.from_env()
    made = {name: _container(client, labels) for name, (labels, _) in cases.items()}
    try:
        from horma.sandbox import open_sandbox
        from horma.workspace import Workspace

        with open_sandbox(Workspace.init(tmp_path / "ws").root, "docker"):
            pass
        for name, (_, reaped) in cases.items():
            try:
                made[name].reload()
                exists = True
            except NotFound:
                exists = False
            assert exists is not reaped, name
    finally:
        for c in made.values():
            with contextlib.suppress(NotFound):
                c.remove(force=True)
        client.close()

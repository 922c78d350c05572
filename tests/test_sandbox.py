"""The isolated sandboxes: the same escape attempts against docker and bwrap, and what must work.

Every escape test plants its bait on the host (a canary file outside the
workspace, symlinks in notes/, a TCP listener, a fake API key in the
environment), tries to reach it from inside, and checks both that the attempt
failed and that the host files are byte-for-byte what they were before.
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
import socket
import stat
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest import ISOLATED, make_workspace, require_backend

from horma.resources import SANDBOX_BIN
from horma.sandbox import Limits, Sandbox, View, open_sandbox
from horma.sandbox.views import Identity, prepare_write_view
from horma.workspace import Workspace

TOKEN = "horma-canary-" + secrets.token_hex(8)
META_SECRET = "horma-other-query-" + secrets.token_hex(8)  # an answer in another query's trajectory
FAKE_KEY = "sk-ant-api03-" + secrets.token_hex(16)


@dataclass
class Arena:
    """One backend's bait and its two long-lived sessions (read and write view)."""

    backend: str
    ws: Workspace
    outside: Path
    canary: Path
    read: Sandbox
    write: Sandbox

    def whole(self) -> dict:
        return snapshot(self.outside) | snapshot(self.ws.root)

    def frozen(self) -> dict:
        """What no view may change: the canary, raw/ and .horma/ (bar .horma/index/)."""
        return (
            snapshot(self.outside)
            | snapshot(self.ws.root / "raw")
            | snapshot(self.ws.root / ".horma", skip=("index",))
        )


def snapshot(root: Path, skip: tuple[str, ...] = ()) -> dict[str, tuple]:
    """Type, mode, owner and content (or link target) of everything under root, links not followed."""
    out: dict[str, tuple] = {}
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        rel_dir = Path(dirpath).relative_to(root)
        dirnames[:] = [d for d in dirnames if (rel_dir / d).as_posix() not in skip]
        for name in sorted(dirnames + filenames):
            p = Path(dirpath) / name
            st = p.lstat()
            if stat.S_ISLNK(st.st_mode):
                body = os.readlink(p)
            elif stat.S_ISREG(st.st_mode):
                body = hashlib.sha256(p.read_bytes()).hexdigest()
            else:
                body = ""
            out[str(p)] = (stat.S_IFMT(st.st_mode), stat.S_IMODE(st.st_mode), st.st_uid, st.st_gid, body)
    return out


@pytest.fixture(scope="module", params=[pytest.param(b, marks=getattr(pytest.mark, b)) for b in ISOLATED])
def arena(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory):
    backend = request.param
    require_backend(backend)
    base = tmp_path_factory.mktemp(f"arena-{backend}")
    outside = base / "outside"
    outside.mkdir()
    canary = outside / "canary.txt"
    canary.write_text(TOKEN + "\n")
    ws = make_workspace(base / "ws")
    notes = ws.root / "notes"
    (notes / "leak.md").symlink_to(canary)  # absolute host path
    (notes / "up").symlink_to("../../outside")  # relative, leaving the workspace
    (notes / "etc").symlink_to("/etc")
    other = {"query": "where did Caroline go?", "answer": META_SECRET}
    (ws.root / ".horma" / "trajectories" / "other.jsonl").write_text(json.dumps(other) + "\n")
    (ws.root / ".horma" / "index").mkdir(parents=True, exist_ok=True)
    (ws.root / ".horma" / "index" / "probe.txt").write_text("index probe\n")
    old_key = os.environ.get("ANTHROPIC_API_KEY")
    os.environ["ANTHROPIC_API_KEY"] = FAKE_KEY
    limits = Limits(timeout=5)
    read = open_sandbox(ws.root, backend, View.READ, limits=limits)
    write = open_sandbox(ws.root, backend, View.WRITE, limits=limits)
    try:
        yield Arena(backend, ws, outside, canary, read, write)
    finally:
        read.close()
        write.close()
        if old_key is None:
            os.environ.pop("ANTHROPIC_API_KEY", None)
        else:
            os.environ["ANTHROPIC_API_KEY"] = old_key


@pytest.fixture
def host_unchanged(arena: Arena):
    """The canary, raw/ and .horma/ are unchanged by the test."""
    before = arena.frozen()
    yield
    assert arena.frozen() == before


def host_processes_with(marker: str) -> list[str]:
    found = []
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            except OSError:
                continue
            if marker in cmdline:
                found.append(f"{pid}: {cmdline}")
    return found


def wait_until(predicate, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.1)
    return predicate()


# -- escape attempts ------------------------------------------------------------


@pytest.mark.parametrize("view", ["read", "write"])
def test_nothing_outside_the_workspace_is_readable(arena: Arena, view: str, host_unchanged):
    sb = arena.read if view == "read" else arena.write
    attempts = [
        f"cat {arena.canary}",
        "cat ../outside/canary.txt",  # the canary's path relative to the workspace on the host
        f"cd / && cat ../../../..{arena.canary}",
        "cat notes/leak.md",
        "cat notes/up/canary.txt",
        f"cat /proc/self/root{arena.canary}",
        f"cat /proc/1/root{arena.canary}",
        "cat /proc/self/cwd/../outside/canary.txt",
    ]
    for cmd in attempts:
        r = sb.exec(f"cd /ws; {cmd}")
        assert r.exit_code != 0 and TOKEN not in r.output, f"{arena.backend}: {cmd!r} -> {r.output!r}"
    shadow = sb.exec("cat /etc/shadow notes/etc/shadow")
    assert shadow.exit_code != 0 and "root:" not in shadow.output
    # and no file anywhere in the sandbox holds the canary (skipped: the host's read-only /usr, and
    # /dev, whose bind-mounted devices look like regular files to rg's directory walk)
    search = sb.exec(
        f"rg -uuu -l --no-messages --max-filesize 5M {TOKEN} "
        "$(find / -mindepth 1 -maxdepth 1 -type d ! -name proc ! -name sys ! -name usr ! -name dev)",
        timeout=30,
    )
    assert search.exit_code in (1, 2) and search.output == "", search.output  # 2: unreadable folders
    assert sb.exec("pwd").output == "/ws\n"


def _host_addresses() -> list[str]:
    addrs = ["127.0.0.1"]
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        probe.connect(("10.255.255.255", 1))  # picks the outbound interface; sends nothing
        addrs.append(probe.getsockname()[0])
    except OSError:
        pass
    finally:
        probe.close()
    return [*addrs, "172.17.0.1"]  # docker's default bridge gateway


def test_no_network_to_the_host(arena: Arena, host_unchanged):
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("0.0.0.0", 0))
    listener.listen(8)
    listener.setblocking(False)
    port = listener.getsockname()[1]
    try:
        for addr in _host_addresses():
            r = arena.read.exec(f"timeout 3 bash -c 'echo hello > /dev/tcp/{addr}/{port}'")
            assert r.exit_code != 0, f"{arena.backend} reached {addr}:{port}"
            py = arena.write.exec(
                f"timeout 3 python3 -c \"import socket; socket.create_connection(('{addr}', {port}), 2)\""
            )
            assert py.exit_code != 0, f"{arena.backend} reached {addr}:{port} from python"
        with pytest.raises(BlockingIOError):
            listener.accept()
    finally:
        listener.close()
    interfaces = arena.read.exec("cat /proc/net/dev | tail -n +3 | cut -d: -f1 | tr -d ' '")
    assert interfaces.output.split() == ["lo"]


def test_no_dns(arena: Arena):
    r = arena.read.exec("getent hosts deb.debian.org")
    assert r.exit_code != 0 and r.output.strip() == ""
    py = arena.read.exec("python3 -c \"import socket; print(socket.getaddrinfo('deb.debian.org', 80))\"")
    assert py.exit_code != 0 and "gaierror" in py.output


def test_host_secrets_are_not_visible(arena: Arena):
    assert os.environ["ANTHROPIC_API_KEY"] == FAKE_KEY  # set on the host while the sessions started
    for sb in (arena.read, arena.write):
        r = sb.exec("env; cat /proc/self/environ /proc/*/environ 2>/dev/null | tr '\\0' '\\n'")
        assert FAKE_KEY not in r.output and "ANTHROPIC" not in r.output
        assert "PATH=/opt/horma/bin:" in r.output


def test_writes_to_raw_and_metadata_fail_in_the_write_view(arena: Arena, host_unchanged):
    seg = next((arena.ws.root / "raw").iterdir()).name
    attempts = [
        "echo x > raw/new.log",
        f"echo 'D9:9 | 2023-01-01 | X: forged' >> raw/{seg}/units.log",
        f"rm -f raw/{seg}/units.log",
        f"mv raw/{seg}/units.log raw/{seg}/moved.log",
        f"chmod 666 raw/{seg}/units.log",
        f"touch raw/{seg}/extra",
        "mkdir raw/forged",
        "touch .horma/x",
        "rm .horma/workspace.yaml",  # (rm -f exits 0 on the empty mask; host_unchanged checks the file)
        "ln -s /tmp .horma/trajectories/x",
        "chmod 755 .horma",  # open the mask
        "mv .horma moved",
        "rm -rf .horma",
        "umount .horma",
    ]
    for cmd in attempts:
        r = arena.write.exec(cmd)
        assert r.exit_code != 0, f"{arena.backend}: {cmd!r} succeeded in the write view"


def test_any_write_fails_in_the_read_view(arena: Arena):
    before = arena.whole()
    attempts = [
        "touch notes/new.md",
        "echo x >> INDEX.md",
        "sed -i s/INDEX/X/ INDEX.md",
        "mkdir topics",
        "rm -rf notes",
        "cp INDEX.md notes/copy.md",
        "touch .horma/index/x",
        "touch $HORMA_INDEX/x",
        "rm $HORMA_INDEX/probe.txt",
        "touch raw/x",
    ]
    for cmd in attempts:
        r = arena.read.exec(cmd)
        assert r.exit_code != 0, f"{arena.backend}: {cmd!r} succeeded in the read view"
    assert arena.whole() == before


def test_memory_bomb_is_contained(arena: Arena, host_unchanged):
    r = arena.read.exec("python3 -c \"b = b'x' * (3 * 1024**3); print(len(b))\"", timeout=20)
    assert r.exit_code != 0 and str(3 * 1024**3) not in r.output
    assert arena.read.exec("echo alive").output == "alive\n"


def test_output_flood_is_capped(arena: Arena):
    cap = arena.read.limits.output_cap
    r = arena.read.exec("head -c 20000000 /dev/zero | tr '\\0' x")
    assert r.exit_code == 0 and r.truncated and len(r.output) < cap + 200
    assert "bytes of output cut" in r.output
    endless = arena.read.exec("yes flood", timeout=1.5)
    assert endless.timed_out and endless.exit_code == 124 and endless.truncated
    assert len(endless.output) < cap + 200
    assert arena.read.exec("echo alive").output == "alive\n"


def test_never_ending_command_times_out_and_the_session_goes_on(arena: Arena):
    assert arena.read.exec("cd notes/people").exit_code == 0
    t0 = time.monotonic()
    r = arena.read.exec("sleep 1000", timeout=1)
    assert r.timed_out and r.exit_code == 124 and "timed out" in r.output
    assert time.monotonic() - t0 < 5
    assert arena.read.exec("pwd; cd /ws").output == "/ws/notes/people\n"


def test_fork_bomb_is_contained(isolated_backend: str, workspace: Workspace):
    marker = "horma-bomb-" + secrets.token_hex(6)
    with open_sandbox(workspace.root, isolated_backend, View.READ, limits=Limits(pids=48, timeout=4)) as sb:
        forker = (
            "python3 -c \"import os, time\nn = 0\nfor _ in range(500):\n    try:\n        pid = os.fork()\n"
            "    except OSError:\n        break\n    if pid == 0:\n        time.sleep(2); os._exit(0)\n"
            "    n += 1\nprint(n)\""
        )
        r = sb.exec(forker)
        started = int(r.output.split()[-1])
        assert 0 < started < 48, f"{isolated_backend} let {started} processes start under a limit of 48"
        bomb = sb.exec(f"(exec -a {marker} bash -c 'b() {{ b | b & }}; b; wait')", timeout=4)
        assert bomb.timed_out or "Resource temporarily unavailable" in bomb.output, bomb.output
        assert "alive" in sb.exec("echo alive").output  # the bomb's leftovers may still be complaining
    assert wait_until(lambda: not host_processes_with(marker), 10), host_processes_with(marker)
    assert subprocess.run(["true"]).returncode == 0


def test_background_processes_do_not_survive_close(isolated_backend: str, workspace: Workspace):
    marker = "horma-bg-" + secrets.token_hex(6)
    sb = open_sandbox(workspace.root, isolated_backend, View.WRITE)
    try:
        r = sb.exec(
            f"(exec -a {marker}-a sleep 1000) & disown; "
            f"setsid nohup bash -c 'exec -a {marker}-b sleep 1000' >/dev/null 2>&1 & echo started"
        )
        assert r.output.strip() == "started"
        assert wait_until(lambda: len(host_processes_with(marker)) == 2, 5), host_processes_with(marker)
    finally:
        sb.close()
    assert wait_until(lambda: not host_processes_with(marker), 10), host_processes_with(marker)


def test_commands_run_when_the_process_holds_fds_past_1023(isolated_backend: str, workspace: Workspace):
    """A server holding many workspaces has fds above 1023, where select() cannot look; the shell must still read."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < 1200:
        pytest.skip(f"the hard fd limit here is {hard}")
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, 1200), hard))
    held: list[int] = []
    try:
        while not held or held[-1] < 1100:
            held.append(os.open(os.devnull, os.O_RDONLY))
        with open_sandbox(workspace.root, isolated_backend, View.READ) as sb:
            assert max(held) >= 1100
            r = sb.exec("echo past-1023 && ls raw | head -1")
            assert r.exit_code == 0 and r.output.startswith("past-1023\n"), r.output
    finally:
        for fd in held:
            os.close(fd)
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def test_a_sandbox_outlives_the_thread_that_started_it(isolated_backend: str, workspace: Workspace):
    """A server's worker pool retires idle threads; bwrap's die-with-parent must not take the sandbox with them."""
    import threading

    box: list[Sandbox] = []

    def start() -> None:
        sb = open_sandbox(workspace.root, isolated_backend, View.READ)
        sb.exec("horma_state=kept; cd raw")
        box.append(sb)

    worker = threading.Thread(target=start)
    worker.start()
    worker.join()
    time.sleep(0.5)  # PR_SET_PDEATHSIG is delivered when the thread ends
    with box[0] as sb:
        r = sb.exec("echo $horma_state; pwd")
        assert r.output == f"kept\n{sb.home}/raw\n", r.output


@pytest.mark.docker
def test_containers_of_killed_sessions_are_removed_on_the_next_open(workspace: Workspace):
    """A session whose process was SIGKILLed cannot close; the next open removes its container."""
    require_backend("docker")
    import docker

    proc = subprocess.Popen(
        [sys.executable, "-c", "import sys, time\nfrom horma.sandbox import open_sandbox\n"
         f"sb = open_sandbox({str(workspace.root)!r}, 'docker')\nprint(sb.container.id, flush=True)\ntime.sleep(60)"],
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert proc.stdout is not None
    orphan = proc.stdout.readline().strip()
    proc.kill()
    proc.wait()
    client = docker.from_env()
    try:
        assert client.containers.get(orphan).status == "running"
        with open_sandbox(workspace.root, "docker") as sb:
            assert sb.exec("echo fresh").output == "fresh\n"
        assert not client.containers.list(all=True, filters={"id": orphan})
    finally:
        client.close()


@pytest.mark.parametrize("view", ["read", "write"])
def test_metadata_is_invisible(arena: Arena, view: str, host_unchanged):
    """Other queries' trajectories (and every other part of .horma/) cannot be read or listed."""
    sb = arena.read if view == "read" else arena.write
    assert sb.exec("cd /ws && ls -a .").output.split().count(".horma") == 1  # the mask itself is there
    listing = sb.exec("ls -A /ws/.horma")
    assert listing.exit_code != 0 or listing.output == "", listing.output
    attempts = [
        "cat .horma/trajectories/*",
        "cat .horma/trajectories/other.jsonl",
        "cat .horma/workspace.yaml",
        "ls .horma/trajectories",
        "ls .horma/index",
        "cat /proc/self/root/ws/.horma/trajectories/other.jsonl",
        "cat /proc/1/root/ws/.horma/trajectories/other.jsonl",
    ]
    for cmd in attempts:
        r = sb.exec(f"cd /ws; {cmd}")
        assert r.exit_code != 0 and META_SECRET not in r.output, f"{arena.backend}: {cmd!r} -> {r.output!r}"
    searches = [
        "grep -rn horma-other-query .",
        "grep -rln where .",
        "rg -uuu -n horma-other-query .",
        "find . -path './.horma/*'",
        "find / -name 'other.jsonl' -o -name workspace.yaml 2>/dev/null",
        "ls -aR .horma",
        "tar -cf - . 2>/dev/null | grep -a -o 'horma-other-query[0-9a-f-]*'",
        "grep -rl Caroline .",
    ]
    for cmd in searches:
        r = sb.exec(f"cd /ws; {cmd}", timeout=30)
        assert META_SECRET not in r.output and "other.jsonl" not in r.output, f"{arena.backend}: {cmd!r}"
        assert "workspace.yaml" not in r.output and "trajectories" not in r.output, f"{arena.backend}: {cmd!r}"
    found = sb.exec("cd /ws; grep -rl Caroline .")  # the rest is searchable, without errors from the mask
    assert found.exit_code == 0 and "caroline.md" in found.output and "denied" not in found.output, found.output


@pytest.mark.parametrize("view", ["read", "write"])
def test_index_is_at_horma_index(arena: Arena, view: str):
    sb = arena.read if view == "read" else arena.write
    assert sb.exec("echo $HORMA_INDEX").output == "/opt/horma/index\n"
    assert sb.exec('cat "$HORMA_INDEX/probe.txt"').output == "index probe\n"
    host = arena.ws.root / ".horma" / "index" / f"{view}.txt"
    wrote = sb.exec(f'echo from-{view} > "$HORMA_INDEX/{view}.txt"')
    try:
        if view == "read":
            assert wrote.exit_code != 0 and not host.exists(), f"{arena.backend}: the read view wrote the index"
        else:
            assert wrote.exit_code == 0, wrote.output
            assert host.read_text() == "from-write\n"
            assert arena.read.exec('cat "$HORMA_INDEX/write.txt"').output == "from-write\n"
    finally:
        host.unlink(missing_ok=True)


def test_home_and_cwd_are_the_shells_paths(arena: Arena):
    for sb in (arena.read, arena.write):
        assert sb.home == "/ws"
        assert sb.exec("cd /ws/notes").exit_code == 0 and sb.cwd == "/ws/notes"
        assert sb.exec("cd people").exit_code == 0 and sb.cwd == "/ws/notes/people"
        assert sb.exec("cd /ws").exit_code == 0 and sb.cwd == sb.home
    assert isinstance(arena.read, Sandbox)


# -- what must work ---------------------------------------------------------------


def test_cd_persists_exit_codes_and_both_streams(arena: Arena):
    sb = arena.read
    assert sb.exec("cd notes/people").exit_code == 0
    assert sb.exec("pwd").output == "/ws/notes/people\n"
    assert sb.exec("ls").output == "caroline.md\n"
    assert sb.exec("false").exit_code == 1
    assert sb.exec("(exit 42)").exit_code == 42
    r = sb.exec("echo out; echo err >&2")
    assert r.output == "out\nerr\n" and r.exit_code == 0
    assert sb.exec("cd /ws && grep -c D1: raw/*/units.log").output == "3\n"


def test_helpers_are_on_path(arena: Arena):
    host = sorted(p.name for p in SANDBOX_BIN.iterdir()) if SANDBOX_BIN.is_dir() else []
    r = arena.read.exec("ls /opt/horma/bin; echo PATH=$PATH")
    *names, path = r.output.split("\n")[:-1]
    assert names == host and path.startswith("PATH=/opt/horma/bin:")
    assert arena.read.exec("command -v rg python3 awk | wc -l").output == "3\n"


def test_write_view_writes_notes_the_host_can_use(arena: Arena, host_unchanged):
    script = (
        "mkdir -p notes/topics && printf -- '---\\ntitle: Counseling\\n---\\n- D1:3\\n' > notes/topics/c.md"
        " && sed -i 's/D1:3/D1:3 wants to study counseling/' notes/topics/c.md"
        " && echo '- notes/topics/ counseling' >> INDEX.md && touch $HORMA_INDEX/bm25.json && cat notes/topics/c.md"
    )
    r = arena.write.exec(script)
    assert r.exit_code == 0, r.output
    note = arena.ws.read_note("notes/topics/c.md")
    assert note.title == "Counseling" and "wants to study counseling" in note.body
    assert "notes/topics/ counseling" in (arena.ws.root / "INDEX.md").read_text()
    with open(arena.ws.root / "notes/topics/c.md", "a") as fh:  # the host user can still change it
        fh.write("- host edit\n")
    assert arena.read.exec("tail -1 notes/topics/c.md").output == "- host edit\n"
    (arena.ws.root / "notes/topics/c.md").unlink()
    (arena.ws.root / "notes/topics").rmdir()


@pytest.mark.skipif(os.geteuid() != 0, reason="only root hands files to the sandbox user")
def test_write_view_preparation_never_follows_links(workspace: Workspace, tmp_path: Path):
    outside = tmp_path / "outside.txt"
    outside.write_text("host file\n")
    linked = tmp_path / "linked.txt"
    linked.write_text("hard linked\n")
    notes = workspace.root / "notes"
    (notes / "sym.md").symlink_to(outside)
    (notes / "dirlink").symlink_to(tmp_path)
    os.link(linked, notes / "hard.md")
    prepare_write_view(workspace.root, Identity(54321, 54321))
    assert outside.stat().st_uid == 0 and linked.stat().st_uid == 0 and tmp_path.stat().st_uid == 0
    assert (notes / "people" / "caroline.md").stat().st_uid == 54321
    assert workspace.root.stat().st_uid == 54321 and (workspace.root / ".horma" / "index").stat().st_uid == 54321
    assert all(p.stat().st_uid == 0 for p in (workspace.root / "raw").rglob("*"))
    assert (workspace.root / ".horma" / "workspace.yaml").stat().st_uid == 0


# -- the CLI ---------------------------------------------------------------------------


def horma(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", "from horma.cli import main; main()", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def test_cli_exec_passes_exit_codes_and_timeouts(isolated_backend: str, workspace: Workspace):
    ws = str(workspace.root)
    ok = horma("sandbox", "exec", ws, "--backend", isolated_backend, "--", "cat notes/people/caroline.md; exit 3")
    assert ok.returncode == 3 and "title: Caroline" in ok.stdout
    slow = horma("sandbox", "exec", ws, "-b", isolated_backend, "--timeout", "0.5", "--", "sleep", "30")
    assert slow.returncode == 124 and "timed out" in slow.stdout


def test_cli_refusals_exit_with_their_error_code_and_one_line(tmp_path: Path, workspace: Workspace):
    missing = horma("sandbox", "exec", str(tmp_path / "nope"), "--", "ls")
    assert missing.returncode == 4 and len(missing.stderr.strip().splitlines()) == 1  # workspace (docs/errors.md)
    assert "not a horma workspace" in missing.stderr
    bad = horma("sandbox", "exec", str(workspace.root), "--backend", "chroot", "--", "ls")
    assert bad.returncode == 5 and "unknown sandbox backend" in bad.stderr  # config: the settings refuse the flag


def test_cli_check_lists_every_backend():
    r = horma("sandbox", "check", "--json")
    rows = {row["name"]: row for row in json.loads(r.stdout)}
    assert set(rows) == {"docker", "bwrap", "local"} and all(row["reason"] for row in rows.values())
    assert r.returncode == (0 if rows["docker"]["available"] or rows["bwrap"]["available"] else 1)

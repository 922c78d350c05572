"""The persistent shell protocol, through the local backend (no isolation needed for these)."""

import os

import pytest

from horma.sandbox import SandboxError, View, open_sandbox, require_isolation
from horma.sandbox.shell import PersistentShell


@pytest.fixture
def sb(tmp_path):
    with open_sandbox(tmp_path, "local", View.WRITE) as box:
        yield box


def test_cd_persists_and_exit_codes_return(sb, tmp_path):
    assert sb.exec("mkdir -p a/b && cd a/b").exit_code == 0
    r = sb.exec("pwd; exit_now() { return 7; }; exit_now")
    assert r.output.strip() == str(tmp_path / "a" / "b") and r.exit_code == 7


def test_home_cwd_and_index_are_host_paths(sb, tmp_path):
    assert sb.home == str(tmp_path) and sb.cwd == sb.home
    sb.exec("mkdir -p notes && cd notes")
    assert sb.cwd == str(tmp_path / "notes")
    sb.exec("sleep 30", timeout=0.3)  # a restart keeps the cwd
    assert sb.cwd == str(tmp_path / "notes") and sb.exec("pwd").output == f"{tmp_path / 'notes'}\n"
    assert sb.exec("echo $HORMA_INDEX").output == f"{tmp_path / '.horma' / 'index'}\n"


def test_quoting_heredocs_and_syntax_errors(sb):
    assert sb.exec("printf '%s|' 'a  b' \"c\\\\d\"").output == "a  b|c\\d|"
    assert sb.exec("cat <<'EOF'\n$HOME `x`\nEOF").output == "$HOME `x`\n"
    r = sb.exec('echo "unclosed')
    assert r.exit_code == 2 and "unexpected EOF" in r.output
    assert sb.exec("echo still alive").output == "still alive\n"


def test_stdin_is_not_the_protocol(sb):
    r = sb.exec("cat; read x; echo after")
    assert r.exit_code == 0 and r.output == "after\n"


def test_timeout_returns_124_and_restarts_in_same_cwd(sb, tmp_path):
    sb.exec("mkdir -p d && cd d")
    r = sb.exec("sleep 30", timeout=0.5)
    assert r.timed_out and r.exit_code == 124 and "timed out" in r.output
    assert sb.exec("pwd").output.strip() == str(tmp_path / "d")


def test_output_flood_keeps_head_and_tail(tmp_path):
    shell = PersistentShell(["bash", "--noprofile", "--norc"], env={"PATH": "/usr/bin:/bin"}, output_cap=1000)
    try:
        r = shell.run("seq 1 200000", timeout=10)
    finally:
        shell.kill()
    assert r.exit_code == 0 and r.truncated
    assert r.output.startswith("1\n2\n3\n") and r.output.endswith("199999\n200000\n")
    assert "bytes of output cut" in r.output and len(r.output) < 1200


def test_exit_in_command_reports_a_dead_shell_and_recovers(sb):
    r = sb.exec("exit 3")
    assert r.exit_code == 125 and not r.timed_out
    assert sb.exec("echo back").output == "back\n"


def test_host_secrets_never_enter_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-canary-123")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-canary-456")
    with open_sandbox(tmp_path, "local") as box:
        out = box.exec("env; cat /proc/$$/environ | tr '\\0' '\\n'").output
    assert "canary" not in out and "API_KEY" not in out


def test_llm_use_of_local_needs_the_explicit_flag(sb):
    assert sb.isolated is False
    with pytest.raises(SandboxError, match="--unsafe-local"):
        require_isolation(sb, allow_unsafe_local=False)
    require_isolation(sb, allow_unsafe_local=True)


def test_closed_session_leaves_no_background_process(tmp_path):
    tag = f"horma-bg-{os.getpid()}"
    with open_sandbox(tmp_path, "local") as box:
        box.exec(f"(exec -a {tag} sleep 60) >/dev/null 2>&1 &")
    import subprocess
    import time

    time.sleep(0.2)
    assert tag not in subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True).stdout


def test_unknown_backend_and_missing_workspace_are_clear_errors(tmp_path):
    with pytest.raises(SandboxError, match="unknown sandbox backend"):
        open_sandbox(tmp_path, "chroot")
    with pytest.raises(SandboxError, match="does not exist"):
        open_sandbox(tmp_path / "nope", "local")


def test_large_commands_arrive_intact_and_the_shell_keeps_going(sb, tmp_path):
    payload = "".join(f"line {i} $HOME `x` \\ é\n" for i in range(5000))
    r = sb.exec(f"cd /tmp && cd {tmp_path} && cat > big.txt <<'EOF'\n{payload}EOF")
    assert r.exit_code == 0 and r.output == ""
    assert (tmp_path / "big.txt").read_text() == payload
    assert sb.exec("echo next; pwd").output == f"next\n{tmp_path}\n"

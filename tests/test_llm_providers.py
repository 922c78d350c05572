"""Provider modules against loopback servers: wire formats, keys, retries, accounting, specs."""

from __future__ import annotations

import pytest
from loopback import LoopbackServer, call, fault, say

from horma.llm import LLMError, ToolSpec, make_llm, parse_spec
from horma.llm.accounting import price_for
from horma.llm.retry import RetryPolicy
from horma.llm.scripted import ScriptedLLM

pytestmark = pytest.mark.filterwarnings("ignore:The model .* is deprecated:DeprecationWarning")

FAST = {"retry_base_delay": 0.001, "retry_max_delay": 0.01, "timeout": 5.0}
BASH = ToolSpec("bash", "Run a command.", {"type": "object", "properties": {"command": {"type": "string"}},
                                            "required": ["command"]})
USER = [{"role": "user", "content": "hello"}]


@pytest.fixture(autouse=True)
def clean_env(monkeypatch):
    for name in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "ANTHROPIC_BASE_URL", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)


def test_parse_spec():
    assert parse_spec("anthropic:claude-sonnet-4-5") == ("anthropic", "claude-sonnet-4-5", None)
    assert parse_spec("anthropic:") == ("anthropic", "claude-sonnet-5-5", None)
    assert parse_spec("openai:qwen2.5-7b@http://127.0.0.1:8000/v1") == (
        "openai", "qwen2.5-7b", "http://127.0.0.1:8000/v1")
    assert parse_spec("scripted:replies.yaml") == ("scripted", "replies.yaml", None)
    for bad, why in [("gpt-4o", "provider:model"), ("mistral:large", "provider one of"),
                     ("openai:", "no model name"), ("openai:m@localhost:8000", "http")]:
        with pytest.raises(LLMError, match=why):
            parse_spec(bad)


def test_missing_keys_are_one_clear_error_but_a_local_server_needs_none():
    with pytest.raises(LLMError, match="ANTHROPIC_API_KEY"):
        make_llm("anthropic:claude-sonnet-4-5")
    with pytest.raises(LLMError, match="OPENAI_API_KEY"):
        make_llm("openai:gpt-4o-mini")
    with LoopbackServer("openai", [say("hi")]) as srv:
        llm = make_llm(f"openai:qwen2.5-7b@{srv.base_url}", **FAST)
        assert llm.complete("", USER).text == "hi"
    assert srv.requests[0].headers["authorization"] == "Bearer not-needed"
    assert llm.stats.cost_usd is None  # a local model has no list price


@pytest.mark.parametrize("flavor", ["anthropic", "openai"])
def test_keys_and_base_urls_from_the_environment(flavor, monkeypatch):
    with LoopbackServer(flavor, [say("from env")]) as srv:
        monkeypatch.setenv(f"{flavor.upper()}_API_KEY", "sk-env-key")
        monkeypatch.setenv(f"{flavor.upper()}_BASE_URL", srv.base_url)
        llm = make_llm(f"{flavor}:claude-sonnet-4-5" if flavor == "anthropic" else "openai:gpt-4o-mini", **FAST)
        assert llm.complete("sys", USER).text == "from env"
    assert "sk-env-key" in srv.requests[0].headers["authorization"]


@pytest.mark.parametrize("flavor", ["anthropic", "openai"])
def test_plain_completion_wire_format_and_accounting(flavor):
    with LoopbackServer(flavor, [say("first"), say("second")]) as srv:
        model = "claude-sonnet-4-5" if flavor == "anthropic" else "gpt-4o-mini"
        llm = make_llm(f"{flavor}:{model}@{srv.base_url}", api_key="sk-test", max_tokens=256, **FAST)
        replies = [llm.complete("Be brief.", USER) for _ in range(2)]
    assert [r.text for r in replies] == ["first", "second"] and not replies[0].tool_calls
    body = srv.requests[0].body
    assert "tools" not in body and body["model"] == model and body["max_tokens"] == 256  # a custom base URL
    if flavor == "anthropic":
        assert body["system"] == "Be brief." and body["messages"] == [
            {"role": "user", "content": [{"type": "text", "text": "hello"}]}]
    else:
        assert body["messages"] == [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "hello"}]
    # tokens are the server's usage fields, summed; cost from the price table
    assert llm.stats.calls == 2 and llm.stats.input_tokens == sum(r.usage.input_tokens for r in replies) > 0
    price = price_for(model)
    expected = (llm.stats.input_tokens * price[0] + llm.stats.output_tokens * price[1]) / 1e6
    assert llm.stats.cost_usd == pytest.approx(expected) and llm.stats.wall_s > 0


@pytest.mark.parametrize("flavor", ["anthropic", "openai"])
def test_client_errors_are_not_retried(flavor):
    with LoopbackServer(flavor, [fault(400), say("never")]) as srv:
        llm = make_llm(f"{flavor}:m@{srv.base_url}", api_key="k", **FAST)
        with pytest.raises(LLMError, match="HTTP 400 injected HTTP 400"):
            llm.complete("", USER)
    assert len(srv.requests) == 1 and llm.stats.calls == 0


def test_retry_after_is_honoured_up_to_the_cap():
    policy = RetryPolicy(max_retries=3, base_delay=1.0, max_delay=2.0)
    assert policy.delay(0, retry_after=0.5) == 0.5 and policy.delay(0, retry_after=60) == 2.0
    delays = [policy.delay(n) for n in range(4)]
    assert 0.5 <= delays[0] <= 1.0 and all(1.0 <= d <= 2.0 for d in delays[1:])


def test_openai_tool_protocols(monkeypatch):
    with LoopbackServer("openai", [say("```bash\nls\n```")]) as srv:
        llm = make_llm(f"openai:m@{srv.base_url}", tool_protocol="text", **FAST)
        reply = llm.complete("sys", USER, [BASH])
    assert "tools" not in srv.requests[0].body and reply.tool_calls[0].arguments == {"command": "ls"}
    with LoopbackServer("openai", [call("bash", command="ls")], tool_calling=False) as srv:
        llm = make_llm(f"openai:m@{srv.base_url}", tool_protocol="native", **FAST)
        with pytest.raises(LLMError, match=r"HTTP 400 .*tool"):
            llm.complete("sys", USER, [BASH])
    with pytest.raises(LLMError, match="tool_protocol must be one of"):
        make_llm("openai:m@http://127.0.0.1:1/v1", tool_protocol="json")


def test_unreachable_server_gives_up_with_one_error():
    llm = make_llm("openai:m@http://127.0.0.1:9/v1", max_retries=1, **FAST)
    with pytest.raises(LLMError, match=r"cannot connect.*gave up after 2 attempts"):
        llm.complete("", USER)
    assert llm.stats.retries == 1


def test_scripted_from_file(tmp_path):
    script = tmp_path / "replies.yaml"
    script.write_text("- hello\n- tool_calls: [{name: bash, arguments: {command: ls}}]\n")
    llm = make_llm(f"scripted:{script}")
    assert isinstance(llm, ScriptedLLM) and llm.complete("", USER).text == "hello"
    reply = llm.complete("", USER, [BASH])
    assert reply.tool_calls[0].name == "bash" and reply.usage.input_tokens > 0
    with pytest.raises(LLMError, match="ran out of replies after 2 calls"):
        llm.complete("", USER)
    assert llm.stats.calls == 2 and len(llm.calls) == 3
    with pytest.raises(LLMError, match="no such script file"):
        make_llm(f"scripted:{tmp_path / 'missing.yaml'}")
    (tmp_path / "bad.yaml").write_text("text: not a list\n")
    with pytest.raises(LLMError, match="expected a list"):
        make_llm(f"scripted:{tmp_path / 'bad.yaml'}")


def test_a_server_without_usage_falls_back_to_the_project_token_count():
    with LoopbackServer("openai", [say("one two three")], usage=False) as srv:
        llm = make_llm(f"openai:m@{srv.base_url}", **FAST)
        reply = llm.complete("system words", USER)
    assert reply.usage.output_tokens == 3 and reply.usage.input_tokens > 4
    assert llm.stats.input_tokens == reply.usage.input_tokens


def test_the_default_anthropic_model_is_current_and_its_unknown_price_reads_as_unknown():
    """The default is a model the installed SDK lists and does not deprecate; no invented price for it."""
    from typing import get_args

    from anthropic.resources.messages.messages import DEPRECATED_MODELS
    from anthropic.types.model_param import ModelParam

    from horma.llm import DEFAULT_ANTHROPIC_MODEL
    from horma.llm.accounting import Accounting

    assert DEFAULT_ANTHROPIC_MODEL in get_args(get_args(ModelParam)[0])
    assert DEFAULT_ANTHROPIC_MODEL not in DEPRECATED_MODELS
    assert price_for(DEFAULT_ANTHROPIC_MODEL) is None  # its list price is not in the table (yet)
    stats = Accounting(price=price_for(DEFAULT_ANTHROPIC_MODEL))
    stats.record(1000, 100, 0.5)
    assert stats.as_dict()["cost_usd"] is None and stats.input_tokens == 1000  # unknown, not $0

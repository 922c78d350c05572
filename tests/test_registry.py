"""One registry helper behind every name horma picks: policies, sandbox backends, LLM providers, methods."""

from __future__ import annotations

import sys
from typing import Any

import pytest

from horma.agents.policies import MANAGER_POLICIES, RETRIEVER_POLICIES, PolicyError
from horma.bench.methods import METHODS, MethodError
from horma.llm import PROVIDERS, LLMError, make_llm
from horma.llm.scripted import ScriptedLLM
from horma.registry import Registry
from horma.sandbox import SANDBOXES, SandboxError


class Oops(Exception):
    pass


def test_names_in_order_lookup_and_one_error_listing_the_choices() -> None:
    reg: Registry[int] = Registry("colour", Oops, also="none", hint=" (see the docs)")
    reg.register("red", 1)
    reg.register("blue", 2)
    assert reg.names() == ("red", "blue") and "red" in reg and "green" not in reg
    assert reg.get("blue") == 2 and reg.check("red") == "red"
    with pytest.raises(Oops, match=r"^unknown colour 'green'; choose one of red, blue or none \(see the docs\)$"):
        reg.get("green")
    with pytest.raises(Oops, match=r"^unknown --colour 3; "):
        reg.check(3, label="--colour")  # type: ignore[arg-type]
    reg.register("red", 5)  # a user's own entry replaces the built-in of that name
    reg.unregister("blue")
    assert reg.names() == ("red",) and reg.get("red") == 5
    with pytest.raises(Oops, match="needs a non-empty name"):
        reg.register("", 3)


def test_an_entry_given_by_path_loads_only_when_chosen() -> None:
    reg: Registry[object] = Registry("thing", Oops)
    reg.register("dumps", "json:dumps")
    reg.register("decoder", "json.decoder:JSONDecoder.decode")
    reg.register("module", "colorsys")
    sys.modules.pop("colorsys", None)
    reg.check("module")
    assert "colorsys" not in sys.modules  # checking a name imports nothing
    import colorsys
    import json
    from json.decoder import JSONDecoder

    assert reg.get("dumps") is json.dumps and reg.get("decoder") is JSONDecoder.decode
    assert reg.get("module") is colorsys


def test_every_registry_speaks_the_callers_error_and_lists_its_names() -> None:
    cases: list[tuple[Registry[Any], type[Exception], str]] = [
        (MANAGER_POLICIES, PolicyError, "unknown manager policy 'x'; choose one of heuristic, llm$"),
        (RETRIEVER_POLICIES, PolicyError, "unknown retriever policy 'x'; choose one of heuristic, llm$"),
        (SANDBOXES, SandboxError, "unknown sandbox backend 'x'; choose one of docker, bwrap, local or auto$"),
        (PROVIDERS, LLMError, "unknown provider 'x'; choose one of anthropic, openai, scripted, hf$"),
        (METHODS, MethodError, "unknown method 'x'; choose one of full, truncation, .* or give package.module:Class$"),
    ]
    for registry, error, message in cases:
        with pytest.raises(error, match=message):
            registry.get("x")


def test_a_registered_provider_is_what_make_llm_builds(tmp_path) -> None:
    script = tmp_path / "replies.yaml"
    script.write_text("- hello\n")
    llm = make_llm(f"scripted:{script}", max_tokens=5)  # options every provider gets; a script ignores them
    assert llm.complete("", [{"role": "user", "content": "hi"}]).text == "hello"
    scripted = ScriptedLLM(["echoed"])
    built: list[tuple[str, str]] = []

    def echo(model: str, **options: Any) -> ScriptedLLM:
        built.append((model, options["spec"]))
        return scripted

    PROVIDERS.register("echo", echo)
    try:
        assert make_llm("echo:tiny") is scripted and built == [("tiny", "echo:tiny")]
    finally:
        PROVIDERS.unregister("echo")
    with pytest.raises(LLMError, match="provider one of anthropic, openai, scripted, hf "):
        make_llm("echo:tiny")

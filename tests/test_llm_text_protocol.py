"""The text protocol's strict parser and its mapping onto the same tools as native calls."""

from __future__ import annotations

import pytest

from horma.llm import ToolSpec
from horma.llm.text_protocol import instructions, parse_action, to_text_messages, usage_line

BASH = ToolSpec("bash", "Run a command.", {"type": "object", "properties": {"command": {"type": "string"}},
                                            "required": ["command"]})
SELECT = ToolSpec("select", "Add lines to the context.", {
    "type": "object", "properties": {"path": {"type": "string"}, "start": {"type": "integer"},
                                     "end": {"type": "integer"}}, "required": ["path"]})
DONE = ToolSpec("done", "Finish.", {"type": "object", "properties": {}})
NOTE = ToolSpec("done", "Finish with a summary.", {"type": "object", "properties": {"summary": {"type": "string"}}})
TOOLS = [BASH, SELECT, DONE]


@pytest.mark.parametrize("text, name, args", [
    ("Let me look.\n```bash\nls -la notes/\n```", "bash", {"command": "ls -la notes/"}),
    ("```sh\ngrep -rn 'a b' notes/ |\n  head\n```", "bash", {"command": "grep -rn 'a b' notes/ |\n  head"}),
    ("```\ncat INDEX.md\n```", "bash", {"command": "cat INDEX.md"}),
    ("select notes/a.md 3 9", "select", {"path": "notes/a.md", "start": 3, "end": 9}),
    ("Evidence found.\n`select raw/x/units.log 2`", "select", {"path": "raw/x/units.log", "start": 2}),
    ("select 'notes/a b.md'", "select", {"path": "notes/a b.md"}),
    ("done", "done", {}),
    ("```bash\ndone\n```", "done", {}),  # a terminal action put in a fence still maps to its tool
    ("Here is python, not an action:\n```python\nprint(1)\n```\ndone", "done", {}),
])
def test_one_action_parses_to_its_tool(text, name, args):
    call = parse_action(text, TOOLS, "c1")
    assert (call.error, call.name, call.arguments, call.id) == (None, name, args, "c1")


@pytest.mark.parametrize("text, error", [
    ("I think the answer is in notes.", "no action found"),
    ("```bash\nls\n```\n```bash\npwd\n```", "2 actions found"),
    ("```bash\nls\n```\ndone", "2 actions found"),
    ("select notes/a.md three", "start must be of type integer"),
    ("select notes/a.md 1 2 3", "too many arguments; usage: select PATH [START] [END]"),
    ("select", "missing path"),
    ("done now", "too many arguments"),
    ("Select the lines", "no action found"),  # names are case-sensitive: prose is not an action
])
def test_anything_else_is_a_format_error(text, error):
    call = parse_action(text, TOOLS, "c1")
    assert call.name == "" and error in call.error and call.raw_arguments


def test_last_string_argument_takes_the_rest_of_the_line():
    call = parse_action("done Wrote notes for session 3: people, events.", [BASH, NOTE], "c")
    assert call.arguments == {"summary": "Wrote notes for session 3: people, events."}
    assert usage_line(NOTE) == "done [SUMMARY]"


def test_instructions_list_every_tool_from_the_template():
    text = instructions(TOOLS)
    assert "```bash" in text and "`select PATH [START] [END]`: Add lines to the context." in text
    assert "`done`: Finish." in text
    assert "```bash" not in instructions([SELECT, DONE])


def test_tool_results_become_user_turns():
    msgs = [
        {"role": "user", "content": "task"},
        {"role": "assistant", "content": "```bash\nls\n```", "tool_calls": [{"id": "t", "name": "bash"}]},
        {"role": "tool", "tool_call_id": "t", "name": "bash", "content": "a\n[exit code 0]"},
        {"role": "user", "content": "format error: x"},
    ]
    assert to_text_messages(msgs) == [
        {"role": "user", "content": "task"},
        {"role": "assistant", "content": "```bash\nls\n```"},
        {"role": "user", "content": "[bash result]\na\n[exit code 0]\n\nformat error: x"},
    ]

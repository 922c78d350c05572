"""The ChatGPT data export (Settings > Data controls > Export): ``conversations.json`` or its zip.

Each conversation keeps its messages as a tree in ``mapping`` (node id ->
``{message, parent, children}``): editing a prompt or regenerating a reply
adds a sibling branch. The thread the user saw is the path from
``current_node`` up through the parents to the root; only it is archived, and
the messages on other branches are counted as ``off-branch message``.

What is archived, as one unit per message (id ``chatgpt:<message id>``, the
message's own time on this machine's clock):

- the user's messages (actor: the ``me`` name) and the assistant's replies
  to the user (actor ``ChatGPT``), their text parts joined;
- not archived, counted by reason: ``system message`` (the system prompt
  and the custom-instructions context, the same text in every chat),
  ``tool message`` (tool calls and their output: browsing, code runs, image
  generation), ``reasoning block`` (hidden thoughts), ``hidden message``
  (what the app does not show), ``empty message``, ``empty conversation``;
- attachments (uploaded files, images) are counted as ``attachment`` and
  never read; the message's text is kept.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from horma.importers import Import, Importer
from horma.importers.export_file import (
    conversation_segment,
    field_of,
    load_export,
    local_time,
    message_unit,
)
from horma.sources import Segment, SourceError
from horma.workspace import Unit

ASSISTANT = "ChatGPT"
_TOOL_CONTENT = {"code", "execution_output", "tether_browsing_display", "tether_quote", "system_error",
                 "computer_output", "sonic_webpage"}
_REASONING_CONTENT = {"thoughts", "reasoning_recap"}


def thread(mapping: dict[str, Any], current: str | None, where: str) -> list[str]:
    """Node ids from the root down to ``current_node``: the branch the user last saw.

    Without a usable ``current_node`` (old exports) the path follows each
    node's last child, the newest regeneration.
    """
    if current not in mapping:
        roots = [k for k, node in mapping.items() if not isinstance(node, dict) or node.get("parent") not in mapping]
        current = roots[0] if roots else None
        while current is not None:
            children = [c for c in (mapping[current].get("children") or []) if c in mapping]
            if not children:
                break
            current = children[-1]
    path: list[str] = []
    seen: set[str] = set()
    while current is not None and current in mapping:
        if current in seen:
            raise SourceError(f"{where}: the message tree has a cycle at node {current!r}")
        seen.add(current)
        path.append(current)
        current = field_of(mapping[current], "parent", str, f"{where}: node {current!r}")
    return path[::-1]


def _text(message: dict[str, Any], skipped: Counter[str], where: str) -> str:
    content = field_of(message, "content", dict, where, {})
    parts = field_of(content, "parts", list, where, [])
    texts, assets = [], 0
    for part in parts:
        if isinstance(part, str):
            texts.append(part)
        elif isinstance(part, dict) and isinstance(part.get("text"), str) and "asset_pointer" not in part:
            texts.append(part["text"])
        else:  # image_asset_pointer, audio, file references
            assets += 1
    if not parts and isinstance(content.get("text"), str):
        texts.append(content["text"])
    metadata = message.get("metadata")
    listed = metadata.get("attachments") if isinstance(metadata, dict) else None
    # an uploaded image is both a part and a metadata attachment: count each file once
    skipped["attachment"] += max(assets, len(listed) if isinstance(listed, list) else 0)
    return "\n".join(t for t in texts if t.strip())


def _reason_to_skip(message: dict[str, Any], where: str) -> str | None:
    role = field_of(field_of(message, "author", dict, where, {}), "role", str, where, "")
    content_type = field_of(field_of(message, "content", dict, where, {}), "content_type", str, where, "text")
    metadata = message.get("metadata")
    if not isinstance(metadata, dict):
        metadata = {}
    if role == "system" or content_type == "user_editable_context" or metadata.get("is_user_system_message"):
        return "system message"
    if role == "tool" or content_type in _TOOL_CONTENT or message.get("recipient") not in (None, "all"):
        return "tool message"
    if content_type in _REASONING_CONTENT or message.get("channel") == "commentary":
        return "reasoning block"
    if message.get("weight") == 0 or metadata.get("is_visually_hidden_from_conversation"):
        return "hidden message"
    if role not in ("user", "assistant"):
        return "tool message"
    return None


def _conversation(conv: Any, where: str, me: str, skipped: Counter[str]) -> Segment | None:
    mapping = field_of(conv, "mapping", dict, where)
    if mapping is None:
        raise SourceError(f"{where}: no 'mapping' (is this a ChatGPT export?)")
    title = field_of(conv, "title", str, where, "") or "untitled"
    where = f"{where} ({title[:40]!r})"
    started = local_time(conv.get("create_time"), f"{where}: create_time")
    on_path = thread(mapping, field_of(conv, "current_node", str, where), where)
    skipped["off-branch message"] += sum(1 for k, node in mapping.items()
                                   if k not in set(on_path) and isinstance(node, dict) and node.get("message"))
    units: list[Unit] = []
    last = started
    for node_id in on_path:
        message = mapping[node_id].get("message")
        if message is None:
            continue  # the synthetic root
        here = f"{where}: message {node_id}"
        reason = _reason_to_skip(message, here)
        text = _text(message, skipped, here) if reason is None else ""
        when = local_time(message.get("create_time"), f"{here}: create_time") or last
        last = when or last
        if reason is None and not text.strip():
            reason = "empty message"
        if reason is not None:
            skipped[reason] += 1
            continue
        if when is None:
            raise SourceError(f"{here}: no create_time on the message or the conversation")
        role = message["author"]["role"]
        mid = field_of(message, "id", str, here, node_id)
        units.append(message_unit(f"chatgpt:{mid}", when, me if role == "user" else ASSISTANT, text, here))
    return conversation_segment(title, started, units, skipped)


def load(path: Path, me: str) -> Import:
    """Every conversation of a ChatGPT export, oldest first, the thread the user saw in each."""
    return load_export(path, me, _conversation)


IMPORTER = Importer("chatgpt", "the ChatGPT export zip or its conversations.json", load)

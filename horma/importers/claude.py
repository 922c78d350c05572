"""The Claude data export (Settings > Privacy > Export data): ``conversations.json`` or its zip.

Each conversation has ``uuid``, ``name``, ``created_at`` and ``chat_messages``
in order; a message has ``uuid``, ``sender`` (``human`` or ``assistant``),
``created_at``, the plain ``text`` and, in newer exports, ``content`` blocks.

What is archived, as one unit per message (id ``claude:<message uuid>``, the
message's own time on this machine's clock):

- the human's messages (actor: the ``me`` name) and Claude's replies (actor
  ``Claude``): the text of their ``text`` blocks, or ``text`` when there are no
  blocks;
- not archived, counted by reason: ``tool message`` (``tool_use`` /
  ``tool_result`` blocks: web search, artifacts, analysis), ``reasoning block``
  (``thinking`` blocks), ``empty message`` (no text left), ``off-branch
  message`` (when the export carries
  ``parent_message_uuid`` and ``current_leaf_message_uuid``, the messages off
  the path to the current leaf);
- ``attachments`` (pasted or uploaded files with their extracted text) and
  ``files`` (images, PDFs) are counted as ``attachment`` and never read: a
  file's content is not something said in the chat.
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

ASSISTANT = "Claude"
_SKIPPED_BLOCKS = {"tool_use": "tool message", "tool_result": "tool message", "thinking": "reasoning block",
                   "redacted_thinking": "reasoning block"}


def _visible(messages: list[Any], leaf: str | None, skipped: Counter[str]) -> list[Any]:
    """The messages on the branch the user last saw, when the export records branches; else all."""
    by_id = {m.get("uuid"): m for m in messages if isinstance(m, dict)}
    if leaf not in by_id or not any(isinstance(m, dict) and "parent_message_uuid" in m for m in messages):
        return messages
    path, seen = [], set()
    while leaf in by_id and leaf not in seen:
        seen.add(leaf)
        path.append(by_id[leaf])
        leaf = by_id[leaf].get("parent_message_uuid")
    skipped["off-branch message"] += len(messages) - len(path)
    return path[::-1]


def _text(message: dict[str, Any], skipped: Counter[str], where: str) -> str:
    blocks = field_of(message, "content", list, where, [])
    texts = []
    for block in blocks:
        kind = field_of(block, "type", str, where, "")
        if kind == "text":
            texts.append(field_of(block, "text", str, where, ""))
        else:
            skipped[_SKIPPED_BLOCKS.get(kind, "other block")] += 1
    if not blocks:
        texts.append(field_of(message, "text", str, where, ""))
    skipped["attachment"] += len(field_of(message, "attachments", list, where, []))
    skipped["attachment"] += len(field_of(message, "files", list, where, []))
    return "\n".join(t for t in texts if t.strip())


def _conversation(conv: Any, where: str, me: str, skipped: Counter[str]) -> Segment | None:
    messages = field_of(conv, "chat_messages", list, where)
    if messages is None:
        raise SourceError(f"{where}: no 'chat_messages' (is this a Claude export?)")
    title = field_of(conv, "name", str, where, "") or "untitled"
    where = f"{where} ({title[:40]!r})"
    started = local_time(conv.get("created_at"), f"{where}: created_at")
    units: list[Unit] = []
    for n, message in enumerate(_visible(messages, conv.get("current_leaf_message_uuid"), skipped), 1):
        here = f"{where}: message {n}"
        sender = field_of(message, "sender", str, here, "")
        if sender not in ("human", "assistant"):
            raise SourceError(f"{here}: sender {sender!r} is neither 'human' nor 'assistant'")
        mid = field_of(message, "uuid", str, here)
        if mid is None:
            raise SourceError(f"{here}: no 'uuid'")
        text = _text(message, skipped, here)
        if not text.strip():
            skipped["empty message"] += 1
            continue
        when = local_time(message.get("created_at"), f"{here}: created_at") or started
        if when is None:
            raise SourceError(f"{here}: no created_at on the message or the conversation")
        units.append(message_unit(f"claude:{mid}", when, me if sender == "human" else ASSISTANT, text, here))
    return conversation_segment(title, started, units, skipped)


def load(path: Path, me: str) -> Import:
    """Every conversation of a Claude export, oldest first."""
    return load_export(path, me, _conversation)


IMPORTER = Importer("claude", "the Claude export zip or its conversations.json", load)

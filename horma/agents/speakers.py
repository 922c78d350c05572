"""How the notes name a speaker: a person by their name, a chat's role labels as the roles they are.

Chats logged with role labels (``user`` and ``assistant``, as chat APIs and MCP
clients record them) would otherwise get people pages ``people/user.md`` and
``people/assistant.md``, as if the labels were names. The notes call them
"the user" and "the assistant" (``people/the-user.md``,
``people/the-assistant.md``, the session's participants, ``INDEX.md``); the
raw lines and every mention keep the label exactly as it was recorded.
"""

from __future__ import annotations

from horma.core.text import ASSISTANT_ROLES, USER_ROLES

ROLES = {**dict.fromkeys(USER_ROLES, "the user"), **dict.fromkeys(ASSISTANT_ROLES, "the assistant")}


def speaker_name(actor: str) -> str:
    """The name the notes give ``actor``: its role for a role label (any case), else the actor itself."""
    return ROLES.get(actor.casefold(), actor)

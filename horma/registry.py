"""One registry for everything horma picks by name: policies, sandbox backends, LLM providers, memory methods.

An entry is the object itself, or ``"module:attr"`` (or ``"module"``) imported
on first use, so choosing a name loads only what that choice needs (the
docker SDK, an LLM SDK, a policy's dependencies), the way mini-swe-agent picks
environments. An unknown name is one error, of the caller's own exception
class, that lists the names there are. A user's own entry is one call away::

    from horma.agents.policies import MANAGER_POLICIES
    MANAGER_POLICIES.register("mine", MyManagerPolicy)    # then Memory(ws, manager="mine")

Standard library only: every layer may import it without pulling in another.
"""

from __future__ import annotations

import importlib
from typing import Any, Generic, TypeVar, cast

T = TypeVar("T")


class Registry(Generic[T]):
    """Names -> entries of one kind; ``what`` words the error (``manager policy``, ``sandbox backend``).

    ``error`` is the exception class an unknown name raises, so callers keep
    catching what they caught before; ``also`` names what is accepted besides
    the entries (``auto`` for the sandbox), ``hint`` ends the error message.
    """

    def __init__(self, what: str, error: type[Exception], *, also: str = "", hint: str = "") -> None:
        self.what = what
        self.error = error
        self.also = also
        self.hint = hint
        self._entries: dict[str, T | str] = {}

    def register(self, name: str, entry: T | str) -> None:
        """Make ``entry`` (or the ``"module:attr"`` it names) available as ``name``; replaces one of that name."""
        if not isinstance(name, str) or not name:
            raise self.error(f"a {self.what} needs a non-empty name, got {name!r}")
        self._entries[name] = entry

    def unregister(self, name: str) -> None:
        self._entries.pop(name, None)

    def names(self) -> tuple[str, ...]:
        """The registered names, in the order they were registered."""
        return tuple(self._entries)

    def choices(self) -> str:
        """``a, b, c`` (``a, b or auto`` with ``also``): the names as an error message lists them."""
        return ", ".join(self._entries) + (f" or {self.also}" if self.also else "")

    def check(self, name: str, label: str | None = None) -> str:
        """``name`` if it is registered, without importing its entry; else the error listing the choices.

        ``label`` words the error for the caller (the CLI says ``manager``
        after ``--manager``; the library says ``manager policy``).
        """
        if not isinstance(name, str) or name not in self._entries:
            raise self.error(f"unknown {label or self.what} {name!r}; choose one of {self.choices()}{self.hint}")
        return name

    def get(self, name: str, label: str | None = None) -> T:
        """The entry registered as ``name``, imported if it was registered by path (see :meth:`check`)."""
        entry = self._entries[self.check(name, label)]
        if isinstance(entry, str):
            module, _, attr = entry.partition(":")
            loaded: Any = importlib.import_module(module)
            for part in attr.split(".") if attr else ():  # "module:Class.factory" names a classmethod
                loaded = getattr(loaded, part)
            entry = self._entries[name] = cast("T", loaded)
        return entry

    def __contains__(self, name: object) -> bool:
        return name in self._entries


__all__ = ["Registry"]

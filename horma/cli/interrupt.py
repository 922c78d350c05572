"""Ctrl-C that always stops a command, even one CPython swallowed.

Python raises ``KeyboardInterrupt`` wherever the main thread is when SIGINT
arrives. If that is a callback CPython runs for itself (a weakref's at the end
of an import, a ``__del__``), the exception is "ignored": a traceback is
printed, and the command goes on to its end and exits 0. A Ctrl-C early in
``horma ingest``, while the model runtime was still importing, archived
everything and exited 0.

So the handler also sets a flag. An exception CPython swallows is dropped
quietly; any error a command raises after the flag is set is reported as the
interrupt (a native module cut short by the signal raises its own error). The
command stops at its next :func:`checkpoint`: every progress bar update is one
(:func:`horma.cli.options.progress_bar`), and so is a command's end, so a command
with no bar (recall, add) exits 130 after its work instead of 0. The MCP server,
which exits 0 on Ctrl-C by design, says it :func:`handled` it.
Only the CLI's own run installs the handler; the library leaves
the signals to its host.
"""

from __future__ import annotations

import signal
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

_pressed = threading.Event()


def _on_sigint(signum: int, frame: Any) -> None:
    _pressed.set()
    raise KeyboardInterrupt


def pressed() -> bool:
    """Whether Ctrl-C was pressed during this run: an error raised after it may be the interrupt in another
    form (a native module's import that the signal cut short says "numpy._core.multiarray failed to import")."""
    return _pressed.is_set()


def handled() -> None:
    """The command stopped on Ctrl-C as it means to (the MCP server exits 0): not an interrupt to report."""
    _pressed.clear()


def checkpoint() -> None:
    """Stop here if Ctrl-C was pressed and its ``KeyboardInterrupt`` was swallowed."""
    if _pressed.is_set():
        raise KeyboardInterrupt


@contextmanager
def catching() -> Iterator[None]:
    """Install the handler and the quiet unraisable hook for one run of the CLI (main thread only)."""
    _pressed.clear()
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    before_signal = signal.signal(signal.SIGINT, _on_sigint)
    before_hook: Callable[[Any], Any] = sys.unraisablehook

    def hook(unraisable: Any) -> None:
        if not isinstance(unraisable.exc_value, KeyboardInterrupt):
            before_hook(unraisable)

    sys.unraisablehook = hook
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, before_signal)
        sys.unraisablehook = before_hook

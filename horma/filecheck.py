"""What is wrong with a path that should name a file: a folder given for a file is not "no such file".

One wording for every loader and command that takes a file (a dataset, a
units JSONL, a note, a raw segment), so a user who passed a folder is told
so instead of being sent looking for a file that is there.
"""

from __future__ import annotations

import os
import stat


def file_problem(path: str | os.PathLike[str]) -> str | None:
    """None when ``path`` is a regular file (links followed); else what it is instead, worded for the user."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return "is a broken link" if os.path.islink(path) else "no such file"
    except NotADirectoryError:
        return "no such file (a part of the path is a file, not a folder)"
    except OSError as exc:
        return f"cannot be read ({exc.strerror})"
    except ValueError:  # a NUL byte, or a lone surrogate the file system cannot encode
        return "is not a valid file name"
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return "is a folder, not a file"
    return "is not a regular file"


__all__ = ["file_problem"]

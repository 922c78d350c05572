"""``python -m horma``: the ``horma`` command, for environments without the console script on PATH."""

from horma.cli import main

main()

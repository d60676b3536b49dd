"""``python -m mcptools``: the same as the ``mcptools`` command."""

from mcptools._cli import main

raise SystemExit(main())

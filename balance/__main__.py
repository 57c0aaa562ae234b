"""``python -m balance`` is the ``balance`` command."""

from .cli import main

raise SystemExit(main())

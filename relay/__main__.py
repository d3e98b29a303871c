"""``python -m relay``: the same as the ``relay`` command."""

from .cli import main

raise SystemExit(main())

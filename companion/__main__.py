"""``python -m companion`` runs the command line."""

from companion.run.cli import main

raise SystemExit(main())

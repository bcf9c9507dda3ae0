"""`python -m harness`: the `harness` command."""

from harness.cli.main import main

raise SystemExit(main())

"""Subcommands of the `companion` command line; each module has register(subparsers)."""

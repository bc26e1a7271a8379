"""`python -m toolgen` runs the command-line interface."""

from toolgen.cli import main

main()

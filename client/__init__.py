"""The Python client library and the `sudoku` command line."""

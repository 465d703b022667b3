"""Shared pieces of the Sudoku service, below the service and the workers:
the grid's vocabulary, settings, Redis key names and scripts, the C engine
(``sudoku.engine``, built from sudoku/csrc), the metrics files and endpoint,
and the generated gRPC code under ``sudoku.v1`` (from proto/).

The client's own distribution takes only grid.py and v1/ from here, so
nothing it takes may import the engine."""

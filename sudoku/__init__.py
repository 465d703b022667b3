"""Shared pieces of the Sudoku service: the grid's vocabulary, Redis key
names, and the generated gRPC code under ``sudoku.v1`` (from proto/)."""

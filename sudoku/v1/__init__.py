"""Generated from proto/sudoku/v1/sudoku.proto by `make proto`. Never edit by hand."""

"""The worker side of the Sudoku service: RQ job functions and the search engine.

The engine is `worker.engine` (the C stepper and fast path); `worker.reference`
is the pure-Python stepper the C one is tested against.
"""

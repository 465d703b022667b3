"""The worker side of the Sudoku service: RQ's workers and the job functions
they run (solves and their frames, coalesced calls, batches, hints, grades,
generation, Step).

`worker.run` runs them: the supervisor (`sudoku-worker`), each worker
process, RQ's worker classes, the job lifecycle and the recovery of dead
workers' jobs. The job functions are `worker.jobs` and the modules beside it.

The C engine they call is below both the workers and the service
(`sudoku.engine`, the stepper and fast path; `worker.logic`, the human
solver's import point, and `worker.generate` use the same extension);
`worker.reference` is the pure-Python stepper the C one is tested against.
"""

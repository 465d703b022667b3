"""Running workers: the processes, and what each does around its jobs.

`supervisor` is `sudoku-worker`: it starts N worker processes, restarts
those that die and stops them. `process` is each one's main (`python -m
worker.run.process`): an RQ worker of a class from `classes` (RQ's
SimpleWorker with a liveness beat every second), plus the maintenance
thread of `recovery`, which queues again the jobs of workers that died.
`lifecycle` is RQ's job lifecycle as those classes run it (two Lua scripts),
`attempt` one run of a job and the fence that stops it when another has
taken the job over, `metrics` the workers' Prometheus figures, and
`readiness` the wait for a Redis a worker cannot use yet (away, a
read-only replica, refusing writes for its memory or scripts by an ACL).

The job functions a worker runs are the rest of `worker/`, from
`worker.jobs`.
"""

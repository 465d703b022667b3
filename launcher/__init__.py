"""`sudoku-server`: the whole service in one command. It starts the embedded
Redis (unless REDIS_URL names one), the worker processes and the service,
and stops them in order. It sits above service/ and worker/, the one place
that imports both."""

"""The service: the sudoku.v1.Sudoku API over gRPC and HTTP, in front of the
workers. It validates a request, queues its work on a cell's Redis, and
relays what the workers write back; it solves nothing itself but for the
checks of a request's board. Its packages, by what they own:

- rpc: the gRPC port: the servicer, statuses, the interceptors (metrics,
  security, decoding, admission of streams), validation, health, reflection.
- jobs: a call's work on Redis: cells and routing, coalesced unary calls,
  queueing and enqueueing, the inbox of replies, waiting, shares, the cache.
- streams: frames: the hub that reads many Redis streams, the relay to one
  client, pacing, stops, watched jobs, Step's positions.
- batches: the calls of many boards (CountBatch, CountMany, GradeMany,
  Generate) over one fan-out within a work budget.
- http: the same API for browsers (Connect, gRPC-Web) and the page.

`sudoku-server` itself (the embedded Redis, the workers and this service in
one command) is the launcher package, which sits above service/ and worker/.
"""

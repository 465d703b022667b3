"""A call's work on Redis: the cells and which one a call goes to, unary calls
coalesced into jobs, queueing them on RQ in one round trip, the inbox their
replies come back on, waiting for a job's end, each caller's share of a lane,
and the result cache."""

"""The calls of many boards: CountBatch, CountMany, GradeMany and Generate,
each a source of parts over one fan-out (fanout.py): ordered, bounded in
flight, within the call's work budget (callbudget.py), stopped when the
caller leaves."""

"""The API's search options by the names the rest of the code uses.

A job's spec (sudoku/specs.py) and the `sudoku` command name a strategy,
a tie-break and a view by a word; the proto by an enum. This is the one
table between the two: the service reads a request's enum into its name
(service/rpc/validate.py) and writes it back into frame 1's JobInfo
(service/jobs/queueing.py), the client turns the command's words into
enums (client/requests.py). The client's distribution ships it.
"""

from __future__ import annotations

from sudoku.v1 import sudoku_pb2 as pb

STRATEGIES: dict[str, int] = {"mrv": pb.STRATEGY_MRV, "naive": pb.STRATEGY_NAIVE}
TIE_BREAKS: dict[str, int] = {"rotate": pb.TIE_BREAK_ROTATE, "first": pb.TIE_BREAK_FIRST, "random": pb.TIE_BREAK_RANDOM}
VIEWS: dict[str, int] = {"final": pb.VIEW_FINAL, "search": pb.VIEW_SEARCH}


def by_value(names: dict[str, int], unspecified: str) -> dict[int, str]:
    """The name of each value, and of 0 (UNSPECIFIED) the default's."""
    return {0: unspecified, **{value: name for name, value in names.items()}}

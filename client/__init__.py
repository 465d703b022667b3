"""The Python client library and the `sudoku` command line.

    from client import Client
    with Client("localhost:50051") as client:
        print(client.solve(board).solution)

`Client` blocks, `AsyncClient` is for asyncio; both raise `SudokuError`
(gRPC code and the server's message) and resume watched searches after a
dropped connection. The command line is `client.cli`.
"""

from client.aio import AsyncClient, AsyncFrameStream
from client.connection import ADDRESS_ENV, DEFAULT_ADDRESS, Retry
from client.errors import SudokuError
from client.results import BatchItem, CountChunk, SolveResult
from client.stepping import AsyncStepSearch, StepSearch
from client.sync import Client, FrameStream

__all__ = [
    "ADDRESS_ENV",
    "DEFAULT_ADDRESS",
    "AsyncClient",
    "AsyncFrameStream",
    "AsyncStepSearch",
    "BatchItem",
    "Client",
    "CountChunk",
    "FrameStream",
    "Retry",
    "SolveResult",
    "StepSearch",
    "SudokuError",
]

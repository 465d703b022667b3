"""The one exception the client raises for a failed call.

Every gRPC failure becomes a `SudokuError` carrying the status code and the
server's message unchanged (the server's messages name the field and the
cell, e.g. "board: cell r3c7: 'x' is not 1-9, '.' or '0'"), plus the
address called, so a person can act on it without reading a traceback.
"""

from __future__ import annotations

import grpc

_BY_NUMBER = {code.value[0]: code for code in grpc.StatusCode}


class SudokuError(Exception):
    """A call failed: `code` is the gRPC status, `message` the server's words."""

    def __init__(self, code: grpc.StatusCode, message: str, address: str = ""):
        super().__init__(code, message, address)
        self.code = code
        self.message = message
        self.address = address

    def __str__(self) -> str:
        return f"{self.code.name}: {self.message}"

    @property
    def unreachable(self) -> bool:
        """True when the service could not be reached (or went away)."""
        return self.code == grpc.StatusCode.UNAVAILABLE

    @classmethod
    def from_rpc(cls, error: grpc.RpcError, address: str = "") -> SudokuError:
        code = error.code() if hasattr(error, "code") else grpc.StatusCode.UNKNOWN
        details = error.details() if hasattr(error, "details") else str(error)
        return cls(code or grpc.StatusCode.UNKNOWN, details or "", address)

    @classmethod
    def from_number(cls, number: int, message: str, address: str = "") -> SudokuError:
        """From a google.rpc.Code number, as in a batch item's ItemError."""
        return cls(_BY_NUMBER.get(number, grpc.StatusCode.UNKNOWN), message, address)

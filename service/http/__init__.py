"""The HTTP port: the same sudoku.v1.Sudoku API for browsers (Connect,
gRPC-Web and gRPC over HTTP/1.1 and HTTP/2), its codecs, and the page
(static/)."""

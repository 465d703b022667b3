"""The gRPC port: the servicer (server.py) and what stands between a client's
bytes and it: statuses, interceptors (metrics, security, lenient decoding,
stream admission), request validation, health and reflection."""

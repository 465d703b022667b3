"""`python -m service.rpc.healthcheck [ADDRESS]`: exit 0 when the service is SERVING.

For container healthchecks (docker-compose.yml), where no grpc_health_probe
binary is installed: the image already has grpcio.
"""

from __future__ import annotations

import os
import sys

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc


def check(address: str, timeout: float = 2.0) -> bool:
    with grpc.insecure_channel(address) as channel:
        try:
            reply = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=timeout)
        except grpc.RpcError as exc:
            print(f"{address}: {exc.code().name}: {exc.details()}", file=sys.stderr)
            return False
    serving = reply.status == health_pb2.HealthCheckResponse.SERVING
    if not serving:
        print(f"{address}: {health_pb2.HealthCheckResponse.ServingStatus.Name(reply.status)}", file=sys.stderr)
    return serving


def main() -> None:
    address = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("SUDOKU_ADDR", "localhost:50051")
    sys.exit(0 if check(address) else 1)


if __name__ == "__main__":
    main()

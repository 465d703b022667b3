#!/usr/bin/env bash
# Runs the Node example against a service of its own: `sudoku-server` from
# the repo's .venv (make up's; `make example-node` builds it first) on free
# ports, with its embedded Redis and workers, stopped again at the end.
# Needs Node 18+ and npm; the packages are package-lock.json's.
set -euo pipefail
cd "$(dirname "$0")"
ROOT=$(cd ../.. && pwd)
VENV=${VENV:-$ROOT/.venv}
free_port() { "$VENV/bin/python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
GRPC_PORT=$(free_port)
HTTP_PORT=$(free_port)

npm ci --no-audit --no-fund --loglevel=error
npm run --silent build

"$VENV/bin/sudoku-server" --listen "127.0.0.1:$GRPC_PORT" --http-listen "127.0.0.1:$HTTP_PORT" \
    --metrics-port 0 --workers 2 > server.log 2>&1 &
SERVER=$!
# SIGTERM stops the service, its workers and its Redis (launcher/main.py).
trap 'kill -TERM $SERVER 2>/dev/null; wait $SERVER 2>/dev/null || true' EXIT
for _ in $(seq 300); do
    grep -q "listening on" server.log && break
    kill -0 $SERVER 2>/dev/null || { cat server.log; exit 1; }
    sleep 0.1
done
grep "listening on" server.log || { echo "run.sh: the service did not start in 30 s"; cat server.log; exit 1; }

SUDOKU_GRPC_URL="http://127.0.0.1:$GRPC_PORT" SUDOKU_HTTP_URL="http://127.0.0.1:$HTTP_PORT" npm start --silent

#!/usr/bin/env bash
# Builds the Go example with Debian bookworm's Go toolchain and grpc-go in
# GOPATH mode (this machine reaches no Go module proxy), then runs it against
# a service of its own: `sudoku-server` from the repo's .venv on free ports,
# stopped again at the end. Debian packages: golang-go protoc-gen-go
# protoc-gen-go-grpc golang-google-grpc-dev golang-google-protobuf-dev.
set -euo pipefail
cd "$(dirname "$0")"
ROOT=$(cd ../.. && pwd)
VENV=${VENV:-$ROOT/.venv}
BUF=${BUF:-$ROOT/build/buf/node_modules/.bin/buf}
echo "go example: $(go version); $(protoc-gen-go --version); $(protoc-gen-go-grpc --version)"

rm -rf gopath bin && mkdir -p gopath/src/sudokuexample bin
"$BUF" generate "$ROOT/proto" --template buf.gen.yaml
cp main.go gopath/src/sudokuexample/
GO111MODULE=off GOPATH="$PWD/gopath:/usr/share/gocode" GOCACHE="$ROOT/build/go-cache" \
    go build -o bin/sudoku-example sudokuexample

free_port() { "$VENV/bin/python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
GRPC_PORT=$(free_port)
HTTP_PORT=$(free_port)
"$VENV/bin/sudoku-server" --listen "127.0.0.1:$GRPC_PORT" --http-listen "127.0.0.1:$HTTP_PORT" \
    --metrics-port 0 --workers 2 > server.log 2>&1 &
SERVER=$!
trap 'kill -TERM $SERVER 2>/dev/null; wait $SERVER 2>/dev/null || true' EXIT
for _ in $(seq 300); do
    grep -q "listening on" server.log && break
    kill -0 $SERVER 2>/dev/null || { cat server.log; exit 1; }
    sleep 0.1
done
grep -q "listening on" server.log || { echo "run.sh: the service did not start in 30 s"; cat server.log; exit 1; }

# grpc-go 1.33 retries only with GRPC_GO_RETRY=on (on by default from 1.40).
SUDOKU_ADDR="127.0.0.1:$GRPC_PORT" GRPC_GO_RETRY=on bin/sudoku-example

// The entry point of service/http/static/api.js, the bundle the page imports
// (make web). It re-exports what a browser needs to call sudoku.v1.Sudoku:
// the Connect client and its fetch transport, and the messages, enums and
// service generated from proto/sudoku/v1/sudoku.proto by protoc-gen-es.
export { Code, ConnectError, createClient } from "@connectrpc/connect";
export { createConnectTransport } from "@connectrpc/connect-web";
export * from "../gen/sudoku/v1/sudoku_pb.js";

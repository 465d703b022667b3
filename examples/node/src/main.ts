// The Node quick start (docs/clients/typescript.md) as a program that checks
// what it shows: the first call, a watched solve drawn by the proto's recipe
// (broken off and resumed with Watch), a game played by hints, the errors a
// client handles and retries as the service config says. run.sh runs it
// against a service of its own; CI runs run.sh.
//
//   SUDOKU_GRPC_URL  the gRPC port (default http://127.0.0.1:50051)
//   SUDOKU_HTTP_URL  the HTTP port for the Connect protocol (default http://127.0.0.1:8080)

import { readFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";

import { Code, ConnectError, createClient, type Client, type Interceptor } from "@connectrpc/connect";
import { createConnectTransport, createGrpcTransport } from "@connectrpc/connect-node";

import {
  CountReply_Verdict,
  HintReply_Kind,
  Outcome,
  Sudoku,
  View,
  type Frame,
} from "./gen/sudoku/v1/sudoku_pb.js";

const GRPC_URL = process.env.SUDOKU_GRPC_URL ?? "http://127.0.0.1:50051";
const HTTP_URL = process.env.SUDOKU_HTTP_URL ?? "http://127.0.0.1:8080";

const WIKIPEDIA = "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79";
// Norvig's hardest for naive search: 671,215 steps.
const HARD = "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......";

// ---- the service config: retries of UNAVAILABLE only, a deadline per method ----

// The published gRPC service config (docs/service-config.md). Connect-ES has
// no built-in retries, so the interceptor below follows its retry policy.
type MethodConfig = {
  name: { service: string; method?: string }[];
  timeout?: string;
  retryPolicy: {
    maxAttempts: number;
    initialBackoff: string;
    maxBackoff: string;
    backoffMultiplier: number;
    retryableStatusCodes: string[];
  };
};
const CONFIG: { methodConfig: MethodConfig[] } = JSON.parse(
  readFileSync(new URL("../../../proto/sudoku/v1/sudoku_grpc_service_config.json", import.meta.url), "utf8"),
);
const seconds = (d: string) => Number(d.replace(/s$/, ""));

function methodConfig(method: string): MethodConfig {
  const own = CONFIG.methodConfig.find((c) => c.name.some((n) => n.method === method));
  return own ?? CONFIG.methodConfig.find((c) => c.name.some((n) => n.method === undefined))!;
}

// UNAVAILABLE_CODE -> Code.Unavailable
const codeOf = (name: string) => Code[name.toLowerCase().replace(/(^|_)(.)/g, (_, __, c) => c.toUpperCase()) as keyof typeof Code];

/** Retries unary calls as the service config says, with 50-100% jitter;
 * streams are resumed with Watch instead (see watchResumed). */
function retries(onAttempt: () => void = () => {}): Interceptor {
  return (next) => async (req) => {
    const policy = methodConfig(req.method.name).retryPolicy;
    const retryable = new Set(policy.retryableStatusCodes.map(codeOf));
    for (let attempt = 0; ; attempt++) {
      onAttempt();
      try {
        return await next(req);
      } catch (err) {
        const error = ConnectError.from(err);
        if (req.stream || !retryable.has(error.code) || attempt + 1 >= policy.maxAttempts) throw error;
        const backoff = Math.min(
          seconds(policy.maxBackoff),
          seconds(policy.initialBackoff) * policy.backoffMultiplier ** attempt,
        );
        await sleep(backoff * (0.5 + Math.random() / 2) * 1000, undefined, { signal: req.signal });
      }
    }
  };
}

/** Call options with the method's deadline from the service config (none for streams). */
function deadline(method: string): { timeoutMs?: number } {
  const timeout = methodConfig(method).timeout;
  return timeout ? { timeoutMs: seconds(timeout) * 1000 } : {};
}

// ---- checks --------------------------------------------------------------------

let passed = 0;
let failed = 0;
function check(what: string, ok: boolean, detail = ""): void {
  if (ok) passed++;
  else failed++;
  console.log(`${ok ? "ok" : "FAILED"} - ${what}${detail ? `: ${detail}` : ""}`);
}

async function code(call: () => Promise<unknown>): Promise<ConnectError | undefined> {
  try {
    await call();
    return undefined;
  } catch (err) {
    return ConnectError.from(err);
  }
}

// ---- the proto's recipe for drawing frames -------------------------------------

/** The board as a client draws it: 81 chars, '.' blank. */
class Drawing {
  cells: string[] = Array(81).fill(".");

  /** Each message is a frame and, with runs, the frames of next_frames. */
  static *framesOf(message: Frame): Generator<Frame> {
    yield message;
    yield* message.nextFrames;
  }

  apply(frame: Frame): void {
    for (const bytes of [frame.steps, frame.changes]) {
      for (let i = 0; i + 1 < bytes.length; i += 2) {
        this.cells[bytes[i]] = bytes[i + 1] ? String(bytes[i + 1]) : ".";
      }
    }
    if (frame.board !== "") this.cells = [...frame.board]; // a keyframe replaces the drawing
  }

  get text(): string {
    return this.cells.join("");
  }
}

function isSolution(board: string, puzzle: string): boolean {
  if (!/^[1-9]{81}$/.test(board)) return false;
  for (let i = 0; i < 81; i++) if (puzzle[i] !== "." && puzzle[i] !== board[i]) return false;
  const units: number[][] = [];
  for (let k = 0; k < 9; k++) {
    units.push([...Array(9).keys()].map((j) => k * 9 + j)); // row
    units.push([...Array(9).keys()].map((j) => j * 9 + k)); // column
    units.push([...Array(9).keys()].map((j) => (Math.floor(k / 3) * 3 + Math.floor(j / 3)) * 9 + (k % 3) * 3 + (j % 3)));
  }
  return units.every((u) => new Set(u.map((c) => board[c])).size === 9);
}

const cellName = (cell: number) => `r${Math.floor(cell / 9) + 1}c${(cell % 9) + 1}`;

// ---- the example ---------------------------------------------------------------

async function firstCalls(grpc: Client<typeof Sudoku>, connect: Client<typeof Sudoku>): Promise<void> {
  const limits = await grpc.getLimits({}, deadline("GetLimits"));
  check("GetLimits over gRPC", limits.maxFps > 0, `max_fps ${limits.maxFps}, max_steps ${limits.maxSteps}`);

  const count = await grpc.countSolutions({ board: WIKIPEDIA, limit: 2n }, deadline("CountSolutions"));
  check("CountSolutions over gRPC", count.verdict === CountReply_Verdict.VERDICT_UNIQUE, `count ${count.count}`);

  // The same call with the Connect protocol (JSON) on the HTTP port.
  const viaHttp = await connect.countSolutions({ board: WIKIPEDIA }, deadline("CountSolutions"));
  check("CountSolutions over Connect JSON", viaHttp.verdict === CountReply_Verdict.VERDICT_UNIQUE);

  // What the JSON itself says: the bare enum names, as before the prefixed
  // names came (the proto's "Enum names").
  const response = await fetch(`${HTTP_URL}/sudoku.v1.Sudoku/CountSolutions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ board: WIKIPEDIA }),
  });
  const json = await response.json();
  check("Connect JSON writes the bare enum name", json.verdict === "UNIQUE", JSON.stringify(json));
}

/** A watched solve: frames drawn by the recipe, the stream broken off after
 * a few frames and resumed with Watch from the last seq drawn. */
async function watchedSolve(sudoku: Client<typeof Sudoku>): Promise<void> {
  const drawing = new Drawing();
  let jobId = "";
  let lastSeq = 0n;
  let last: Frame | undefined;
  let seqGaps = 0;
  const stop = new AbortController();
  const stream = sudoku.solve(
    { board: HARD, view: View.SEARCH, pacing: { durationMs: 1500n, fps: 30 } },
    { signal: stop.signal },
  );
  try {
    for await (const message of stream) {
      for (const frame of Drawing.framesOf(message)) {
        if (frame.seq !== lastSeq + 1n) seqGaps++;
        drawing.apply(frame);
        lastSeq = frame.seq;
        if (frame.jobId) jobId = frame.jobId;
      }
      if (lastSeq >= 10n) stop.abort(); // the phone went into a tunnel
    }
  } catch (err) {
    if (ConnectError.from(err).code !== Code.Canceled) throw err;
  }
  check("Solve: frames 1..10 drawn, then the stream broken off", lastSeq >= 10n && seqGaps === 0, `job ${jobId}`);

  // Resume: the frames after the last seq drawn, nothing missed or repeated.
  let first = true;
  for await (const message of sudoku.watch({ jobId, afterSeq: lastSeq })) {
    for (const frame of Drawing.framesOf(message)) {
      if (first) {
        check("Watch: the first frame is the next seq, with the job and a board",
          frame.seq === lastSeq + 1n && frame.job !== undefined && frame.board !== "");
        first = false;
      }
      if (frame.seq !== lastSeq + 1n) seqGaps++;
      drawing.apply(frame);
      lastSeq = frame.seq;
      last = frame;
    }
  }
  check("Watch: played to the end without a gap", last?.outcome === Outcome.OUTCOME_SOLVED && seqGaps === 0,
    `${lastSeq} frames, ${last?.counters?.steps} steps`);
  check("the drawing is the solution", last !== undefined && drawing.text === last.solution && isSolution(drawing.text, HARD));
}

/** A game by hints: a wrong entry caught, then a move per hint to the end. */
async function gameByHints(sudoku: Client<typeof Sudoku>): Promise<void> {
  const entries = Array(81).fill(".");
  const blank = WIKIPEDIA.indexOf(".");
  entries[blank] = "2"; // breaks no rule, but r1c3 is 4: the player's mistake
  let moves = 0;
  let wrong = "";
  for (let turn = 0; turn < 100; turn++) {
    const hint = await sudoku.hint({ givens: WIKIPEDIA, entries: entries.join("") }, deadline("Hint"));
    if (hint.kind === HintReply_Kind.KIND_SOLVED) break;
    if (hint.kind === HintReply_Kind.KIND_WRONG_ENTRY && hint.wrong) {
      wrong = `${hint.wrong.cells.map(cellName).join(", ")} should be ${hint.wrong.shouldBe}`;
      for (const cell of hint.wrong.cells) entries[cell] = ".";
      continue;
    }
    if (hint.kind !== HintReply_Kind.KIND_NEXT_MOVE || !hint.move) throw new Error(`unexpected hint: ${hint.kind}`);
    entries[hint.move.cell] = String(hint.move.value);
    moves++;
    if (moves === 1) console.log(`   first hint: ${hint.reason}`);
  }
  const board = [...WIKIPEDIA].map((c, i) => (c === "." ? entries[i] : c)).join("");
  check("a game by hints ends solved", isSolution(board, WIKIPEDIA), `${moves} moves; caught: ${wrong}`);
  check("the wrong entry was named", wrong === "r1c3 should be 4", wrong);
}

async function errors(sudoku: Client<typeof Sudoku>): Promise<void> {
  const bad = await code(() => sudoku.countSolutions({ board: WIKIPEDIA.replace(".", "x") }, deadline("CountSolutions")));
  check("a bad board is INVALID_ARGUMENT naming the cell",
    bad?.code === Code.InvalidArgument && bad.rawMessage.includes("cell r1c3"), bad?.rawMessage);

  const malformed = await code(async () => {
    for await (const _ of sudoku.watch({ jobId: "not-a-job" })) void _;
  });
  check("a malformed job_id is INVALID_ARGUMENT, not NOT_FOUND", malformed?.code === Code.InvalidArgument,
    malformed?.rawMessage);

  const unknown = await code(async () => {
    for await (const _ of sudoku.watch({ jobId: "0".repeat(32) })) void _;
  });
  check("an unknown job_id is NOT_FOUND", unknown?.code === Code.NotFound, unknown?.rawMessage);

  // Nothing listens on port 9 here: every attempt is UNAVAILABLE, retried
  // as the policy says (maxAttempts counts the first), then given up.
  let attempts = 0;
  const nowhere = createClient(Sudoku, createGrpcTransport({
    baseUrl: "http://127.0.0.1:9",
    interceptors: [retries(() => attempts++)],
  }));
  const started = Date.now();
  const gone = await code(() => nowhere.getLimits({}, deadline("GetLimits")));
  const policy = methodConfig("GetLimits").retryPolicy;
  check("UNAVAILABLE is retried with backoff, then given up",
    gone?.code === Code.Unavailable && attempts === policy.maxAttempts,
    `${attempts} attempts in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

async function main(): Promise<void> {
  // gRPC (HTTP/2) to the gRPC port; the Connect protocol to the HTTP port.
  const grpc = createClient(Sudoku, createGrpcTransport({ baseUrl: GRPC_URL, interceptors: [retries()] }));
  const connect = createClient(Sudoku, createConnectTransport({
    baseUrl: HTTP_URL,
    httpVersion: "1.1",
    interceptors: [retries()],
  }));
  await firstCalls(grpc, connect);
  await watchedSolve(grpc);
  await gameByHints(connect);
  await errors(grpc);
  console.log(`examples/node: ${passed} passed, ${failed} failed`);
  process.exitCode = failed ? 1 : 0;
}

main().catch((err) => {
  console.error("node example:", err);
  process.exitCode = 1;
});

// The page: play a game, and watch naive and MRV search side by side.
//
// There is no solver here. Hints, counts and searches run on the service's
// workers, reached through sudoku.v1.Sudoku over the Connect protocol
// (./api.js, made by `make web`); this script keeps the player's board,
// shows the rules a player can see broken (one value twice in a unit), and
// draws a search's frames by the proto's recipe.
import {
  Code, ConnectError, createClient, createConnectTransport,
  CountReply_Verdict, HintReply_Kind, Move_Technique, Outcome, Strategy, Sudoku, Unit_Kind, View,
} from "./api.js";

const PUZZLES = [
  ["Easy (Wikipedia's)", "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79"],
  ["Medium", "6..9.2....158.....298.......7.2.......2....6.....76..57....3..6..17.5.......6..9."],
  ["17 clues", ".................1....23.4.....45.2...6..7....81.........4......9.1....65......3."],
  ["Hard for naive (Norvig's hardest)", "85...24..72......9..4.........1.7..23.5...9...4...........8..7..17..........36.4."],
  ["Empty board", ".".repeat(81)],
];
const FPS = 30;
const BLANK = ".".repeat(81);

// ---- The grid's geometry: cells 0-80 in reading order, units, peers.

const ROWS = [...Array(9)].map((_, r) => [...Array(9)].map((_, c) => r * 9 + c));
const COLUMNS = [...Array(9)].map((_, c) => [...Array(9)].map((_, r) => r * 9 + c));
const BOXES = [...Array(9)].map((_, b) =>
  [...Array(9)].map((_, i) => (Math.floor(b / 3) * 3 + Math.floor(i / 3)) * 9 + (b % 3) * 3 + (i % 3)));
const UNITS = [...ROWS, ...COLUMNS, ...BOXES];
const PEERS = [...Array(81)].map((_, cell) =>
  new Set(UNITS.filter((unit) => unit.includes(cell)).flat().filter((peer) => peer !== cell)));

const cellName = (cell) => `r${Math.floor(cell / 9) + 1}c${(cell % 9) + 1}`;

/** The cells of a sudoku.v1.Unit (kind ROW, COLUMN or BOX, index 1-9). */
function unitCells(unit) {
  if (!unit || !unit.index) return [];
  const lists = { [Unit_Kind.ROW]: ROWS, [Unit_Kind.COLUMN]: COLUMNS, [Unit_Kind.BOX]: BOXES };
  return lists[unit.kind]?.[unit.index - 1] ?? [];
}

/** The cells holding a value that another cell of one of their units holds too. */
function conflicts(values) {
  const found = new Set();
  for (const unit of UNITS) {
    const seen = new Map();
    for (const cell of unit) {
      const value = values[cell];
      if (value === ".") continue;
      if (seen.has(value)) {
        found.add(cell);
        found.add(seen.get(value));
      } else {
        seen.set(value, cell);
      }
    }
  }
  return found;
}

function makeGrid(root) {
  root.replaceChildren();
  return [...Array(81)].map((_, cell) => {
    const div = document.createElement("div");
    div.className = "cell";
    div.dataset.cell = cell;
    div.setAttribute("role", "gridcell");
    if (cell % 9 === 2 || cell % 9 === 5) div.classList.add("box-right");
    const row = Math.floor(cell / 9);
    if (row === 2 || row === 5) div.classList.add("box-bottom");
    if (row === 8) div.classList.add("last-row");
    root.append(div);
    return div;
  });
}

const number = (n) => Number(n).toLocaleString("en-US");

// ---- The API: one client, the token (when the service asks for one) on every call.

const TOKEN_KEY = "sudoku-token";
const transport = createConnectTransport({
  baseUrl: window.location.origin,
  useBinaryFormat: true,
  interceptors: [(next) => async (request) => {
    const token = sessionStorage.getItem(TOKEN_KEY);
    if (token) request.header.set("authorization", `Bearer ${token}`);
    return next(request);
  }],
});
const api = createClient(Sudoku, transport);

/** What to tell the player about a failed call: the service's own message. */
function problem(error) {
  if (error instanceof ConnectError) {
    if (error.code === Code.Unauthenticated) {
      document.getElementById("settings").open = true;
      return `${error.rawMessage} (set the token under "Service" below)`;
    }
    if (error.code === Code.Unavailable) return `the service is unavailable (${error.rawMessage}); try again`;
    return error.rawMessage;
  }
  return String(error);
}

const aborted = (error) => error instanceof ConnectError && error.code === Code.Canceled;

// ---- Playing: the givens, the player's entries and pencil marks.

const game = {
  givens: BLANK.split(""),
  entries: BLANK.split(""),
  marks: new Array(81).fill(0), // bit v-1 set: v pencilled in (the API's candidate masks)
  selected: -1,
  pencil: false,
  hint: null, // what the last hint highlights, until the board changes
};
const gameCells = makeGrid(document.getElementById("game"));
const puzzleStatus = document.getElementById("puzzle-status");
const hintText = document.getElementById("hint-text");

const valueAt = (cell) => (game.givens[cell] !== "." ? game.givens[cell] : game.entries[cell]);
const boardValues = () => [...Array(81)].map((_, cell) => valueAt(cell));

function setStatus(element, text, kind = "") {
  element.textContent = text;
  element.className = element.className.replace(/\b(error|solved)\b/g, "").trim();
  if (kind) element.classList.add(kind);
}

function renderGame() {
  const values = boardValues();
  const clashing = conflicts(values);
  const peers = game.selected >= 0 ? PEERS[game.selected] : new Set();
  const hint = game.hint ?? { target: [], unit: [], wrong: [] };
  gameCells.forEach((div, cell) => {
    const value = values[cell];
    div.classList.toggle("given", game.givens[cell] !== ".");
    div.classList.toggle("entry", game.givens[cell] === "." && value !== ".");
    div.classList.toggle("selected", cell === game.selected);
    div.classList.toggle("peer", peers.has(cell));
    div.classList.toggle("conflict", clashing.has(cell));
    div.classList.toggle("hint-cell", hint.target.includes(cell));
    div.classList.toggle("hint-unit", hint.unit.includes(cell));
    div.classList.toggle("hint-wrong", hint.wrong.includes(cell));
    div.setAttribute("aria-label", `${cellName(cell)} ${value === "." ? "blank" : value}`);
    if (value !== ".") {
      div.textContent = value;
    } else if (game.marks[cell]) {
      const marks = document.createElement("div");
      marks.className = "marks";
      for (let v = 1; v <= 9; v++) {
        const span = document.createElement("span");
        span.textContent = game.marks[cell] & (1 << (v - 1)) ? String(v) : "";
        marks.append(span);
      }
      div.replaceChildren(marks);
    } else {
      div.textContent = "";
    }
  });
  if (values.every((v) => v !== ".") && clashing.size === 0) {
    setStatus(puzzleStatus, "Solved: every row, column and box holds 1 to 9.", "solved");
  } else if (puzzleStatus.classList.contains("solved")) {
    setStatus(puzzleStatus, "");
  }
}

function boardChanged() {
  game.hint = null;
  hintText.textContent = "";
  renderGame();
}

function select(cell) {
  game.selected = cell;
  renderGame();
}

/** The player types `digit` (0 erases) into the selected cell. */
function put(digit) {
  const cell = game.selected;
  if (cell < 0 || game.givens[cell] !== ".") return;
  if (game.pencil && digit > 0) {
    if (game.entries[cell] === ".") game.marks[cell] ^= 1 << (digit - 1);
  } else if (digit === 0) {
    if (game.entries[cell] !== ".") game.entries[cell] = ".";
    else game.marks[cell] = 0;
  } else {
    game.entries[cell] = String(digit);
    for (const peer of PEERS[cell]) game.marks[peer] &= ~(1 << (digit - 1)); // as on paper
  }
  boardChanged();
}

function setPencil(on) {
  game.pencil = on;
  document.getElementById("pencil").setAttribute("aria-pressed", String(on));
}

document.getElementById("game").addEventListener("click", (event) => {
  const div = event.target.closest(".cell");
  if (div) select(Number(div.dataset.cell));
});
document.getElementById("keypad").addEventListener("click", (event) => {
  const button = event.target.closest("button[data-digit]");
  if (button) put(Number(button.dataset.digit));
});
document.getElementById("pencil").addEventListener("click", () => setPencil(!game.pencil));
document.addEventListener("keydown", (event) => {
  if (event.target.closest("input, select, textarea") || event.ctrlKey || event.metaKey || event.altKey) return;
  const moves = { ArrowUp: -9, ArrowDown: 9, ArrowLeft: -1, ArrowRight: 1 };
  if (/^[1-9]$/.test(event.key)) put(Number(event.key));
  else if (["0", ".", "Backspace", "Delete"].includes(event.key)) put(0);
  else if (event.key === "p" || event.key === "P") setPencil(!game.pencil);
  else if (event.key in moves && game.selected >= 0) select((game.selected + moves[event.key] + 81) % 81);
  else return;
  event.preventDefault();
});

document.getElementById("clear-entries").addEventListener("click", () => {
  game.entries = BLANK.split("");
  game.marks.fill(0);
  boardChanged();
});

// ---- Loading a puzzle: the service checks it (CountSolutions) and says how many solutions it has.

const builtin = document.getElementById("builtin");
for (const [name, board] of PUZZLES) builtin.append(new Option(name, board));
builtin.append(new Option("(typed)", ""));

async function load(text) {
  setStatus(puzzleStatus, "Checking the puzzle…");
  let reply;
  try {
    reply = await api.countSolutions({ board: text, limit: 2n });
  } catch (error) {
    setStatus(puzzleStatus, problem(error), "error");
    return;
  }
  game.givens = text.replace(/\s/g, "").replace(/0/g, ".").split("");
  game.entries = BLANK.split("");
  game.marks.fill(0);
  game.selected = -1;
  watch.clear();
  boardChanged();
  const verdicts = {
    [CountReply_Verdict.UNIQUE]: "one solution",
    [CountReply_Verdict.MULTIPLE]: "more than one solution",
    [CountReply_Verdict.NONE]: "no solution",
    [CountReply_Verdict.UNKNOWN]: "too hard to count in the time allowed",
  };
  setStatus(puzzleStatus, `Loaded: ${verdicts[reply.verdict] ?? "counted"}.`);
}

builtin.addEventListener("change", () => {
  if (builtin.value) {
    document.getElementById("puzzle-text").value = builtin.value;
    load(builtin.value);
  }
});
document.getElementById("puzzle-form").addEventListener("submit", (event) => {
  event.preventDefault();
  builtin.value = "";
  load(document.getElementById("puzzle-text").value);
});

// ---- Hints: the step, its reason, its cells and units, and pencil marks it rules out.

const TECHNIQUES = {
  [Move_Technique.NAKED_SINGLE]: "naked single",
  [Move_Technique.HIDDEN_SINGLE]: "hidden single",
  [Move_Technique.FROM_SOLUTION]: "from the solution",
};

/** The cells a hint points at. Richer hints (a pattern's cells and units)
 *  add theirs here, each list drawn by its own style. */
function hintHighlights(reply) {
  const target = [];
  const unit = [];
  const wrong = [];
  if (reply.kind === HintReply_Kind.NEXT_MOVE && reply.move) {
    const { cell } = reply.move;
    target.push(cell);
    if (reply.move.technique === Move_Technique.NAKED_SINGLE) {
      unit.push(...PEERS[cell]); // its row, column and box hold the other eight values
    } else {
      unit.push(...unitCells(reply.move.unit));
    }
  } else if (reply.kind === HintReply_Kind.WRONG_ENTRY && reply.wrong) {
    wrong.push(...reply.wrong.cells);
    unit.push(...unitCells(reply.wrong.unit));
  } else if (reply.kind === HintReply_Kind.NO_SOLUTION) {
    wrong.push(...reply.conflicts);
  }
  return { target, unit, wrong };
}

/** Pencil marks the service rules out: today every mark outside a cell's
 *  candidates (HintReply.candidates); a hint's own eliminations go here too. */
function applyEliminations(reply) {
  if (reply.candidates.length !== 81) return 0;
  let removed = 0;
  reply.candidates.forEach((candidates, cell) => {
    const gone = game.marks[cell] & ~candidates;
    for (let bits = gone; bits; bits &= bits - 1) removed++;
    game.marks[cell] &= candidates;
  });
  return removed;
}

async function askHint({ fillMarks = false } = {}) {
  hintText.textContent = "Asking the service…";
  hintText.classList.remove("error");
  let reply;
  try {
    reply = await api.hint({ givens: game.givens.join(""), entries: game.entries.join(""), includeCandidates: true });
  } catch (error) {
    hintText.textContent = problem(error);
    hintText.classList.add("error");
    return;
  }
  if (fillMarks && reply.candidates.length === 81) {
    reply.candidates.forEach((candidates, cell) => { if (valueAt(cell) === ".") game.marks[cell] = candidates; });
    game.hint = null;
    hintText.textContent = "Every blank cell now holds its candidates.";
    renderGame();
    return;
  }
  const removed = applyEliminations(reply);
  game.hint = hintHighlights(reply);
  const parts = [reply.reason.replace(/([^.])$/, "$1.")];
  if (reply.move && reply.kind === HintReply_Kind.NEXT_MOVE) {
    parts.unshift(`${cellName(reply.move.cell)} = ${reply.move.value} (${TECHNIQUES[reply.move.technique] ?? "next move"}):`);
  }
  if (reply.notUnique) parts.push("(This puzzle has more than one solution.)");
  if (removed) parts.push(`${removed} pencil mark${removed === 1 ? "" : "s"} ruled out and removed.`);
  hintText.textContent = parts.join(" ");
  renderGame();
}

document.getElementById("hint").addEventListener("click", () => askHint());
document.getElementById("fill-marks").addEventListener("click", () => askHint({ fillMarks: true }));

// ---- Watching: naive and MRV side by side, frames drawn as they arrive.

const OUTCOMES = {
  [Outcome.SOLVED]: "solved",
  [Outcome.EXHAUSTED]: "no solution",
  [Outcome.GAVE_UP]: "gave up (step cap or time limit)",
  [Outcome.CANCELLED]: "cancelled",
};

/** One strategy's board: its job, and the drawing of the frames seen so far. */
class Watcher {
  constructor(figure, strategy) {
    this.figure = figure;
    this.strategy = strategy;
    this.cells = makeGrid(figure.querySelector(".grid"));
    this.countersText = figure.querySelector(".counters");
    this.row = document.querySelector(`#step-table tr[data-strategy="${figure.dataset.strategy}"]`);
    this.jobId = "";
    this.controller = null;
    this.clear();
  }

  clear() {
    this.controller?.abort();
    this.controller = null;
    this.jobId = "";
    this.restart();
    this.setState("idle");
  }

  /** Back to before the first frame (the job is kept, for a replay). */
  restart() {
    this.board = null;
    this.givens = BLANK;
    this.entries = BLANK;
    this.seq = 0n;
    this.cursor = -1;
    this.counters = null;
    this.total = 0n;
    this.outcome = Outcome.OUTCOME_UNSPECIFIED;
    this.solution = "";
    this.draw();
    this.countersText.textContent = "";
    this.row.querySelectorAll("td").forEach((td) => { td.textContent = ""; });
  }

  setState(state) {
    this.state = state;
    this.figure.dataset.state = state;
  }

  get done() {
    return this.outcome !== Outcome.OUTCOME_UNSPECIFIED;
  }

  /** The proto's recipe: steps or changes in order; a keyframe replaces the drawing. */
  apply(frame) {
    if (frame.job) {
      this.givens = frame.job.givens || this.givens;
      this.entries = frame.job.entries || this.entries;
    }
    if (frame.jobId) this.jobId = frame.jobId;
    if (this.board === null) this.board = (frame.board || BLANK).split("");
    const moves = frame.steps.length ? frame.steps : frame.changes;
    for (let i = 0; i + 1 < moves.length; i += 2) this.board[moves[i]] = moves[i + 1] ? String(moves[i + 1]) : ".";
    if (frame.board) this.board = frame.board.split("");
    this.seq = frame.seq;
    this.cursor = frame.cursor;
    if (frame.counters) this.counters = frame.counters;
    if (frame.totalSteps) this.total = frame.totalSteps;
    if (frame.outcome) {
      this.outcome = frame.outcome;
      this.solution = frame.solution;
    }
    this.draw();
  }

  draw() {
    const board = this.board ?? BLANK.split("");
    this.cells.forEach((div, cell) => {
      const value = board[cell];
      div.textContent = value === "." ? "" : value;
      div.classList.toggle("given", this.givens[cell] !== ".");
      div.classList.toggle("entry", this.givens[cell] === "." && this.entries[cell] !== ".");
      div.classList.toggle("search", value !== "." && this.givens[cell] === "." && this.entries[cell] === ".");
      div.classList.toggle("cursor", cell === this.cursor);
    });
    this.figure.dataset.seq = String(this.seq);
    if (!this.counters) return;
    const { steps, placements, retractions } = this.counters;
    if (this.done) {
      const outcome = OUTCOMES[this.outcome] ?? "over";
      this.countersText.textContent =
        `${number(steps)} steps in all: ${number(placements)} placements, ${number(retractions)} retractions; ${outcome}.`;
      const cells = this.row.querySelectorAll("td");
      [steps, placements, retractions].forEach((n, i) => { cells[i].textContent = number(n); });
      cells[3].textContent = outcome;
    } else {
      const of = this.total ? ` of ${number(this.total)}` : "";
      this.countersText.textContent =
        `step ${number(steps)}${of}: ${number(placements)} placements, ${number(retractions)} retractions`;
    }
  }

  /** Draws a stream's frames until it ends, is stopped, or fails. */
  async follow(stream) {
    this.setState("running");
    try {
      for await (const frame of stream) this.apply(frame);
      this.setState(this.done ? "done" : "stopped");
    } catch (error) {
      this.setState(this.done ? "done" : "stopped");
      if (!aborted(error)) throw error;
    }
  }

  call() {
    this.controller?.abort();
    this.controller = new AbortController();
    return { signal: this.controller.signal };
  }

  start(givens, entries, durationMs) {
    this.clear();
    const request = {
      board: givens, entries, strategy: this.strategy, view: View.SEARCH,
      pacing: { durationMs: BigInt(durationMs), fps: FPS },
    };
    return this.follow(api.solve(request, this.call()));
  }

  /** Stop ends the stream: the drawing stops where it is (a player's
   * pause; the job goes on, so Resume can continue it). Cancel would end
   * the job's playback for good: a Watch after it stops at the same point. */
  async stop() {
    this.controller?.abort();
    this.controller = null;
    if (this.jobId && !this.done) this.setState("stopped");
  }

  /** Resume is Watch from the last frame drawn. */
  resume() {
    return this.follow(api.watch({ jobId: this.jobId, afterSeq: this.seq }, this.call()));
  }

  /** Reset is Watch from the start: the same search again. */
  reset() {
    this.restart();
    return this.follow(api.watch({ jobId: this.jobId, afterSeq: 0n }, this.call()));
  }
}

const watch = {
  watchers: [
    new Watcher(document.getElementById("watch-naive"), Strategy.NAIVE),
    new Watcher(document.getElementById("watch-mrv"), Strategy.MRV),
  ],
  buttons: Object.fromEntries(["start", "stop", "resume", "reset"].map((name) =>
    [name, document.getElementById(`watch-${name}`)])),

  clear() {
    for (const watcher of this.watchers) watcher.clear();
    this.update();
  },

  update() {
    const states = this.watchers.map((w) => w.state);
    const hasJobs = this.watchers.every((w) => w.jobId);
    this.buttons.stop.disabled = !states.includes("running");
    this.buttons.resume.disabled = !hasJobs || states.includes("running") || !states.includes("stopped");
    this.buttons.reset.disabled = !hasJobs;
  },

  /** Runs `action` on every watcher at once; a failure is shown, not thrown. */
  async all(action) {
    const runs = this.watchers.map(async (watcher) => {
      try {
        await action(watcher);
      } catch (error) {
        watcher.countersText.textContent = problem(error);
      } finally {
        this.update();
      }
    });
    this.update();
    await Promise.all(runs);
  },
};

watch.buttons.start.addEventListener("click", () => {
  const duration = Number(document.getElementById("duration").value);
  watch.all((w) => w.start(game.givens.join(""), game.entries.join(""), duration));
});
watch.buttons.stop.addEventListener("click", () => watch.all((w) => w.stop()));
watch.buttons.resume.addEventListener("click", () => watch.all((w) => (w.done ? null : w.resume())));
watch.buttons.reset.addEventListener("click", () => watch.all((w) => w.reset()));

// ---- The token, for a service started with SUDOKU_AUTH_TOKEN.

document.getElementById("token-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const token = document.getElementById("token").value.trim();
  if (token) sessionStorage.setItem(TOKEN_KEY, token);
  else sessionStorage.removeItem(TOKEN_KEY);
  setStatus(puzzleStatus, token ? "The token will be sent with every call." : "No token is sent.");
});

// ---- Start: ?puzzle=... or the first built-in puzzle.

const asked = new URLSearchParams(window.location.search).get("puzzle");
const first = asked ?? PUZZLES[0][1];
document.getElementById("puzzle-text").value = first;
builtin.value = PUZZLES.some(([, board]) => board === first) ? first : "";
load(first);

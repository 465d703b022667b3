// The page: play a game, and watch naive and MRV search side by side.
//
// There is no solver here. Hints, counts, grades, new puzzles and searches
// run on the service's workers, reached through sudoku.v1.Sudoku over the
// Connect protocol (./api.js, made by `make web`); this script keeps the
// player's board, shows the rules a player can see broken (one value twice
// in a unit), and draws a search's frames, or its steps, by the proto's recipes.
import {
  Code, ConnectError, createClient, createConnectTransport,
  CountReply_Verdict, HintReply_Kind, HintReply_KindSchema, LevelSchema, Outcome, Step_Technique, Step_TechniqueSchema,
  Strategy, Sudoku, Unit_Kind, View,
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
const ALL_VALUES = 0x1ff; // a pencil-mark mask: bit v-1 set means v may go in the cell

// ---- The grid's geometry: cells 0-80 in reading order, units, peers.

const ROWS = [...Array(9)].map((_, r) => [...Array(9)].map((_, c) => r * 9 + c));
const COLUMNS = [...Array(9)].map((_, c) => [...Array(9)].map((_, r) => r * 9 + c));
const BOXES = [...Array(9)].map((_, b) =>
  [...Array(9)].map((_, i) => (Math.floor(b / 3) * 3 + Math.floor(i / 3)) * 9 + (b % 3) * 3 + (i % 3)));
const UNITS = [...ROWS, ...COLUMNS, ...BOXES];
const PEERS = [...Array(81)].map((_, cell) =>
  new Set(UNITS.filter((unit) => unit.includes(cell)).flat().filter((peer) => peer !== cell)));

const cellName = (cell) => `r${Math.floor(cell / 9) + 1}c${(cell % 9) + 1}`;
const bit = (value) => 1 << (value - 1);

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
const plural = (n, noun) => `${number(n)} ${noun}${Number(n) === 1 ? "" : "s"}`;
const sentence = (text) => text.charAt(0).toUpperCase() + text.slice(1).replace(/([^.])$/, "$1.");

// The techniques as a player reads them (the service's own sentences use
// the same words, worker/sentences.py).
const TITLES = {
  TWO_STRING_KITE: "two-string kite", XY_WING: "XY-wing", XYZ_WING: "XYZ-wing", W_WING: "W-wing",
  X_WING: "X-wing", FINNED_X_WING: "finned X-wing", SASHIMI_X_WING: "sashimi X-wing",
  SIMPLE_COLORING: "simple colouring", BUG_PLUS_ONE: "BUG+1", X_CHAIN: "X-chain", XY_CHAIN: "XY-chain",
  AIC: "alternating inference chain", ALS_XZ: "ALS-XZ", ALS_XY_WING: "ALS-XY-wing",
  MULTI_COLORING: "multi-colouring", SUE_DE_COQ: "Sue de Coq", GROUPED_AIC: "grouped alternating inference chain",
  ALS_XY_CHAIN: "ALS-XY-chain", FINNED_FRANKEN_SWORDFISH: "finned Franken swordfish",
};
// An enum value's name as JSON writes it: the first declared for its number.
// Not the TypeScript enum's reverse mapping (Level[1]): with the proto's
// aliases (EASY and LEVEL_EASY are both 1) that is the last declared.
const enumName = (schema, number) => schema.value[number]?.name ?? "";
const techniqueName = (technique) => {
  const name = enumName(Step_TechniqueSchema, technique);
  return TITLES[name] ?? name.toLowerCase().replace(/_/g, " ");
};
const levelName = (level) => enumName(LevelSchema, level).toLowerCase();

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

// The server's ceilings (GetLimits), asked once: Step's max_step_count and max_step_skip.
let limitsAsked = null;
function limits() {
  limitsAsked ??= api.getLimits({}).catch((error) => { limitsAsked = null; throw error; });
  return limitsAsked;
}

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

/** Resolves after `ms`, or as soon as `signal` is aborted. */
function pause(ms, signal) {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => { clearTimeout(timer); resolve(); }, { once: true });
  });
}

// ---- Playing: the givens, the player's entries and pencil marks.

const game = {
  givens: BLANK.split(""),
  entries: BLANK.split(""),
  marks: new Array(81).fill(0), // the player's pencil marks, as the API's masks
  selected: -1,
  pencil: false,
  hint: null, // what the last hint shows (see Highlights), until the board changes
};
const gameCells = makeGrid(document.getElementById("game"));
const puzzleStatus = document.getElementById("puzzle-status");
const hintText = document.getElementById("hint-text");

const valueAt = (cell) => (game.givens[cell] !== "." ? game.givens[cell] : game.entries[cell]);
const boardValues = () => [...Array(81)].map((_, cell) => valueAt(cell));

function setStatus(element, text, kind = "") {
  element.textContent = text;
  element.classList.remove("error", "solved");
  if (kind) element.classList.add(kind);
}

/** A hint's highlights: classes for cells, and for single pencil marks
 *  (a mark the hint names is drawn even where the player has none). */
class Highlights {
  constructor() {
    this.cells = new Map(); // cell -> Set of classes
    this.marks = new Map(); // cell -> Map value -> class
  }

  cell(cell, name) {
    if (!this.cells.has(cell)) this.cells.set(cell, new Set());
    this.cells.get(cell).add(name);
  }

  mark(cell, value, name) {
    if (!this.marks.has(cell)) this.marks.set(cell, new Map());
    const marks = this.marks.get(cell);
    if (!marks.has(value) || name === "eliminated") marks.set(value, name); // a crossed-out mark shows as one
  }

  markBits(cell) {
    let bits = 0;
    for (const value of this.marks.get(cell)?.keys() ?? []) bits |= bit(value);
    return bits;
  }
}

function drawMarks(div, bits, classes) {
  const marks = document.createElement("div");
  marks.className = "marks";
  for (let v = 1; v <= 9; v++) {
    const span = document.createElement("span");
    if (bits & bit(v)) {
      span.textContent = String(v);
      const name = classes?.get(v);
      if (name) span.className = name;
    }
    marks.append(span);
  }
  div.replaceChildren(marks);
}

const CELL_HINTS = ["hint-cell", "hint-pattern", "hint-pattern-1", "hint-pattern-2", "hint-chain",
  "hint-unit", "hint-elim", "hint-wrong"];

function renderGame() {
  const values = boardValues();
  const clashing = conflicts(values);
  const peers = game.selected >= 0 ? PEERS[game.selected] : new Set();
  const hint = game.hint ?? new Highlights();
  gameCells.forEach((div, cell) => {
    const value = values[cell];
    div.classList.toggle("given", game.givens[cell] !== ".");
    div.classList.toggle("entry", game.givens[cell] === "." && value !== ".");
    div.classList.toggle("selected", cell === game.selected);
    div.classList.toggle("peer", peers.has(cell));
    div.classList.toggle("conflict", clashing.has(cell));
    const named = hint.cells.get(cell) ?? new Set();
    for (const name of CELL_HINTS) div.classList.toggle(name, named.has(name));
    div.setAttribute("aria-label", `${cellName(cell)} ${value === "." ? "blank" : value}`);
    const bits = value === "." ? game.marks[cell] | hint.markBits(cell) : 0;
    if (value !== ".") div.textContent = value;
    else if (bits) drawMarks(div, bits, hint.marks.get(cell));
    else div.textContent = "";
  });
  if (values.every((v) => v !== ".") && clashing.size === 0) {
    setStatus(puzzleStatus, "Solved: every row, column and box holds 1 to 9.", "solved");
  } else if (puzzleStatus.classList.contains("solved")) {
    setStatus(puzzleStatus, "");
  }
}

function boardChanged() {
  game.hint = null;
  hintText.replaceChildren();
  hintText.classList.remove("error");
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
    if (game.entries[cell] === ".") game.marks[cell] ^= bit(digit);
  } else if (digit === 0) {
    if (game.entries[cell] !== ".") game.entries[cell] = ".";
    else game.marks[cell] = 0;
  } else {
    game.entries[cell] = String(digit);
    for (const peer of PEERS[cell]) game.marks[peer] &= ~bit(digit); // as on paper
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
  if (event.key === "ArrowRight" && (game.selected < 0 || event.target.closest("#watch"))) {
    watch.steps(1); // → steps the searches, unless it moves the game's selected cell
    event.preventDefault();
    return;
  }
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

// ---- A puzzle: built in, typed (the service counts its solutions and grades it), or generated.

const builtin = document.getElementById("builtin");
for (const [name, board] of PUZZLES) builtin.append(new Option(name, board));
builtin.append(new Option("(typed)", ""));

function setPuzzle(text) {
  game.givens = text.replace(/\s/g, "").replace(/0/g, ".").split("");
  game.entries = BLANK.split("");
  game.marks.fill(0);
  game.selected = -1;
  watch.clear();
  boardChanged();
}

/** "hard (score 1,128; hardest step: X-wing)", and "; HoDoKu: expert" where its score raises the level */
const gradeText = (grade) =>
  `${levelName(grade.level)} (score ${number(grade.score)}; hardest step: ${techniqueName(grade.hardest)}` +
  (grade.hodokuLevel && grade.hodokuLevel !== grade.level ? `; HoDoKu: ${levelName(grade.hodokuLevel)})` : ")");

// Each load or generate takes a number; an answer to one since replaced by
// another is dropped (the page's own first load may answer after the player's).
let puzzleAsked = 0;

async function load(text) {
  const asked = ++puzzleAsked;
  setStatus(puzzleStatus, "Checking the puzzle…");
  let reply;
  try {
    reply = await api.countSolutions({ board: text, limit: 2n });
  } catch (error) {
    if (asked === puzzleAsked) setStatus(puzzleStatus, problem(error), "error");
    return;
  }
  if (asked !== puzzleAsked) return;
  setPuzzle(text);
  const verdicts = {
    [CountReply_Verdict.UNIQUE]: "one solution",
    [CountReply_Verdict.MULTIPLE]: "more than one solution",
    [CountReply_Verdict.NONE]: "no solution",
    [CountReply_Verdict.UNKNOWN]: "too hard to count in the time allowed",
  };
  const loaded = `Loaded: ${verdicts[reply.verdict] ?? "counted"}.`;
  setStatus(puzzleStatus, loaded);
  if (reply.verdict !== CountReply_Verdict.UNIQUE) return; // only a unique puzzle has a grade
  try {
    const grade = await api.grade({ board: text });
    const still = asked === puzzleAsked && puzzleStatus.textContent === loaded; // nothing said since
    if (still && grade.level) setStatus(puzzleStatus, `${loaded} Grade: ${gradeText(grade)}.`);
  } catch {
    // The grade is extra: the puzzle is loaded without it.
  }
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

const generateButton = document.getElementById("generate");
generateButton.addEventListener("click", async () => {
  const level = Number(document.getElementById("level").value);
  const asked = ++puzzleAsked;
  setStatus(puzzleStatus, `Generating a ${levelName(level)} puzzle…`);
  generateButton.disabled = true;
  try {
    for await (const made of api.generate({ level, count: 1 })) {
      if (asked !== puzzleAsked) break;
      builtin.value = "";
      document.getElementById("puzzle-text").value = made.puzzle;
      setPuzzle(made.puzzle);
      const givens = [...made.puzzle].filter((c) => c !== ".").length;
      setStatus(puzzleStatus,
        `Generated: one solution, ${givens} givens. Grade: ${gradeText(made.grade)}. Seed ${made.seed}.`);
    }
  } catch (error) {
    if (asked === puzzleAsked) setStatus(puzzleStatus, problem(error), "error");
  } finally {
    generateButton.disabled = false;
  }
});

// ---- Hints: the step, its sentence, its pattern highlighted, its eliminations crossed out.

/** The masks to send as HintRequest.pencil_marks: the player's marks, and
 *  every value for a blank cell the player has not marked (the rules then
 *  decide its candidates); none at all when the player has marked nothing,
 *  so that the hint is always a placement. */
function pencilMarks() {
  const blank = (cell) => valueAt(cell) === ".";
  if (!game.marks.some((marks, cell) => marks && blank(cell))) return [];
  return game.marks.map((marks, cell) => (blank(cell) ? marks || ALL_VALUES : 0));
}

/** What a Step shows: its placement, pattern (by group), chain, units and digits, and eliminations. */
function stepHighlights(step, shown) {
  if (step.placement) {
    shown.cell(step.placement.cell, "hint-cell");
    shown.mark(step.placement.cell, step.placement.value, "placement");
  }
  // A chain's candidates are also its pattern's: the chain goes first, so
  // that each shows whether the chain makes it true or false.
  for (const node of step.chain) {
    shown.cell(node.cell, "hint-chain");
    shown.mark(node.cell, node.value, node.on ? "chain-on" : "chain-off");
  }
  for (const { cell, value, group } of step.pattern) {
    shown.cell(cell, group ? `hint-pattern-${Math.min(group, 2)}` : "hint-pattern");
    shown.mark(cell, value, `pattern-${Math.min(group, 2)}`);
  }
  const unitCellList = step.units.flatMap(unitCells);
  for (const cell of unitCellList) shown.cell(cell, "hint-unit");
  // The step's digits in its units' cells (a fish's lines), where the player pencilled them.
  for (const cell of unitCellList) {
    for (const digit of step.digits) if (game.marks[cell] & bit(digit)) shown.mark(cell, digit, "digit");
  }
  for (const { cell, value } of step.eliminations) {
    shown.cell(cell, "hint-elim");
    shown.mark(cell, value, "eliminated");
  }
  if (step.technique === Step_Technique.NAKED_SINGLE && !step.units.length && step.placement) {
    for (const peer of PEERS[step.placement.cell]) shown.cell(peer, "hint-unit"); // its row, column and box
  }
}

/** Crosses out what the service rules out: marks outside a cell's
 *  candidates (those the rules allow), then the step's eliminations. A
 *  cell the player had not marked gets its candidates first, so that the
 *  next hint goes on from the eliminations. Returns how many went. */
function applyEliminations(reply, shown) {
  let removed = 0;
  const remove = (cell, gone) => {
    for (let bits = game.marks[cell] & gone; bits; bits &= bits - 1) {
      shown.mark(cell, 1 + Math.log2(bits & -bits), "eliminated");
      removed++;
    }
    game.marks[cell] &= ~gone;
  };
  if (reply.candidates.length === 81) {
    reply.candidates.forEach((candidates, cell) => {
      if (valueAt(cell) === ".") remove(cell, ~candidates & ALL_VALUES);
    });
  }
  if (reply.kind === HintReply_Kind.ELIMINATION && reply.step) {
    for (const { cell, value } of reply.step.eliminations) {
      if (!game.marks[cell]) game.marks[cell] = reply.candidates[cell] ?? ALL_VALUES;
      remove(cell, bit(value));
    }
  }
  return removed;
}

function hintHighlights(reply, shown) {
  if (reply.step) {
    stepHighlights(reply.step, shown);
  } else if (reply.move) { // FROM_SOLUTION: a placement with no pattern
    shown.cell(reply.move.cell, "hint-cell");
  }
  if (reply.kind === HintReply_Kind.WRONG_ENTRY && reply.wrong) {
    for (const cell of reply.wrong.cells) shown.cell(cell, "hint-wrong");
    for (const cell of unitCells(reply.wrong.unit)) shown.cell(cell, "hint-unit");
    if (reply.wrong.pencilMarks) shown.mark(reply.wrong.cells[0], reply.wrong.shouldBe, "missing");
  } else if (reply.kind === HintReply_Kind.NO_SOLUTION) {
    for (const cell of reply.conflicts) shown.cell(cell, "hint-wrong");
  }
}

/** The hint's words: what to do, at which level, and the service's sentence. */
function hintWords(reply, removed) {
  const lines = [];
  const { move, step, wrong } = reply;
  if (reply.kind === HintReply_Kind.NEXT_MOVE && move) {
    lines.push(["strong", `${cellName(move.cell)} = ${move.value}`]);
  } else if (reply.kind === HintReply_Kind.ELIMINATION && step) {
    const cells = new Map(); // value -> its cells
    for (const { cell, value } of step.eliminations) cells.set(value, [...(cells.get(value) ?? []), cellName(cell)]);
    const crossed = [...cells].map(([value, names]) => `${value} in ${names.join(", ")}`);
    lines.push(["strong", `Cross out ${crossed.join("; ")}`]);
  } else if (reply.kind === HintReply_Kind.WRONG_ENTRY && wrong) {
    const cell = wrong.cells[0];
    lines.push(["strong", wrong.pencilMarks
      ? `Your pencil marks in ${cellName(cell)} leave out ${wrong.shouldBe}`
      : wrong.shouldBe
        ? `${cellName(cell)} = ${valueAt(cell)} is wrong`
        : `${wrong.cells.map(cellName).join(" and ")} clash`]);
  }
  if (step) {
    const digits = step.digits.length ? `, on ${step.digits.join(", ")}` : "";
    lines.push(["level", `${techniqueName(step.technique)} (${levelName(step.level)}${digits})`]);
  }
  lines.push(["reason", sentence(reply.reason)]);
  if (reply.notUnique) lines.push(["note", "This puzzle has more than one solution."]);
  if (removed) lines.push(["note", `${plural(removed, "pencil mark")} crossed out.`]);
  return lines;
}

async function askHint({ fillMarks = false } = {}) {
  hintText.textContent = "Asking the service…";
  hintText.classList.remove("error");
  let reply;
  try {
    reply = await api.hint({
      givens: game.givens.join(""), entries: game.entries.join(""), includeCandidates: true,
      pencilMarks: fillMarks ? [] : pencilMarks(),
    });
  } catch (error) {
    hintText.textContent = problem(error);
    hintText.classList.add("error");
    return;
  }
  if (fillMarks) {
    if (reply.candidates.length === 81) {
      reply.candidates.forEach((candidates, cell) => { if (valueAt(cell) === ".") game.marks[cell] = candidates; });
    }
    boardChanged();
    hintText.textContent = "Every blank cell now holds its candidates.";
    return;
  }
  const shown = new Highlights();
  const removed = applyEliminations(reply, shown);
  hintHighlights(reply, shown);
  game.hint = shown;
  hintText.dataset.kind = enumName(HintReply_KindSchema, reply.kind);
  hintText.replaceChildren(...hintWords(reply, removed).map(([kind, text]) => {
    const span = document.createElement("span");
    span.className = `hint-${kind}`;
    span.textContent = text;
    return span;
  }));
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
// A new job's frames reach the seq a resume asks for within moments; Watch
// refuses a seq past the frames written so far, so it is asked again.
const CATCH_UP_S = 30;
// A stopped stream's CANCELLED frame comes within one frame interval and 200 ms.
const STOP_GRACE_MS = 2000;

// Called when a watcher's state changes (set once the watchers exist).
let stateChanged = null;

/** One strategy's board: its job, and the drawing of the frames seen so far.
 *
 * Stop is Cancel: the search and every playback of the job end for good
 * (a spectator's too). Resume is Watch from the last seq drawn: as the
 * cancelled job now ends there, Resume first starts the same request again,
 * whose search and frames are the same (replays are exact), and watches
 * the new job from that seq. Reset is Watch from 0, of the same job while
 * it can still play to its end, else of a new one. */
class Watcher {
  constructor(figure, strategy) {
    this.figure = figure;
    this.strategy = strategy;
    this.cells = makeGrid(figure.querySelector(".grid"));
    this.countersText = figure.querySelector(".counters");
    this.row = document.querySelector(`#step-table tr[data-strategy="${figure.dataset.strategy}"]`);
    this.request = null;
    this.jobId = "";
    this.cancelled = false; // this job was stopped (or never named): its frames end where it stopped
    this.controller = null;
    this.clear();
  }

  clear() {
    this.controller?.abort();
    this.controller = null;
    this.player?.abort();
    this.player = null;
    this.mode = "watch";
    this.search = null;
    this.request = null;
    this.jobId = "";
    this.cancelled = false;
    this.restart();
    this.setState("idle");
  }

  /** Back to before the first frame (the job is kept, for a replay). */
  restart() {
    this.position = null; // Step's position (bytes), and the step it is at
    this.positionStep = 0n;
    this.replies = 0;
    this.notice = "";
    this.board = null;
    this.givens = BLANK;
    this.entries = BLANK;
    this.seq = 0n;
    this.lastStep = 0n;
    this.cursor = -1;
    this.counters = null;
    this.total = 0n;
    this.outcome = Outcome.OUTCOME_UNSPECIFIED;
    this.solution = "";
    delete this.figure.dataset.resumedAt;
    this.draw();
  }

  setState(state) {
    this.state = state;
    this.figure.dataset.state = state;
    this.draw();
    stateChanged?.(); // the buttons follow (a play that started enables Stop)
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
    this.lastStep = frame.lastStep;
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
    // Where the drawing is, and which job (another client may Watch it too).
    this.figure.dataset.seq = String(this.seq);
    this.figure.dataset.step = String(this.lastStep);
    this.figure.dataset.job = this.jobId;
    this.figure.dataset.mode = this.mode;
    this.figure.dataset.replies = String(this.replies); // Step replies drawn since the search began
    const cells = this.row.querySelectorAll("td");
    this.row.classList.toggle("final", this.done);
    if (!this.counters) {
      this.countersText.textContent = "";
      cells.forEach((td) => { td.textContent = ""; });
      if (this.state === "running") cells[4].textContent = "starting";
      return;
    }
    const { steps, placements, retractions } = this.counters;
    const depth = BigInt(placements) - BigInt(retractions); // values the search has on the board
    [steps, placements, retractions, depth].forEach((n, i) => { cells[i].textContent = number(n); });
    const counts = `${number(placements)} placements, ${number(retractions)} retractions, depth ${number(depth)}`;
    const of = this.total ? ` of ${number(this.total)}` : "";
    const said = this.notice ? ` (${this.notice})` : "";
    if (this.done) {
      const outcome = OUTCOMES[this.outcome] ?? "over";
      this.countersText.textContent = `${number(steps)} steps in all: ${counts}; ${outcome}.${said}`;
      cells[4].textContent = outcome;
    } else if (this.state === "stopped" && this.mode !== "step") {
      this.countersText.textContent = `stopped at step ${number(steps)}${of}: ${counts}`;
      cells[4].textContent = "stopped";
    } else {
      this.countersText.textContent = `step ${number(steps)}${of}: ${counts}${said}`;
      cells[4].textContent = this.state === "running" ? "playing" : this.mode === "step" ? "stepping" : "";
    }
  }

  call() {
    this.controller?.abort();
    this.controller = new AbortController();
    return { signal: this.controller.signal };
  }

  /** Draws a stream's frames until it ends, is stopped, or fails. Frames
   *  come in runs (Pacing.runs): each is drawn one 1/fps after the one
   *  before, on this page's clock, from the first frame received. */
  async play(stream, signal, resumed = false) {
    // Stop, Reset or a new Watch take the controller: this stream then draws
    // nothing more (after a Stop it is read to its end, see stop()).
    const current = () => !signal.aborted && this.controller?.signal === signal;
    this.setState("running");
    let start = null;
    let index = 0;
    try {
      for await (const message of stream) {
        for (const frame of [message, ...message.nextFrames]) {
          if (!current()) continue;
          this.fps = frame.job?.pacing?.fps || this.fps || FPS;
          start ??= performance.now();
          const wait = start + (index++ * 1000) / this.fps - performance.now();
          if (wait > 0) await pause(wait, signal);
          if (!current()) continue;
          if (resumed && index === 1) this.figure.dataset.resumedAt = `${frame.seq} ${frame.firstStep}`;
          this.apply(frame);
        }
      }
    } catch (error) {
      if (current() && !aborted(error)) throw error;
    } finally {
      if (current()) this.setState(this.done ? "done" : "stopped");
    }
  }

  start(givens, entries, durationMs) {
    this.clear();
    this.request = {
      board: givens, entries, strategy: this.strategy, view: View.SEARCH,
      pacing: { durationMs: BigInt(durationMs), fps: FPS, runs: true },
    };
    const options = this.call();
    return this.play(api.solve(this.request, options), options.signal);
  }

  /** Stop is Cancel; the drawing stops at once, where it is. */
  async stop() {
    if (this.state !== "running") return;
    const controller = this.controller;
    this.controller = null;
    this.setState("stopped");
    // From now on this job cannot play to its end (Cancel stops it, or it
    // was never named), so Resume and Reset run the request again. Set
    // before Cancel answers: a Reset clicked meanwhile must not watch it.
    this.cancelled = true;
    if (!this.jobId) {
      controller?.abort();
      return;
    }
    // The stream is left open: with a stream open the service has a playback
    // to stop, and it ends the stream itself with a CANCELLED frame once it
    // has recorded where the job stopped (a stream closed at once could go
    // before that, and a later Watch of the job would play on).
    const leave = setTimeout(() => controller?.abort(), STOP_GRACE_MS);
    try {
      await api.cancel({ jobId: this.jobId });
    } catch (error) {
      clearTimeout(leave);
      controller?.abort();
      throw error;
    }
  }

  /** A job that can still play to its end: this one, unless it was
   *  cancelled; else the same request again, a new job. */
  async liveJob(signal) {
    if (!this.cancelled) return this.jobId;
    const call = new AbortController();
    const leave = () => call.abort();
    signal.addEventListener("abort", leave, { once: true });
    try {
      for await (const frame of api.solve(this.request, { signal: call.signal })) {
        // The first frame names the job; the job goes on without this call.
        this.jobId = frame.jobId;
        this.cancelled = false;
        break;
      }
    } finally {
      signal.removeEventListener("abort", leave);
      call.abort();
    }
    return this.jobId;
  }

  /** Watch(job, afterSeq), asked again while a new job's frames have not reached afterSeq yet. */
  async *watchFrom(jobId, afterSeq, signal) {
    const until = performance.now() + CATCH_UP_S * 1000;
    for (let wait = 50; ; wait = Math.min(2 * wait, 1000)) {
      let started = false;
      try {
        for await (const message of api.watch({ jobId, afterSeq, runs: true }, { signal })) {
          started = true;
          yield message;
        }
        return;
      } catch (error) {
        const early = error instanceof ConnectError && error.code === Code.InvalidArgument && afterSeq > 0n;
        if (started || !early || performance.now() > until) throw error;
      }
      await pause(wait, signal);
      if (signal.aborted) return;
    }
  }

  /** Watches this job from `afterSeq`; or the same request again, a new
   *  job, when this one was cancelled or its frames are gone. */
  async replay(afterSeq, resumed) {
    const options = this.call();
    const { signal } = options;
    this.setState("running");
    try {
      let jobId = await this.liveJob(signal);
      try {
        await this.play(this.watchFrom(jobId, afterSeq, signal), signal, resumed);
      } catch (error) {
        // Its frames expired (NOT_FOUND) or were trimmed (OUT_OF_RANGE): the same request again.
        if (!(error instanceof ConnectError && [Code.NotFound, Code.OutOfRange].includes(error.code))) throw error;
        this.cancelled = true;
        jobId = await this.liveJob(signal);
        await this.play(this.watchFrom(jobId, afterSeq, signal), signal, resumed);
      }
    } catch (error) {
      if (signal.aborted || this.controller?.signal !== signal) return; // stopped, reset or cleared meanwhile
      this.setState(this.done ? "done" : "stopped");
      if (!aborted(error)) throw error;
    }
  }

  /** Resume is Watch from the last seq drawn; once stepping, it plays the steps on. */
  resume(speed) {
    if (this.mode === "step") return this.playSteps(speed);
    return this.replay(this.seq, true);
  }

  /** Reset is Watch from 0: the same search from its start; once stepping, step 0. */
  reset() {
    if (this.mode === "step") return this.resetSteps();
    this.controller?.abort();
    this.restart();
    return this.replay(0n, false);
  }

  // ---- Stepping (Sudoku.Step): the same search a step or a run at a time,
  // or played on this page's clock, from where the drawing is. The service
  // keeps nothing between calls: this watcher holds the position (the bytes
  // of the last reply) and the step it is at.

  /** Steps from where the drawing is, on the search drawn so far: a watched
   *  solve's playback stops there (its job goes on; a pause, not a Cancel). */
  async enterSteps(givens, entries) {
    if (this.mode === "step") return;
    this.controller?.abort();
    this.controller = null;
    const from = this.request ?? { board: givens, entries, strategy: this.strategy };
    this.search = { board: from.board, entries: from.entries, strategy: from.strategy };
    this.mode = "step";
    this.position = null;
    this.positionStep = 0n;
    this.givens = from.board.replace(/\s/g, "").replace(/0/g, ".");
    this.entries = (from.entries || BLANK).replace(/\s/g, "").replace(/0/g, ".");
    if (this.board === null) this.board = [...this.givens].map((g, i) => (g !== "." ? g : this.entries[i]));
    this.setState(this.done ? "done" : "stopped");
  }

  /** A Step request from `origin` ({position, positionStep, lastStep}): the
   *  position with the steps drawn past it skipped, else the search from its
   *  start skipping to the step drawn. */
  stepRequest(origin, steps) {
    const skip = origin.lastStep - (origin.position ? origin.positionStep : 0n);
    const from = origin.position ? { position: origin.position } : { ...this.search };
    return { ...from, skip, steps: BigInt(steps) };
  }

  /** The reply to the next `steps` steps from `origin` (where the drawing
   *  is, by default), drawing nothing. A skip longer than the server takes in
   *  one call goes in hops; a position whose key the service lost (NOT_FOUND)
   *  is reached again from the search's start, which gives the same position. */
  async fetchSteps(steps, origin = this.origin(), signal) {
    const { maxStepSkip } = await limits();
    origin = { ...origin };
    for (let replayed = false; ; replayed = true) {
      try {
        while (origin.lastStep - (origin.position ? origin.positionStep : 0n) > maxStepSkip) {
          const hop = await api.step({ ...this.stepRequest(origin, 1), skip: maxStepSkip - 1n }, { signal });
          Object.assign(origin, { position: hop.position, positionStep: hop.lastStep });
        }
        return await api.step(this.stepRequest(origin, steps), { signal });
      } catch (error) {
        const lost = error instanceof ConnectError && error.code === Code.NotFound && origin.position;
        if (!lost || replayed) throw error;
        origin.position = null;
        this.notice = `the service lost this search's position: started over at step ${number(origin.lastStep)}`;
      }
    }
  }

  origin() {
    return { position: this.position, positionStep: this.positionStep, lastStep: this.lastStep };
  }

  /** Draws a Step reply by the proto's recipe; with `each`, one step at a
   *  time, calling `await each()` after every `perTick` steps (false stops). */
  async drawSteps(reply, perTick = 0, each = null) {
    if (reply.firstBoard) this.board = reply.firstBoard.split("");
    const moves = reply.steps;
    const n = moves.length / 2;
    let placed = 0;
    for (let i = 0; i < n; i++) placed += moves[2 * i + 1] ? 1 : 0;
    let placements = BigInt(reply.counters.placements) - BigInt(placed);
    let retractions = BigInt(reply.counters.retractions) - BigInt(n - placed);
    for (let i = 0; i < n && each;) {
      for (const end = Math.min(n, i + perTick); i < end; i++) {
        this.board[moves[2 * i]] = moves[2 * i + 1] ? String(moves[2 * i + 1]) : ".";
        if (moves[2 * i + 1]) placements++;
        else retractions++;
      }
      if (i === n) break;
      this.lastStep = reply.firstStep + BigInt(i);
      this.cursor = moves[2 * i]; // the next step's cell: the one being decided
      this.counters = { steps: this.lastStep, placements, retractions };
      this.draw();
      if (!(await each())) return false; // stopped: the drawing stays at lastStep
    }
    this.board = reply.board.split(""); // a keyframe: what the steps drew
    this.replies++;
    this.lastStep = reply.lastStep;
    this.cursor = reply.cursor;
    this.counters = reply.counters;
    this.position = reply.position.length ? reply.position : null;
    this.positionStep = reply.lastStep;
    if (reply.outcome) {
      this.outcome = reply.outcome;
      this.solution = reply.solution;
      this.cursor = -1;
    }
    this.setState(this.done ? "done" : this.state);
    return true;
  }

  /** Step and Run: `n` steps now, in as many calls as the server's
   *  max_step_count takes; a run of several calls is playing, which Stop ends. */
  async stepBy(n) {
    await this.stopSteps();
    const { maxStepCount } = await limits();
    const player = new AbortController();
    this.player = player;
    if (BigInt(n) > maxStepCount) this.setState("running");
    try {
      for (let left = BigInt(n); left > 0n && !this.done && !player.signal.aborted;) {
        const reply = await this.fetchSteps(left < maxStepCount ? left : maxStepCount, this.origin(), player.signal);
        left -= reply.lastStep - reply.firstStep || left;
        await this.drawSteps(reply);
      }
    } catch (error) {
      if (!player.signal.aborted && !aborted(error)) throw error;
    } finally {
      if (this.player === player) {
        this.player = null;
        this.setState(this.done ? "done" : "stopped");
      }
    }
  }

  /** Resume once stepping: `speed` steps a second, drawn on this page's
   *  clock, the next call's steps asked for while these are drawn. */
  async playSteps(speed) {
    await this.stopSteps();
    if (this.done) return;
    const player = new AbortController();
    const { signal } = player;
    this.player = player;
    this.setState("running");
    const tickMs = Math.max(1000 / FPS, 1000 / speed);
    const perTick = Math.max(1, Math.round((speed * tickMs) / 1000));
    const { maxStepCount } = await limits();
    const batch = BigInt(Math.min(Number(maxStepCount), Math.max(perTick, speed))); // about a second a call
    let due = performance.now();
    const tick = async () => {
      due += tickMs;
      await pause(due - performance.now(), signal);
      return !signal.aborted;
    };
    this.playing = (async () => {
      try {
        let reply = await this.fetchSteps(batch, this.origin(), signal);
        for (;;) {
          const ahead = reply.position.length && !reply.outcome
            ? this.fetchSteps(batch, { position: reply.position, positionStep: reply.lastStep, lastStep: reply.lastStep }, signal)
            : null;
          ahead?.catch(() => {}); // a stop leaves it unread
          if (!(await this.drawSteps(reply, perTick, tick)) || !ahead || signal.aborted) return;
          reply = await ahead;
        }
      } catch (error) {
        if (!signal.aborted && !aborted(error)) throw error;
      } finally {
        if (this.player === player) {
          this.player = null;
          this.setState(this.done ? "done" : "stopped");
        }
      }
    })();
    return this.playing;
  }

  /** Stop once stepping: the play holds where it is drawn. */
  async stopSteps() {
    const playing = this.playing;
    this.player?.abort();
    this.player = null;
    this.playing = null;
    await playing?.catch(() => {});
    if (this.mode === "step") this.setState(this.done ? "done" : "stopped");
  }

  /** Reset once stepping: back to step 0 of the same search, held there. */
  async resetSteps() {
    await this.stopSteps();
    const { givens, entries } = this;
    this.restart();
    Object.assign(this, { givens, entries });
    this.board = [...this.givens].map((g, i) => (g !== "." ? g : this.entries[i]));
    this.counters = { steps: 0n, placements: 0n, retractions: 0n };
    this.setState("stopped");
  }
}

const watch = {
  watchers: [
    new Watcher(document.getElementById("watch-naive"), Strategy.NAIVE),
    new Watcher(document.getElementById("watch-mrv"), Strategy.MRV),
  ],
  buttons: Object.fromEntries(["start", "stop", "resume", "reset", "step", "run"].map((name) =>
    [name, document.getElementById(`watch-${name}`)])),

  clear() {
    for (const watcher of this.watchers) watcher.clear();
    this.update();
  },

  update() {
    const states = this.watchers.map((w) => w.state);
    const hasJobs = this.watchers.every((w) => w.request || w.mode === "step");
    this.buttons.stop.disabled = !states.includes("running");
    this.buttons.resume.disabled = !hasJobs || states.includes("running") || !states.includes("stopped");
    this.buttons.reset.disabled = !hasJobs;
    const over = states.every((state) => state === "done");
    this.buttons.step.disabled = this.buttons.run.disabled = over;
  },

  /** Step and Run: every search that is not over takes `n` steps, side by side. */
  steps(n) {
    if (!(n >= 1)) return;
    const givens = game.givens.join("");
    const entries = game.entries.join("");
    this.queue = (this.queue ?? Promise.resolve()).then(() => this.all(async (w) => {
      await w.enterSteps(givens, entries);
      if (!w.done) await w.stepBy(n);
    }));
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

stateChanged = () => watch.update();

watch.buttons.start.addEventListener("click", () => {
  const duration = Number(document.getElementById("duration").value);
  watch.all((w) => w.start(game.givens.join(""), game.entries.join(""), duration));
});
watch.buttons.stop.addEventListener("click", () =>
  watch.all((w) => (w.mode === "step" ? w.stopSteps() : w.stop())));
watch.buttons.resume.addEventListener("click", () => {
  const speed = Number(document.getElementById("step-speed").value);
  watch.all((w) => (w.state === "stopped" && !w.done ? w.resume(speed) : null));
});
watch.buttons.reset.addEventListener("click", () => watch.all((w) => w.reset()));
watch.buttons.step.addEventListener("click", () => watch.steps(1));
watch.buttons.run.addEventListener("click", () =>
  watch.steps(Math.floor(Number(document.getElementById("run-count").value))));
// A tap or a click on the searches leaves the game's board: → then steps.
document.getElementById("watch").addEventListener("click", () => { if (game.selected >= 0) select(-1); });

// ---- The token, for a service started with SUDOKU_AUTH_TOKEN.

document.getElementById("token-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const token = document.getElementById("token").value.trim();
  if (token) sessionStorage.setItem(TOKEN_KEY, token);
  else sessionStorage.removeItem(TOKEN_KEY);
  setStatus(puzzleStatus, token ? "The token will be sent with every call." : "No token is sent.");
});

// ---- Start: ?puzzle=... or the first built-in puzzle.

const fromUrl = new URLSearchParams(window.location.search).get("puzzle");
const first = fromUrl ?? PUZZLES[0][1];
document.getElementById("puzzle-text").value = first;
builtin.value = PUZZLES.some(([, board]) => board === first) ? first : "";
load(first);

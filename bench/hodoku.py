"""Our hints and grades against HoDoKu's, played along HoDoKu's own solution paths.

    python bench/hodoku.py [--hodoku DIR] [--qqwing N | --qqwing-file FILE]
                           [--top N] [--forum N] [--seed S] [--cache FILE] [DATA_DIR]

HoDoKu is the reference human solver; hodoku-py is its Python port, with
HoDoKu's solution paths step for step. Both are GPL: this bench only runs
hodoku-py beside our engine and compares what they do; nothing of it is
copied here. It is not a dependency: point --hodoku (or $HODOKU_PY) at a
checkout of hodoku-py (github.com/alexdej/hodoku-py, cloned anywhere, e.g.
into /tmp); without one the bench says so and stops.

Puzzles: --qqwing fresh qqwing expert puzzles (Debian's `qqwing --generate N
--difficulty expert`), or those of --qqwing-file; --top of magictour top1465
and --forum of the forum's hardest 11+ (DATA_DIR, default $SUDOKU_PUZZLES,
else tests/data), sampled with --seed. --cache keeps the puzzles and
HoDoKu's paths in a JSON file, so a second run compares our new engine with
the same paths without running HoDoKu again (the forum's hardest take it
seconds each, and --hodoku-limit leaves out those it takes longer on);
--cached-only compares on the cached paths alone.

For each puzzle, HoDoKu solves it; then, at every state of its path (its
board and candidates before each of its steps), our step search runs
(worker.logic.step with the state's candidates as pencil marks, unique) and
is compared with HoDoKu's step there:
- wrong: a placement that is not the solution's, an elimination of the
  solution's value (must be 0);
- the same technique (chains and nice loops of a kind count as one, since
  both solvers name a chain by how it ends);
- the same or easier difficulty: HoDoKu's score of our technique (its
  counterpart in HoDoKu) at most that of HoDoKu's step;
- one or more of HoDoKu's levels harder;
- a forcing chain or net, nested forcing or trial where HoDoKu shows a
  named pattern, and HoDoKu's techniques at those states;
- the time of our step search, p50 and p99, at all states and at the
  states where HoDoKu's step is not a single.
Then grades: our level against HoDoKu's level by hardest technique alone,
and against its level after its score threshold (HoDoKu raises a level
while the puzzle's score passes the level's maximum), our hodoku_level (our
level raised by our score the same way) against that level too, the
Spearman rank correlation of the scores, and a confusion table.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[0] = str(ROOT)  # the repository, for `bench` and `worker`

from bench.stack import percentile, sample  # noqa: E402
from sudoku import engine  # noqa: E402
from sudoku.grid import PEERS  # noqa: E402
from worker import logic  # noqa: E402
from worker.hints import candidates  # noqa: E402

SINGLES = {"FULL_HOUSE", "NAKED_SINGLE", "HIDDEN_SINGLE"}
FORCING = {"FORCING_CHAIN", "FORCING_NET", "NESTED_FORCING", "TRIAL"}
LEVELS = ("", "easy", "medium", "hard", "expert", "extreme")
HODOKU_LEVELS = ("", "easy", "medium", "hard", "unfair", "extreme")

# HoDoKu's technique (SolutionType name) -> ours, where the names differ.
THEIRS_TO_OURS = {
    "LOCKED_CANDIDATES_1": "POINTING", "LOCKED_CANDIDATES_2": "CLAIMING",
    "NAKED_QUADRUPLE": "NAKED_QUAD", "HIDDEN_QUADRUPLE": "HIDDEN_QUAD",
    "DUAL_TWO_STRING_KITE": "TWO_STRING_KITE", "DUAL_EMPTY_RECTANGLE": "EMPTY_RECTANGLE",
    "SIMPLE_COLORS_TRAP": "SIMPLE_COLORING", "SIMPLE_COLORS_WRAP": "SIMPLE_COLORING",
    "MULTI_COLORS_1": "MULTI_COLORING", "MULTI_COLORS_2": "MULTI_COLORING",
    "UNIQUENESS_1": "UNIQUE_RECTANGLE", "UNIQUENESS_2": "UNIQUE_RECTANGLE", "UNIQUENESS_3": "UNIQUE_RECTANGLE",
    "UNIQUENESS_4": "UNIQUE_RECTANGLE", "UNIQUENESS_5": "UNIQUE_RECTANGLE", "UNIQUENESS_6": "UNIQUE_RECTANGLE",
    "BUG_PLUS_1": "BUG_PLUS_ONE",
    "AVOIDABLE_RECTANGLE_1": "AVOIDABLE_RECTANGLE", "AVOIDABLE_RECTANGLE_2": "AVOIDABLE_RECTANGLE",
    "CONTINUOUS_NICE_LOOP": "NICE_LOOP", "DISCONTINUOUS_NICE_LOOP": "NICE_LOOP",
    "GROUPED_CONTINUOUS_NICE_LOOP": "GROUPED_NICE_LOOP", "GROUPED_DISCONTINUOUS_NICE_LOOP": "GROUPED_NICE_LOOP",
    "FORCING_CHAIN_CONTRADICTION": "FORCING_CHAIN", "FORCING_CHAIN_VERITY": "FORCING_CHAIN",
    "FORCING_NET_CONTRADICTION": "FORCING_NET", "FORCING_NET_VERITY": "FORCING_NET",
    "BRUTE_FORCE": "TRIAL",
}
# Ours -> HoDoKu's counterpart, for its level and score of our step.
OURS_TO_THEIRS = {
    "POINTING": "LOCKED_CANDIDATES_1", "CLAIMING": "LOCKED_CANDIDATES_2",
    "NAKED_QUAD": "NAKED_QUADRUPLE", "HIDDEN_QUAD": "HIDDEN_QUADRUPLE",
    "SIMPLE_COLORING": "SIMPLE_COLORS_TRAP", "MULTI_COLORING": "MULTI_COLORS_1",
    "UNIQUE_RECTANGLE": "UNIQUENESS_1", "BUG_PLUS_ONE": "BUG_PLUS_1", "AVOIDABLE_RECTANGLE": "AVOIDABLE_RECTANGLE_1",
    "NICE_LOOP": "CONTINUOUS_NICE_LOOP", "GROUPED_NICE_LOOP": "GROUPED_CONTINUOUS_NICE_LOOP",
    "FORCING_CHAIN": "FORCING_CHAIN_CONTRADICTION", "FORCING_NET": "FORCING_NET_CONTRADICTION",
    "NESTED_FORCING": "FORCING_NET_CONTRADICTION", "TRIAL": "BRUTE_FORCE",
    "FINNED_MUTANT_FISH": "FINNED_MUTANT_SWORDFISH", "MUTANT_FISH": "MUTANT_SWORDFISH",
}
# Chains named by how they end (an AIC whose ends are linked is a nice loop).
KINDS = {"AIC": "NICE_LOOP", "GROUPED_AIC": "GROUPED_NICE_LOOP"}


def kind(ours: str) -> str:
    return KINDS.get(ours, ours)


def theirs_as_ours(name: str) -> str:
    name = THEIRS_TO_OURS.get(name, name)
    if name in logic.TECHNIQUES:  # the finned Franken swordfish, by the same name
        return name
    for fish in ("FRANKEN", "MUTANT"):
        if fish in name:
            return ("FINNED_" if "FINNED" in name else "") + fish + "_FISH"
    return name


def load_hodoku(folder: str | None):
    """hodoku-py's Solver and its step table, or None (with the reason printed)."""
    if not folder:
        print("hodoku-py not given (--hodoku DIR or $HODOKU_PY, a checkout of github.com/alexdej/hodoku-py): "
              "skipped")
        return None
    src = Path(folder) / "src"
    sys.path.insert(0, str(src if src.is_dir() else Path(folder)))
    try:
        from hodoku import Solver
        from hodoku.core.scoring import DIFFICULTY_MAX_SCORE, STEP_CONFIG
    except ImportError as e:
        print(f"hodoku-py not importable from {folder} ({e}): skipped")
        return None
    return Solver(), {t.name: cfg for t, cfg in STEP_CONFIG.items()}, DIFFICULTY_MAX_SCORE


def too_long(signum, frame):
    raise TimeoutError


def hodoku_path(solver, placing, puzzle: str) -> dict:
    """HoDoKu's solution of `puzzle`: its level, score and steps (technique,
    placements, eliminations), as plain data for the cache."""
    result = solver.solve(puzzle)
    steps = []
    for s in result.steps:
        placed = list(zip(s.indices, s.values)) if s.type.name in placing else []
        steps.append([s.type.name, placed, [(c.index, c.value) for c in s.candidates_to_delete]])
    return {"level": result.level.value, "score": result.score, "solved": result.solved, "steps": steps}


class State:
    """A board and its candidates along HoDoKu's path."""

    def __init__(self, puzzle: str):
        self.cells = list(engine.parse_board(puzzle))
        self.masks = candidates(bytes(self.cells))

    def board(self) -> str:
        return "".join(str(v) if v else "." for v in self.cells)

    def place(self, c: int, d: int) -> None:
        self.cells[c] = d
        self.masks[c] = 0
        for p in PEERS[c]:
            self.masks[p] &= ~(1 << (d - 1))

    def apply(self, placed, removed) -> None:
        for c, d in placed:
            self.place(c, d)
        for c, d in removed:
            self.masks[c] &= ~(1 << (d - 1))


class Tally:
    def __init__(self) -> None:
        self.states = self.non_single = self.same = self.easier = self.harder_level = 0
        self.forcing_named = 0
        self.wrong = self.placements = self.eliminations = 0
        self.times: list[float] = []
        self.times_non_single: list[float] = []
        self.at_forcing: Counter = Counter()
        self.theirs_used: Counter = Counter()
        self.theirs_puzzles: Counter = Counter()
        # ours, theirs by hardest, theirs, our score, theirs, ours raised by the score as HoDoKu raises its own
        self.grades: list[tuple[int, int, int, int, int, int]] = []


def play(puzzle: str, path: dict, table, tally: Tally) -> None:
    solution = engine.parse_board(engine.solve(puzzle))
    state = State(puzzle)
    used = set()
    for name, placed, removed in path["steps"]:
        board = state.board()
        start = time.perf_counter_ns()
        ours = logic.step(board, state.masks, unique=True, givens=puzzle)
        took = (time.perf_counter_ns() - start) / 1e6
        tally.states += 1
        tally.times.append(took)
        if ours is not None:
            if ours.is_placement:
                tally.placements += 1
                tally.wrong += solution[ours.cell] != ours.digit
            for c, d in ours.eliminations:
                tally.eliminations += 1
                tally.wrong += solution[c] == d
        used.add(name)
        if name in SINGLES:
            state.apply(placed, removed)
            continue
        tally.non_single += 1
        tally.times_non_single.append(took)
        tally.theirs_used[name] += 1
        theirs_cfg = table[name]
        our_name = ours.name if ours else "TRIAL"
        ours_cfg = table.get(OURS_TO_THEIRS.get(our_name, our_name), theirs_cfg)
        tally.same += kind(our_name) == kind(theirs_as_ours(name))
        tally.easier += ours_cfg.base_score <= theirs_cfg.base_score
        tally.harder_level += ours_cfg.level.value > theirs_cfg.level.value
        if our_name in FORCING and theirs_as_ours(name) not in FORCING:
            tally.forcing_named += 1
            tally.at_forcing[name] += 1
        state.apply(placed, removed)
    tally.theirs_puzzles.update(used - SINGLES)
    g = logic.grade(puzzle)
    hardest = max((table[n].level.value for n, _, _ in path["steps"]), default=1)
    tally.grades.append((g.level, hardest, path["level"], g.score, path["score"], g.hodoku_level))


def ranks(values: list[float]) -> list[float]:
    order = sorted(range(len(values)), key=lambda i: values[i])
    out = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            out[order[k]] = (i + j) / 2
        i = j + 1
    return out


def spearman(a: list[float], b: list[float]) -> float:
    ra, rb = ranks(a), ranks(b)
    ma, mb = statistics.mean(ra), statistics.mean(rb)
    cov = sum((x - ma) * (y - mb) for x, y in zip(ra, rb))
    var = (sum((x - ma) ** 2 for x in ra) * sum((y - mb) ** 2 for y in rb)) ** 0.5
    return cov / var if var else 1.0


def pct(k: int, n: int) -> str:
    return f"{100 * k / n:5.1f}%" if n else "    -"


def report(name: str, t: Tally, ours_known: set[str]) -> None:
    n = t.non_single
    print(f"\n== {name}: {len(t.grades)} puzzles, {t.states} states of HoDoKu's paths, {n} not singles")
    print(f"wrong: {t.wrong} of {t.placements} placements and {t.eliminations} eliminations")
    print(f"{'ours against HoDoKu step':58} {'states':>7} {'share':>7}")
    for label, k in (("the same technique", t.same), ("the same or easier difficulty (HoDoKu's score)", t.easier),
                     ("one or more of HoDoKu's levels harder", t.harder_level),
                     ("a forcing chain or net where HoDoKu shows a named pattern", t.forcing_named)):
        print(f"{label:58} {k:7} {pct(k, n):>7}")
    if t.at_forcing:
        print("HoDoKu's steps at those states: " + ", ".join(f"{k} {v}" for k, v in t.at_forcing.most_common()))
    lacking = [(k, v) for k, v in t.theirs_used.most_common() if theirs_as_ours(k) not in ours_known]
    if lacking:
        print("HoDoKu's techniques our ladder lacks (steps / puzzles): "
              + ", ".join(f"{k} {v} / {t.theirs_puzzles[k]}" for k, v in lacking))
    print(f"step search ms, p50 / p99: all states {statistics.median(t.times):.3f} / {percentile(t.times, 0.99):.3f}"
          f", not singles {statistics.median(t.times_non_single or [0]):.3f} / "
          f"{percentile(t.times_non_single or [0], 0.99):.3f}, max {max(t.times):.1f}")
    g = t.grades
    same_hardest = sum(o == h for o, h, *_ in g)
    same_level = sum(o == lv for o, _, lv, *_ in g)
    same_raised = sum(x[5] == x[2] for x in g)
    rho = spearman([x[3] for x in g], [x[4] for x in g])
    print(f"grades: {pct(same_hardest, len(g))} at HoDoKu's level by hardest technique, "
          f"{pct(same_level, len(g))} at its level with the score threshold; Spearman of the scores {rho:.3f}")
    print(f"  hodoku_level (ours raised by our score as HoDoKu raises its own) at HoDoKu's level with the "
          f"threshold: {pct(same_raised, len(g))}")
    print("  our level (rows), HoDoKu's by hardest technique (columns):\n  " + " " * 8
          + " ".join(f"{h:>7}" for h in HODOKU_LEVELS[1:]))
    for ours in range(1, 6):
        row = [sum(o == ours and h == theirs for o, h, *_ in g) for theirs in range(1, 6)]
        if any(row):
            print(f"  {LEVELS[ours]:>7} " + " ".join(f"{k:7}" for k in row))


def qqwing_puzzles(n: int) -> list[str]:
    qqwing = shutil.which("qqwing")
    if not qqwing:
        print("qqwing not found (Debian: apt-get install qqwing): no fresh qqwing puzzles")
        return []
    out = subprocess.run([qqwing, "--generate", str(n), "--difficulty", "expert", "--one-line"],
                         capture_output=True, text=True, check=True).stdout.split()
    return [p.replace("0", ".") for p in out]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("data", nargs="?", type=Path,
                        default=Path(os.environ.get("SUDOKU_PUZZLES") or ROOT / "tests" / "data"))
    parser.add_argument("--hodoku", default=os.environ.get("HODOKU_PY"), help="a checkout of hodoku-py")
    parser.add_argument("--qqwing", type=int, default=300, help="fresh qqwing expert puzzles (default 300)")
    parser.add_argument("--qqwing-file", type=Path, help="qqwing puzzles to use instead, one a line")
    parser.add_argument("--top", type=int, default=300, help="top1465 puzzles (default 300)")
    parser.add_argument("--forum", type=int, default=100, help="forum hardest 11+ puzzles (default 100)")
    parser.add_argument("--seed", type=int, default=14)
    parser.add_argument("--cache", type=Path, help="a JSON file keeping the puzzles and HoDoKu's paths")
    parser.add_argument("--cached-only", action="store_true",
                        help="run HoDoKu on no puzzle: compare on the paths the cache holds")
    parser.add_argument("--hodoku-limit", type=int, default=120,
                        help="seconds HoDoKu may take on one puzzle (default 120); slower ones are left out")
    args = parser.parse_args()
    loaded = load_hodoku(args.hodoku)
    if loaded is None:
        return
    solver, table, max_score = loaded
    cache = json.loads(args.cache.read_text()) if args.cache and args.cache.exists() else {"sets": {}, "paths": {}}
    sets = cache["sets"]
    if "qqwing expert (fresh)" not in sets:
        fresh = args.qqwing_file.read_text().split() if args.qqwing_file else qqwing_puzzles(args.qqwing)
        if fresh:
            sets["qqwing expert (fresh)"] = fresh
    for name, n in (("magictour_top1465", args.top), ("forum_hardest_1905_11plus", args.forum)):
        if name not in sets and (args.data / f"{name}.txt").exists() and n:
            sets[name] = sample(args.data / f"{name}.txt", n, args.seed)
    placing = {"FULL_HOUSE", "NAKED_SINGLE", "HIDDEN_SINGLE", "BRUTE_FORCE", "FORCING_CHAIN_CONTRADICTION",
               "FORCING_CHAIN_VERITY", "FORCING_NET_CONTRADICTION", "FORCING_NET_VERITY"}
    paths = cache["paths"]
    start = time.perf_counter()
    signal.signal(signal.SIGALRM, too_long)
    for name, puzzles in sets.items():
        todo = [p for p in puzzles if p not in paths and not args.cached_only]
        for i, p in enumerate(todo):
            signal.alarm(args.hodoku_limit)
            try:
                paths[p] = hodoku_path(solver, placing, p)
            except TimeoutError:
                paths[p] = {"level": 0, "score": 0, "solved": False, "steps": [], "timeout": args.hodoku_limit}
            finally:
                signal.alarm(0)
            if args.cache and (i % 10 == 9 or i + 1 == len(todo)):
                args.cache.write_text(json.dumps(cache))  # a long run can stop and go on
            print(f"HoDoKu: {name} {i + 1}/{len(todo)}", file=sys.stderr, flush=True)
    if args.cache:
        args.cache.write_text(json.dumps(cache))
    # the limit of the run that timed each out (a cache may hold several runs')
    limits = [paths[p]["timeout"] for puzzles in sets.values() for p in puzzles if paths.get(p, {}).get("timeout")]
    missing = sum(1 for puzzles in sets.values() for p in puzzles if p not in paths)
    if missing:
        print(f"{missing} puzzles left out: no HoDoKu path in the cache (--cached-only)")
    if limits:
        known = sorted({v for v in limits if v is not True})  # True: a cache from before the limit was kept
        said = f"{'/'.join(map(str, known))} s" if len(known) == len(set(limits)) else "its limit"
        print(f"{len(limits)} puzzles left out: HoDoKu took more than {said} on each")
    print(f"HoDoKu's paths ready in {time.perf_counter() - start:.0f} s; "
          f"HoDoKu's level thresholds: " + ", ".join(f"{k.name.lower()} {v}" for k, v in max_score.items()
                                                      if 0 < v < 2**31 - 1))
    ours_known = set(logic.TECHNIQUES)
    total = Tally()
    for name, puzzles in sets.items():
        t = Tally()
        for p in puzzles:
            if p in paths and paths[p]["solved"]:
                play(p, paths[p], table, t)
        if not t.grades:
            continue
        report(name, t, ours_known)
        for field in ("states", "non_single", "same", "easier", "harder_level", "forcing_named", "wrong",
                      "placements", "eliminations"):
            setattr(total, field, getattr(total, field) + getattr(t, field))
        total.times += t.times
        total.times_non_single += t.times_non_single
        total.at_forcing += t.at_forcing
        total.theirs_used += t.theirs_used
        total.theirs_puzzles += t.theirs_puzzles
        total.grades += t.grades
    report("all", total, ours_known)


if __name__ == "__main__":
    main()

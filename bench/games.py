"""Whole games played by hints alone: how many moves come from the solution.

    python bench/games.py [--sample 50] [--seed 14] [DATA_DIR]

For a sample of each set (DATA_DIR, default $SUDOKU_PUZZLES, else
tests/data), a player starts from the rules' pencil marks and follows every
hint (worker.hints.hint, as a worker answers Hint): places each move,
crosses out each elimination. Prints per set the games, steps, placements,
eliminations, the share of placements FROM_SOLUTION and of games needing
one, and the steps by level; a placement that differs from the solution, or
an elimination of the solution's value, stops the run (for a puzzle with
several solutions, the solution is the one the moves follow).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path

sys.path[0] = str(Path(__file__).resolve().parent.parent)  # the repository, for `bench`

from bench.stack import sample, sampled_sets  # noqa: E402
from sudoku import engine  # noqa: E402
from worker.hints import candidates, hint  # noqa: E402

LEVELS = ("EASY", "MEDIUM", "HARD", "EXPERT", "EXTREME")


def play(puzzle: str) -> tuple[Counter, Counter]:
    """Moves by technique kind and steps by level, for one game."""
    entries = ["."] * 81
    marks = candidates(engine.parse_board(puzzle))
    moves: Counter = Counter()
    levels: Counter = Counter()
    while True:
        reply = hint(puzzle, "".join(entries), pencil_marks=marks)
        if reply["kind"] not in ("NEXT_MOVE", "ELIMINATION"):
            assert reply["kind"] == "SOLVED", reply
            return moves, levels
        board = "".join(e if e != "." else g for g, e in zip(puzzle, entries))
        if reply["kind"] == "NEXT_MOVE":
            move = reply["move"]
            cell, value = move.get("cell", 0), move["value"]
            assert engine.count(board[:cell] + str(value) + board[cell + 1:], limit=1)[0], (puzzle, reply)
            entries[cell] = str(value)
            moves["from solution" if move["technique"] == "FROM_SOLUTION" else "placement"] += 1
        else:
            for e in reply["step"]["eliminations"]:
                cell = e.get("cell", 0)
                assert engine.count(board[:cell] + str(e["value"]) + board[cell + 1:], limit=1)[0] == 0 or \
                    reply.get("not_unique"), (puzzle, reply)
                marks[cell] &= ~(1 << (e["value"] - 1))
            moves["elimination"] += 1
        if "step" in reply:
            levels[reply["step"]["level"]] += 1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    args = sampled_sets(parser, sample=50)
    print(f"{'set':32} {'games':>5} {'steps':>7} {'placed':>7} {'elims':>6} {'from sol.':>9} "
          f"{'games':>6}  steps by level (easy/medium/hard/expert/extreme)   s")
    for path in sorted(args.data.glob("*.txt")):
        if "invalid" in path.name:
            continue
        puzzles = sample(path, args.sample, args.seed)
        total, levels, needing = Counter(), Counter(), 0
        start = time.perf_counter()
        for puzzle in puzzles:
            moves, game_levels = play(puzzle)
            total += moves
            levels += game_levels
            needing += moves["from solution"] > 0
        placed = total["placement"] + total["from solution"]
        share = 100 * total["from solution"] / max(1, placed)
        by_level = "/".join(str(levels[name]) for name in LEVELS)
        print(f"{path.stem:32} {len(puzzles):5} {sum(total.values()):7} {placed:7} {total['elimination']:6} "
              f"{share:8.1f}% {100 * needing / len(puzzles):5.0f}%  {by_level:45} {time.perf_counter() - start:5.1f}",
              flush=True)


if __name__ == "__main__":
    main()

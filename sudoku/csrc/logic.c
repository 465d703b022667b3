/*
 * logic.c: the human solver; the contract is in logic.h.
 *
 * One translation unit: each family of techniques is a file in logic/,
 * included here in ladder order, so that -O3 inlines across them as it did
 * when they were one file (a finder of one family calls the helpers of
 * board.c thousands of times a step).
 *
 * The techniques are written from their public definitions (the common
 * vocabulary of Sudoku solving guides); each finder's comment says what it
 * looks for and the order it scans in, which makes its step the same every
 * time.
 */
#include "logic/board.c"
#include "logic/singles.c"
#include "logic/locked.c"
#include "logic/subsets.c"
#include "logic/fish.c"
#include "logic/single_digit.c"
#include "logic/wings.c"
#include "logic/colouring.c"
#include "logic/uniqueness.c"
#include "logic/chains.c"
#include "logic/als.c"
#include "logic/forcing.c"
#include "logic/nested.c"
#include "logic/ladder.c"

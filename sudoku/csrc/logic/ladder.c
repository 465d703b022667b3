/*
 * ladder.c: the ladder (the rungs in order, logic_find, logic_solvable) and the grades (logic_solve, names, weights, levels).
 *
 * Part of the human solver's one translation unit (logic.c includes it);
 * internal.h holds what the families share.
 */
#include "logic/internal.h"

/* ---- The ladder ---- */

/* A rung: its finder, the technique it finds (the easiest, when several),
 * whether it needs a puzzle known to be unique, whether it is local, the
 * size of its patterns (subsets, fish; else 0), and its pass in
 * logic_solvable's order (see QUICK_PASSES). A local rung's step for
 * a digit d depends on where[d - 1] alone (LOCAL_DIGITS: locked candidates,
 * single-digit patterns, fish) or its step in a unit on the candidates of the unit's
 * cells alone (LOCAL_UNITS: subsets; the locked subsets and Sue de Coq,
 * whose step where a box meets a line depends on the box and the line
 * alone, look where either is asked about), so a solve asks it again only about
 * the digits or units that changed (see ladder_memo). */
enum { LOCAL_DIGITS = 1, LOCAL_UNITS = 2 };

typedef struct {
    rung_fn find;
    logic_technique technique;
    int uniqueness;
    int local;
    int size;
    int pass;
} rung;

/* HoDoKu's order (its default solver steps, the reference for people
 * who grade by hand), where we have the technique. */
static const rung LADDER[] = {
    {find_full_house, LOGIC_FULL_HOUSE, 0, 0, 0, 1},
    {find_naked_single, LOGIC_NAKED_SINGLE, 0, 0, 0, 1},
    {find_hidden_single, LOGIC_HIDDEN_SINGLE, 0, 0, 0, 1},
    {find_locked_subset, LOGIC_LOCKED_PAIR, 0, LOCAL_UNITS, 2, 1},
    {find_locked_subset, LOGIC_LOCKED_TRIPLE, 0, LOCAL_UNITS, 3, 1},
    {find_pointing, LOGIC_POINTING, 0, LOCAL_DIGITS, 0, 1},
    {find_claiming, LOGIC_CLAIMING, 0, LOCAL_DIGITS, 0, 1},
    {find_naked_subset, LOGIC_NAKED_PAIR, 0, LOCAL_UNITS, 2, 1},
    {find_naked_subset, LOGIC_NAKED_TRIPLE, 0, LOCAL_UNITS, 3, 1},
    {find_hidden_subset, LOGIC_HIDDEN_PAIR, 0, LOCAL_UNITS, 2, 1},
    {find_hidden_subset, LOGIC_HIDDEN_TRIPLE, 0, LOCAL_UNITS, 3, 1},
    {find_naked_subset, LOGIC_NAKED_QUAD, 0, LOCAL_UNITS, 4, 4},
    {find_hidden_subset, LOGIC_HIDDEN_QUAD, 0, LOCAL_UNITS, 4, 4},
    {find_basic_fish, LOGIC_X_WING, 0, LOCAL_DIGITS, 2, 1},
    {find_basic_fish, LOGIC_SWORDFISH, 0, LOCAL_DIGITS, 3, 1},
    {find_basic_fish, LOGIC_JELLYFISH, 0, LOCAL_DIGITS, 4, 4},
    {find_remote_pair, LOGIC_REMOTE_PAIR, 0, 0, 0, 4},
    {find_bug_plus_one, LOGIC_BUG_PLUS_ONE, 1, 0, 0, 4},
    {find_skyscraper, LOGIC_SKYSCRAPER, 0, LOCAL_DIGITS, 0, 1},
    {find_two_string_kite, LOGIC_TWO_STRING_KITE, 0, LOCAL_DIGITS, 0, 1},
    {find_turbot_fish, LOGIC_TURBOT_FISH, 0, LOCAL_DIGITS, 0, 4},
    {find_empty_rectangle, LOGIC_EMPTY_RECTANGLE, 0, LOCAL_DIGITS, 0, 4},
    {find_w_wing, LOGIC_W_WING, 0, 0, 0, 1},
    {find_xy_wing, LOGIC_XY_WING, 0, 0, 0, 1},
    {find_xyz_wing, LOGIC_XYZ_WING, 0, 0, 0, 1},
    {find_unique_rectangle, LOGIC_UNIQUE_RECTANGLE, 1, 0, 0, 4},
    {find_hidden_rectangle, LOGIC_HIDDEN_RECTANGLE, 1, 0, 0, 4},
    {find_avoidable_rectangle, LOGIC_AVOIDABLE_RECTANGLE, 1, 0, 0, 4},
    {find_finned_fish, LOGIC_FINNED_X_WING, 0, LOCAL_DIGITS, 2, 3},
    {find_finned_fish, LOGIC_FINNED_SWORDFISH, 0, LOCAL_DIGITS, 3, 3},
    {find_finned_fish, LOGIC_FINNED_JELLYFISH, 0, LOCAL_DIGITS, 4, 4},
    {find_sue_de_coq, LOGIC_SUE_DE_COQ, 0, LOCAL_UNITS, 0, 3},
    {find_simple_coloring, LOGIC_SIMPLE_COLORING, 0, LOCAL_DIGITS, 0, 4},
    {find_multi_coloring, LOGIC_MULTI_COLORING, 0, LOCAL_DIGITS, 0, 4},
    {find_x_chain, LOGIC_X_CHAIN, 0, LOCAL_DIGITS, 0, 4},
    {find_xy_chain, LOGIC_XY_CHAIN, 0, 0, 0, 2},
    {find_aic, LOGIC_AIC, 0, 0, 0, 2}, /* and nice loops */
    {find_grouped_chain, LOGIC_GROUPED_AIC, 0, 0, 0, 2}, /* and grouped nice loops */
    {find_als, LOGIC_ALS_XZ, 0, 0, 0, 3}, /* and ALS-XY-wing and ALS-XY-chain, on the same ALSs */
    {find_franken_fish, LOGIC_FINNED_FRANKEN_SWORDFISH, 0, LOCAL_DIGITS, 3, 4},
    {find_forcing, LOGIC_FORCING_CHAIN, 0, 0, 0, 4},
    {find_nested_forcing, LOGIC_NESTED_FORCING, 0, 0, 0, 4},
    {find_trial, LOGIC_TRIAL, 0, 0, 0, 4},
};

#define RUNGS (sizeof LADDER / sizeof LADDER[0])

/* What a solve remembers between its steps (ladder_memo, internal.h): for
 * each local rung, the cells of every digit when it last found nothing. Its
 * step for a digit (a unit) depends on that digit's cells (the unit's
 * candidates) alone, so it looks again only at the digits (units) that
 * changed since: the others still have none, and it tries them in its
 * fixed order, so the step it finds is the one it finds on all. */
static_assert(RUNGS <= LADDER_MAX_RUNGS, "a solve's memory has a place for every rung");

static int find_local(const logic_board *b, size_t i, const rung_args *all, ladder_memo *memo, logic_step *out)
{
    const rung *r = &LADDER[i];
    int by_unit = r->local == LOCAL_UNITS;
    rung_args args = *all;
    args.look = by_unit ? ALL_UNITS : ALL_DIGITS;
    if (memo && memo->known[i]) {
        unsigned look = 0;
        cells_t changed = 0;
        for (int d = 0; d < 9; d++) {
            cells_t x = memo->where[i][d] ^ b->where[d];
            changed |= x;
            if (x)
                look |= 1u << d;
        }
        if (by_unit) {
            look = 0;
            for (int u = 0; u < 27; u++)
                if (changed & UNIT[u])
                    look |= 1u << u;
        }
        args.look = look;
    }
    if (args.look && r->find(b, &args, out)) {
        if (memo)
            memo->known[i] = 0;
        return 1;
    }
    if (memo) {
        memcpy(memo->where[i], b->where, sizeof b->where);
        memo->known[i] = 1;
    }
    return 0;
}

/* Rung i, if it is allowed here; `memo` is NULL or the solve's memory.
 * `subsumed`: leave out the locked pairs and triples, whose eliminations a
 * naked subset in the box and one in the line make at the same level; a
 * question of whether a puzzle is solvable asks that, since it does not
 * ask which steps. */
static int try_rung(const logic_board *b, size_t i, int unique, int max_level, ladder_memo *memo,
                    int subsumed, logic_step *out)
{
    const rung *r = &LADDER[i];
    if (logic_level(r->technique) > max_level || (r->uniqueness && !unique))
        return 0;
    if (subsumed && (r->technique == LOGIC_LOCKED_PAIR || r->technique == LOGIC_LOCKED_TRIPLE))
        return 0;
    rung_args args = {ALL_DIGITS, r->size, r->technique, unique};
    return r->local ? find_local(b, i, &args, memo, out) : r->find(b, &args, out);
}

/* The ladder's first step. */
static int find_from(const logic_board *b, int unique, int max_level, ladder_memo *memo, logic_step *out)
{
    if (b->broken || !b->blanks)
        return 0;
    for (size_t i = 0; i < RUNGS; i++)
        if (try_rung(b, i, unique, max_level, memo, 0, out))
            return 1;
    return 0;
}

int logic_find(const logic_board *b, int unique, int max_level, logic_step *out)
{
    return find_from(b, unique, max_level, NULL, out);
}

static int ladder_find(const logic_board *b, int unique, int max_level, ladder_memo *memo, logic_step *out)
{
    return find_from(b, unique, max_level, memo, out);
}

/* The rungs before this one are the singles. */
#define AFTER_SINGLES 3

/* Places every naked and hidden single there is now; returns how many. */
static int place_singles(logic_board *b)
{
    int placed = 0;
    for (int c = 0; c < 81; c++)
        if (b->cand[c] && bits9(b->cand[c]) == 1) {
            place(b, c, low_digit(b->cand[c]));
            placed++;
        }
    for (int u = 0; u < 27; u++) {
        /* the digits in one cell of the unit, from its cells' candidates:
         * far cheaper than each digit's cells, and checked on them */
        unsigned once = 0, twice = 0;
        for (int j = 0; j < 9; j++) {
            unsigned m = b->cand[unit_cell(u, j)];
            twice |= once & m;
            once |= m;
        }
        int d;
        FOR_DIGITS(d, once & ~twice) {
            cells_t x = b->where[d - 1] & UNIT[u];
            if (x && !(x & (x - 1))) {
                place(b, first_cell(x), d);
                placed++;
            }
        }
    }
    return placed;
}

/* Passes of logic_solvable's order. A question of whether a puzzle is
 * solvable does not ask which step comes first, so it tries the rungs in
 * the order that gets there soonest, not HoDoKu's: first the cheap ones
 * that often find something (pass 1: subsets, X-wing, swordfish, the
 * two-link patterns and wings), then the chains, which find most of what
 * the rest would (pass 2), then the finned fish, Sue de Coq and the ALSs
 * (pass 3), then everything else, each pass in the ladder's order. Every
 * rung's eliminations are sound, and a pattern that applies keeps applying,
 * or leaves a simpler step, as other candidates go (the uniqueness rungs
 * could in principle be the exception), so the puzzle ends solved, or
 * stuck, in either order: docs/hints.md, Generate, says on how many
 * puzzles this was checked. */
#define QUICK_PASSES 4

static int find_quickest(const logic_board *b, int unique, int max_level, int passes, ladder_memo *memo,
                         logic_step *out)
{
    for (int pass = 1; pass <= passes; pass++)
        for (size_t i = AFTER_SINGLES; i < RUNGS; i++)
            if (LADDER[i].pass == pass && try_rung(b, i, unique, max_level, memo, 1, out))
                return 1;
    return 0;
}

int logic_solvable_within(logic_board *b, int unique, int max_level, int passes)
{
    logic_step s;
    ladder_memo memo;
    memset(memo.known, 0, sizeof memo.known);
    while (!b->broken && b->blanks) {
        if (place_singles(b))
            continue;
        if (!find_quickest(b, unique, max_level, passes, &memo, &s))
            break;
        logic_apply(b, &s);
    }
    return !b->broken && !b->blanks;
}

int logic_solvable(logic_board *b, int unique, int max_level)
{
    return logic_solvable_within(b, unique, max_level, QUICK_PASSES);
}

/* ---- Grading ---- */

static const struct {
    uint16_t weight;
    uint8_t level;
} GRADES[LOGIC_TECHNIQUES] = {
    [LOGIC_NONE] = {0, 0},
    [LOGIC_FULL_HOUSE] = {4, 1},
    [LOGIC_NAKED_SINGLE] = {4, 1},
    [LOGIC_HIDDEN_SINGLE] = {14, 1},
    [LOGIC_POINTING] = {50, 2},
    [LOGIC_CLAIMING] = {50, 2},
    [LOGIC_NAKED_PAIR] = {60, 2},
    [LOGIC_HIDDEN_PAIR] = {70, 2},
    [LOGIC_NAKED_TRIPLE] = {80, 2},
    [LOGIC_HIDDEN_TRIPLE] = {100, 2},
    [LOGIC_X_WING] = {140, 3},
    [LOGIC_NAKED_QUAD] = {120, 3},
    [LOGIC_HIDDEN_QUAD] = {150, 3},
    [LOGIC_SKYSCRAPER] = {130, 3},
    [LOGIC_TWO_STRING_KITE] = {150, 3},
    [LOGIC_SWORDFISH] = {150, 3},
    [LOGIC_XY_WING] = {160, 3},
    [LOGIC_W_WING] = {150, 3},
    [LOGIC_FINNED_X_WING] = {130, 3},
    [LOGIC_SASHIMI_X_WING] = {150, 3},
    [LOGIC_XYZ_WING] = {180, 3},
    [LOGIC_SIMPLE_COLORING] = {150, 3},
    [LOGIC_UNIQUE_RECTANGLE] = {100, 3},
    [LOGIC_BUG_PLUS_ONE] = {100, 3},
    [LOGIC_JELLYFISH] = {160, 3},
    [LOGIC_FINNED_SWORDFISH] = {200, 4},
    [LOGIC_SASHIMI_SWORDFISH] = {240, 4},
    [LOGIC_FINNED_JELLYFISH] = {250, 4},
    [LOGIC_SASHIMI_JELLYFISH] = {260, 4},
    [LOGIC_X_CHAIN] = {260, 4},
    [LOGIC_XY_CHAIN] = {260, 4},
    [LOGIC_AIC] = {280, 4},
    [LOGIC_NICE_LOOP] = {280, 4},
    [LOGIC_ALS_XZ] = {300, 4},
    [LOGIC_ALS_XY_WING] = {320, 4},
    [LOGIC_FORCING_CHAIN] = {500, 5},
    [LOGIC_FORCING_NET] = {700, 5},
    [LOGIC_NESTED_FORCING] = {1000, 5},
    [LOGIC_TRIAL] = {2000, 5},
    [LOGIC_LOCKED_PAIR] = {40, 2},
    [LOGIC_LOCKED_TRIPLE] = {60, 2},
    [LOGIC_REMOTE_PAIR] = {110, 3},
    [LOGIC_TURBOT_FISH] = {120, 3},
    [LOGIC_EMPTY_RECTANGLE] = {120, 3},
    [LOGIC_HIDDEN_RECTANGLE] = {100, 3},
    [LOGIC_SUE_DE_COQ] = {250, 4},
    [LOGIC_MULTI_COLORING] = {200, 3},
    [LOGIC_GROUPED_AIC] = {300, 4},
    [LOGIC_GROUPED_NICE_LOOP] = {300, 4},
    [LOGIC_ALS_XY_CHAIN] = {340, 4},
    [LOGIC_AVOIDABLE_RECTANGLE] = {100, 3},
    [LOGIC_FINNED_FRANKEN_SWORDFISH] = {410, 4},
};

static const char *const NAMES[LOGIC_TECHNIQUES] = {
    "NONE", "FULL_HOUSE", "NAKED_SINGLE", "HIDDEN_SINGLE", "POINTING", "CLAIMING",
    "NAKED_PAIR", "HIDDEN_PAIR", "NAKED_TRIPLE", "HIDDEN_TRIPLE", "X_WING",
    "NAKED_QUAD", "HIDDEN_QUAD", "SKYSCRAPER", "TWO_STRING_KITE", "SWORDFISH",
    "XY_WING", "W_WING", "FINNED_X_WING", "SASHIMI_X_WING", "XYZ_WING",
    "SIMPLE_COLORING", "UNIQUE_RECTANGLE", "BUG_PLUS_ONE", "JELLYFISH",
    "FINNED_SWORDFISH", "SASHIMI_SWORDFISH", "FINNED_JELLYFISH", "SASHIMI_JELLYFISH",
    "X_CHAIN", "XY_CHAIN", "AIC", "NICE_LOOP", "ALS_XZ", "ALS_XY_WING",
    "FORCING_CHAIN", "FORCING_NET", "NESTED_FORCING", "TRIAL",
    "LOCKED_PAIR", "LOCKED_TRIPLE", "REMOTE_PAIR", "TURBOT_FISH", "EMPTY_RECTANGLE",
    "HIDDEN_RECTANGLE", "SUE_DE_COQ", "MULTI_COLORING", "GROUPED_AIC", "GROUPED_NICE_LOOP",
    "ALS_XY_CHAIN", "AVOIDABLE_RECTANGLE", "FINNED_FRANKEN_SWORDFISH",
};

const char *logic_name(logic_technique t)
{
    return t > LOGIC_NONE && t < LOGIC_TECHNIQUES ? NAMES[t] : NAMES[LOGIC_NONE];
}

uint32_t logic_weight(logic_technique t)
{
    return t > LOGIC_NONE && t < LOGIC_TECHNIQUES ? GRADES[t].weight : 0;
}

int logic_level(logic_technique t)
{
    return t > LOGIC_NONE && t < LOGIC_TECHNIQUES ? GRADES[t].level : 0;
}

void logic_solve(logic_board *b, int unique, int max_level, logic_grade *g)
{
    memset(g, 0, sizeof *g);
    logic_step s;
    ladder_memo memo;
    memset(memo.known, 0, sizeof memo.known);
    while (find_from(b, unique, max_level, &memo, &s)) {
        logic_apply(b, &s);
        g->steps++;
        g->counts[s.technique]++;
        g->score += logic_weight(s.technique);
        if (logic_level(s.technique) > logic_level(g->hardest) ||
            (logic_level(s.technique) == logic_level(g->hardest) &&
             logic_weight(s.technique) > logic_weight(g->hardest)))
            g->hardest = s.technique;
    }
    g->solved = !b->blanks && !b->broken;
}

/*
 * fastpath_bench.c: correctness checks and timing of sudoku/csrc/fastpath.c
 * alone (no Python).
 *
 * Build (same flags as setup.py), from the repository root:
 *   make -C bench/c                      # -O3 -mpopcnt build: fastpath_bench
 *   make -C bench/c asan                 # ASan + UBSan build: fastpath_bench_asan
 * or by hand:
 *   gcc -O3 -std=c11 -Wall -Wextra -mpopcnt -Isudoku/csrc \
 *       bench/c/fastpath_bench.c sudoku/csrc/fastpath.c -o fastpath_bench
 *
 * Usage:
 *   fastpath_bench FILE EXPECTED [REPEATS]
 *       FILE: one puzzle a line (81 chars, '.' or '0' for blanks).
 *       EXPECTED: the solution count of every puzzle in the file, counted up
 *       to 2 (0, 1, or 2 meaning "two or more").
 *       Checks fp_solve and fp_count(limit 2) on every puzzle (each solution
 *       must be a valid completion of its puzzle), then times both over the
 *       whole file REPEATS times (default 5) and prints the medians.
 *   fastpath_bench --fuzz N SEED
 *       N random puzzles (random grids with random cells blanked, some with
 *       a clashing or out-of-range byte), fp_count at several limits and caps
 *       compared with the simple reference counter below.
 * Exit status 0 when every check passed.
 */
#define _POSIX_C_SOURCE 199309L
#include "fastpath.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- Checking ---- */

/* 1 when `sol` is a full valid grid that keeps every given of `puzzle`. */
static int valid_completion(const uint8_t puzzle[81], const uint8_t sol[81])
{
    for (int cell = 0; cell < 81; cell++) {
        if (sol[cell] < 1 || sol[cell] > 9)
            return 0;
        if (puzzle[cell] && puzzle[cell] != sol[cell])
            return 0;
    }
    for (int u = 0; u < 9; u++) {
        unsigned row = 0, col = 0, box = 0;
        for (int k = 0; k < 9; k++) {
            row |= 1u << sol[9 * u + k];
            col |= 1u << sol[9 * k + u];
            box |= 1u << sol[27 * (u / 3) + 3 * (u % 3) + 9 * (k / 3) + k % 3];
        }
        if (row != 0x3FE || col != 0x3FE || box != 0x3FE)
            return 0;
    }
    return 1;
}

/* ---- Reference counter: plain recursive search, independent code ---- */

typedef struct {
    uint8_t board[81];
    uint16_t used[27]; /* rows 0-8, columns 9-17, boxes 18-26 */
    uint64_t count, limit;
} ref_t;

static int ref_box(int cell) { return (cell / 27) * 3 + (cell % 9) / 3; }

static unsigned ref_used(const ref_t *r, int cell)
{
    return r->used[cell / 9] | r->used[9 + cell % 9] | r->used[18 + ref_box(cell)];
}

static void ref_set(ref_t *r, int cell, int v, int on)
{
    uint16_t bit = (uint16_t)(1u << v);
    r->board[cell] = on ? (uint8_t)v : 0;
    if (on) {
        r->used[cell / 9] |= bit;
        r->used[9 + cell % 9] |= bit;
        r->used[18 + ref_box(cell)] |= bit;
    } else {
        r->used[cell / 9] &= (uint16_t)~bit;
        r->used[9 + cell % 9] &= (uint16_t)~bit;
        r->used[18 + ref_box(cell)] &= (uint16_t)~bit;
    }
}

static void ref_search(ref_t *r)
{
    int best = -1, best_n = 10;
    unsigned best_free = 0;
    for (int cell = 0; cell < 81 && best_n > 1; cell++) {
        if (r->board[cell])
            continue;
        unsigned free_ = 0x3FEu & ~ref_used(r, cell);
        int n = __builtin_popcount(free_);
        if (n < best_n) {
            best = cell;
            best_n = n;
            best_free = free_;
        }
    }
    if (best < 0) {
        r->count++;
        return;
    }
    for (int v = 1; v <= 9 && r->count < r->limit; v++)
        if (best_free & (1u << v)) {
            ref_set(r, best, v, 1);
            ref_search(r);
            ref_set(r, best, v, 0);
        }
}

static uint64_t ref_count(const uint8_t cells[81], uint64_t limit)
{
    ref_t r;
    memset(&r, 0, sizeof r);
    r.limit = limit;
    for (int cell = 0; cell < 81; cell++) {
        int v = cells[cell];
        if (!v)
            continue;
        if (v > 9 || (ref_used(&r, cell) & (1u << v)))
            return 0;
        ref_set(&r, cell, v, 1);
    }
    ref_search(&r);
    return r.count;
}

/* ---- Puzzle files ---- */

static uint8_t *read_puzzles(const char *path, size_t *count)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        perror(path);
        exit(2);
    }
    size_t cap = 1024, n = 0;
    uint8_t *all = malloc(cap * 81);
    char line[512];
    while (all && fgets(line, sizeof line, f)) {
        if (strlen(line) < 81)
            continue;
        if (n == cap)
            all = realloc(all, (cap *= 2) * 81);
        if (!all)
            break;
        for (int i = 0; i < 81; i++) {
            char ch = line[i];
            all[n * 81 + i] = (ch >= '1' && ch <= '9') ? (uint8_t)(ch - '0') : 0;
        }
        n++;
    }
    fclose(f);
    if (!all) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    *count = n;
    return all;
}

static int check_file(const uint8_t *puzzles, size_t n, uint64_t expected,
                      double guesses[2])
{
    int failures = 0;
    guesses[0] = guesses[1] = 0;
    uint8_t sol[81];
    for (size_t k = 0; k < n && failures < 10; k++) {
        const uint8_t *p = puzzles + k * 81;
        memset(sol, 0, sizeof sol);
        int solved = fp_solve(p, sol);
        if (solved != (expected > 0) || (solved && !valid_completion(p, sol))) {
            fprintf(stderr, "puzzle %zu: solve returned %d (%s solution)\n", k + 1,
                    solved, solved && !valid_completion(p, sol) ? "invalid" : "no");
            failures++;
        }
        memset(sol, 0, sizeof sol);
        fp_count_result r = fp_count(p, 2, 0, sol);
        guesses[0] += (double)fp_count(p, 1, 0, NULL).guesses / (double)n;
        guesses[1] += (double)r.guesses / (double)n;
        if (r.solutions != expected || !r.complete ||
            (expected && !valid_completion(p, sol))) {
            fprintf(stderr, "puzzle %zu: count %llu (complete %d), expected %llu\n",
                    k + 1, (unsigned long long)r.solutions, r.complete,
                    (unsigned long long)expected);
            failures++;
        }
    }
    return failures;
}

/* ---- Timing ---- */

/*
 * CPU time of this thread: on a shared machine it leaves out the time the
 * thread waited for a core, which wall time (also printed) does not.
 */
static double cpu_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static double wall_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static volatile uint64_t sink; /* keeps the timed calls from being dropped */

typedef struct {
    double cpu, wall; /* medians, µs per puzzle */
} timing_t;

/* Medians over `repeats` passes of the µs per puzzle; mode 0 solve, 1 count. */
static timing_t time_file(const uint8_t *puzzles, size_t n, int mode, int repeats)
{
    double per[64], wall[64];
    uint8_t sol[81];
    for (int r = 0; r < repeats; r++) {
        uint64_t acc = 0;
        double t0 = cpu_us(), w0 = wall_us();
        for (size_t k = 0; k < n; k++) {
            if (mode == 0)
                acc += (uint64_t)fp_solve(puzzles + k * 81, sol);
            else
                acc += fp_count(puzzles + k * 81, 2, 0, NULL).solutions;
        }
        per[r] = (cpu_us() - t0) / (double)n;
        wall[r] = (wall_us() - w0) / (double)n;
        sink += acc;
    }
    qsort(per, (size_t)repeats, sizeof per[0], cmp_double);
    qsort(wall, (size_t)repeats, sizeof wall[0], cmp_double);
    timing_t t = {per[repeats / 2], wall[repeats / 2]};
    return t;
}

/* ---- Fuzzing against the reference ---- */

static uint64_t rng_state;

static uint32_t rng(void)
{
    rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (uint32_t)(rng_state >> 33);
}

/* A random valid grid: a random digit permutation of a shuffled base grid. */
static void random_grid(uint8_t grid[81])
{
    int perm[9], rows[9], cols[9];
    for (int i = 0; i < 9; i++)
        perm[i] = rows[i] = cols[i] = i;
    for (int i = 8; i > 0; i--) {
        int j = (int)(rng() % (unsigned)(i + 1)), t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
    /* Shuffle rows within bands, bands, columns within stacks, stacks. */
    for (int pass = 0; pass < 2; pass++) {
        int *order = pass ? cols : rows, tmp[9], bands[3] = {0, 1, 2};
        for (int i = 2; i > 0; i--) {
            int j = (int)(rng() % (unsigned)(i + 1)), t = bands[i];
            bands[i] = bands[j];
            bands[j] = t;
        }
        for (int b = 0; b < 3; b++) {
            int in[3] = {0, 1, 2};
            for (int i = 2; i > 0; i--) {
                int j = (int)(rng() % (unsigned)(i + 1)), t = in[i];
                in[i] = in[j];
                in[j] = t;
            }
            for (int i = 0; i < 3; i++)
                tmp[3 * b + i] = 3 * bands[b] + in[i];
        }
        memcpy(order, tmp, sizeof tmp);
    }
    for (int r = 0; r < 9; r++)
        for (int c = 0; c < 9; c++) {
            int R = rows[r], C = cols[c];
            int base = (3 * (R % 3) + R / 3 + C) % 9;
            grid[9 * r + c] = (uint8_t)(perm[base] + 1);
        }
}

static int fuzz(long n, uint64_t seed)
{
    static const uint64_t limits[] = {1, 2, 3, 10};
    int failures = 0;
    rng_state = seed * 2654435761ULL + 1;
    for (long k = 0; k < n && failures < 10; k++) {
        uint8_t p[81], sol[81];
        random_grid(p);
        int keep = 17 + (int)(rng() % 20);
        for (int cell = 0; cell < 81; cell++)
            if ((int)(rng() % 81) >= keep)
                p[cell] = 0;
        int twist = (int)(rng() % 8);
        if (twist == 0) /* a given that may clash or make it unsolvable */
            p[rng() % 81] = (uint8_t)(1 + rng() % 9);
        else if (twist == 1 && rng() % 4 == 0)
            p[rng() % 81] = (uint8_t)(10 + rng() % 246);
        for (size_t li = 0; li < sizeof limits / sizeof limits[0]; li++) {
            uint64_t limit = limits[li], want = ref_count(p, limit);
            memset(sol, 0, sizeof sol);
            fp_count_result r = fp_count(p, limit, 0, sol);
            int bad = r.solutions != want || !r.complete ||
                      (want && !valid_completion(p, sol));
            /* With a cap: never more guesses than allowed, a complete
               answer must be the true one, an incomplete one a lower bound. */
            uint64_t cap = 1 + rng() % 8;
            fp_count_result c = fp_count(p, limit, cap, NULL);
            bad |= c.guesses > cap || (c.complete && c.solutions != want) ||
                   (!c.complete && (c.solutions > want || c.solutions >= limit));
            if (limit == 1) {
                memset(sol, 0, sizeof sol);
                int s = fp_solve(p, sol);
                bad |= s != (want > 0) || (s && !valid_completion(p, sol));
            }
            if (bad) {
                fprintf(stderr, "fuzz case %ld, limit %llu: got %llu (complete %d), "
                        "want %llu; capped %llu/%llu guesses, %llu (complete %d)\n  ",
                        k, (unsigned long long)limit, (unsigned long long)r.solutions,
                        r.complete, (unsigned long long)want,
                        (unsigned long long)c.guesses, (unsigned long long)cap,
                        (unsigned long long)c.solutions, c.complete);
                for (int cell = 0; cell < 81; cell++)
                    fputc(p[cell] ? (p[cell] <= 9 ? '0' + p[cell] : '?') : '.', stderr);
                fputc('\n', stderr);
                failures++;
                break;
            }
        }
    }
    printf("fuzz: %ld cases, %d failures\n", n, failures);
    return failures;
}

int main(int argc, char **argv)
{
    if (argc == 4 && strcmp(argv[1], "--fuzz") == 0)
        return fuzz(atol(argv[2]), strtoull(argv[3], NULL, 10)) ? 1 : 0;
    if (argc < 3) {
        fprintf(stderr, "usage: %s FILE EXPECTED(0|1|2) [REPEATS]\n"
                        "       %s --fuzz N SEED\n", argv[0], argv[0]);
        return 2;
    }
    uint64_t expected = strtoull(argv[2], NULL, 10);
    int repeats = argc > 3 ? atoi(argv[3]) : 5;
    if (expected > 2 || repeats < 1 || repeats > 64) {
        fprintf(stderr, "EXPECTED must be 0, 1 or 2; REPEATS 1..64\n");
        return 2;
    }
    size_t n;
    uint8_t *puzzles = read_puzzles(argv[1], &n);
    double guesses[2];
    int failures = check_file(puzzles, n, expected, guesses);
    printf("%s: %zu puzzles, %s; guesses/puzzle solve %.2f, count %.2f\n", argv[1],
           n, failures ? "FAILED" : "all correct", guesses[0], guesses[1]);
    if (!failures && repeats > 0) {
        timing_t solve = time_file(puzzles, n, 0, repeats);
        timing_t count = time_file(puzzles, n, 1, repeats);
        printf("  solve %.2f us/puzzle, count(limit 2) %.2f us/puzzle "
               "(CPU time, median of %d; wall %.2f / %.2f)\n",
               solve.cpu, count.cpu, repeats, solve.wall, count.wall);
    }
    free(puzzles);
    return failures ? 1 : 0;
}

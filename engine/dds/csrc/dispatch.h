/* Runtime dispatch between the two builds of the search (included once, at the end of the portable ddcore.c).
 * The public entry points of ddcore.h call the x86-64-v3 build (ddcore_v3.c) when the CPU has its instructions,
 * else the portable one; dd_set_variant(DD_VARIANT_PORTABLE) forces the portable path (the [engine] solver_core
 * setting, applied from Python; tests compare the two; both give the same answers: the code is the same). */
#ifndef SQUEEZE_DD_DISPATCH_H
#define SQUEEZE_DD_DISPATCH_H

#if defined(__x86_64__) && defined(__GNUC__)
#define DD_HAVE_V3 1
int dd_solve_leader_v3(DDSolver *S, const uint16_t hands[4][4], int trump, int leader);
void dd_solve_table_v3(DDSolver *S, const uint16_t hands[4][4], int out[5][4]);
int dd_make_cards_v3(DDSolver *S, const uint16_t hands[4][4], int trump, int first, int ncur,
                     const int *cur_suit, const int *cur_rank, int target,
                     int *out_suit, int *out_rank, int *out_ok);
int dd_solve_cards_v3(DDSolver *S, const uint16_t hands[4][4], int trump, int first, int ncur,
                      const int *cur_suit, const int *cur_rank,
                      int *out_suit, int *out_rank, int *out_score);
#else
#define DD_HAVE_V3 0
#endif

static int dd_variant_now = 0;   /* DD_VARIANT_PORTABLE or DD_VARIANT_FAST once chosen; 0 = not chosen yet */

static int cpu_has_v3(void) {
#if DD_HAVE_V3
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi") && __builtin_cpu_supports("bmi2") &&
           __builtin_cpu_supports("fma") && __builtin_cpu_supports("popcnt") && __builtin_cpu_supports("avx");
#else
    return 0;
#endif
}

int dd_fast_available(void) { return cpu_has_v3(); }

int dd_set_variant(int v) {
    if (v == DD_VARIANT_AUTO) v = DD_VARIANT_FAST;
    if (v == DD_VARIANT_FAST && !cpu_has_v3()) v = DD_VARIANT_PORTABLE;
    if (v != DD_VARIANT_FAST) v = DD_VARIANT_PORTABLE;
    dd_variant_now = v;
    return v;
}

int dd_variant(void) {
    if (!dd_variant_now) dd_set_variant(DD_VARIANT_AUTO);
    return dd_variant_now;
}

#if DD_HAVE_V3
#define DD_FAST (dd_variant() == DD_VARIANT_FAST)
#else
#define DD_FAST 0
#define dd_solve_leader_v3 dd_solve_leader_base
#define dd_solve_table_v3 dd_solve_table_base
#define dd_make_cards_v3 dd_make_cards_base
#define dd_solve_cards_v3 dd_solve_cards_base
#endif

int dd_solve_leader(DDSolver *S, const uint16_t hands[4][4], int trump, int leader) {
    return DD_FAST ? dd_solve_leader_v3(S, hands, trump, leader) : dd_solve_leader_base(S, hands, trump, leader);
}

void dd_solve_table(DDSolver *S, const uint16_t hands[4][4], int out[5][4]) {
    if (DD_FAST) dd_solve_table_v3(S, hands, out); else dd_solve_table_base(S, hands, out);
}

int dd_make_cards(DDSolver *S, const uint16_t hands[4][4], int trump, int first, int ncur,
                  const int *cur_suit, const int *cur_rank, int target,
                  int *out_suit, int *out_rank, int *out_ok) {
    return DD_FAST ? dd_make_cards_v3(S, hands, trump, first, ncur, cur_suit, cur_rank, target, out_suit, out_rank, out_ok)
                   : dd_make_cards_base(S, hands, trump, first, ncur, cur_suit, cur_rank, target, out_suit, out_rank, out_ok);
}

int dd_solve_cards(DDSolver *S, const uint16_t hands[4][4], int trump, int first, int ncur,
                   const int *cur_suit, const int *cur_rank,
                   int *out_suit, int *out_rank, int *out_score) {
    return DD_FAST ? dd_solve_cards_v3(S, hands, trump, first, ncur, cur_suit, cur_rank, out_suit, out_rank, out_score)
                   : dd_solve_cards_base(S, hands, trump, first, ncur, cur_suit, cur_rank, out_suit, out_rank, out_score);
}

#endif

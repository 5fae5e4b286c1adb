/* Build experiments on the bare search core, without Python: solves the deals of a file (one deal a line: 16
 * numbers, hands N,E,S,W x suits C,D,H,S as 13-bit masks) as full tables (mode 0) or every opening lead (mode 1),
 * and prints this process's CPU time and the node counts (deal files: bench/dd_core_deals.py).  Compile it with
 * different flags and run the binaries alternately (bench/RESULTS.md, "the build"):
 *   gcc -O3 -march=x86-64 -Iengine/dds/csrc bench/dd_core_bench.c engine/dds/csrc/ddcore_v3.c -o bench/out/v1
 *   bench/out/v1 bench/out/deals40.txt 0
 * (the public entry points dispatch to the x86-64-v3 build of the search where the CPU has it: the two builds'
 * speeds are compared with bench/dd.py --core portable|fast)
 */
#include "ddcore.c"
#include <stdio.h>
int main(int argc, char **argv) {
    FILE *f = fopen(argv[1], "r"); int mode = atoi(argv[2]);
    uint16_t H[64][4][4]; int n = 0;
    while (n < 64) { int ok = 1; for (int p = 0; p < 4 && ok; p++) for (int s = 0; s < 4; s++) { unsigned x; if (fscanf(f, "%u", &x) != 1) { ok = 0; break; } H[n][p][s] = x; } if (!ok) break; n++; }
    DDSolver *S = dd_new(64u << 20);
    struct timespec a, b; clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &a);
    long sum = 0;
    for (int i = 0; i < n; i++) {
        if (mode == 0) { int out[5][4]; dd_solve_table(S, (const uint16_t(*)[4])H[i], out); sum += out[4][0]; }
        else { int os[13], orr[13], sc[13]; int k = dd_solve_cards(S, (const uint16_t(*)[4])H[i], i % 5 == 4 ? 4 : 3 - i % 5, i % 4, 0, 0, 0, os, orr, sc); sum += k; }
    }
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &b);
    DDStats st; dd_get_stats(S, &st);
    printf("cpu %.3f s nodes %lu trick_nodes %lu sum %ld\n", (b.tv_sec - a.tv_sec) + 1e-9 * (b.tv_nsec - a.tv_nsec), st.nodes, st.trick_nodes, sum);
    return 0;
}

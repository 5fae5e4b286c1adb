/* Double-dummy search core for Squeeze.  See ddcore.h for the conventions.
 *
 * One concern per file, as in DDS, compiled as one translation unit (the headers are included here only, so the
 * hot helpers inline): core.h (solver state, types, playing and taking back a card), tt.h (transposition table),
 * sure_tricks.h (quick tricks and later tricks), moves.h (move generation and ordering); this file holds the
 * alpha-beta search (card_node, trick_node), the MTD drivers and the entry points of ddcore.h.
 *
 * Design (after DDS, Haglund & Hein, and Ginsberg's partition search):
 *  - zero-window searches "does the side MAX take >= target tricks from here?", driven MTD(f)-style by the roots;
 *  - at every trick boundary: trivial bounds; the transposition table first when far from the end; sure tricks of
 *    the side on lead as a concrete cash-out line (winners from the top, entries to partner, ruffs in partner's
 *    hand, trumps drawn first, no round an opponent could ruff); "later tricks" of the other side (DDS's rules on
 *    top trumps and notrump tops); the defenders' stoppers when the side on lead needs every trick in notrump
 *    (a count that squeezes cannot beat); then the table when near the end;
 *  - at the second hand: the node is decided at once when his side surely wins the trick and needs no more; at the
 *    fourth hand, far from the end, a card whose next trick the table already settles is played without a search
 *    (enhanced transposition cut-off); a side on lead that needs every trick does not lead into an opponent's top
 *    card;
 *  - the table stores *sets* of positions: for each suit only the owners of the cards ranking at or above the
 *    lowest card that won a trick by rank somewhere below matter (the rest are "x"s, whose only relevant property
 *    is how many each hand holds, which is in the key), with a lower and an upper bound on the tricks of the side
 *    on lead.  Ranks are relative (played cards skipped), so an entry matches positions reached by other routes,
 *    other declarers and other deals; the table therefore survives from one call to the next;
 *  - two levels, as in DDS: an open-addressed table of (suit lengths of every hand, leader, trump), each heading a
 *    chain of chunks holding that distribution's sets, newest first, scanned with two masked 64-bit compares per
 *    set; a list keeps at most LIST_MAX sets (the oldest chunk is recycled) and a full pool clears the table;
 *  - one card of a sequence is searched (touching cards, judged on the cards present at the start of the trick),
 *    and a card that is an "x" of a failed sibling's proven set is skipped (small-card pruning);
 *  - moves ordered by bridge heuristics (leads: suits where the opponents hold few cards first, winners, partner's
 *    entries; followers: win cheaply, let partner win, keep trumps), the lead that last cut off at this depth and
 *    the best lead remembered by the table first;
 *  - a cut-off card cache (after bridge-solver): the card that last cut off in a node of the same kind (keyed by the
 *    hand to lead, or the lead suit's cards and the winning card, or the hand and the winner for discards) is tried
 *    before any move is generated; the ordering memory (this cache, killers, root scores) lives within one deal.
 *  bench/RESULTS.md measures what each of these buys.
 *
 * This file is compiled twice: as itself (portable x86-64; it also holds the solver's setup and dispatch.h) and
 * by ddcore_v3.c for x86-64-v3; DD_ENTRY names the search's entry points of each build.
 */
#include "core.h"
#include "tt.h"
#include "sure_tricks.h"
#include "moves.h"
#include <time.h>

/* The search is compiled twice (see ddcore_v3.c): here for any x86-64 CPU (the portable path), and again with
 * x86-64-v3 instructions (BMI1/2, LZCNT, AVX2); dispatch.h picks one when the library loads.  The search's entry
 * points get a suffix per build; the dispatcher defines the public names of ddcore.h. */
#ifdef DD_VARIANT_V3
#define DD_ENTRY(name) name##_v3
#else
#define DD_ENTRY(name) name##_base
#endif

/* ------------------------------------------------------------------ setup */

static double monotonic_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

#ifndef DD_VARIANT_V3   /* the solver's memory and settings: once, in the portable translation unit */

DDSolver *dd_new(size_t tt_bytes) {
    DDSolver *s = (DDSolver *)calloc(1, sizeof(DDSolver));
    if (!s) return NULL;
    if (tt_bytes < (256u << 10)) tt_bytes = 256u << 10;
    /* about a sixth of the memory for the distribution table (a power of two), the rest for chunks */
    size_t nd = 1024;
    while (nd * 2 * sizeof(Dist) <= tt_bytes / 6) nd *= 2;
    size_t nc = (tt_bytes - nd * sizeof(Dist)) / sizeof(Chunk);
    s->cut = (CutEntry *)calloc((size_t)1 << CUT_BITS, sizeof(CutEntry));
    s->dists = (Dist *)aligned_alloc(64, (nd * sizeof(Dist) + 63) & ~(size_t)63);
    s->chunks = (Chunk *)aligned_alloc(64, (nc * sizeof(Chunk) + 63) & ~(size_t)63);
    if (!s->dists || !s->chunks || !s->cut) { free(s->dists); free(s->chunks); free(s->cut); free(s); return NULL; }
    /* touch every page now: first-touch page faults inside the search would cost more than this memset */
    memset(s->dists, 0, nd * sizeof(Dist));
    memset(s->chunks, 0, nc * sizeof(Chunk));
    s->ndists = nd;
    s->nchunks = nc;
    s->used_chunks = 0;
    s->tt_bytes = nd * sizeof(Dist) + nc * sizeof(Chunk);
    s->opts = DD_OPT_DEFAULT;
    s->node_limit = 0;
    return s;
}

void dd_free(DDSolver *s) {
    if (!s) return;
    free(s->dists);
    free(s->chunks);
    free(s->cut);
    free(s);
}

void dd_reset(DDSolver *s) {
    tt_clear(s);
    memset(s->killer, 0, sizeof(s->killer));
    memset(s->cut, 0, sizeof(CutEntry) << CUT_BITS);
    s->root_sig = 0;
    s->have_deal = 0;
}

void dd_clear_tt(DDSolver *s) { tt_clear(s); }

size_t dd_tt_bytes(const DDSolver *s) { return s->tt_bytes; }
void dd_set_options(DDSolver *s, unsigned opts) { s->opts = opts; dd_reset(s); }
void dd_get_stats(const DDSolver *s, DDStats *out) { *out = s->st; }
void dd_clear_stats(DDSolver *s) { memset(&s->st, 0, sizeof(s->st)); }
void dd_set_node_limit(DDSolver *s, uint64_t limit) { s->node_limit = limit; }

void dd_set_time_limit(DDSolver *s, double seconds) {
    s->deadline = monotonic_seconds() + seconds;
    s->has_deadline = 1;
}

void dd_clear_time_limit(DDSolver *s) { s->has_deadline = 0; }
#endif

/* What an entry point returns when a limit stopped its search: -2 node limit, -3 time limit. */
#define ABORTED(S) (-1 - (S)->aborted)

/* ------------------------------------------------------------------ search */

static int trick_node(DDSolver *S, int tleft, int leader, int target, uint16_t win[4]);
static int card_node(DDSolver *S, int tleft, int pos, int target, uint16_t win[4]);

/* The node count at which try_card next looks at the limits: one compare per node instead of two tests; the clock
 * (some 20 ns a reading) is read every 1024 nodes only. */
static inline void arm_limits(DDSolver *S) {
    uint64_t c = UINT64_MAX;
    if (S->has_deadline) c = (S->st.nodes | 1023u) + 1;
    if (S->node_limit && S->node_limit + 1 < c) c = S->node_limit + 1;
    S->check_at = c;
}

__attribute__((noinline, cold)) static int limits_reached(DDSolver *S) {
    if (S->node_limit && S->st.nodes > S->node_limit) { S->aborted = 1; return 1; }
    if (S->has_deadline && !(S->st.nodes & 1023u) && monotonic_seconds() > S->deadline) { S->aborted = 2; return 1; }
    arm_limits(S);
    return 0;
}

/* A completed trick's part of a set: a card that beat another card of its suit won by rank, so its rank matters. */
static inline void add_trick_rank(const Trick *T, uint16_t cw[4]) {
    int same = 0;
    for (int k = 0; k < 4; k++) same += T->cs[k] == T->win_s;
    if (same >= 2) cw[T->win_s] |= (uint16_t)(1u << T->win_r);
}

/* One child of a card node: play card (s, r) of hand p at position pos and search on; cw gets the child's set. */
static inline int try_card(DDSolver *S, Trick *T, int tleft, int p, int pos, int target, int s, int r,
                           uint16_t cw[4]) {
    if (++S->st.nodes >= S->check_at && limits_reached(S)) return 0;
    const Winner saved = put_card(S, T, p, pos, s, r);
    int res;
    if (pos == 3) {
        int wh = (T->leader + T->win_pos) & 3;
        int t2 = target - (((wh & 1) == S->maxside) ? 1 : 0);
        /* the next trick's table slot is known now: start loading it */
        __builtin_prefetch(&S->dists[dist_slot(S, S->lenkey, wh | (S->trump << 2))]);
        res = trick_node(S, tleft - 1, wh, t2, cw);
        add_trick_rank(T, cw);
    } else {
        res = card_node(S, tleft, pos + 1, target, cw);
    }
    take_back(S, T, p, s, r, saved);
    return res;
}

/* Is rank r of suit s the top of its group of equivalent cards in hand hs (gen_moves's representative)? */
static inline int group_top(const DDSolver *S, const Trick *T, unsigned hs, int s, int r) {
    if (!(S->opts & DD_OPT_EQUIV)) return 1;
    unsigned above = hs & ~((2u << r) - 1u);
    if (!above) return 1;
    unsigned between = ((1u << lb(above)) - 1u) & ~((2u << r) - 1u);
    return (T->agg[s] & ~hs & between) != 0;
}

/* The cache slot of a card node (after bridge-solver's cut-off cache, keyed as there): the seat's position in the
 * trick and trump, and for a lead the hand to play; for a follower the lead suit's cards at the start of the trick
 * and the winning card; for a discard or a ruff the hand and the winning card (notrump: the winning seat). */
static inline CutEntry *cut_entry(DDSolver *S, const Trick *T, int p, int pos, uint32_t *tag) {
    uint64_t idx = (uint64_t)pos | (uint64_t)S->trump << 2;
    const int ls = T->lead_suit;
    if (pos && S->h[p][ls]) {
        idx |= (uint64_t)T->agg[ls] << (5 + 13 * ls);
        idx |= (uint64_t)(T->win_s << 4 | T->win_r) << 57;
    } else {
        idx |= ((uint64_t)S->h[p][0] | (uint64_t)S->h[p][1] << 13 | (uint64_t)S->h[p][2] << 26 |
                (uint64_t)S->h[p][3] << 39) << 5;
        if (pos) {
            unsigned w = S->trump == DD_NT ? (unsigned)((T->leader + T->win_pos) & 3) : (unsigned)(T->win_s << 4 | T->win_r);
            idx ^= (uint64_t)w << 57;
        }
    }
    uint64_t x = idx * 0x9b8b4567327b23c7ULL;
    x ^= x >> 31;
    x *= 0xbf58476d1ce4e5b9ULL;
    *tag = (uint32_t)x | 1u;
    return &S->cut[x >> (64 - CUT_BITS)];
}

/* A card that cut off (the cached one or a generated move): the node's set is its child's, and it is remembered as
 * the killer at this depth and, for the leader, as the trick's best card. */
static inline void note_cutoff(DDSolver *S, Trick *T, uint16_t win[4], const uint16_t cw[4], int tleft, int pos,
                               int s, int r) {
    win[0] = cw[0]; win[1] = cw[1]; win[2] = cw[2]; win[3] = cw[3];
    S->killer[tleft][pos] = (uint16_t)(0x100 | (s << 4) | r);
    if (pos == 0) T->best = (s << 4) | r;
}

/* Second hand (Kuijf's idea, as in DDS): the number of tricks p's side surely takes when it surely wins this trick
 * (a ruff, or the top card of the suit led over LHO), with the top trumps and the notrump tops the winning hand then
 * cashes, up to `need`; their ranks go to w.  Compiled per strain (second_hand_sure). */
static inline __attribute__((always_inline)) int second_hand_sure_in(const DDSolver *S, const Trick *T, int p, int need,
                                                                    uint16_t w[4], const int trump) {
    int ls = T->lead_suit, q = p ^ 2, l = (p + 1) & 3;
    unsigned ours = S->h[p][ls] | S->h[q][ls];
    int lho_ruffs = trump != DD_NT && ls != trump && !S->h[l][ls] && S->h[l][trump];
    int sure = 0;
    if (trump != DD_NT && ls != trump &&
        ((!S->h[p][ls] && S->h[p][trump]) || (!S->h[q][ls] && S->h[q][trump]))) {
        sure = !lho_ruffs;                       /* we ruff; LHO follows or has no trump */
    } else if (ours && !lho_ruffs) {
        int top = hb(ours);
        if (top > T->cr[0] && (!S->h[l][ls] || hb(S->h[l][ls]) < top)) {
            sure = 1;
            w[ls] = (uint16_t)(1u << top);
            int hh = (S->h[p][ls] >> top) & 1u ? p : q;
            int opp_trumps = trump != DD_NT && (S->h[hh ^ 1][trump] | S->h[hh ^ 3][trump]);
            if (need >= 2 && trump != DD_NT && S->h[hh][trump]) {
                /* the winner then draws top trumps of his own */
                unsigned a = S->h[0][trump] | S->h[1][trump] | S->h[2][trump] | S->h[3][trump];
                if (ls == trump) a &= ~(1u << top);   /* that one wins the current trick */
                while (a && sure < need) {
                    int x = hb(a);
                    if (!((S->h[hh][trump] >> x) & 1u)) break;
                    sure++; w[trump] |= (uint16_t)(1u << x); a ^= 1u << x;
                }
            }
            if (need >= 2 && !opp_trumps && ls != trump) {
                for (int s = 0; s < 4 && sure < need; s++) {
                    if (s == trump) continue;
                    if (s == ls || !S->h[hh][s]) continue;
                    unsigned rest = S->h[hh ^ 1][s] | S->h[hh ^ 2][s] | S->h[hh ^ 3][s];
                    if (!rest) sure += pc(S->h[hh][s]);          /* a suit nobody else holds */
                    else if (hb(S->h[hh][s]) > hb(rest)) { sure++; w[s] |= (uint16_t)(1u << hb(S->h[hh][s])); }
                }
            }
        }
    }
    return sure;
}

static inline int second_hand_sure(const DDSolver *S, const Trick *T, int p, int need, uint16_t w[4]) {
    if (S->trump == DD_NT) return second_hand_sure_in(S, T, p, need, w, DD_NT);
    return second_hand_sure_in(S, T, p, need, w, S->trump & 3);
}

/* Third hand (p, at pos 2) who needs one trick only: does p's side surely win this one?  Either partner's lead
 * wins it and fourth hand can neither beat it nor ruff, or p beats the card winning it (from the top of the suit
 * led, or with a ruff) and fourth hand cannot beat that.  The ranks relied on go to w.  Compiled per strain. */
static inline __attribute__((always_inline)) int third_hand_wins_in(const DDSolver *S, const Trick *T, int p,
                                                                   uint16_t w[4], const int trump) {
    const int ls = T->lead_suit, l = (p + 1) & 3;
    const unsigned fourth = S->h[l][ls];
    const int fourth_ruffs = trump != DD_NT && ls != trump && !fourth && S->h[l][trump];
    if (T->win_pos == 0) {   /* partner's lead wins so far (it is of the suit led) */
        if (fourth_ruffs || (fourth && hb(fourth) > T->win_r)) return 0;
        /* its rank matters when it beat second hand's card of the suit or must beat fourth hand's */
        if (fourth || T->cs[1] == ls) w[ls] = (uint16_t)(1u << T->win_r);
        return 1;
    }
    const unsigned mine = S->h[p][ls];
    if (mine) {
        const int top = hb(mine);
        if (T->win_s != ls || top < T->win_r || fourth_ruffs) return 0;
        if (fourth) {
            if (hb(fourth) > top) return 0;
            w[ls] = (uint16_t)(1u << top);
        } else {
            w[ls] = (uint16_t)(1u << top);   /* it beats second hand's card by rank */
        }
        return 1;
    }
    if (trump == DD_NT || ls == trump || !S->h[p][trump] || T->win_s != ls) return 0;
    /* p ruffs second hand's card of the suit led */
    if (fourth_ruffs) {
        const int top = hb(S->h[p][trump]);
        if (hb(S->h[l][trump]) > top) return 0;
        w[trump] = (uint16_t)(1u << top);
    }
    return 1;
}

static inline int third_hand_wins(const DDSolver *S, const Trick *T, int p, uint16_t w[4]) {
    if (S->trump == DD_NT) return third_hand_wins_in(S, T, p, w, DD_NT);
    return third_hand_wins_in(S, T, p, w, S->trump & 3);
}

/* Move ordering by selection: the best remaining move of mv[i..n) to slot i (most nodes cut off at the first move,
 * so sorting the whole list would be wasted). */
static inline void pick_best(Move *mv, int i, int n) {
    int bi = i;
    for (int j = i + 1; j < n; j++)
        if (mv[j].w > mv[bi].w) bi = j;
    if (bi != i) { Move t = mv[i]; mv[i] = mv[bi]; mv[bi] = t; }
}

/* A table's later leaders (the strain's table already holds the earlier leaders' proofs): at the first two cards of
 * the opening trick (the lead, and second hand's reply to it), each card first gets a search of at most
 * ROOT_PROBE_NODES card nodes, and the first one that proves its side right within that budget cuts off.  A card
 * whose trick transposes into an earlier leader's proof is settled in a dozen nodes, while the card the ordering
 * likes best may need a new proof: in the freak deal of bench/RESULTS.md (the root probe's section) West's club
 * jack lead is the four cards North's club ace drew and costs 11 card nodes, the diamond king the ordering tries
 * first 59,000.  At second hand a later leader's failing probe needs one refutation per lead, and a transposing one
 * is found the same way (card nodes on 100 random tables: the lead alone -3.9 %, with second hand -8.0 %; deeper
 * cards, or the first leader's later probes, cost more than they find).  A budgeted search that runs out is
 * dropped: the search stores nothing from an aborted subtree, only the exact results below it.  Returns 1 with the
 * cut-off made (result in *res), 0 when no card settled the node; a limit of the caller's own (node count,
 * deadline) that runs out here stays set in S->aborted. */
static int root_probe(DDSolver *S, Trick *T, int tleft, int p, int pos, int target, unsigned lose, uint16_t win[4],
                      int *res) {
    const int is_max = (p & 1) == S->maxside;
    Move mv[13];
    const int n = gen_moves(S, T, p, pos, tleft, mv);
    const uint64_t outer = S->node_limit;
    int done = 0;
    S->probing = 1;
    for (int i = 0; i < n && !done; i++) {
        pick_best(mv, i, n);
        if ((lose >> mv[i].s) & 1u) continue;
        const uint64_t cap = S->st.nodes + ROOT_PROBE_NODES;
        S->node_limit = outer && outer < cap ? outer : cap;
        arm_limits(S);
        uint16_t cw[4] = {0, 0, 0, 0};
        const int r = try_card(S, T, tleft, p, pos, target, mv[i].s, mv[i].r, cw);
        S->node_limit = outer;
        if (S->aborted) {
            if (S->aborted == 2 || (outer && S->st.nodes > outer)) break;   /* the caller's limit: keep it set */
            S->aborted = 0;   /* only the budget ran out */
        } else if (r == is_max) {
            note_cutoff(S, T, win, cw, tleft, pos, mv[i].s, mv[i].r);
            *res = r;
            done = 1;
        }
        arm_limits(S);
    }
    S->probing = 0;
    return done;
}

static int card_node(DDSolver *S, int tleft, int pos, int target, uint16_t win[4]) {
    Trick *T = &S->tr[tleft];
    int p = (T->leader + pos) & 3;
    int is_max = (p & 1) == S->maxside;
    if (pos == 1 && (S->opts & DD_OPT_QUICK)) {
        /* Second hand: if p's side surely wins this trick and that, with top winners the winning hand then cashes,
         * is all it needs, the node is decided without a search. */
        int need = is_max ? target : tleft - target + 1;
        uint16_t w[4] = {0, 0, 0, 0};
        int sure = second_hand_sure(S, T, p, need, w);
        if (sure && sure >= need) {
            win[0] = w[0]; win[1] = w[1]; win[2] = w[2]; win[3] = w[3];
            S->st.qt_cuts++;
            return is_max;
        }
    }
    if (pos == 2 && (S->opts & DD_OPT_QUICK) && (is_max ? target : tleft - target + 1) == 1) {
        uint16_t w[4] = {0, 0, 0, 0};
        if (third_hand_wins(S, T, p, w)) {
            win[0] = w[0]; win[1] = w[1]; win[2] = w[2]; win[3] = w[3];
            S->st.qt_cuts++;
            return is_max;
        }
    }
    if (pos && (S->opts & DD_OPT_EQUIV)) {
        /* A follower whose cards of the suit led are all equivalent has one move: it is played without a look at
         * the cut-off card cache or any weighing (a quarter of the follows in full tables). */
        const int ls = T->lead_suit;
        const unsigned hs = S->h[p][ls];
        if (hs && one_group(T, ls, hs)) {
            const int top = hb(hs);
            uint16_t cw[4] = {0, 0, 0, 0};
            const int res = try_card(S, T, tleft, p, pos, target, ls, top, cw);
            if (S->aborted) { win[0] = win[1] = win[2] = win[3] = 0; return 0; }
            if (res == is_max) {
                note_cutoff(S, T, win, cw, tleft, pos, ls, top);
                S->st.cut_first++;
                return res;
            }
            /* the move failed: its set, with the whole group fixed when the fixed cards reach into it (below) */
            if (cw[ls] && (hs & (hs - 1))) {
                const int th = lb(cw[ls]);
                if (top >= th && lb(hs) < th) cw[ls] |= (uint16_t)(hs & -hs);
            }
            win[0] = cw[0]; win[1] = cw[1]; win[2] = cw[2]; win[3] = cw[3];
            S->st.all_nodes++;
            return res;
        }
    }
    uint16_t acc0 = 0, acc1 = 0, acc2 = 0, acc3 = 0;
    /* Small-card pruning (Kuijf; Ginsberg's x's): once a card c of suit s failed and its result holds for every
     * position where the cards below rank skip_below[s] are x's, with c itself an x, any other card below that
     * rank leads into the same set of positions: skip it. */
    int skip_below[4] = {0, 0, 0, 0};
    int prune = S->opts & DD_OPT_PARTITION;
    /* Fourth hand, far from the end: before any search, each of its cards (one per group of equivalent cards) is
     * played and the next trick looked up in the table; a card whose next trick the table settles in this side's
     * favour cuts off at once (an enhanced transposition cut-off).  The first card a search would try often leads
     * into an unsettled position while another card's is stored.  Measured with bench/dd.py --versus: from 9 tricks
     * left, 2-4 % less time on full tables and 4 % on freak tables, leads unchanged; from 7, the look-ups cost more
     * than the 8 % of card nodes they save (bench/RESULTS.md, the enhanced transposition cut-off). */
    if (pos == 3 && tleft - 1 >= ETC_FROM && (S->opts & DD_OPT_TT)) {
        const int ls = T->lead_suit;
        const int follow = S->h[p][ls] != 0;
        uint16_t agg[4];
        for (int k = 0; k < 4; k++) agg[k] = S->h[0][k] | S->h[1][k] | S->h[2][k] | S->h[3][k];
        for (int s = follow ? ls : 0; s < (follow ? ls + 1 : 4); s++) {
            const unsigned hs = S->h[p][s];
            unsigned a = hs;
            while (a) {
                const int r = hb(a);
                a &= ~(1u << r);
                for (int low = r; a; ) {   /* skip the rest of r's group */
                    const int nx = hb(a);
                    if (agg[s] & ~hs & ((1u << low) - 1u) & ~((2u << nx) - 1u)) break;
                    a &= ~(1u << nx);
                    low = nx;
                }
                const Winner saved = put_card(S, T, p, pos, s, r);
                const int wh = (T->leader + T->win_pos) & 3;
                const int wh_max = (wh & 1) == S->maxside;
                const int t2 = target - wh_max;
                int res = -1;
                uint16_t cw[4] = {0, 0, 0, 0};
                if (t2 > 0 && t2 <= tleft - 1) {
                    agg[s] ^= (uint16_t)(1u << r);
                    uint64_t pat[2];
                    owner_patterns(S, agg, pat);
                    int hint = 0;
                    res = tt_lookup(S, S->lenkey, wh | (S->trump << 2), pat, agg, tleft - 1, t2, wh_max, cw, &hint);
                    agg[s] ^= (uint16_t)(1u << r);
                }
                if (res == is_max) {
                    add_trick_rank(T, cw);   /* the set, as try_card builds it */
                    take_back(S, T, p, s, r, saved);
                    note_cutoff(S, T, win, cw, tleft, pos, s, r);
                    S->st.tt_hits++;
                    return res;
                }
                take_back(S, T, p, s, r, saved);
            }
        }
    }
    /* MAX on lead needs every trick: a lead in a suit whose top card a defender holds loses this trick (he follows
     * with it, and nobody can beat it: notrump, the trump suit, or a partner who cannot ruff).  Those leads are not
     * searched; the node's set then fixes each such suit's top card. */
    unsigned lose = 0;
    if (pos == 0 && is_max && target == tleft) {
        const int q = p ^ 2, tr = S->trump;
        for (int s = 0; s < 4; s++) {
            if (!S->h[p][s]) continue;
            const unsigned top = 1u << hb(T->agg[s]);
            if ((S->h[p][s] | S->h[q][s]) & top) continue;
            if (tr == DD_NT || s == tr || S->h[q][s] || !S->h[q][tr]) {
                lose |= 1u << s;
                if (s == 0) acc0 |= top; else if (s == 1) acc1 |= top; else if (s == 2) acc2 |= top; else acc3 |= top;
            }
        }
    }
    if (pos <= 1 && tleft == S->probe_root && !S->probing && (S->opts & DD_OPT_ROOT_PROBE)) {
        int res = 0;
        if (root_probe(S, T, tleft, p, pos, target, lose, win, &res)) return res;
        if (S->aborted) { win[0] = win[1] = win[2] = win[3] = 0; return 0; }
    }
    /* The cut-off card cache: the card that last cut off in a node like this one is tried before any move is
     * generated or weighed; most nodes then cost one lookup and one child (over 95 % of cut-offs are by the first
     * move).  Only a legal card that is the top of its group of equivalent cards is taken, so the search visits
     * exactly the moves it would otherwise, in another order. */
    CutEntry *ce = NULL;
    uint32_t ctag = 0;
    int fs = -1, fr = -1;
    if (S->opts & DD_OPT_CUTCACHE) {
        ce = cut_entry(S, T, p, pos, &ctag);
        unsigned c = ce->tag == ctag ? ce->card[p] : 0;
        if (c) {
            int s = (c >> 4) & 3, r = c & 15;
            unsigned hs = S->h[p][s];
            if (((hs >> r) & 1u) && !((lose >> s) & 1u) && (pos == 0 || s == T->lead_suit || !S->h[p][T->lead_suit]) &&
                group_top(S, T, hs, s, r)) { fs = s; fr = r; }
        }
    }
    Move mv[13];
    int n = 0;
    if (fs >= 0) {
        uint16_t cw[4] = {0, 0, 0, 0};
        int s = fs, r = fr;
        int res = try_card(S, T, tleft, p, pos, target, s, r, cw);
        if (S->aborted) { win[0] = win[1] = win[2] = win[3] = 0; return 0; }
        if (res == is_max) {
            note_cutoff(S, T, win, cw, tleft, pos, s, r);
            S->st.cut_first++;
            S->st.cut_cached++;
            return res;
        }
        acc0 |= cw[0]; acc1 |= cw[1]; acc2 |= cw[2]; acc3 |= cw[3];
        if (prune) {
            int th = cw[s] ? lb(cw[s]) : 13;
            if (r < th && th > skip_below[s]) skip_below[s] = th;
        }
    }
    n = gen_moves(S, T, p, pos, tleft, mv);
    for (int i = 0; i < n; i++) {
        pick_best(mv, i, n);
        int s = mv[i].s, r = mv[i].r;
        if (s == fs && r == fr) continue;   /* tried first, from the cache */
        if ((lose >> s) & 1u) continue;   /* loses the trick MAX needs */
        if (r < skip_below[s]) continue;
        uint16_t cw[4] = {0, 0, 0, 0};
        int res = try_card(S, T, tleft, p, pos, target, s, r, cw);
        if (S->aborted) { win[0] = win[1] = win[2] = win[3] = 0; return 0; }
        if (res == is_max) {
            note_cutoff(S, T, win, cw, tleft, pos, s, r);
            if (ce) {
                if (ce->tag != ctag) { ce->tag = ctag; memset(ce->card, 0, sizeof(ce->card)); }
                ce->card[p] = (uint8_t)(0x80 | (s << 4) | r);
            }
            if (i == 0 && fs < 0) S->st.cut_first++; else S->st.cut_later++;
            return res;
        }
        acc0 |= cw[0]; acc1 |= cw[1]; acc2 |= cw[2]; acc3 |= cw[3];
        if (prune) {
            int th = cw[s] ? lb(cw[s]) : 13;
            if (r < th && th > skip_below[s]) skip_below[s] = th;
        }
    }
    /* Every move failed: the result holds for the set where all moves lead into the children's sets.  A card
     * searched for a whole group of touching cards speaks for the group only while the group stays touching.  When
     * the fixed (non-x) cards reach into a group, its x members need cover in the other positions of the set: a
     * move of the same suit below the fixed cards covers every x of the suit (its child's set does not tell x's
     * apart); without one, the whole group must be fixed. */
    uint16_t acc[4] = {acc0, acc1, acc2, acc3};
    if (S->opts & DD_OPT_EQUIV) {
        int changed = 1;
        while (changed) {
            changed = 0;
            for (int i = 0; i < n; i++) {
                unsigned g = mv[i].group;
                if (!(g & (g - 1))) continue;
                int s = mv[i].s;
                if (!acc[s]) continue;
                int th = lb(acc[s]);
                if (mv[i].r >= th && lb(g) < th) {
                    int covered = 0;
                    for (int j = 0; j < n && !covered; j++) covered = mv[j].s == s && mv[j].r < th;
                    if (!covered) { acc[s] |= (uint16_t)(g & -g); changed = 1; }
                }
            }
        }
    }
    win[0] = acc[0]; win[1] = acc[1]; win[2] = acc[2]; win[3] = acc[3];
    S->st.all_nodes++;
    return !is_max;
}

static int last_trick(DDSolver *S, int leader, int target, uint16_t win[4]) {
    int cs[4], cr[4];
    for (int k = 0; k < 4; k++) {
        int h = (leader + k) & 3;
        int s = 0;
        while (!S->h[h][s]) s++;
        cs[k] = s;
        cr[k] = lb(S->h[h][s]);
    }
    int wp = 0;
    for (int k = 1; k < 4; k++)
        if (beats(cs[k], cr[k], cs[wp], cr[wp], S->trump)) wp = k;
    win[0] = win[1] = win[2] = win[3] = 0;
    int same = 0;
    for (int k = 0; k < 4; k++) same += cs[k] == cs[wp];
    if (same >= 2) win[cs[wp]] = (uint16_t)(1u << cr[wp]);
    int wh = (leader + wp) & 3;
    return (((wh & 1) == S->maxside) ? 1 : 0) >= target;
}

static int trick_node(DDSolver *S, int tleft, int leader, int target, uint16_t win[4]) {
    if (target <= 0) { win[0] = win[1] = win[2] = win[3] = 0; return 1; }
    if (target > tleft) { win[0] = win[1] = win[2] = win[3] = 0; return 0; }
    if (tleft == 1) return last_trick(S, leader, target, win);
    S->st.trick_nodes++;
    S->st.by_depth[tleft]++;
    int leader_max = (leader & 1) == S->maxside;

    Trick *T = &S->tr[tleft];
    T->leader = leader;
    for (int s = 0; s < 4; s++) T->agg[s] = S->h[0][s] | S->h[1][s] | S->h[2][s] | S->h[3][s];
    uint64_t key = 0;
    uint64_t pat[2];
    int lt = leader | (S->trump << 2);
    int use_tt = S->opts & DD_OPT_TT;
    int hint = 0;
    /* Far from the end the table is consulted first (its hits are common there and the sure-trick counts cost
     * more); near the end the cheap counts go first, as in DDS. */
    const int tt_first = use_tt && tleft >= TT_FIRST;
    if (tt_first) {
        key = S->lenkey;
        owner_patterns(S, T->agg, pat);
        int r = tt_lookup(S, key, lt, pat, T->agg, tleft, target, leader_max, win, &hint);
        if (r >= 0) { S->st.tt_hits++; return r; }
    }

    if (S->opts & (DD_OPT_QUICK | DD_OPT_LATER)) {
        /* The other side's later tricks first: when they settle the node, the leader's cash-out line (the dearer
         * count) is not needed.  Bounds are sound, so at most one side's can settle it. */
        uint16_t lw[4] = {0, 0, 0, 0}, ow[4] = {0, 0, 0, 0};
        int sure_l = 0, sure_o = 0;
        if (S->opts & DD_OPT_LATER) later_tricks(S, leader, tleft, &sure_l, lw, &sure_o, ow);
        if (leader_max ? tleft - sure_o < target : sure_o >= target) {
            memcpy(win, ow, 4 * sizeof(uint16_t));
            S->st.qt_cuts++;
            return !leader_max;
        }
        if (S->opts & DD_OPT_QUICK) {
            const int need_l = leader_max ? target : tleft - target + 1;
            uint16_t cw[4];
            const int sure_c = cash_out(S, leader, need_l, cw, S->opts & DD_OPT_QT_PARTNER);
            /* a later-tricks rule stands only if it proves more than the cash-out line */
            if (sure_c >= sure_l) { sure_l = sure_c; memcpy(lw, cw, sizeof(cw)); }
        }
        if (leader_max ? sure_l >= target : tleft - sure_l < target) {
            memcpy(win, lw, 4 * sizeof(uint16_t));
            S->st.qt_cuts++;
            return leader_max;
        }
    }

    if (leader_max && target == tleft && S->trump == DD_NT && (S->opts & DD_OPT_LATER) &&
        stoppers_settle(S, T, tleft, win)) {
        /* a squeeze-proof trick for the defenders (sure_tricks.h) */
        S->st.qt_cuts++;
        return 0;
    }
    if (use_tt && !tt_first) {
        key = S->lenkey;   /* the hands have not changed since the trick started */
        owner_patterns(S, T->agg, pat);
        int r = tt_lookup(S, key, lt, pat, T->agg, tleft, target, leader_max, win, &hint);
        if (r >= 0) { S->st.tt_hits++; return r; }
    }
    T->hint = hint;
    T->best = -1;
    int res = card_node(S, tleft, 0, target, win);
    if (S->aborted) return 0;
    if (use_tt) tt_store(S, key, lt, pat, T->agg, tleft, target, leader_max, res, win, T->best >= 0 ? (0x40 | T->best) : 0);
    return res;
}

/* ------------------------------------------------------------------ roots */

/* The ordering memory (cut-off card cache, killer leads, root scores) belongs to one deal: its keys leave most of
 * the hidden cards out, so in another deal (the next world of a PIMC batch) its cards are mostly wrong guesses,
 * each costing a subtree (measured: 28 % more card nodes on PIMC batches when kept).  A root whose hands are not
 * a later position of the last root's deal starts with fresh ordering memory; the transposition table stays (its
 * sets hold in any deal). */
static void root_deal(DDSolver *S, const uint16_t full[4][4]) {
    int same = S->have_deal;
    for (int h = 0; h < 4 && same; h++)
        for (int s = 0; s < 4; s++)
            if (full[h][s] & ~S->deal[h][s]) { same = 0; break; }
    if (!same) {
        memset(S->cut, 0, sizeof(CutEntry) << CUT_BITS);
        memset(S->killer, 0, sizeof(S->killer));
        S->root_sig = 0;
    }
    memcpy(S->deal, full, sizeof(S->deal));
    S->have_deal = 1;
}

static int total_cards(const uint16_t h[4][4], int hand) {
    return pc(h[hand][0]) + pc(h[hand][1]) + pc(h[hand][2]) + pc(h[hand][3]);
}

/* MTD-style driver: exact value of `probe` (tricks of MAX) within [lo, hi], starting from guess. */
typedef int (*probe_fn)(DDSolver *S, void *ctx, int target);

static int mtd(DDSolver *S, probe_fn f, void *ctx, int lo, int hi, int guess) {
    while (lo < hi) {
        int t = guess;
        if (t <= lo) t = lo + 1;
        if (t > hi) t = hi;
        if (f(S, ctx, t)) { lo = t; guess = t + 1; }
        else { hi = t - 1; guess = t - 1; }
        if (S->aborted) return ABORTED(S);
    }
    return lo;
}

/* First guess of the tricks of `side` (MTD needs one probe per step away from the truth): its share of the high
 * card points, plus a little for trump length. */
static int estimate(const DDSolver *S, int side, int tleft) {
    static const int hcp[13] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4};
    int mine = 0, all = 0;
    for (int h = 0; h < 4; h++)
        for (int s = 0; s < 4; s++) {
            unsigned x = S->h[h][s];
            int v = 0;
            while (x) { int r = lb(x); x &= x - 1; v += hcp[r]; }
            all += v;
            if ((h & 1) == side) mine += v;
        }
    int g2 = all ? (2 * tleft * mine + all / 2) / all : tleft;   /* twice the estimate */
    if (S->trump != DD_NT) {
        int t = S->trump;
        int ours = pc(S->h[side][t]) + pc(S->h[side + 2][t]);
        int theirs = pc(S->h[side ^ 1][t]) + pc(S->h[(side ^ 1) + 2][t]);
        g2 += ours - theirs;
    }
    int g = (g2 + 1) / 2;
    if (g < 0) g = 0;
    if (g > tleft) g = tleft;
    return g;
}

typedef struct { int tleft, leader; } LeaderCtx;

static int probe_leader(DDSolver *S, void *ctx, int target) {
    LeaderCtx *c = (LeaderCtx *)ctx;
    uint16_t w[4];
    return trick_node(S, c->tleft, c->leader, target, w);
}

static int solve_leader_guess(DDSolver *S, int leader, int guess) {
    int n = total_cards((const uint16_t(*)[4])S->h, 0);
    S->maxside = leader & 1;
    LeaderCtx c = {n, leader};
    return mtd(S, probe_leader, &c, 0, n, guess);
}

static int valid_hands(const uint16_t hands[4][4]) {
    for (int s = 0; s < 4; s++) {
        unsigned seen = 0;
        for (int h = 0; h < 4; h++) {
            if (hands[h][s] & ~0x1FFFu) return 0;
            if (seen & hands[h][s]) return 0;
            seen |= hands[h][s];
        }
    }
    return 1;
}

int DD_ENTRY(dd_solve_leader)(DDSolver *S, const uint16_t hands[4][4], int trump, int leader) {
    if (!valid_hands(hands) || trump < 0 || trump > 4 || leader < 0 || leader > 3) return -1;
    int n = total_cards(hands, 0);
    for (int h = 1; h < 4; h++) if (total_cards(hands, h) != n) return -1;
    root_deal(S, hands);
    memcpy(S->h, hands, sizeof(S->h));
    sync_lenkey(S);
    S->trump = trump;
    S->aborted = 0;
    arm_limits(S);
    S->epoch++;
    if (n == 0) return 0;
    return solve_leader_guess(S, leader, estimate(S, leader & 1, n));
}

void DD_ENTRY(dd_solve_table)(DDSolver *S, const uint16_t hands[4][4], int out[5][4]) {
    int n = total_cards(hands, 0);
    root_deal(S, hands);
    memcpy(S->h, hands, sizeof(S->h));
    sync_lenkey(S);
    S->aborted = 0;
    arm_limits(S);
    S->epoch++;
    static const int order[5] = {4, 3, 2, 1, 0};
    for (int i = 0; i < 5; i++) {
        int st = order[i];
        S->trump = st;
        /* A new strain: the table's sets of the other strains never match here (the strain is in their key), and
         * dropping them keeps the lists short and the pool from filling mid-search (1.7 % fewer card nodes on 100
         * random tables; bridge-solver also starts each strain afresh). */
        tt_clear(S);
        int v_of[4] = {-1, -1, -1, -1};   /* tricks of each leader's side */
        /* North, South, then East, West: each side's two leads one after the other.  The second lead of a side
         * meets the table the first one filled with the same side to play for, and its first guess is usually
         * right; 1.2 % fewer card nodes on 100 random tables and 0.9 % on 30 freak tables than N, E, S, W. */
        static const int leaders[4] = {0, 2, 1, 3};
        for (int li = 0; li < 4; li++) {
            const int leader = leaders[li];
            /* First guesses (each step of MTD away from the truth costs a probe), measured on the 36,500 strains of
             * the tables in bench/out/dd_tables.jsonl: the side on lead takes at least what it took when the
             * opponents led (one more in a third, fewer in 0.05 %), and the same side takes the same from either
             * hand in 93 %.  Probing the larger of those first (one more than the opponents' lead gave, or what
             * the partner's lead gave). */
            int guess = li == 0 ? estimate(S, leader & 1, n) : 0;
            for (int j = 0; j < li; j++) {
                const int o = leaders[j];
                const int g = (o & 1) == (leader & 1) ? v_of[o] : n - v_of[o] + 1;
                if (g > guess) guess = g;
            }
            if (guess > n) guess = n;
            S->probe_root = li > 0 ? n : 0;   /* root_probe: the strain's table holds the earlier leaders' proofs */
            int v = solve_leader_guess(S, leader, guess);
            S->probe_root = 0;
            v_of[leader] = v < 0 ? 0 : v;
            int decl = (leader + 3) & 3;
            out[st][decl] = v < 0 ? -1 : n - v;
        }
    }
}

typedef struct { int tleft, pos; int s, r; } CardCtx;

/* MAX = the side of the player at `pos`; play his card (s, r) and test. */
static int probe_card(DDSolver *S, void *ctx, int target) {
    CardCtx *c = (CardCtx *)ctx;
    Trick *T = &S->tr[c->tleft];
    int pos = c->pos, s = c->s, r = c->r;
    int p = (T->leader + pos) & 3;
    const Winner saved = put_card(S, T, p, pos, s, r);
    uint16_t w[4];
    int res;
    if (pos == 3) {
        int wh = (T->leader + T->win_pos) & 3;
        res = trick_node(S, c->tleft - 1, wh, target - (((wh & 1) == S->maxside) ? 1 : 0), w);
    } else {
        res = card_node(S, c->tleft, pos + 1, target, w);
    }
    take_back(S, T, p, s, r, saved);
    return res;
}

/* Load a position with a trick in progress and generate the root moves (groups of equal cards, ordered best first).
 * Returns the number of moves, 0 when no cards are left, -1 for an inconsistent position; *tleft_out and *pos_out
 * describe the root. */
static int root_setup(DDSolver *S, const uint16_t hands[4][4], int trump, int first, int ncur,
                      const int *cur_suit, const int *cur_rank, Move mv[13], int *tleft_out, int *pos_out) {
    if (!valid_hands(hands) || trump < 0 || trump > 4 || first < 0 || first > 3 || ncur < 0 || ncur > 3) return -1;
    uint16_t full[4][4];
    memcpy(full, hands, sizeof(full));
    for (int k = 0; k < ncur; k++) {
        int s = cur_suit[k], r = cur_rank[k] - 2;
        if (s < 0 || s > 3 || r < 0 || r > 12) return -1;
        int h = (first + k) & 3;
        for (int x = 0; x < 4; x++) if ((full[x][s] >> r) & 1u) return -1;   /* played card still held */
        full[h][s] |= (uint16_t)(1u << r);
    }
    int tleft = total_cards(full, 0);
    if (tleft == 0) return 0;
    for (int h = 1; h < 4; h++) if (total_cards(full, h) != tleft) return -1;
    /* revoke check: a follower who showed out of the led suit cannot hold it now */
    for (int k = 1; k < ncur; k++)
        if (cur_suit[k] != cur_suit[0] && hands[(first + k) & 3][cur_suit[0]]) return -1;

    root_deal(S, (const uint16_t(*)[4])full);
    memcpy(S->h, full, sizeof(S->h));
    S->trump = trump;
    S->aborted = 0;
    arm_limits(S);
    S->epoch++;
    Trick *T = &S->tr[tleft];
    T->leader = first;
    T->hint = 0;
    for (int s = 0; s < 4; s++) T->agg[s] = full[0][s] | full[1][s] | full[2][s] | full[3][s];
    /* replay the current trick's cards */
    for (int k = 0; k < ncur; k++) {
        int s = cur_suit[k], r = cur_rank[k] - 2;
        S->h[(first + k) & 3][s] ^= (uint16_t)(1u << r);
        T->cs[k] = s;
        T->cr[k] = r;
        if (k == 0) { T->lead_suit = s; T->win_pos = 0; T->win_s = s; T->win_r = r; }
        else if (beats(s, r, T->win_s, T->win_r, trump)) { T->win_pos = k; T->win_s = s; T->win_r = r; }
    }
    sync_lenkey(S);
    int pos = ncur;
    int p = (first + pos) & 3;
    S->maxside = p & 1;
    /* root moves: all groups, without the killer move (it belongs to inner nodes) */
    uint16_t saved_kill = S->killer[tleft][pos];
    S->killer[tleft][pos] = 0;
    int n = gen_moves(S, T, p, pos, tleft, mv);
    S->killer[tleft][pos] = saved_kill;
    *tleft_out = tleft;
    *pos_out = pos;
    return n;
}

int DD_ENTRY(dd_make_cards)(DDSolver *S, const uint16_t hands[4][4], int trump, int first, int ncur,
                  const int *cur_suit, const int *cur_rank, int target,
                  int *out_suit, int *out_rank, int *out_ok) {
    Move mv[13];
    int tleft = 0, pos = 0;
    int n = root_setup(S, hands, trump, first, ncur, cur_suit, cur_rank, mv, &tleft, &pos);
    if (n <= 0) return n;
    for (int i = 1; i < n; i++) {   /* best first: a card that reaches the target is found early */
        Move m = mv[i];
        int j = i - 1;
        while (j >= 0 && mv[j].w < m.w) { mv[j + 1] = mv[j]; j--; }
        mv[j + 1] = m;
    }
    int out = 0;
    for (int i = 0; i < n; i++) {
        int ok;
        if (target <= 0) ok = 1;
        else if (target > tleft) ok = 0;
        else {
            CardCtx c = {tleft, pos, mv[i].s, mv[i].r};
            ok = probe_card(S, &c, target);
            if (S->aborted) return ABORTED(S);
        }
        for (unsigned g = mv[i].group; g; g &= g - 1) {
            out_suit[out] = mv[i].s;
            out_rank[out] = lb(g) + 2;
            out_ok[out] = ok;
            out++;
        }
    }
    return out;
}

int DD_ENTRY(dd_solve_cards)(DDSolver *S, const uint16_t hands[4][4], int trump, int first, int ncur,
                   const int *cur_suit, const int *cur_rank,
                   int *out_suit, int *out_rank, int *out_score) {
    Move mv[13];
    int tleft = 0, pos = 0;
    int n = root_setup(S, hands, trump, first, ncur, cur_suit, cur_rank, mv, &tleft, &pos);
    if (n <= 0) return n;
    const int p = (first + pos) & 3;
    const uint32_t sig = 0x80000000u | (uint32_t)tleft | (uint32_t)pos << 4 | (uint32_t)p << 6 | (uint32_t)trump << 8;
    const int remembered = S->root_sig == sig;
    int prev[13];
    for (int i = 0; i < n; i++) {
        prev[i] = -1;
        if (remembered) {   /* the best previous score within the group */
            for (unsigned g = mv[i].group; g; g &= g - 1) {
                int sc = S->root_score[mv[i].s][lb(g)];
                if (sc > prev[i]) prev[i] = sc;
            }
            if (prev[i] >= 0) mv[i].w += 1000 * (prev[i] + 1);   /* the best card of the last world first */
        }
    }
    /* sort by weight, best first */
    for (int i = 1; i < n; i++) {
        Move m = mv[i];
        int pv = prev[i];
        int j = i - 1;
        while (j >= 0 && mv[j].w < m.w) { mv[j + 1] = mv[j]; prev[j + 1] = prev[j]; j--; }
        mv[j + 1] = m;
        prev[j + 1] = pv;
    }
    int out = 0, best = -1;
    int guess = estimate(S, p & 1, tleft);
    S->root_sig = 0;   /* until this call completes */
    memset(S->root_score, -1, sizeof(S->root_score));
    for (int i = 0; i < n; i++) {
        CardCtx c = {tleft, pos, mv[i].s, mv[i].r};
        int g0 = prev[i] >= 0 ? prev[i] : best >= 0 ? best : guess;
        int v = mtd(S, probe_card, &c, 0, tleft, g0);
        if (S->aborted) return ABORTED(S);
        if (v > best) best = v;
        unsigned g = mv[i].group;
        while (g) {
            int r = hb(g);
            g ^= 1u << r;
            out_suit[out] = mv[i].s;
            out_rank[out] = r + 2;
            out_score[out] = v;
            S->root_score[mv[i].s][r] = (int8_t)v;
            out++;
        }
    }
    S->root_sig = sig;
    return out;
}

#ifndef DD_VARIANT_V3
#include "dispatch.h"
#endif

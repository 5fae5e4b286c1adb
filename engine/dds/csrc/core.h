/* Internal to the double-dummy core: the solver state, its types, bit helpers, and playing / taking back a card.
 * Included by ddcore.c only (one translation unit, so everything inlines). */
#ifndef SQUEEZE_DD_CORE_H
#define SQUEEZE_DD_CORE_H

#include "ddcore.h"

#include <stdlib.h>
#include <string.h>

#define CHUNK 8          /* entries per chunk; the entries of one distribution are a chain of chunks */
#define LIST_MAX 256     /* entries per distribution; a full list drops its oldest chunk (DDS keeps 125) */
#define TT_FIRST 7       /* tricks left from which the table is consulted before the sure-trick counts */
#define ETC_FROM 9       /* tricks left after the trick from which fourth hand looks its cards' next tricks up first */
#define ROOT_PROBE_NODES 64   /* card nodes each card of a warm table's opening trick gets in root_probe's first pass */
#define CUT_BITS 16     /* slots of the cut-off card cache (8 bytes each) */
#define PROBE 16         /* linear-probing window of the distribution table */

/* One (suit-length distribution, leader, trump): the head of its list of stored sets.  Every entry of the list
 * is at the same depth (the lengths fix the tricks left), so replacement within a list is simply cyclic. */
typedef struct {
    uint64_t key;          /* 16 nibbles: length of hand h in suit s at nibble 4*h+s */
    uint32_t head, tail;   /* chunk index + 1 (0 = none) */
    uint16_t count;        /* entries in the list */
    uint8_t lt;            /* leader | trump << 2 | 0x80 (slot used) */
    uint8_t gen;           /* the table's generation when the slot was filled: older slots count as empty */
} Dist;

/* Entries are stored column-wise so that a lookup compares several sets at once (four per AVX2 instruction in the
 * x86-64-v3 build).  A set is the owner pattern of the fixed (non-x) cards of each suit: suits 0 and 1 in word 0,
 * suits 2 and 3 in word 1, each suit's 26 bits at offset 32 * (s & 1); the mask selects the fixed cards.  A
 * position matches when (its pattern & mask) == pat in both words. */
typedef struct {
    uint64_t pat0[CHUNK], pat1[CHUNK];
    uint64_t mask0[CHUNK], mask1[CHUNK];
    uint8_t lo[CHUNK], hi[CHUNK];   /* bounds on the tricks of the leader's side from this position */
    uint8_t best[CHUNK];            /* lead that gave the last cut-off here: 0x80 | s << 4 | r, or 0 */
    uint8_t n;                      /* entries used */
    uint32_t next;                  /* next chunk index + 1 */
} Chunk;

/* A slot of the cut-off card cache: the card (0x80 | s << 4 | r, or 0) that last cut off, per seat to play. */
typedef struct {
    uint32_t tag;
    uint8_t card[4];
} CutEntry;

typedef struct {
    int leader;
    int lead_suit;
    uint16_t agg[4];       /* all cards of each suit present at the start of this trick */
    int cs[4], cr[4];      /* suit, rank bit (0..12) of the card played at each position */
    int win_pos, win_s, win_r;
    int best;              /* lead that caused the cut-off in this trick's search, or -1 */
    int hint;              /* best lead remembered by the transposition table: 0x100 | s << 4 | r, or 0 */
} Trick;

typedef struct {
    int s, r;              /* representative card: suit, rank bit */
    uint16_t group;        /* the equivalent cards it stands for */
    int w;
} Move;

struct DDSolver {
    uint16_t h[4][4];
    uint64_t lenkey;       /* lengths_key() of h, kept up to date by put_card/take_back (sync_lenkey after loads) */
    int trump;
    int maxside;
    unsigned opts;
    Trick tr[14];
    uint16_t killer[14][4];
    /* Ordering memory of the root: each card's score in the last dd_solve_cards call with the same signature
     * (tricks left, seat to play, position in the trick, trump).  In a PIMC batch the worlds share the hand to
     * play and its scores vary little, so they are the first guesses (two probes per card when right). */
    uint32_t root_sig;
    int8_t root_score[4][13];
    uint16_t deal[4][4];   /* the hands at the last root (root_deal) */
    int have_deal;
    CutEntry *cut;         /* the cut-off card cache, 1 << CUT_BITS slots, direct-mapped */
    Dist *dists;           /* open addressing, power-of-two size */
    Chunk *chunks;         /* pool, handed out in order; when it or the distribution table is full, all is cleared */
    size_t ndists, nchunks, used_chunks;
    uint8_t gen;           /* bumped by tt_clear: clearing costs nothing but every 255th time */
    size_t tt_bytes;
    uint8_t epoch;         /* bumped by every root call (diagnostic) */
    uint64_t node_limit;
    uint64_t check_at;     /* the node count at which try_card next looks at the limits (arm_limits) */
    int has_deadline;      /* dd_set_time_limit: stop at `deadline` (CLOCK_MONOTONIC seconds) */
    double deadline;
    int aborted;           /* 0, or why the search stopped: 1 node limit, 2 time limit */
    int probe_root;        /* tricks left at a table root whose strain the table already holds (0: none); root_probe */
    int probing;           /* inside root_probe's budgeted searches */
    DDStats st;
};

/* PATMASK[k]: the owner-pattern bits of the k highest cards of a suit (constant: shared by all threads) */
static const uint32_t PATMASK[14] = {0x0u, 0x3000000u, 0x3c00000u, 0x3f00000u, 0x3fc0000u, 0x3ff0000u, 0x3ffc000u, 0x3fff000u, 0x3fffc00u, 0x3ffff00u, 0x3ffffc0u, 0x3fffff0u, 0x3fffffcu, 0x3ffffffu};

static inline int hb(unsigned x) { return 31 - __builtin_clz(x); }
static inline int lb(unsigned x) { return __builtin_ctz(x); }
static inline int pc(unsigned x) { return __builtin_popcount(x); }

/* Are the cards hs of suit s one group of equivalent cards (no other hand's card between them, judged at the start
 * of the trick)? */
static inline int one_group(const Trick *T, int s, unsigned hs) {
    return !(T->agg[s] & ~hs & ((2u << hb(hs)) - (1u << lb(hs))));
}

/* ------------------------------------------------------------------ playing and taking back a card */

static inline int beats(int s, int r, int ws, int wr, int trump) {
    if (s == ws) return r > wr;
    return s == trump;
}

/* Play card (s, r) of hand p at position pos of trick T; returns the trick's winner before it, for take_back.
 * One definition for the search loop and the per-card probes, so both update the trick state identically. */
typedef struct { int pos, s, r; } Winner;

static inline Winner put_card(DDSolver *S, Trick *T, int p, int pos, int s, int r) {
    const Winner old = {T->win_pos, T->win_s, T->win_r};
    S->h[p][s] ^= (uint16_t)(1u << r);
    S->lenkey -= (uint64_t)1 << (4 * (4 * p + s));
    T->cs[pos] = s;
    T->cr[pos] = r;
    if (pos == 0) {
        T->lead_suit = s;
        T->win_pos = 0; T->win_s = s; T->win_r = r;
    } else if (beats(s, r, T->win_s, T->win_r, S->trump)) {
        T->win_pos = pos; T->win_s = s; T->win_r = r;
    }
    return old;
}

static inline void take_back(DDSolver *S, Trick *T, int p, int s, int r, Winner old) {
    S->h[p][s] ^= (uint16_t)(1u << r);
    S->lenkey += (uint64_t)1 << (4 * (4 * p + s));
    T->win_pos = old.pos; T->win_s = old.s; T->win_r = old.r;
}

#endif

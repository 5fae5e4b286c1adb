/* Double-dummy search core for Squeeze.  See ddcore.h for the conventions.
 *
 * Design (after DDS, Haglund & Hein, and Ginsberg's partition search):
 *  - zero-window searches "does the side MAX take >= target tricks from here?", driven MTD(f)-style by the roots;
 *  - at every trick boundary: trivial bounds; the transposition table first when far from the end; sure tricks of
 *    the side on lead as a concrete cash-out line (winners from the top, entries to partner, ruffs in partner's
 *    hand, trumps drawn first, no round an opponent could ruff); "later tricks" of the other side (DDS's rules on
 *    top trumps and notrump tops); then the table when near the end;
 *  - at the second hand: the node is decided at once when his side surely wins the trick and needs no more;
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
 *    the best lead remembered by the table first.  bench/RESULTS.md measures what each of these buys.
 */
#include "ddcore.h"

#include <stdlib.h>
#include <string.h>

#define CHUNK 8          /* entries per chunk; the entries of one distribution are a chain of chunks */
#define LIST_MAX 256     /* entries per distribution; a full list drops its oldest chunk (DDS keeps 125) */
#define TT_FIRST 7       /* tricks left from which the table is consulted before the sure-trick counts */
#define PROBE 16         /* linear-probing window of the distribution table */

/* One (suit-length distribution, leader, trump): the head of its list of stored sets.  Every entry of the list
 * is at the same depth (the lengths fix the tricks left), so replacement within a list is simply cyclic. */
typedef struct {
    uint64_t key;          /* 16 nibbles: length of hand h in suit s at nibble 4*h+s */
    uint32_t head, tail;   /* chunk index + 1 (0 = none) */
    uint16_t count;        /* entries in the list */
    uint8_t lt;            /* leader | trump << 2 | 0x80 (slot used) */
} Dist;

/* Entries are stored column-wise so that a lookup streams through the patterns of a list.  A set is the owner
 * pattern of the fixed (non-x) cards of each suit: suits 0 and 1 in word 0, suits 2 and 3 in word 1, each suit's
 * 26 bits at offset 32 * (s & 1); the mask selects the fixed cards.  A position matches when
 * (its pattern & mask) == pat in both words. */
typedef struct {
    uint64_t pat[CHUNK][2];
    uint64_t mask[CHUNK][2];
    uint8_t lo[CHUNK], hi[CHUNK];   /* bounds on the tricks of the leader's side from this position */
    uint8_t best[CHUNK];            /* lead that gave the last cut-off here: 0x80 | s << 4 | r, or 0 */
    uint8_t n;                      /* entries used */
    uint32_t next;                  /* next chunk index + 1 */
} Chunk;

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
    Dist *dists;           /* open addressing, power-of-two size */
    Chunk *chunks;         /* pool, handed out in order; when it or the distribution table is full, all is cleared */
    size_t ndists, nchunks, used_chunks;
    size_t tt_bytes;
    uint8_t epoch;         /* bumped by every root call (diagnostic) */
    uint64_t node_limit;
    int aborted;
    DDStats st;
};

/* PATMASK[k]: the owner-pattern bits of the k highest cards of a suit (constant: shared by all threads) */
static const uint32_t PATMASK[14] = {0x0u, 0x3000000u, 0x3c00000u, 0x3f00000u, 0x3fc0000u, 0x3ff0000u, 0x3ffc000u, 0x3fff000u, 0x3fffc00u, 0x3ffff00u, 0x3ffffc0u, 0x3fffff0u, 0x3fffffcu, 0x3ffffffu};

static inline int hb(unsigned x) { return 31 - __builtin_clz(x); }
static inline int lb(unsigned x) { return __builtin_ctz(x); }
static inline int pc(unsigned x) { return __builtin_popcount(x); }

/* ------------------------------------------------------------------ setup */

DDSolver *dd_new(size_t tt_bytes) {
    DDSolver *s = (DDSolver *)calloc(1, sizeof(DDSolver));
    if (!s) return NULL;
    if (tt_bytes < (256u << 10)) tt_bytes = 256u << 10;
    /* about a sixth of the memory for the distribution table (a power of two), the rest for chunks */
    size_t nd = 1024;
    while (nd * 2 * sizeof(Dist) <= tt_bytes / 6) nd *= 2;
    size_t nc = (tt_bytes - nd * sizeof(Dist)) / sizeof(Chunk);
    s->dists = (Dist *)aligned_alloc(64, (nd * sizeof(Dist) + 63) & ~(size_t)63);
    s->chunks = (Chunk *)aligned_alloc(64, (nc * sizeof(Chunk) + 63) & ~(size_t)63);
    if (!s->dists || !s->chunks) { free(s->dists); free(s->chunks); free(s); return NULL; }
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
    free(s);
}

static void tt_clear(DDSolver *s) {
    memset(s->dists, 0, s->ndists * sizeof(Dist));
    s->used_chunks = 0;
}

void dd_reset(DDSolver *s) {
    tt_clear(s);
    memset(s->killer, 0, sizeof(s->killer));
    s->root_sig = 0;
}

size_t dd_tt_bytes(const DDSolver *s) { return s->tt_bytes; }
void dd_set_options(DDSolver *s, unsigned opts) { s->opts = opts; dd_reset(s); }
void dd_get_stats(const DDSolver *s, DDStats *out) { *out = s->st; }
void dd_clear_stats(DDSolver *s) { memset(&s->st, 0, sizeof(s->st)); }
void dd_set_node_limit(DDSolver *s, uint64_t limit) { s->node_limit = limit; }

/* ------------------------------------------------------------------ transposition table */

static inline uint64_t lengths_key(const DDSolver *S) {
    uint64_t k = 0;
    for (int h = 0; h < 4; h++)
        for (int s = 0; s < 4; s++)
            k |= (uint64_t)pc(S->h[h][s]) << (4 * (4 * h + s));
    return k;
}

static inline void sync_lenkey(DDSolver *S) { S->lenkey = lengths_key(S); }

/* Tables for the owner patterns, filled once when the library loads: PEXT_LO/HI gather the bits of x selected by a
 * mask m (a software PEXT in two halves of a 13-bit suit), SPREAD moves bit j to bit 2j. */
static uint8_t PEXT_LO[128][128], PEXT_HI[64][64];
static uint32_t SPREAD[8192];

__attribute__((constructor)) static void init_tables(void) {
    for (unsigned m = 0; m < 128; m++)
        for (unsigned x = 0; x < 128; x++) {
            unsigned out = 0, k = 0;
            for (unsigned b = 0; b < 7; b++)
                if ((m >> b) & 1u) { out |= ((x >> b) & 1u) << k; k++; }
            PEXT_LO[m][x] = (uint8_t)out;
            if (m < 64 && x < 64) PEXT_HI[m][x] = (uint8_t)out;
        }
    for (unsigned x = 0; x < 8192; x++) {
        uint32_t out = 0;
        for (unsigned b = 0; b < 13; b++) out |= ((x >> b) & 1u) << (2 * b);
        SPREAD[x] = out;
    }
}

static inline unsigned pext13(unsigned x, unsigned m) {
    return PEXT_LO[m & 127][x & 127] | ((unsigned)PEXT_HI[m >> 7][(x >> 7) & 63] << pc(m & 127));
}

/* Owner pattern of each suit: cards from the highest down, 2 bits each (the owner's seat number), the highest at
 * bits 25..24 of the suit's half-word; suits 0, 1 in P[0] and 2, 3 in P[1]. */
static inline void owner_patterns(const DDSolver *S, const uint16_t agg[4], uint64_t P[2]) {
    P[0] = P[1] = 0;
    for (int s = 0; s < 4; s++) {
        unsigned a = agg[s];
        if (!a) continue;
        unsigned b0 = pext13(S->h[1][s] | S->h[3][s], a);   /* owner bit 0: East or West */
        unsigned b1 = pext13(S->h[2][s] | S->h[3][s], a);   /* owner bit 1: South or West */
        uint64_t p = (uint64_t)(SPREAD[b0] | (SPREAD[b1] << 1)) << (2 * (13 - pc(a)));
        P[s >> 1] |= p << (32 * (s & 1));
    }
}

static inline size_t dist_slot(const DDSolver *S, uint64_t key, int lt) {
    uint64_t x = (key ^ ((uint64_t)lt * 0x2545F4914F6CDD1DULL)) * 0x9E3779B97F4A7C15ULL;
    x ^= x >> 29;
    return (size_t)(x >> 20) & (S->ndists - 1);
}

/* The distribution's list head; with insert, created if absent (NULL when the table has no room). */
static inline Dist *dist_find(DDSolver *S, uint64_t key, int lt, int insert) {
    size_t mask = S->ndists - 1, i = dist_slot(S, key, lt);
    uint8_t ltv = (uint8_t)(lt | 0x80);
    for (int k = 0; k < PROBE; k++, i = (i + 1) & mask) {
        Dist *d = &S->dists[i];
        if (!d->lt) {
            if (!insert) return NULL;
            d->key = key; d->lt = ltv; d->head = d->tail = 0; d->count = 0;
            return d;
        }
        if (d->key == key && d->lt == ltv) return d;
    }
    return NULL;
}

static inline uint16_t top_k_bits(unsigned a, int k) {
    unsigned out = 0;
    while (k-- > 0 && a) {
        int r = hb(a);
        a ^= 1u << r;
        out |= 1u << r;
    }
    return (uint16_t)out;
}

/* Number of fixed cards of suit s in a mask. */
static inline int mask_k(const uint64_t m[2], int s) {
    return __builtin_popcountll((m[s >> 1] >> (32 * (s & 1))) & 0xFFFFFFFFull) >> 1;
}

/* Returns 1/0 on a cut-off (win filled), -1 otherwise. */
static int tt_lookup(DDSolver *S, uint64_t key, int lt, const uint64_t P[2], const uint16_t agg[4],
                     int tleft, int target, int leader_max, uint16_t win[4], int *hint) {
    Dist *d = dist_find(S, key, lt, 0);
    if (!d) return -1;
    const uint64_t p0 = P[0], p1 = P[1];
    /* the bounds that cut: lo >= lo_need or hi < hi_need, in the leader's terms */
    int lo_need, hi_need;
    if (leader_max) { lo_need = target; hi_need = target; }
    else { lo_need = tleft - target + 1; hi_need = tleft - target + 1; }
    for (uint32_t c = d->head; c; ) {
        const Chunk *ch = &S->chunks[c - 1];
        for (int i = 0; i < ch->n; i++) {
            if (((p0 & ch->mask[i][0]) ^ ch->pat[i][0]) | ((p1 & ch->mask[i][1]) ^ ch->pat[i][1])) continue;
            int res = -1;
            if (ch->lo[i] >= lo_need) res = leader_max ? 1 : 0;
            else if (ch->hi[i] < hi_need) res = leader_max ? 0 : 1;
            if (res >= 0) {
                for (int s = 0; s < 4; s++) win[s] = top_k_bits(agg[s], mask_k(ch->mask[i], s));
                return res;
            }
            if (ch->best[i] && !*hint) *hint = 0x100 | (ch->best[i] & 0x7f);
        }
        c = ch->next;
    }
    return -1;
}

static void tt_store(DDSolver *S, uint64_t key, int lt, const uint64_t P[2], const uint16_t agg[4],
                     int tleft, int target, int leader_max, int res, const uint16_t win[4], int best) {
    uint64_t m[2] = {0, 0};
    for (int s = 0; s < 4; s++) {
        int k;
        if (S->opts & DD_OPT_PARTITION)
            k = win[s] ? pc(agg[s] & ~((1u << lb(win[s])) - 1u)) : 0;
        else
            k = pc(agg[s]);
        S->st.k_sum += (uint64_t)k;
        S->st.n_sum += (uint64_t)pc(agg[s]);
        m[s >> 1] |= (uint64_t)PATMASK[k] << (32 * (s & 1));
    }
    const uint64_t mp0 = P[0] & m[0], mp1 = P[1] & m[1];
    int lo = 0, hi = tleft;
    if (res) { if (leader_max) lo = target; else hi = tleft - target; }
    else { if (leader_max) hi = target - 1; else lo = tleft - target + 1; }
    uint8_t bst = best ? (uint8_t)(0x80 | (best & 0x3f)) : 0;

    Dist *d = dist_find(S, key, lt, 1);
    if (!d) { tt_clear(S); d = dist_find(S, key, lt, 1); }
    /* the same set already stored: tighten its bounds */
    for (uint32_t c = d->head; c; ) {
        Chunk *ch = &S->chunks[c - 1];
        for (int i = 0; i < ch->n; i++) {
            if (ch->pat[i][0] == mp0 && ch->pat[i][1] == mp1 && ch->mask[i][0] == m[0] && ch->mask[i][1] == m[1]) {
                if (lo > ch->lo[i]) ch->lo[i] = (uint8_t)lo;
                if (hi < ch->hi[i]) ch->hi[i] = (uint8_t)hi;
                if (bst) ch->best[i] = bst;
                return;
            }
        }
        c = ch->next;
    }
    /* Newest entries first: lookups scan from the head and stop at the first cut-off, and recent sets are the
     * likeliest to match.  A full list drops its oldest chunk (the tail), which then becomes the new head. */
    Chunk *ch = d->head ? &S->chunks[d->head - 1] : NULL;
    if (!ch || ch->n == CHUNK) {
        uint32_t c;
        if (d->count >= LIST_MAX) {
            uint32_t prev = d->head;
            while (S->chunks[prev - 1].next != d->tail) prev = S->chunks[prev - 1].next;
            c = d->tail;
            S->chunks[prev - 1].next = 0;
            d->tail = prev;
            d->count = (uint16_t)(d->count - S->chunks[c - 1].n);
        } else {
            if (S->used_chunks == S->nchunks) {
                /* pool exhausted: start again (sound: the table only ever speeds the search up) */
                tt_clear(S);
                d = dist_find(S, key, lt, 1);
            }
            c = (uint32_t)(++S->used_chunks);
        }
        Chunk *nc = &S->chunks[c - 1];
        nc->n = 0;
        nc->next = d->head;
        d->head = c;
        if (!d->tail) d->tail = c;
        ch = nc;
    }
    int i = ch->n++;
    d->count++;
    ch->pat[i][0] = mp0; ch->pat[i][1] = mp1;
    ch->mask[i][0] = m[0]; ch->mask[i][1] = m[1];
    ch->lo[i] = (uint8_t)lo;
    ch->hi[i] = (uint8_t)hi;
    ch->best[i] = bst;
    S->st.tt_stores++;
}

/* ------------------------------------------------------------------ sure tricks */

/* A card for hand h to throw when it cannot follow: the lowest card of its longest side suit holding no card above
 * the opponents' cards there (a suit without winners), else of its longest side suit, trumps last. */
static inline void discard_one(uint16_t hh[4][4], int h, int trump) {
    int bs = -1, bscore = -1;
    int l = (h + 1) & 3, r = (h + 3) & 3;
    for (int s = 0; s < 4; s++) {
        unsigned x = hh[h][s];
        if (!x) continue;
        unsigned opp = hh[l][s] | hh[r][s];
        int score = pc(x);
        if (!opp || hb(x) < hb(opp)) score += 16;   /* holds no winner here */
        if (s == trump) score -= 64;
        if (score > bscore) { bscore = score; bs = s; }
    }
    if (bs >= 0) hh[h][bs] &= (uint16_t)(hh[h][bs] - 1);   /* drop the lowest card */
}

/* Sure tricks of the leader's side by cashing winners from the top: a concrete line of play, followed until it has
 * `need` tricks or no suit is safe.  Each round is led by the hand on lead in a suit where the opponents cannot ruff
 * and where the side's card beats every card an opponent may still hold (an opponent keeps his highest card for as
 * long as he has cards in the suit; void opponents are assumed to throw nothing); the lead passes to partner when
 * he wins.  The side's own plays and discards are tracked exactly.  The ranks each round relied on go to win[]. */
static int cash_out(const DDSolver *S, int leader, int need, uint16_t win[4], int transfers) {
    uint16_t hh[4][4];
    memcpy(hh, S->h, sizeof(hh));
    const int trump = S->trump;
    const int l = (leader + 1) & 3, r = (leader + 3) & 3;
    int c = leader, tricks = 0;
    win[0] = win[1] = win[2] = win[3] = 0;
    /* A round the opponents cannot follow is won whatever the ranks; which of our hands wins it only matters if
     * another round follows, so that rank is fixed only then. */
    int pend_s = -1, pend_r = 0;
    while (tricks < need) {
        const int q = c ^ 2;
        const int lt = trump != DD_NT && hh[l][trump], rt = trump != DD_NT && hh[r][trump];
        int keep_s = -1, pass_s = -1, ruff_s = -1, ruff_high = 0;
        for (int k = 0; k < 4; k++) {
            int s = trump != DD_NT ? (trump + k) & 3 : k;   /* trumps first: drawing them makes side suits safe */
            unsigned hc = hh[c][s];
            if (!hc) continue;
            if (trump != DD_NT && s != trump && ((!hh[l][s] && lt) || (!hh[r][s] && rt))) continue;
            unsigned opp = hh[l][s] | hh[r][s], hq = hh[q][s];
            int otop = opp ? hb(opp) : -1;
            if (hb(hc) > otop && (!hq || lb(hq) < hb(hc))) { keep_s = s; break; }
            if (pass_s < 0 && transfers && hq && hb(hq) > otop && hb(hq) > lb(hc)) pass_s = s;
            if (ruff_s < 0 && transfers && trump != DD_NT && s != trump && !hq && hh[q][trump]) {
                /* partner ruffs: safe when each opponent follows or cannot overruff */
                unsigned ot = (!hh[l][s] ? hh[l][trump] : 0) | (!hh[r][s] ? hh[r][trump] : 0);
                if (!ot) { ruff_s = s; ruff_high = 0; }
                else if (hb(hh[q][trump]) > hb(ot)) { ruff_s = s; ruff_high = 1; }
            }
        }
        int s, cc, qc;   /* suit, card of c, card of partner (-1: discards) */
        if (keep_s >= 0) {
            s = keep_s;
            cc = hb(hh[c][s]);
            qc = hh[q][s] ? lb(hh[q][s]) : -1;
        } else if (pass_s >= 0) {
            s = pass_s;
            cc = lb(hh[c][s]);
            qc = hb(hh[q][s]);
        } else if (ruff_s >= 0) {
            /* c leads a small card, partner ruffs (low, or high over an opponent who could overruff) */
            s = ruff_s;
            cc = lb(hh[c][s]);
            hh[c][s] ^= (uint16_t)(1u << cc);
            int tc = ruff_high ? hb(hh[q][trump]) : lb(hh[q][trump]);
            hh[q][trump] ^= (uint16_t)(1u << tc);
            if (ruff_high) win[trump] |= (uint16_t)(1u << tc);
            if (pend_s >= 0) { win[pend_s] |= (uint16_t)(1u << pend_r); pend_s = -1; }
            if (hh[l][s]) hh[l][s] &= (uint16_t)(hh[l][s] - 1);
            if (hh[r][s]) hh[r][s] &= (uint16_t)(hh[r][s] - 1);
            tricks++;
            c = q;
            continue;
        } else {
            break;
        }
        unsigned opp = hh[l][s] | hh[r][s];
        int wc = qc > cc ? qc : cc;
        if (pend_s >= 0) { win[pend_s] |= (uint16_t)(1u << pend_r); pend_s = -1; }
        if (opp) win[s] |= (uint16_t)(1u << wc);
        else if (qc >= 0) { pend_s = s; pend_r = wc; }
        hh[c][s] ^= (uint16_t)(1u << cc);
        if (qc >= 0) hh[q][s] ^= (uint16_t)(1u << qc);
        else discard_one(hh, q, trump);
        if (hh[l][s]) hh[l][s] &= (uint16_t)(hh[l][s] - 1);   /* opponents follow low */
        if (hh[r][s]) hh[r][s] &= (uint16_t)(hh[r][s] - 1);
        tricks++;
        if (qc > cc) c = q;
    }
    return tricks;
}

/* ------------------------------------------------------------------ move generation and ordering */

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

static int gen_moves(DDSolver *S, Trick *T, int p, int pos, int tleft, Move *mv) {
    int n = 0;
    const int trump = S->trump;
    const int ls = pos ? T->lead_suit : -1;
    const int follow = pos && S->h[p][ls];
    const int equiv = S->opts & DD_OPT_EQUIV;
    const int order = S->opts & DD_OPT_ORDER;
    const uint16_t kill = (S->opts & DD_OPT_KILLER) && pos == 0 ? S->killer[tleft][0] : 0;
    const int ks = kill ? (kill >> 4) & 3 : -1, kr = kill & 15;
    const int hs_ = pos == 0 && T->hint ? (T->hint >> 4) & 3 : -1, hr_ = T->hint & 15;
    const int q = p ^ 2, l = (p + 1) & 3, r = (p + 3) & 3;
    /* what the rest of the trick holds, for the followers' weights (computed once per node) */
    int pard_winning = 0, later_max = -1, later_ruff = 0, later_trump_max = -1, partner_wins_last = 0;
    if (order && pos) {
        int wh = (T->leader + T->win_pos) & 3;
        pard_winning = ((wh ^ p) & 1) == 0;
        for (int k = pos + 1; k < 4; k++) {
            int hh = (T->leader + k) & 3;
            if (((hh ^ p) & 1) == 0) continue;
            if (S->h[hh][ls]) { int m2 = hb(S->h[hh][ls]); if (m2 > later_max) later_max = m2; }
            else if (trump != DD_NT && S->h[hh][trump]) {
                later_ruff = 1;
                int t2 = hb(S->h[hh][trump]);
                if (t2 > later_trump_max) later_trump_max = t2;
            }
        }
        partner_wins_last = pos == 1 && S->h[q][ls] && hb(S->h[q][ls]) > T->win_r &&
                            hb(S->h[q][ls]) > later_max && !later_ruff;
    }
    for (int s = 0; s < 4; s++) {
        if (follow && s != ls) continue;
        const unsigned hs = S->h[p][s];
        if (!hs) continue;
        const unsigned others = T->agg[s] & ~hs;
        const unsigned aggs = S->h[0][s] | S->h[1][s] | S->h[2][s] | S->h[3][s];
        const int topr = hb(aggs);
        /* the suit's part of the weight */
        int ws = 0;
        if (order) {
            if (pos == 0) {
                unsigned ours = hs | S->h[q][s];
                unsigned theirs = S->h[l][s] | S->h[r][s];
                if (trump != DD_NT && s != trump) {
                    int lr = !S->h[l][s] && S->h[l][trump];
                    int rr = !S->h[r][s] && S->h[r][trump];
                    if (lr || rr) ws -= 60;
                    else if (!S->h[q][s] && S->h[q][trump]) ws += 35;
                }
                {
                    unsigned a2 = aggs & ~(1u << topr);
                    int sec = a2 ? hb(a2) : -1;
                    unsigned a3 = sec >= 0 ? a2 & ~(1u << sec) : 0;
                    int thd = a3 ? hb(a3) : -1;
                    int sec_q = sec >= 0 && ((S->h[q][s] >> sec) & 1u), sec_p = sec >= 0 && ((hs >> sec) & 1u);
                    int thd_q = thd >= 0 && ((S->h[q][s] >> thd) & 1u), thd_p = thd >= 0 && ((hs >> thd) & 1u);
                    if (!((hs >> topr) & 1u) && !((S->h[q][s] >> topr) & 1u)) {
                        /* LHO holds the top and partner the second: lead through (a finesse) */
                        if (((S->h[l][s] >> topr) & 1u) && sec_q && pc(S->h[q][s]) > 1) ws += 50;
                        /* the side holds the second and third best: the suit is ours after one round */
                        if ((sec_q && thd_p) || (sec_p && thd_q && pc(S->h[q][s]) > 1)) ws += 35;
                        if ((S->h[r][s] >> topr) & 1u && pc(S->h[r][s]) > 1) ws -= 25;
                    }
                }
                {   /* a suit where the opponents hold many cards grows a larger tree (as in DDS): lead it late */
                    int cl = pc(S->h[l][s]), cr = pc(S->h[r][s]);
                    if (!cl) cl = tleft + 1;
                    if (!cr) cr = tleft + 1;
                    ws -= (cl + cr) * (trump == DD_NT ? 16 : 24);
                }
                if (trump == DD_NT) ws += 2 * pc(ours) - pc(theirs);
                else if (s == trump && ((ours >> topr) & 1u)) ws += 20;
            } else if (s != ls && !(trump != DD_NT && s == trump)) {
                /* discarding: from long suits, low cards; not a stiff winner nor the guard of a second-best card
                 * (as in DDS: length matters more than rank) */
                ws = -10 + 2 * pc(hs);
                if (pc(hs) == 1 && ((hs >> topr) & 1u)) ws -= 4;   /* a stiff winner */
                {   unsigned a2 = aggs & ~(1u << topr);
                    if (pc(hs) == 2 && a2 && ((hs >> hb(a2)) & 1u)) ws -= 3; }   /* Kx */
            }
        }
        /* groups of touching cards, highest first */
        unsigned a = hs;
        while (a) {
            int top = hb(a);
            unsigned g = 1u << top;
            a ^= g;
            int low = top;
            if (equiv) {
                while (a) {
                    int nx = hb(a);
                    unsigned between = ((1u << low) - 1u) & ~((2u << nx) - 1u);
                    if (others & between) break;
                    g |= 1u << nx;
                    a ^= 1u << nx;
                    low = nx;
                }
            }
            Move *m = &mv[n++];
            m->s = s;
            m->r = top;
            m->group = (uint16_t)g;
            int w = ws;
            if (order) {
                if (pos == 0) {
                    if ((hs >> topr) & 1u) w += (top == topr) ? 70 : 5;
                    else if ((S->h[q][s] >> topr) & 1u) w += 45 - top;
                    /* opponents hold the top: lead low, or the top of an honour sequence */
                    else if (pc(g) >= 2 && top >= 8) w += 15;
                    else w += 10 - top;
                } else if (s == ls) {
                    /* following suit */
                    if (pard_winning) {
                        int safe = T->win_s != ls || (T->win_r > later_max && !later_ruff);
                        if (pos == 3 || safe) w = 40 - top;
                        else w = (top > later_max) ? 50 - top : 30 - top;
                    } else if (partner_wins_last) {
                        w = 40 - top;   /* partner, last to play, can win: play low */
                    } else if (beats(s, top, T->win_s, T->win_r, trump)) {
                        if (pos == 3 || (top > later_max && !later_ruff)) w = 100 - top;
                        else if (pos == 2) w = 60 - top;
                        else w = 15 - top;
                    } else {
                        w = 40 - top;
                    }
                } else if (trump != DD_NT && s == trump) {
                    /* ruffing */
                    int over = beats(s, top, T->win_s, T->win_r, trump);
                    int safe_w = pard_winning && (pos == 3 || T->win_s != ls || (T->win_r > later_max && !later_ruff));
                    if (safe_w) w = -60 - top;   /* partner's card wins anyway: keep the trump */
                    else if (!over) w = -70 - top;
                    else if (partner_wins_last) w = -20 - top;   /* partner, last, wins the trick without our ruff */
                    else w = (pard_winning ? 10 : 80) - top - (later_trump_max > top ? 40 : 0);
                } else {
                    w -= top;
                }
            }
            if (s == ks && ((g >> kr) & 1u)) w += 150;
            if (s == hs_ && ((g >> hr_) & 1u)) w += 40;
            m->w = w;
        }
    }
    return n;
}

/* ------------------------------------------------------------------ search */

static int trick_node(DDSolver *S, int tleft, int leader, int target, uint16_t win[4]);

static int card_node(DDSolver *S, int tleft, int pos, int target, uint16_t win[4]) {
    Trick *T = &S->tr[tleft];
    int p = (T->leader + pos) & 3;
    int is_max = (p & 1) == S->maxside;
    if (pos == 1 && (S->opts & DD_OPT_QUICK)) {
        /* Second hand (Kuijf's idea, as in DDS): if p's side surely wins this trick and that, with top winners the
         * winning hand then cashes in notrump, is all it needs, the node is decided without a search. */
        int need = is_max ? target : tleft - target + 1;
        int ls = T->lead_suit, q = p ^ 2, l = (p + 1) & 3, trump = S->trump;
        unsigned ours = S->h[p][ls] | S->h[q][ls];
        int lho_ruffs = trump != DD_NT && ls != trump && !S->h[l][ls] && S->h[l][trump];
        int sure = 0;
        uint16_t w[4] = {0, 0, 0, 0};
        if (trump != DD_NT && ls != trump &&
            ((!S->h[p][ls] && S->h[p][trump]) || (!S->h[q][ls] && S->h[q][trump]))) {
            sure = !lho_ruffs;                       /* we ruff; LHO follows or has no trump */
        } else if (ours && !lho_ruffs) {
            int top = hb(ours);
            if (top > T->cr[0] && (!S->h[l][ls] || hb(S->h[l][ls]) < top)) {
                sure = 1;
                w[ls] = (uint16_t)(1u << top);
                if (need >= 2 && trump == DD_NT) {
                    int hh = (S->h[p][ls] >> top) & 1u ? p : q;
                    for (int s = 0; s < 4 && sure < need; s++) {
                        if (s == ls || !S->h[hh][s]) continue;
                        unsigned rest = S->h[hh ^ 1][s] | S->h[hh ^ 2][s] | S->h[hh ^ 3][s];
                        if (!rest) sure += pc(S->h[hh][s]);          /* a suit nobody else holds */
                        else if (hb(S->h[hh][s]) > hb(rest)) { sure++; w[s] |= (uint16_t)(1u << hb(S->h[hh][s])); }
                    }
                }
            }
        }
        if (sure && sure >= need) {
            win[0] = w[0]; win[1] = w[1]; win[2] = w[2]; win[3] = w[3];
            S->st.qt_cuts++;
            return is_max;
        }
    }
    Move mv[13];
    int n = gen_moves(S, T, p, pos, tleft, mv);
    uint16_t acc0 = 0, acc1 = 0, acc2 = 0, acc3 = 0;
    /* Small-card pruning (Kuijf; Ginsberg's x's): once a card c of suit s failed and its result holds for every
     * position where the cards below rank skip_below[s] are x's, with c itself an x, any other card below that
     * rank leads into the same set of positions: skip it. */
    int skip_below[4] = {0, 0, 0, 0};
    int prune = S->opts & DD_OPT_PARTITION;
    for (int i = 0; i < n; i++) {
        /* pick the best remaining move */
        int bi = i;
        for (int j = i + 1; j < n; j++)
            if (mv[j].w > mv[bi].w) bi = j;
        if (bi != i) { Move t = mv[i]; mv[i] = mv[bi]; mv[bi] = t; }
        int s = mv[i].s, r = mv[i].r;
        if (r < skip_below[s]) continue;
        S->st.nodes++;
        if (S->node_limit && S->st.nodes > S->node_limit) { S->aborted = 1; win[0] = win[1] = win[2] = win[3] = 0; return 0; }
        const Winner saved = put_card(S, T, p, pos, s, r);
        uint16_t cw[4] = {0, 0, 0, 0};
        int res;
        if (pos == 3) {
            int wh = (T->leader + T->win_pos) & 3;
            int t2 = target - (((wh & 1) == S->maxside) ? 1 : 0);
            /* the next trick's table slot is known now: start loading it */
            __builtin_prefetch(&S->dists[dist_slot(S, S->lenkey, wh | (S->trump << 2))]);
            res = trick_node(S, tleft - 1, wh, t2, cw);
            /* a card that beat another card of its suit won by rank: its rank matters */
            int ws = T->win_s, same = 0;
            for (int k = 0; k < 4; k++) same += T->cs[k] == ws;
            if (same >= 2) cw[ws] |= (uint16_t)(1u << T->win_r);
        } else {
            res = card_node(S, tleft, pos + 1, target, cw);
        }
        take_back(S, T, p, s, r, saved);
        if (S->aborted) return 0;
        if (res == is_max) {
            win[0] = cw[0]; win[1] = cw[1]; win[2] = cw[2]; win[3] = cw[3];
            S->killer[tleft][pos] = (uint16_t)(0x100 | (s << 4) | r);
            if (pos == 0) T->best = (s << 4) | r;
            if (i == 0) S->st.cut_first++; else S->st.cut_later++;
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
    if (use_tt) {
        key = S->lenkey;
        owner_patterns(S, T->agg, pat);
    }
    if (tt_first) {
        int r = tt_lookup(S, key, lt, pat, T->agg, tleft, target, leader_max, win, &hint);
        if (r >= 0) { S->st.tt_hits++; return r; }
    }

    if (S->opts & (DD_OPT_QUICK | DD_OPT_LATER)) {
        uint16_t lw[4] = {0, 0, 0, 0}, ow[4] = {0, 0, 0, 0};
        int sure_l = 0, sure_o = 0;
        if (S->opts & DD_OPT_QUICK) {
            int need_l = leader_max ? target : tleft - target + 1;
            sure_l = cash_out(S, leader, need_l, lw, S->opts & DD_OPT_QT_PARTNER);
        }
        if (S->opts & DD_OPT_LATER) {
            /* Tricks the side not on lead (D) surely takes later, and sure trump tricks of the leader's side (L).
             * Each rule keeps the ranks it relies on in the win set; the rest hold for any cards of the same lengths. */
            int l1 = (leader + 1) & 3, l3 = (leader + 3) & 3, t = S->trump;
            unsigned aggt = t != DD_NT ? (S->h[0][t] | S->h[1][t] | S->h[2][t] | S->h[3][t]) : 0;
#define SET_O(n, s_, bits_) do { if ((n) > sure_o) { sure_o = (n); ow[0] = ow[1] = ow[2] = ow[3] = 0; \
                                   ow[(s_) & 3] = (uint16_t)(bits_); } } while (0)
            if (aggt) {
                /* ranks of the three highest trumps and their holders */
                int r1 = hb(aggt), o1 = 0;
                while (!((S->h[o1][t] >> r1) & 1u)) o1++;
                unsigned ho = S->h[o1][t], a = aggt, bits = 0;
                int run = 0;
                while (a) {   /* top trumps in one hand: each wins a trick */
                    int x = hb(a);
                    if (!((ho >> x) & 1u)) break;
                    run++; bits |= 1u << x; a ^= 1u << x;
                }
                unsigned a2 = aggt & ~(1u << r1);
                int r2 = a2 ? hb(a2) : -1, o2 = -1;
                if (r2 >= 0) { o2 = 0; while (!((S->h[o2][t] >> r2) & 1u)) o2++; }
                unsigned a3 = r2 >= 0 ? a2 & ~(1u << r2) : 0;
                int r3 = a3 ? hb(a3) : -1, o3 = -1;
                if (r3 >= 0) { o3 = 0; while (!((S->h[o3][t] >> r3) & 1u)) o3++; }
                if (((o1 ^ leader) & 1) == 0) {
                    if (run > sure_l) { sure_l = run; lw[0] = lw[1] = lw[2] = lw[3] = 0; lw[t] = (uint16_t)bits; }
                    /* L holds the top trump; D's second-best trump sitting over it, with a small one beside it,
                     * or D's second and third best (the second guarded) make a trump trick for D */
                    if (o2 >= 0 && ((o2 ^ leader) & 1) && pc(S->h[o2][t]) >= 2) {
                        if (o1 == ((o2 + 3) & 3)) SET_O(1, t, 1u << r2);
                        else if (o3 >= 0 && ((o3 ^ leader) & 1)) SET_O(1, t, 1u << r3);
                    }
                } else {
                    SET_O(run, t, bits);
                    /* D holds the top trump.  If L has no trumps, every trump of D's longer trump hand wins a
                     * trick; otherwise D's top two trumps make two tricks when they need not fall together. */
                    if (!S->h[leader][t] && !S->h[leader ^ 2][t]) {
                        int m = pc(S->h[l1][t]), m3 = pc(S->h[l3][t]);
                        SET_O(m > m3 ? m : m3, t, 0);   /* no rank matters: every trump is D's */
                    } else if (o2 >= 0 && ((o2 ^ leader) & 1) &&
                               (pc(S->h[o2][t]) > 1 || pc(S->h[o2 ^ 2][t]) > 1)) {
                        SET_O(2, t, 1u << r2);
                    } else {
                        SET_O(1, t, 1u << r1);
                    }
                }
            } else {
                /* No trumps left: in every trick L wins, the suit led is one where L holds the top card, and a
                 * suit gives L at most as many tricks as its longer hand holds; if those lengths cannot cover all
                 * the tricks left, D takes at least one. */
                int sum = 0;
                uint16_t bits[4] = {0, 0, 0, 0};
                for (int s = 0; s < 4; s++) {
                    unsigned ag = S->h[0][s] | S->h[1][s] | S->h[2][s] | S->h[3][s];
                    if (!ag) continue;
                    int tr = hb(ag);
                    if (((S->h[l1][s] | S->h[l3][s]) >> tr) & 1u) {
                        if (ag & ~(1u << tr)) bits[s] = (uint16_t)(1u << tr);
                    } else {
                        int x = pc(S->h[leader][s]), y = pc(S->h[leader ^ 2][s]);
                        sum += x > y ? x : y;
                    }
                }
                if (sum < tleft && 1 > sure_o) { sure_o = 1; memcpy(ow, bits, sizeof(bits)); }
            }
#undef SET_O
        }
        int max_sure = leader_max ? sure_l : sure_o;
        int min_sure = leader_max ? sure_o : sure_l;
        if (max_sure >= target) {
            memcpy(win, leader_max ? lw : ow, 4 * sizeof(uint16_t));
            S->st.qt_cuts++;
            return 1;
        }
        if (tleft - min_sure < target) {
            memcpy(win, leader_max ? ow : lw, 4 * sizeof(uint16_t));
            S->st.qt_cuts++;
            return 0;
        }
    }

    if (use_tt && !tt_first) {
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
        if (S->aborted) return -2;
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

int dd_solve_leader(DDSolver *S, const uint16_t hands[4][4], int trump, int leader) {
    if (!valid_hands(hands) || trump < 0 || trump > 4 || leader < 0 || leader > 3) return -1;
    int n = total_cards(hands, 0);
    for (int h = 1; h < 4; h++) if (total_cards(hands, h) != n) return -1;
    memcpy(S->h, hands, sizeof(S->h));
    sync_lenkey(S);
    S->trump = trump;
    S->aborted = 0;
    S->epoch++;
    if (n == 0) return 0;
    return solve_leader_guess(S, leader, estimate(S, leader & 1, n));
}

void dd_solve_table(DDSolver *S, const uint16_t hands[4][4], int out[5][4]) {
    int n = total_cards(hands, 0);
    memcpy(S->h, hands, sizeof(S->h));
    sync_lenkey(S);
    S->aborted = 0;
    S->epoch++;
    static const int order[5] = {4, 3, 2, 1, 0};
    for (int i = 0; i < 5; i++) {
        int st = order[i];
        S->trump = st;
        int prev = -1;
        for (int leader = 0; leader < 4; leader++) {
            int guess = prev < 0 ? estimate(S, leader & 1, n) : n - prev;
            int v = solve_leader_guess(S, leader, guess);
            prev = v;
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

    memcpy(S->h, full, sizeof(S->h));
    S->trump = trump;
    S->aborted = 0;
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

int dd_make_cards(DDSolver *S, const uint16_t hands[4][4], int trump, int first, int ncur,
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
            if (S->aborted) return -2;
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

int dd_solve_cards(DDSolver *S, const uint16_t hands[4][4], int trump, int first, int ncur,
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
        if (S->aborted) return -2;
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

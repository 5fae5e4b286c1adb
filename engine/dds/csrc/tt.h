/* The transposition table of the double-dummy core: two levels (distribution -> chunked list of rank-pattern sets). */
#ifndef SQUEEZE_DD_TT_H
#define SQUEEZE_DD_TT_H

#include "core.h"

static inline uint64_t lengths_key(const DDSolver *S) {
    uint64_t k = 0;
    for (int h = 0; h < 4; h++)
        for (int s = 0; s < 4; s++)
            k |= (uint64_t)pc(S->h[h][s]) << (4 * (4 * h + s));
    return k;
}

/* Forget every stored set.  Slots of an older generation count as empty, so a clear only bumps the generation (the
 * distribution table, a sixth of the memory, is wiped when the 8-bit generation wraps). */
static void tt_clear(DDSolver *s) {
    if (++s->gen == 0) {
        memset(s->dists, 0, s->ndists * sizeof(Dist));
        s->gen = 1;
    }
    s->used_chunks = 0;
}

static inline void sync_lenkey(DDSolver *S) { S->lenkey = lengths_key(S); }

#if defined(__BMI2__) || defined(__AVX2__)
#include <immintrin.h>
#endif
#ifdef __BMI2__
/* x86-64-v3 build: PEXT gathers the bits of x selected by m, PDEP spreads bit j to bit 2j (no tables, and no
 * constructor: this translation unit's code must not run before the dispatcher checked the CPU). */
static inline unsigned pext13(unsigned x, unsigned m) { return _pext_u32(x, m); }
static inline uint32_t spread13(unsigned x) { return _pdep_u32(x, 0x55555555u); }
#else
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
static inline uint32_t spread13(unsigned x) { return SPREAD[x]; }
#endif

/* Owner pattern of each suit: cards from the highest down, 2 bits each (the owner's seat number), the highest at
 * bits 25..24 of the suit's half-word; suits 0, 1 in P[0] and 2, 3 in P[1]. */
static inline void owner_patterns(const DDSolver *S, const uint16_t agg[4], uint64_t P[2]) {
    P[0] = P[1] = 0;
    for (int s = 0; s < 4; s++) {
        unsigned a = agg[s];
        if (!a) continue;
        unsigned b0 = pext13(S->h[1][s] | S->h[3][s], a);   /* owner bit 0: East or West */
        unsigned b1 = pext13(S->h[2][s] | S->h[3][s], a);   /* owner bit 1: South or West */
        uint64_t p = (uint64_t)(spread13(b0) | (spread13(b1) << 1)) << (2 * (13 - pc(a)));
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
        if (!d->lt || d->gen != S->gen) {
            if (!insert) return NULL;
            d->key = key; d->lt = ltv; d->gen = S->gen; d->head = d->tail = 0; d->count = 0;
            return d;
        }
        if (d->key == key && d->lt == ltv) return d;
    }
    return NULL;
}

/* The k highest cards of a suit's holding a. */
static inline uint16_t top_k_bits(unsigned a, int k) {
#ifdef __BMI2__
    const int n = pc(a);
    if (k >= n) return (uint16_t)a;
    return (uint16_t)_pdep_u32(((1u << k) - 1u) << (n - k), a);   /* the top k of a's n bits, put back in place */
#else
    unsigned out = 0;
    while (k-- > 0 && a) {
        int r = hb(a);
        a ^= 1u << r;
        out |= 1u << r;
    }
    return (uint16_t)out;
#endif
}

/* Number of fixed cards of suit s in a mask. */
static inline int mask_k(const uint64_t m[2], int s) {
    return __builtin_popcountll((m[s >> 1] >> (32 * (s & 1))) & 0xFFFFFFFFull) >> 1;
}

/* Bit i set for each of the chunk's first n entries whose set holds the position with owner patterns p0, p1. */
#ifdef __AVX2__
static inline unsigned chunk_matches(const Chunk *ch, uint64_t p0, uint64_t p1) {
    const __m256i P0 = _mm256_set1_epi64x((long long)p0), P1 = _mm256_set1_epi64x((long long)p1);
    unsigned bits = 0;
    for (int h = 0; h < CHUNK; h += 4) {
        __m256i x0 = _mm256_xor_si256(_mm256_and_si256(P0, _mm256_loadu_si256((const __m256i *)&ch->mask0[h])),
                                      _mm256_loadu_si256((const __m256i *)&ch->pat0[h]));
        __m256i x1 = _mm256_xor_si256(_mm256_and_si256(P1, _mm256_loadu_si256((const __m256i *)&ch->mask1[h])),
                                      _mm256_loadu_si256((const __m256i *)&ch->pat1[h]));
        __m256i eq = _mm256_cmpeq_epi64(_mm256_or_si256(x0, x1), _mm256_setzero_si256());
        bits |= (unsigned)_mm256_movemask_pd(_mm256_castsi256_pd(eq)) << h;
    }
    return bits & ((1u << ch->n) - 1u);
}

/* Bit i set for each entry storing exactly this set (pattern and mask). */
static inline unsigned chunk_equal(const Chunk *ch, uint64_t mp0, uint64_t mp1, uint64_t m0, uint64_t m1) {
    const __m256i P0 = _mm256_set1_epi64x((long long)mp0), P1 = _mm256_set1_epi64x((long long)mp1);
    const __m256i M0 = _mm256_set1_epi64x((long long)m0), M1 = _mm256_set1_epi64x((long long)m1);
    unsigned bits = 0;
    for (int h = 0; h < CHUNK; h += 4) {
        __m256i p = _mm256_and_si256(_mm256_cmpeq_epi64(_mm256_loadu_si256((const __m256i *)&ch->pat0[h]), P0),
                                     _mm256_cmpeq_epi64(_mm256_loadu_si256((const __m256i *)&ch->pat1[h]), P1));
        __m256i m = _mm256_and_si256(_mm256_cmpeq_epi64(_mm256_loadu_si256((const __m256i *)&ch->mask0[h]), M0),
                                     _mm256_cmpeq_epi64(_mm256_loadu_si256((const __m256i *)&ch->mask1[h]), M1));
        bits |= (unsigned)_mm256_movemask_pd(_mm256_castsi256_pd(_mm256_and_si256(p, m))) << h;
    }
    return bits & ((1u << ch->n) - 1u);
}
#else
static inline unsigned chunk_matches(const Chunk *ch, uint64_t p0, uint64_t p1) {
    unsigned bits = 0;
    for (int i = 0; i < ch->n; i++)
        bits |= (unsigned)!(((p0 & ch->mask0[i]) ^ ch->pat0[i]) | ((p1 & ch->mask1[i]) ^ ch->pat1[i])) << i;
    return bits;
}

static inline unsigned chunk_equal(const Chunk *ch, uint64_t mp0, uint64_t mp1, uint64_t m0, uint64_t m1) {
    unsigned bits = 0;
    for (int i = 0; i < ch->n; i++)
        bits |= (unsigned)(ch->pat0[i] == mp0 && ch->pat1[i] == mp1 && ch->mask0[i] == m0 && ch->mask1[i] == m1) << i;
    return bits;
}
#endif

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
        for (unsigned mt = chunk_matches(ch, p0, p1); mt; mt &= mt - 1) {
            const int i = lb(mt);
            int res = -1;
            if (ch->lo[i] >= lo_need) res = leader_max ? 1 : 0;
            else if (ch->hi[i] < hi_need) res = leader_max ? 0 : 1;
            if (res >= 0) {
                const uint64_t mk[2] = {ch->mask0[i], ch->mask1[i]};
                for (int s = 0; s < 4; s++) win[s] = top_k_bits(agg[s], mask_k(mk, s));
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
    if (!d) { tt_clear(S); S->st.tt_clears++; d = dist_find(S, key, lt, 1); }
    /* the same set already stored: tighten its bounds */
    for (uint32_t c = d->head; c; ) {
        Chunk *ch = &S->chunks[c - 1];
        const unsigned eq = chunk_equal(ch, mp0, mp1, m[0], m[1]);
        if (eq) {
            const int i = lb(eq);
            if (lo > ch->lo[i]) ch->lo[i] = (uint8_t)lo;
            if (hi < ch->hi[i]) ch->hi[i] = (uint8_t)hi;
            if (bst) ch->best[i] = bst;
            return;
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
            S->st.tt_recycled++;
            S->chunks[prev - 1].next = 0;
            d->tail = prev;
            d->count = (uint16_t)(d->count - S->chunks[c - 1].n);
        } else {
            if (S->used_chunks == S->nchunks) {
                /* pool exhausted: start again (sound: the table only ever speeds the search up) */
                tt_clear(S);
                S->st.tt_clears++;
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
    ch->pat0[i] = mp0; ch->pat1[i] = mp1;
    ch->mask0[i] = m[0]; ch->mask1[i] = m[1];
    ch->lo[i] = (uint8_t)lo;
    ch->hi[i] = (uint8_t)hi;
    ch->best[i] = bst;
    S->st.tt_stores++;
}

#endif

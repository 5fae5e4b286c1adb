/* Double-dummy search core for Squeeze (engine/dds).
 *
 * Conventions (same as engine.cards): hands are indexed N=0,E=1,S=2,W=3; suits C=0,D=1,H=2,S=3; a suit holding is a
 * 13-bit mask with rank r (2..14) at bit r-2.  trump is 0..3 or 4 for notrump.
 *
 * One DDSolver is single-threaded state (transposition table, ordering memory); use one per thread.  The entry
 * points touch no Python objects, so the Cython wrapper calls them with the GIL released.
 */
#ifndef SQUEEZE_DDCORE_H
#define SQUEEZE_DDCORE_H

#include <stdint.h>
#include <stddef.h>

#define DD_NT 4

typedef struct DDSolver DDSolver;

typedef struct {
    uint64_t nodes;        /* card-level nodes (plays tried) */
    uint64_t trick_nodes;  /* positions at a trick boundary that were searched */
    uint64_t tt_hits;      /* cut-offs from the transposition table */
    uint64_t tt_stores;
    uint64_t qt_cuts;      /* cut-offs from quick/later tricks */
    uint64_t cut_first, cut_later, all_nodes;   /* card nodes: cut-off by the first move, by a later one, none */
    uint64_t k_sum, n_sum;  /* fixed cards / all cards over stored entries (how general the sets are) */
    uint64_t by_depth[14];  /* trick nodes by tricks left */
    uint64_t tt_clears;     /* times the table's pool filled up and the table was cleared */
    uint64_t tt_recycled;   /* chunks taken back from full per-distribution lists */
    uint64_t cut_cached;    /* cut-offs by the card of the cut-off card cache, tried before generating moves */
} DDStats;

/* Feature switches, to measure what each technique buys (all on by default but the killer lead). */
#define DD_OPT_TT        1u
#define DD_OPT_QUICK     2u
#define DD_OPT_LATER     4u
#define DD_OPT_ORDER     8u
#define DD_OPT_EQUIV     16u
#define DD_OPT_PARTITION 32u   /* store generalised (winning-rank) sets instead of exact positions */
#define DD_OPT_KILLER    64u   /* lead first the card that last caused a cut-off at this depth (DDS's bestMove) */
#define DD_OPT_QT_PARTNER 128u /* quick tricks also through an entry to partner's winners */
#define DD_OPT_CUTCACHE  256u  /* try the cut-off card cache's card before generating moves */
#define DD_OPT_ROOT_PROBE 512u /* tables: a later leader's first two cards each get a budgeted search first (root_probe) */
#define DD_OPT_ALL       1023u
/* The killer lead per depth is off by default since the cut-off card cache: with both, it costs 3-8 % more card
 * nodes (tables, leads, PIMC batches; bench/RESULTS.md). */
#define DD_OPT_DEFAULT   (DD_OPT_ALL & ~DD_OPT_KILLER)

/* tt_bytes: memory for the transposition table (raised to 256 KiB if smaller); about a sixth goes to the
 * distribution heads, the rest to the pool of chunks.  Returns NULL if the allocation fails. */
DDSolver *dd_new(size_t tt_bytes);
void dd_free(DDSolver *s);
/* Forget the transposition table (clears the distribution heads, a sixth of its memory) and the ordering memory. */
void dd_reset(DDSolver *s);
/* Forget the transposition table only (the ordering memory stays). */
void dd_clear_tt(DDSolver *s);
size_t dd_tt_bytes(const DDSolver *s);
void dd_set_options(DDSolver *s, unsigned opts);
void dd_get_stats(const DDSolver *s, DDStats *out);
void dd_clear_stats(DDSolver *s);
/* Stop a search after this many card nodes (0 = no limit); the entry points then return -2. */
void dd_set_node_limit(DDSolver *s, uint64_t limit);
/* Stop a search `seconds` from now (the clock is read every 1024 card nodes, about a tenth of a millisecond); the
 * entry points then return -3.  The limit stays until dd_clear_time_limit.  An interrupted search stores nothing
 * in the transposition table, so the solver stays sound. */
void dd_set_time_limit(DDSolver *s, double seconds);
void dd_clear_time_limit(DDSolver *s);

/* Tricks the side of `leader` takes from a trick-start position (all four hands of equal length). */
int dd_solve_leader(DDSolver *s, const uint16_t hands[4][4], int trump, int leader);

/* Full table: out[strain][declarer] = tricks won by declarer (strain 0..3 = C,D,H,S, 4 = NT). */
void dd_solve_table(DDSolver *s, const uint16_t hands[4][4], int out[5][4]);

/* Score every legal card of the player to move.
 * hands: remaining cards, the cards already played to the current trick removed.
 * first: the seat that led the current trick; ncur (0..3) cards already played to it, in order.
 * Writes one entry per legal card (cards of one equivalence class listed one by one): out_suit, out_rank (2..14),
 * out_score = tricks the side to play takes from here, the current trick included.  Returns the number of
 * entries, or -1 if the position is inconsistent (lengths, revoke, duplicate cards). */
int dd_solve_cards(DDSolver *s, const uint16_t hands[4][4], int trump, int first, int ncur,
                   const int *cur_suit, const int *cur_rank,
                   int *out_suit, int *out_rank, int *out_score);

/* Target mode: for every legal card of the player to move, out_ok = 1 if his side then takes at least `target`
 * tricks (current trick included), else 0.  One boolean search per group of equal cards: cheaper than scores.
 * Same conventions and return values as dd_solve_cards. */
int dd_make_cards(DDSolver *s, const uint16_t hands[4][4], int trump, int first, int ncur,
                  const int *cur_suit, const int *cur_rank, int target,
                  int *out_suit, int *out_rank, int *out_ok);

/* Which build of the search runs (see dispatch.h): the portable one (any x86-64 CPU) or the x86-64-v3 one.
 * AUTO: the fast one where the CPU supports it.  dd_set_variant returns the build now in use (FAST falls back to
 * PORTABLE on older CPUs). */
#define DD_VARIANT_AUTO 0
#define DD_VARIANT_PORTABLE 1
#define DD_VARIANT_FAST 2
int dd_set_variant(int variant);
int dd_variant(void);
int dd_fast_available(void);

#endif

# distutils: sources = engine/dds/csrc/ddcore.c engine/dds/csrc/ddcore_v3.c
# distutils: include_dirs = engine/dds/csrc
# distutils: depends = engine/dds/csrc/ddcore.h engine/dds/csrc/core.h engine/dds/csrc/tt.h engine/dds/csrc/sure_tricks.h engine/dds/csrc/moves.h engine/dds/csrc/dispatch.h
"""Thin typed wrapper over the C search core (csrc/ddcore.c). No Python objects reach the search; every entry
point runs with the GIL released, so one ``CoreSolver`` per thread solves in parallel."""
from libc.stdint cimport uint16_t, uint64_t

cdef extern from "ddcore.h" nogil:
    ctypedef struct DDSolver:
        pass
    ctypedef struct DDStats:
        uint64_t nodes
        uint64_t trick_nodes
        uint64_t tt_hits
        uint64_t tt_stores
        uint64_t qt_cuts
        uint64_t cut_first
        uint64_t cut_later
        uint64_t all_nodes
        uint64_t k_sum
        uint64_t n_sum
        uint64_t by_depth[14]
        uint64_t tt_clears
        uint64_t tt_recycled
        uint64_t cut_cached
    DDSolver *dd_new(size_t tt_bytes)
    void dd_free(DDSolver *s)
    void dd_reset(DDSolver *s)
    void dd_clear_tt(DDSolver *s)
    size_t dd_tt_bytes(const DDSolver *s)
    void dd_set_options(DDSolver *s, unsigned opts)
    void dd_get_stats(const DDSolver *s, DDStats *out)
    void dd_clear_stats(DDSolver *s)
    void dd_set_node_limit(DDSolver *s, uint64_t limit)
    void dd_set_time_limit(DDSolver *s, double seconds)
    void dd_clear_time_limit(DDSolver *s)
    int dd_solve_leader(DDSolver *s, const uint16_t hands[4][4], int trump, int leader)
    void dd_solve_table(DDSolver *s, const uint16_t hands[4][4], int out[5][4])
    int dd_solve_cards(DDSolver *s, const uint16_t hands[4][4], int trump, int first, int ncur,
                       const int *cur_suit, const int *cur_rank, int *out_suit, int *out_rank, int *out_score)
    int dd_make_cards(DDSolver *s, const uint16_t hands[4][4], int trump, int first, int ncur,
                      const int *cur_suit, const int *cur_rank, int target,
                      int *out_suit, int *out_rank, int *out_ok)
    int dd_set_variant(int variant)
    int dd_variant()
    int dd_fast_available()

OPT_TT = 1
OPT_QUICK = 2
OPT_LATER = 4
OPT_ORDER = 8
OPT_EQUIV = 16
OPT_PARTITION = 32
OPT_KILLER = 64
OPT_QT_PARTNER = 128
OPT_CUTCACHE = 256
OPT_ROOT_PROBE = 512
OPT_ALL = 1023
OPT_DEFAULT = OPT_ALL & ~OPT_KILLER   # the killer lead costs nodes beside the cut-off card cache

_VARIANTS = {"auto": 0, "portable": 1, "fast": 2}


def set_core_variant(name: str) -> str:
    """Which build of the search every solver of the process runs: "portable" (any x86-64 CPU), "fast"
    (x86-64-v3: BMI2, LZCNT, AVX2; falls back to portable on older CPUs) or "auto" (fast where supported; the
    [engine] solver_core setting chooses, through ``PlaySettings.solver_core``).  Returns the build now in use.
    Both give the same answers (tests compare them)."""
    return ("", "portable", "fast")[dd_set_variant(_VARIANTS[name])]


def core_variant() -> str:
    """The build of the search in use: "portable" or "fast"."""
    return ("", "portable", "fast")[dd_variant()]


def fast_core_available() -> bool:
    """Does this CPU run the x86-64-v3 build?"""
    return bool(dd_fast_available())


cdef inline void _load(uint16_t h[4][4], object bits4) except *:
    """bits4: four 52-bit ints (engine.cards layout: suit s at bits 13*s..13*s+12)."""
    cdef int i, s
    cdef unsigned long long b
    for i in range(4):
        b = bits4[i]
        for s in range(4):
            h[i][s] = <uint16_t>((b >> (13 * s)) & 0x1FFF)


cdef inline int _load_position(uint16_t h[4][4], int *cs, int *cr, object bits4, object cur) except -1:
    """Hands and the current trick's cards (list of (suit, rank), at most 3) into C arrays; returns their count."""
    cdef int k
    cdef int ncur = len(cur)
    if ncur > 3:
        raise ValueError("a trick in progress holds at most 3 cards")
    _load(h, bits4)
    for k in range(ncur):
        cs[k] = cur[k][0]
        cr[k] = cur[k][1]
    return ncur


cdef inline void _check_root(int n) except *:
    if n == -2:
        raise RuntimeError("node limit reached")
    if n == -3:
        raise TimeoutError("time limit reached")
    if n < 0:
        raise ValueError("inconsistent position (hand lengths, a revoke, or a played card still held)")


cdef class CoreSolver:
    """One search state (transposition table + ordering memory). Not shared between threads."""
    cdef DDSolver *s

    def __cinit__(self, size_t tt_bytes=64 * 1024 * 1024):
        self.s = dd_new(tt_bytes)
        if self.s == NULL:
            raise MemoryError(f"cannot allocate a {tt_bytes}-byte transposition table")

    def __dealloc__(self):
        if self.s != NULL:
            dd_free(self.s)
            self.s = NULL

    @property
    def tt_bytes(self):
        return dd_tt_bytes(self.s)

    def reset(self):
        dd_reset(self.s)

    def clear_tt(self):
        dd_clear_tt(self.s)

    def set_options(self, unsigned opts):
        dd_set_options(self.s, opts)

    def stats(self):
        cdef DDStats st
        dd_get_stats(self.s, &st)
        return {"nodes": st.nodes, "trick_nodes": st.trick_nodes, "tt_hits": st.tt_hits,
                "tt_stores": st.tt_stores, "qt_cuts": st.qt_cuts,
                "cut_first": st.cut_first, "cut_later": st.cut_later, "all_nodes": st.all_nodes,
                "k_sum": st.k_sum, "n_sum": st.n_sum,
                "by_depth": [st.by_depth[i] for i in range(14)],
                "tt_clears": st.tt_clears, "tt_recycled": st.tt_recycled,
                "cut_cached": st.cut_cached}

    def clear_stats(self):
        dd_clear_stats(self.s)

    def set_node_limit(self, uint64_t limit):
        """Abort searches after ``limit`` card nodes counted since the last ``clear_stats`` (0 = none)."""
        dd_set_node_limit(self.s, limit)

    def set_time_limit(self, double seconds):
        """Abort searches ``seconds`` from now (the core's own monotonic clock) until ``clear_time_limit``; an
        aborted entry point raises ``TimeoutError``."""
        dd_set_time_limit(self.s, seconds)

    def clear_time_limit(self):
        dd_clear_time_limit(self.s)

    def solve_leader(self, bits4, int trump, int leader):
        cdef uint16_t h[4][4]
        cdef int r
        _load(h, bits4)
        with nogil:
            r = dd_solve_leader(self.s, h, trump, leader)
        if r in (-2, -3):
            _check_root(r)
        if r < 0:
            raise ValueError("inconsistent position (hands of unequal length or overlapping)")
        return r

    def solve_table(self, bits4):
        """list[5][4]: [strain C,D,H,S,NT][declarer N,E,S,W] -> declarer's tricks."""
        cdef uint16_t h[4][4]
        cdef int out[5][4]
        _load(h, bits4)
        with nogil:
            dd_solve_table(self.s, h, out)
        return [[out[st][d] for d in range(4)] for st in range(5)]

    def solve_cards(self, bits4, int trump, int first, cur):
        """cur: list of (suit, rank) already played to the trick. Returns list of (suit, rank, score)."""
        cdef uint16_t h[4][4]
        cdef int cs[4]
        cdef int cr[4]
        cdef int os[13]
        cdef int orr[13]
        cdef int osc[13]
        cdef int n, k
        cdef int ncur = _load_position(h, cs, cr, bits4, cur)
        with nogil:
            n = dd_solve_cards(self.s, h, trump, first, ncur, cs, cr, os, orr, osc)
        _check_root(n)
        return [(os[k], orr[k], osc[k]) for k in range(n)]

    def make_cards(self, bits4, int trump, int first, cur, int target):
        """Target mode: list of (suit, rank, ok), ok = the side to play takes >= target tricks after that card."""
        cdef uint16_t h[4][4]
        cdef int cs[4]
        cdef int cr[4]
        cdef int os[13]
        cdef int orr[13]
        cdef int ok[13]
        cdef int n, k
        cdef int ncur = _load_position(h, cs, cr, bits4, cur)
        with nogil:
            n = dd_make_cards(self.s, h, trump, first, ncur, cs, cr, target, os, orr, ok)
        _check_root(n)
        return [(os[k], orr[k], ok[k] != 0) for k in range(n)]

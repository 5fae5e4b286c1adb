/* Sure tricks at a trick boundary: the leader's cash-out line (quick tricks), the other side's later tricks, and the
 * defenders' stoppers in notrump (a trick no squeeze can take from them). */
#ifndef SQUEEZE_DD_SURE_TRICKS_H
#define SQUEEZE_DD_SURE_TRICKS_H

#include "core.h"

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
static inline __attribute__((always_inline)) int cash_out_in(const DDSolver *S, int leader, int need, uint16_t win[4],
                                                            int transfers, const int trump) {
    uint16_t hh[4][4];
    memcpy(hh, S->h, sizeof(hh));
    const int l = (leader + 1) & 3, r = (leader + 3) & 3;
    int c = leader, tricks = 0;
    win[0] = win[1] = win[2] = win[3] = 0;
    /* A round the opponents cannot follow is won whatever the ranks; which of our hands wins it only matters if
     * another round follows, so that rank is fixed only then. */
    int pend_s = -1, pend_r = 0;
    while (tricks < need) {
        const int q = c ^ 2;
        const int lt = trump != DD_NT && hh[l][trump], rt = trump != DD_NT && hh[r][trump];
        int keep_s = -1, pass_s = -1, ruff_s = -1, ruff_high = 0, free_s = -1;
        for (int k = 0; k < 4; k++) {
            int s = trump != DD_NT ? (trump + k) & 3 : k;   /* trumps first: drawing them makes side suits safe */
            unsigned hc = hh[c][s];
            if (!hc) continue;
            if (trump != DD_NT && s != trump && ((!hh[l][s] && lt) || (!hh[r][s] && rt))) continue;
            unsigned opp = hh[l][s] | hh[r][s], hq = hh[q][s];
            if (!opp && hq) {   /* only our side holds the suit: cashed as a whole below */
                if (free_s < 0) free_s = s;
                continue;
            }
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
        if (keep_s < 0 && free_s >= 0) {
            /* A suit only our two hands hold: every round is ours, so the longer hand L takes one trick per card
             * if it wins the last round both hands follow, which it can (the other hand unblocking its high
             * cards first) whenever L's top card beats the other's lowest.  Otherwise the suit is blocked: the
             * rounds both follow are won and L's remaining cards stay stranded. */
            const int s = free_s;
            int lc = pc(hh[c][s]), lq = pc(hh[q][s]);
            int L = lc >= lq ? c : q, O = L ^ 2;
            int lo = lc < lq ? lc : lq, hi = lc < lq ? lq : lc;
            int got, end;
            if (pend_s >= 0) { win[pend_s] |= (uint16_t)(1u << pend_r); pend_s = -1; }
            if (hb(hh[L][s]) > lb(hh[O][s])) {
                got = hi;
                end = L;
                if (lc != lq) win[s] |= (uint16_t)(1u << hb(hh[L][s]));   /* the count relies on it */
                else { pend_s = s; pend_r = hb(hh[L][s]); }             /* only who ends on lead does */
                hh[c][s] = hh[q][s] = 0;
                for (int k = hi - lo; k > 0; k--) discard_one(hh, O, trump);
            } else {
                got = lo;
                end = O;
                pend_s = s; pend_r = lb(hh[O][s]);
                hh[O][s] = 0;
                for (int k = lo; k > 0; k--) hh[L][s] &= (uint16_t)(hh[L][s] - 1);   /* L's low cards go */
            }
            tricks += got;
            c = end;
            continue;
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

/* cash_out_in compiled once for notrump and once for a trump suit: with the strain known, the trump tests of its
 * inner loops fold away. */
static int cash_out(const DDSolver *S, int leader, int need, uint16_t win[4], int transfers) {
    if (S->trump == DD_NT) return cash_out_in(S, leader, need, win, transfers, DD_NT);
    return cash_out_in(S, leader, need, win, transfers, S->trump & 3);
}

/* Tricks the side not on lead (D) surely takes later, and sure trump tricks of the leader's side (L): raises
 * *sure_o / *sure_l (with the ranks each rule relies on in ow / lw) when a rule proves more. */
static inline __attribute__((always_inline)) void later_tricks_in(const DDSolver *S, int leader, int tleft,
                                                                  int *sure_l_, uint16_t lw[4], int *sure_o_,
                                                                  uint16_t ow[4], const int t) {
    int sure_l = *sure_l_, sure_o = *sure_o_;
    /* Each rule keeps the ranks it relies on in the win set; the rest hold for any cards of the same lengths. */
    int l1 = (leader + 1) & 3, l3 = (leader + 3) & 3;
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
            {   /* L's top trumps in both hands: each wins a trick, but for those that must fall together (at most
                 * as many tricks as the longer trump hand holds cards) */
                const unsigned lt2 = S->h[leader][t] | S->h[leader ^ 2][t];
                unsigned a2 = aggt, b2 = 0;
                int k = 0;
                int m = pc(S->h[leader][t]), m2 = pc(S->h[leader ^ 2][t]);
                if (m2 > m) m = m2;
                while (a2 && k < m) {
                    int x = hb(a2);
                    if (!((lt2 >> x) & 1u)) break;
                    k++; b2 |= 1u << x; a2 ^= 1u << x;
                }
                if (k > sure_l) { sure_l = k; lw[0] = lw[1] = lw[2] = lw[3] = 0; lw[t] = (uint16_t)b2; }
            }
            /* L holds the top trump; D's second-best trump sitting over it, with a small one beside it,
             * or D's second and third best (one of them guarded: the top one takes only one of them) make a
             * trump trick for D; so does D's third best with two small ones, sitting over the hand that holds
             * the top two */
            if (o2 >= 0 && ((o2 ^ leader) & 1)) {
                if (o1 == ((o2 + 3) & 3) && pc(S->h[o2][t]) >= 2) SET_O(1, t, 1u << r2);
                else if (o3 >= 0 && ((o3 ^ leader) & 1) && (pc(S->h[o2][t]) >= 2 || pc(S->h[o3][t]) >= 2))
                    SET_O(1, t, 1u << r3);
            } else if (o2 == o1 && o3 >= 0 && o1 == ((o3 + 3) & 3) && pc(S->h[o3][t]) >= 3) {
                SET_O(1, t, 1u << r3);
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
            /* L's second-best trump, guarded, sitting over D's top one makes a trump trick for L; when it is the
             * leader's, only with three tricks or more left (with two, he may have to lead from it) */
            if (sure_l < 1 && o2 >= 0) {
                int bit = -1;
                if (!((o2 ^ leader) & 1)) {
                    if (o2 == ((o1 + 1) & 3) && pc(S->h[o2][t]) >= 2 && (o2 != leader || tleft >= 3)) bit = r2;
                    /* L's second and third best: the top one takes only one of them, unless both are singletons
                     * in two hands */
                    else if (o3 >= 0 && !((o3 ^ leader) & 1) &&
                             (o3 == o2 || pc(S->h[o2][t]) >= 2 || pc(S->h[o3][t]) >= 2)) bit = r3;
                } else if (o2 == o1 && o3 >= 0 && !((o3 ^ leader) & 1) && o3 == ((o1 + 1) & 3) &&
                           pc(S->h[o3][t]) >= 3 && (o3 != leader || tleft >= 4)) {
                    bit = r3;   /* L's third best with two small ones over D's top two in one hand */
                }
                if (bit >= 0) { sure_l = 1; lw[0] = lw[1] = lw[2] = lw[3] = 0; lw[t] = (uint16_t)(1u << bit); }
            }
        }
    } else {
        /* No trumps left: in every trick L wins, the suit led is one where L holds the top card, and a
         * suit gives L at most as many tricks as its longer hand holds; if those lengths cannot cover all
         * the tricks left, D takes at least one.  And when the leader holds no suit whose top card is his
         * side's, D wins the first trick; if one defender holds the tops of all the leader's suits, he then
         * cashes the rest of them too (the idea of bridge-solver's slow notrump tricks). */
        int sum = 0, k = 0, lead_top = 0;
        unsigned who = 0;
        uint16_t bits[4] = {0, 0, 0, 0}, tops[4] = {0, 0, 0, 0};
        for (int s = 0; s < 4; s++) {
            unsigned ag = S->h[0][s] | S->h[1][s] | S->h[2][s] | S->h[3][s];
            if (!ag) continue;
            int tr = hb(ag);
            if (((S->h[l1][s] | S->h[l3][s]) >> tr) & 1u) {
                if (ag & ~(1u << tr)) bits[s] = (uint16_t)(1u << tr);
                if (S->h[leader][s]) {
                    k++;
                    tops[s] = (uint16_t)(1u << tr);
                    who |= ((S->h[l1][s] >> tr) & 1u) ? 1u : 2u;
                }
            } else {
                int x = pc(S->h[leader][s]), y = pc(S->h[leader ^ 2][s]);
                sum += x > y ? x : y;
                lead_top |= S->h[leader][s] != 0;
            }
        }
        if (!lead_top && k) {
            int n = who == 3u ? 1 : k;
            if (n > sure_o) { sure_o = n; memcpy(ow, tops, sizeof(tops)); }
        }
        if (sum < tleft && 1 > sure_o) { sure_o = 1; memcpy(ow, bits, sizeof(bits)); }
    }
#undef SET_O
    *sure_l_ = sure_l;
    *sure_o_ = sure_o;
}

/* later_tricks_in compiled for notrump and for a trump suit. */
static inline void later_tricks(const DDSolver *S, int leader, int tleft, int *sure_l, uint16_t lw[4], int *sure_o,
                                uint16_t ow[4]) {
    if (S->trump == DD_NT) later_tricks_in(S, leader, tleft, sure_l, lw, sure_o, ow, DD_NT);
    else later_tricks_in(S, leader, tleft, sure_l, lw, sure_o, ow, S->trump & 3);
}


/* Notrump, the side on lead (MAX) needs every trick: can the defenders be sure of one, squeezes included?
 *
 * A defender D "stops" suit s with his highest card g of it when every MAX card above g (c of them) sits in the
 * one MAX hand H that D plays after, H's partner holds none, and D holds at least c + 1 cards of s.  D keeps g
 * and discards everything else first.  Whenever MAX's cards in a trick of s are below g, D can win it with g (he
 * plays after H, and H's partner cannot beat g), and MAX needs every trick; so each trick MAX wins in s spends one
 * of its c cards above g.  Once D holds nothing but cards of s, at most one trick per such card still out remains.
 * In every other suit MAX wins at most the longer of its two hands' holdings (that hand plays one card on each
 * round).  With one stopper per defender (two suits), if those counts add up to fewer than the tricks left, the
 * defenders take a trick.  The set: the lengths (in the key) and, in each stopped suit, the owners of g and of
 * every card above it.  Returns 1 with the set in w.
 *
 * later_tricks' notrump count (every suit whose top card the defenders hold left out) covers top cards; this adds
 * guards by length, one suit per defender.  It is called apart, only where the side on lead needs every trick and
 * the cheaper counts failed, because that is the only place its one trick settles a node. */
static int stoppers_settle(const DDSolver *S, const Trick *T, int tleft, uint16_t w[4]) {
    const int m1 = S->maxside, m2 = m1 + 2;
    int mx[4], sum = 0;
    for (int s = 0; s < 4; s++) {
        const int a = pc(S->h[m1][s]), b = pc(S->h[m2][s]);
        mx[s] = a > b ? a : b;
        sum += mx[s];
    }
    int gain[2] = {0, 0}, su[2] = {-1, -1};
    uint16_t fix[2] = {0, 0};
    for (int k = 0; k < 2; k++) {
        const int d = (m1 ^ 1) + 2 * k;   /* the defender */
        const int h = (d + 3) & 3;        /* the MAX hand he plays after */
        for (int s = 0; s < 4; s++) {
            const unsigned ds = S->h[d][s];
            if (!ds) continue;
            const int g = hb(ds);
            const unsigned above = T->agg[s] & ~((2u << g) - 1u);
            if (S->h[h ^ 2][s] & above) continue;
            const int c = pc(S->h[h][s] & above);
            if (pc(ds) < c + 1 || mx[s] - c <= gain[k]) continue;
            gain[k] = mx[s] - c;
            su[k] = s;
            fix[k] = (uint16_t)(T->agg[s] & ~((1u << g) - 1u));
        }
    }
    if (su[0] >= 0 && su[0] == su[1]) {   /* both defenders stop the same suit: it counts once */
        const int drop = gain[0] >= gain[1] ? 1 : 0;
        su[drop] = -1;
        gain[drop] = 0;
    }
    if (sum - gain[0] - gain[1] >= tleft) return 0;
    w[0] = w[1] = w[2] = w[3] = 0;
    for (int k = 0; k < 2; k++)
        if (su[k] >= 0) w[su[k]] |= fix[k];
    return 1;
}

#endif

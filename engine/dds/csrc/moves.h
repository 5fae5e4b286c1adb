/* Move generation and ordering: groups of equivalent cards, weighted by bridge heuristics. */
#ifndef SQUEEZE_DD_MOVES_H
#define SQUEEZE_DD_MOVES_H

#include "core.h"

static inline __attribute__((always_inline)) int gen_moves_in(DDSolver *S, Trick *T, int p, const int pos, int tleft,
                                                             Move *mv, const int trump) {
    int n = 0;
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
    const int s_from = follow ? ls : 0, s_to = follow ? ls + 1 : 4;
    for (int s = s_from; s < s_to; s++) {
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
                /* partner void and unable to ruff: he can neither win nor unblock the suit */
                if (!S->h[q][s] && (trump == DD_NT || !S->h[q][trump])) ws -= 25;
                if (trump == DD_NT) ws += 2 * pc(ours) - pc(theirs);
                else if (s == trump && ((ours >> topr) & 1u)) ws += 20;
            } else if (s != ls && !(trump != DD_NT && s == trump)) {
                /* discarding: from long suits, low cards; not a stiff winner nor the guard of a second-best card
                 * (as in DDS: length matters more than rank) */
                ws = -10 + 3 * pc(hs);
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
                    /* opponents hold the top: the top of an honour sequence, else high cards first (they force
                     * the opponents' honours out; leading low first measured 1.4x the nodes on PIMC batches) */
                    else if (pc(g) >= 2 && top >= 8) w += 15;
                    else w += top;
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
                        /* second hand cannot win the trick: split a sequence of honours (it costs nothing and
                         * forces third hand's cards out), else the cheapest card above the lead, then a card below
                         * all of third hand's or all of partner's cards (it decides nothing), then cards below the
                         * lead (as DDS orders them) */
                        else if (g & (g - 1)) w = 45 + top;
                        else if ((S->h[l][ls] && top < lb(S->h[l][ls])) || (S->h[q][ls] && top < lb(S->h[q][ls])))
                            w = 8 - top;
                        else w = 15 - top;
                    } else {
                        w = pos == 1 ? 5 - top : 40 - top;
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

/* gen_moves_in compiled for leads and follows, notrump and a trump suit: with those known, most of its tests fold
 * away. */
static int gen_moves(DDSolver *S, Trick *T, int p, int pos, int tleft, Move *mv) {
    if (S->trump == DD_NT) {
        if (pos == 0) return gen_moves_in(S, T, p, 0, tleft, mv, DD_NT);
        return gen_moves_in(S, T, p, pos, tleft, mv, DD_NT);
    }
    if (pos == 0) return gen_moves_in(S, T, p, 0, tleft, mv, S->trump & 3);
    return gen_moves_in(S, T, p, pos, tleft, mv, S->trump & 3);
}

#endif

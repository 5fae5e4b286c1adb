"""Calibration of the card-location posterior: Brier score of P(West holds card), uniform vs weighted worlds.

Self-play: random deals; the declaring seat and strain are the double-dummy best of the deal; all four seats play
double-dummy-best cards (random among equals), except that with probability ``--blunder`` a player picks a random
legal card (so the players are good, not perfect: the player model is not told the truth exactly).

Declarer's view at the start of ``--checkpoints`` tricks per deal drawn at random from 2..10 (every checkpoint costs
a replay of all the evidence so far in every world, so a few per deal cover tricks 2..10 across the deals): declarer and dummy are known, the defenders' played cards and shown
voids are hard facts. N worlds are dealt uniformly over the layouts consistent with those facts
(``engine.sampling``). *Uniform*: every world weighs the same. *Weighted*: each world is weighted by the likelihood
of every card the defenders have played so far under ``engine.inference.DoubleDummyPlayer``, from trick
``--evidence-from`` on (default 2: trick 1 is left out because a lead is made without seeing dummy, which a
double-dummy model describes badly, and because its 52-card solves would cost three quarters of the run; the hard
facts of trick 1 are used by both). For every unseen card, the prediction P(West holds it) is scored against the actual deal:
Brier = mean (p - [West holds it])^2 over all (deal, trick, card). Lower is better; both use the same worlds.

Double-dummy solver: endplay's DDS (a test/bench oracle) by default; ``--oracle engine`` uses engine.dds.

    .venv/bin/python bench/inference.py [--quick]
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from squeeze.engine.auction import Contract  # noqa: E402
from squeeze.engine.board import Play  # noqa: E402
from squeeze.engine.cards import Card, Deal, Seat  # noqa: E402
from squeeze.engine.play.inference import DoubleDummyPlayer, WorldPosterior, evidence  # noqa: E402
from squeeze.engine.view import SeatView  # noqa: E402
from squeeze.engine.sampling import WorldSampler  # noqa: E402

_RANKS = "23456789TJQKA"


class EndplayOracle:
    """endplay's DDS behind the DDOracle protocol (``solve_cards_many``). Bench/test only."""

    def __init__(self) -> None:
        import endplay.dds as edds
        from endplay.types import Deal as EDeal, Denom, Player

        self._edds, self._EDeal, self._Denom, self._Player = edds, EDeal, Denom, Player
        self.calls = 0

    def _pbn(self, hands) -> str:
        out = []
        for h in hands:
            out.append(".".join("".join(_RANKS[r] for r in range(12, -1, -1) if h >> (13 * s + r) & 1)
                                for s in (3, 2, 1, 0)))
        return "N:" + " ".join(out)

    def solve_cards_many(self, positions):
        res = []
        for p in positions:
            hands = list(p.hands)
            for i, c in enumerate(p.trick):
                hands[(p.leader + i) % 4] |= 1 << c
            d = self._EDeal.from_pbn(self._pbn(hands))
            d.first = self._Player(p.leader)
            d.trump = self._Denom(4 if p.trump == 4 else 3 - p.trump)
            for c in p.trick:
                s, r = divmod(c, 13)
                d.play(f"{'CDHS'[s]}{_RANKS[r]}")
            scores = {}
            for card, tricks in self._edds.solve_board(d):
                suit = 3 - int(card.suit)
                rank = int(card.rank).bit_length() - 1
                scores[13 * suit + rank - 2] = tricks
            res.append(scores)
        self.calls += len(positions)
        return res


def make_oracle(name: str):
    if name == "endplay":
        return EndplayOracle(), "endplay DDS"
    from squeeze.engine.play.oracle import default_oracle

    return default_oracle(), "engine.dds"


def dd_choice(oracle, pos, rng: random.Random, blunder: float) -> int:
    legal = pos.legal()
    cards = [c for c in range(52) if legal >> c & 1]
    if len(cards) == 1:
        return cards[0]
    if rng.random() < blunder:
        return rng.choice(cards)
    scores = oracle.solve_cards_many([pos])[0]
    best = max(scores[c] for c in cards if c in scores)
    return rng.choice([c for c in cards if scores.get(c) == best])


def self_play(deal: Deal, oracle, rng: random.Random, blunder: float):
    """(declarer, trump, cards played as (seat, index) in order) for 9+ tricks of DD-best play."""
    from squeeze.engine.play.position import SearchPosition

    import endplay.dds as edds
    from endplay.types import Deal as EDeal

    table = edds.calc_dd_table(EDeal.from_pbn(deal.to_pbn()))
    best = (-1, None, None)
    for denom_i, strain in ((4, 4), (0, 3), (1, 2), (2, 1), (3, 0)):
        for seat in range(4):
            t = table.to_list()[denom_i][seat]
            if t > best[0]:
                best = (t, seat, strain)
    _, declarer, trump = best
    pos = SearchPosition(tuple(h.bits for h in deal.hands), (), (declarer + 1) % 4, trump)
    seq = []
    for _ in range(40):  # ten tricks are enough for checkpoints 2..10
        seat = pos.to_move
        c = dd_choice(oracle, pos, rng, blunder)
        seq.append((seat, c))
        pos, _w = pos.play(c)
    return declarer, trump, seq


def evaluate_deal(deal: Deal, declarer: int, trump: int, seq, model, n_worlds: int, rng: random.Random, tricks,
                  evidence_from: int = 2, n_prior: int = 2000):
    """Per checkpoint trick t in ``tricks``: list of (p_uniform, p_weighted, outcome) over the unseen cards."""
    defenders = ((declarer + 1) % 4, (declarer + 3) % 4)
    west = defenders[1]  # declarer's LHO is defenders[0]; we predict P(defenders[1] holds card)
    out = {}
    for t in tricks:
        # declarer's view (the level does not matter here: only the strain and declarer do)
        play = Play(deal, Contract(1, trump, declarer=Seat(declarer)),
                    [Card.from_index(c) for _, c in seq[: 4 * (t - 1)]])
        seen = [(seat, c, cx) for k, (seat, c, cx) in enumerate(evidence(play.public))
                if seat in defenders and k // 4 + 1 >= evidence_from]
        view = SeatView.from_play(play, Seat(declarer))
        played_by = [play.public.played_by(s) for s in Seat]
        sampler = WorldSampler(view.known_cards(), view.constraints())
        worlds = sampler.sample(n_worlds, rng)
        # Dealing is cheap: the uniform baseline gets many worlds; only the weighted worlds need solving.
        prior = sampler.sample(n_prior, rng).marginals()
        post = WorldPosterior.uniform(worlds)
        uni_same = post.marginals()[west]
        for seat, c, cx in seen:
            post = post.observe_card(seat, c, cx, model)
        wtd_raw = post.marginals()[west]
        wtd = post.marginals(prior)[west]
        uni = prior[west]
        unseen = [i for i in range(52) if (deal[defenders[0]].bits | deal[defenders[1]].bits) >> i & 1
                  and not (played_by[defenders[0]] | played_by[defenders[1]]) >> i & 1]
        truth = deal[west].bits
        out[t] = [(float(uni[i]), float(wtd[i]), 1.0 if truth >> i & 1 else 0.0, float(uni_same[i]),
                   float(wtd_raw[i])) for i in unseen]
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--deals", type=int, default=None)
    ap.add_argument("--worlds", type=int, default=None)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--sharpness", type=float, default=DoubleDummyPlayer.sharpness)
    ap.add_argument("--noise", type=float, default=DoubleDummyPlayer.noise)
    ap.add_argument("--checkpoints", type=int, default=2, help="random checkpoint tricks (2..10) per deal")
    ap.add_argument("--evidence-from", type=int, default=2,
                    help="first trick whose defender cards weigh the worlds (1 = include the opening lead)")
    ap.add_argument("--blunder", type=float, default=0.1)
    ap.add_argument("--prior-worlds", type=int, default=2000,
                    help="worlds dealt (not solved) for the uniform marginals, also the weighted's control variate")
    ap.add_argument("--oracle", choices=("endplay", "engine"), default="endplay")
    args = ap.parse_args()
    n_deals = args.deals or (96 if args.quick else 300)
    n_worlds = args.worlds or (24 if args.quick else 32)
    oracle, oracle_name = make_oracle(args.oracle)
    model = DoubleDummyPlayer(oracle=oracle, sharpness=args.sharpness, noise=args.noise)
    rng = random.Random(args.seed)
    print(f"deals={n_deals} worlds={n_worlds} sharpness={args.sharpness} noise={args.noise} "
          f"self-play blunder rate={args.blunder} checkpoints/deal={args.checkpoints} "
          f"evidence from trick {args.evidence_from} solver={oracle_name}", flush=True)
    per_trick: dict[int, list] = {t: [] for t in range(2, 11)}
    per_deal_diff = []
    t0 = time.perf_counter()
    for i in range(n_deals):
        deal = Deal.random(rng)
        declarer, trump, seq = self_play(deal, oracle, rng, args.blunder)
        tricks = sorted(rng.sample(range(2, 11), min(args.checkpoints, 9)))
        res = evaluate_deal(deal, declarer, trump, seq, model, n_worlds, rng, tricks, args.evidence_from,
                            args.prior_worlds)
        rows = [r for t in tricks for r in res[t]]
        for t in tricks:
            per_trick[t].extend(res[t])
        b = _brier(np.array(rows))
        per_deal_diff.append(b[0] - b[1])
        if (i + 1) % max(1, n_deals // 10) == 0:
            print(f"  {i + 1}/{n_deals} deals, {time.perf_counter() - t0:.0f}s, {model.solves} likelihood solves",
                  flush=True)
    print(f"{'trick':>6}{'cards':>8}{'uniform':>10}{'weighted':>10}   | same {n_worlds} worlds, no control variate:"
          f"{'uniform':>9}{'weighted':>10}")
    all_rows = []
    for t in range(2, 11):
        if not per_trick[t]:
            continue
        all_rows.extend(per_trick[t])
        b = _brier(np.array(per_trick[t]))
        print(f"{t:>6}{len(per_trick[t]):>8}{b[0]:>10.4f}{b[1]:>10.4f}   | {'':>37}{b[2]:>9.4f}{b[3]:>10.4f}")
    b = _brier(np.array(all_rows))
    d = np.array(per_deal_diff)
    se = float(d.std(ddof=1) / math.sqrt(len(d))) if len(d) > 1 else float("nan")
    print(f"overall Brier: uniform {b[0]:.4f} ({args.prior_worlds} worlds), weighted {b[1]:.4f} ({n_worlds} solved "
          f"worlds + uniform control variate); per-deal improvement {d.mean():.4f} +- {se:.4f} (1 s.e.), weighted "
          f"better on {int((d > 0).sum())}/{len(d)} deals; same-worlds raw: uniform {b[2]:.4f}, weighted {b[3]:.4f}; "
          f"{time.perf_counter() - t0:.0f}s")
    print(f"RESULT brier_uniform={b[0]:.4f} brier_weighted={b[1]:.4f} improvement_se={se:.4f} "
          f"brier_uniform_same_worlds={b[2]:.4f} brier_weighted_raw={b[3]:.4f} deals={n_deals} worlds={n_worlds} "
          f"solver={oracle_name.replace(' ', '_')}")


def _brier(rows: np.ndarray) -> np.ndarray:
    """Rows (p_uniform, p_weighted, outcome, p_uniform_same_worlds, p_weighted_raw) -> four Brier scores."""
    o = rows[:, 2]
    return np.array([np.mean((rows[:, k] - o) ** 2) for k in (0, 1, 3, 4)])


if __name__ == "__main__":
    main()

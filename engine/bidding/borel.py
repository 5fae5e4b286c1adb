"""Borel simulation on top of the rule database (GIB's Alg 4.0.2, ``../shared/research/seed-gib-jair.md`` §1.7).

At a *close* decision the rules' call is weighed against a few sane alternatives by dealing worlds that fit the
auction, finishing the auction in each world with the rule database for all four seats, and scoring every final
contract double dummy:

1. **Candidates** (``BorelBidder.options``): the rules' call, the other calls whose rules this hand also satisfies
   (``BidChoice.matching``: every later rule that holds, when that rule is also how partner reads the call; rules
   marked ``simulate`` are such calls by design), and *sane neighbours*: one
   level more or the game in a strain our side has shown, or pass instead of a non-forcing bid. A neighbour that our
   system reads as conventional is left out (partner would answer a question we did not mean to ask). One sane
   candidate: no simulation, the rules' call costs nothing extra (most calls).
2. **Worlds** from the sampler under what every call of the auction showed and denied (``Bidder.explain_auction``
   gives exact predicates, so each world's hands would have made every call so far: the likelihood of the
   auction, which for a deterministic rule database is 0 or 1). When the sampler must drop the opponents' or
   partner's constraints (``play.relax``), each world is weighted ``relaxed_weight ** k``, ``k`` the past calls its
   hands would not have made: the likelihood under a rule database that errs now and then.
3. **Projection**: the candidate, then the rules' call for whoever is to act (our system for our side, the
   opponents' system for theirs) until the auction ends. Final contracts of all candidates and worlds are solved in
   one threaded batch (``Solver.solve_leaders``, duplicates once).
4. **Choice**: per world, IMPs of each candidate against the rules' call (teams), or the difference in total points
   (``scoring="matchpoints"``).

Guards, against GIB's known failures (over-compensating a conservative database, exploiting its gaps, trusting a
sample too far):

* the rules' call stands unless a candidate's mean gain, less ``z`` standard errors, exceeds the margin
  (``margin_imps`` / ``margin_points``);
* **gaps**: in every world where the deviation gains ``gap_imps`` or more, the deal's double-dummy par is
  computed (``Solver.solve_tables``); a world where the deviation's projected result beats par by ``gap_imps`` or
  more (the opponents' projected bidding fell far short of what they could do: a database gap, not a gain) counts
  as no gain, and so does a world the time left no check for; the test is then made again (for the two best
  candidates; the better that still passes is bid);
* **never** overruled: a forcing, invitational or conventional rules' call (an invitation lets partner decide
  with what he holds; accepting or declining one is simulated), an answer to partner's conventional call, a pass
  when partner's call forces us (or below game in a game-forcing auction), a decision no rule covers (the
  catch-all pass), and the first calls of a side (openings and first actions: the least informed worlds, and the
  rules there are the system's backbone);
* **confirmed**: the call that passes is weighed again, against the rules' call alone, on fresh worlds (``confirm``:
  the worlds that chose it among several candidates overrate it), and bid only if it passes there too;
* **anytime**: the decision ends by its deadline (the call's budget, ``PlayerParams.seconds_per_call``, or the one
  given); whatever stage runs out of time, the answer is the rules' call.

Every override comes back with its evidence (``BidChoice.override``, a ``BorelOverride``, which whoever runs the
engine logs as ``bidding.borel_override``), and its explanation names the rule it overrode and why, in words.
"""

from __future__ import annotations

import dataclasses
import random
import time
from dataclasses import dataclass, field
from typing import Literal, Sequence

import numpy as np

from ..auction import PASS, Auction, Call, Contract
from ..cards import BridgeError, Deal, Seat, Strain, Vul
from ..deadline import DeadlineReached, earliest, expired, slice_of
from ..play.relax import Relaxation, RelaxingSampler
from ..scoring import GAME_LEVEL, IMP_BOUNDARIES, imps, par, score
from ..stats import effective_sample_size, weighted_mean_se
from ..view import SeatView
from .interpreter import BidChoice, Bidder

__all__ = ["BorelSettings", "BorelBidder", "BorelReport", "BorelOverride", "is_override"]

_MAX_PROJECTED_CALLS = 60  # an auction always ends (bids rise); a bound all the same, against a looping system
#: How an overriding call's explanation starts its account of the simulation (``is_override`` reads it back).
OVERRIDE_MARK = "(simulation over "


@dataclass(frozen=True)
class BorelSettings:
    """Borel simulation's parameters (``[engine] borel_*`` settings; ``engine_params`` builds one)."""

    enabled: bool = True  # simulate close decisions (off: the rules alone)
    worlds: int = 16  # worlds dealt per simulated decision
    min_worlds: int = 8  # fewer worlds projected and solved by the deadline: the rules' call
    scoring: Literal["imps", "matchpoints"] = "imps"  # teams: IMPs against the rules' call; matchpoints: points
    margin_imps: float = 0.3  # teams: the gain, less z standard errors, must exceed this (IMPs a deal)
    margin_points: float = 20.0  # matchpoints: likewise, in total points a deal
    z: float = 0.5  # standard errors taken off the mean gain before it is compared with the margin
    gap_imps: int = 5  # a world where the deviation beats the deal's par by this many IMPs is a database gap
    # An undoubled final contract that fails by this many tricks double dummy is scored doubled (0: never). The
    # rules finishing the auction seldom double, so without it running from a doubled contract to a higher one
    # looked cheap: after 1S 1N X a hand of 0 HCP "escaped" to 3NT, which a real opponent doubled (-800; a board of
    # the BEN replay). Defenders who can count two undertricks double them.
    double_failing: int = 2
    max_candidates: int = 4  # calls weighed at one decision, the rules' call included
    threads: int = 2  # solver threads for the batch of final contracts
    relaxed_weight: float = 0.1  # a relaxed world's weight per past call its hands would not have made
    time_share: float = 0.9  # share of the call's time the simulation may use (the rest is the margin)
    # Sequential simulation: the worlds are dealt, projected and solved in rounds (min_worlds first, then
    # round_worlds at a time) and the simulation stops, keeping the rules' call, once no candidate could still pass
    # the margin: every candidate's mean gain plus stop_z standard errors is below it. Most simulated calls keep
    # the rules' call, and most of those are clear after the first round (bench/borel_cost.py: about half the CPU
    # of dealing and solving 24 worlds at once).
    sequential: bool = True
    round_worlds: int = 4
    stop_z: float = 1.0
    # Confirmation on fresh worlds: a call that passes the test is weighed once more against the rules' call on
    # `worlds` newly dealt worlds and bid only if it passes there too. The first worlds chose it among several
    # candidates, so its gain there is biased upward (the winner's curse): the rules' call is the system's choice and
    # most alternatives are worse, so a noisy sample often crowns one. Re-simulated with fresh seeds, 10 of the
    # final BEN replay's 33 overrides never came back (those boards lost 45 IMPs against the same boards bid without
    # simulation); an independent sample judges the chosen call without that bias.
    confirm: bool = True

    def __post_init__(self) -> None:
        if self.worlds < 1 or not 1 <= self.min_worlds <= self.worlds:
            raise BridgeError(f"borel worlds must be >= 1 and 1 <= min_worlds <= worlds, got {self.worlds}, "
                              f"{self.min_worlds}")
        if self.scoring not in ("imps", "matchpoints"):
            raise BridgeError(f"borel scoring must be 'imps' or 'matchpoints', got {self.scoring!r}")
        if self.max_candidates < 2 or self.threads < 1 or not 1 <= self.gap_imps <= len(IMP_BOUNDARIES):
            raise BridgeError("borel max_candidates must be >= 2, threads >= 1 and gap_imps 1..24")
        if not 0 < self.time_share <= 1 or not 0 <= self.relaxed_weight <= 1 or self.z < 0:
            raise BridgeError("borel time_share must be in (0, 1], relaxed_weight in [0, 1], z >= 0")
        if self.round_worlds < 1 or self.stop_z < 0:
            raise BridgeError("borel round_worlds must be >= 1 and stop_z >= 0")
        if not 0 <= self.double_failing <= 13:
            raise BridgeError(f"borel double_failing must be 0..13 (0: never), got {self.double_failing}")


@dataclass
class BorelReport:
    """What one decision did (``BorelBidder.last``): for logs, benches and tests."""

    rules_call: Call
    call: Call
    candidates: tuple[Call, ...] = ()
    why_not: str = ""  # why the decision was not simulated, or why the simulation kept the rules' call
    simulated: bool = False
    worlds: int = 0  # worlds projected and solved
    rung: str = ""  # what the sampler had to drop ('' for nothing)
    gains: dict = field(default_factory=dict)  # call text -> (mean gain, standard error) against the rules' call
    distrusted: int = 0  # worlds whose gain was set aside as a database gap (or left unchecked)
    seconds: float = 0.0
    cut_short: bool = False
    stages: dict = field(default_factory=dict)  # seconds spent sampling, projecting, solving, checking gaps
    relaxations: tuple[Relaxation, ...] = ()  # the rungs the sampler gave up
    confirmed: int = 0  # fresh worlds on which the overriding call passed again (``confirm``)


@dataclass(frozen=True)
class BorelOverride:
    """The evidence of a call that overrode the rules' (``BidChoice.override``): who, where, what each candidate
    gained, and over how many worlds."""

    seat: str  # the seat's letter
    board: int
    auction: str  # the calls so far, blank-separated
    hand: str
    rule: str  # the rule whose call was overridden
    rules_call: str
    call: str
    gains: dict  # call text -> (mean gain, standard error) against the rules' call
    worlds: int
    distrusted: int  # worlds whose gain was set aside as a database gap (or left unchecked)
    relaxed: str  # what the sampler had to drop ('' for nothing)
    better: int  # worlds where the call did better than the rules', and worse
    worse: int
    confirmed: int = 0  # fresh worlds on which it passed again (``BorelSettings.confirm``; 0: not asked)


class BorelBidder:
    """Rules plus simulation for one system (and the opponents' system, by default the same).

    ``choose(view, rng, deadline)`` has ``Player.bid``'s contract: a ``BidChoice`` by the deadline. ``counts`` keeps
    the totals a bench reports (decisions, simulated, overrides, seconds spent simulating); ``last`` the report of
    the latest decision. ``ours``: the rules of our side's system (and the opponents', as it reads them); the
    opponents bid theirs, reading ours."""

    def __init__(self, ours: Bidder, settings: BorelSettings | None = None, solver=None,
                 core: str | None = None) -> None:
        self.settings = settings or BorelSettings(enabled=True)
        self.ours: Bidder = ours
        self.theirs: Bidder = Bidder.of(ours.opponents, ours.system)
        self._solver = solver
        self._core = core  # the build of the search to run (``PlaySettings.solver_core``), set with the solver
        self.counts = {"decisions": 0, "simulated": 0, "overrides": 0, "seconds": 0.0, "cut_short": 0}
        self.last: BorelReport | None = None

    @property
    def solver(self):
        if self._solver is None:
            from ..dds import Solver  # the compiled core, built on the first simulated decision

            self._solver = Solver()
            if self._core is not None:
                from ..play.oracle import set_solver_core

                set_solver_core(self._core)
        return self._solver

    # --- candidates ----------------------------------------------------------------------------------------------
    def _producer(self, auction: Auction, vul: Vul, call: Call):
        """The first rule instance of our system that makes ``call`` here (how partner reads it), or None."""
        calls = tuple(auction.calls)
        for c in self.ours.candidates(auction.dealer, calls, vul, int(auction.next_seat) & 1):
            if c.call == call and not c.rule.id.startswith("__"):
                return c
        return None

    def _conventional(self, auction: Auction, vul: Vul, call: Call) -> bool:
        p = self._producer(auction, vul, call)
        return p is not None and (p.rule.spec.artificial or p.rule.spec.alert)

    def options(self, view: SeatView, rules: BidChoice) -> tuple[list[Call], str]:
        """The calls to weigh at this decision, the rules' call first, and (when it is the only one) why."""
        a, vul, me, hand = view.auction, view.vul, view.seat, view.hand
        if rules.cut_short:
            return [rules.call], "the rules' search was cut short"
        if rules.rule_id.startswith("__"):
            return [rules.call], "no rule of the system covers this hand here (a database gap is not simulated)"
        if rules.force in ("forcing", "game_forcing"):
            return [rules.call], "the rules' call is forcing"
        if rules.force == "invitational":
            # an invitation hands the decision to partner, who knows his own hand better than any sample: bidding
            # game (or stopping) instead is GIB's over-compensation for a database it thinks conservative
            return [rules.call], "the rules' call is an invitation: partner decides with what he holds"
        try:
            spec = self.ours.system.rule(rules.rule_id).spec
        except KeyError:
            spec = None
        if rules.alert or (spec is not None and spec.artificial):
            return [rules.call], "the rules' call is conventional"
        calls, dealer, parity = tuple(a.calls), a.dealer, int(me) & 1
        st = self.ours.state(dealer, calls, vul, parity)
        if st["mybids"] + st["pbids"] == 0:
            return [rules.call], "our side has not bid yet (openings and first actions follow the rules)"
        rd = self.ours.readings(dealer, calls, vul, parity)
        part = [x for x in rd if x.seat == me.partner]
        if part and part[-1].candidate is not None and (part[-1].candidate.rule.spec.artificial
                                                        or part[-1].candidate.rule.spec.alert):
            return [rules.call], "partner's conventional call asks for the system's answer"
        no_pass = bool(st["forced"] or (st["gf"] and st["below_game"]))
        out: list[Call] = [rules.call]

        def add(call: Call, natural_only: bool = True) -> None:
            if call in out or not a.is_legal(call) or (call.is_pass and no_pass):
                return
            if natural_only and call.is_bid and self._conventional(a, vul, call):
                return
            out.append(call)

        # close calls: the other rules this hand satisfies here (natural ones; every matching rule, not only
        # those offered to a reader as alternatives: a value layer's game is a close call to weigh)
        for call, rule_id, _text in rules.matching:
            try:
                alt = self.ours.system.rule(rule_id).spec
            except KeyError:
                continue
            if alt.artificial or alt.alert or alt.force in ("forcing", "game_forcing"):
                continue
            if call.is_double and not (spec is not None and spec.simulate) and not rules.call.is_pass:
                continue  # a double weighed against a bid changes the auction's meaning too much
            reader = self._producer(a, vul, call)
            if reader is not None and reader.rule.id != rule_id:
                # partner (and the opponents, told its explanation) read the call by an earlier rule that this hand
                # does not satisfy - 2D as "six or more diamonds" from a hand that holds five: a call the system
                # does not make with this hand would be misinformation, whatever the worlds say it scores
                continue
            add(call)
        # sane neighbours, in the strains our side has shown
        shown = set(st["psuits"]) | set(st["mysuits"])
        if st["pnt"] or st["mynt"]:
            shown.add(4)
        r = rules.call
        if r.is_bid:
            s = int(r.strain)
            if s in shown or s == 4 or s == st["fit"]:
                up = Call.bid(r.level + 1, s) if r.level < 7 else None
                game = GAME_LEVEL[Strain(s)]
                if r.level < game <= r.level + 2:
                    add(Call.bid(game, s))
                if up is not None and up.level <= game:
                    add(up)
                if r.level == game and hand.hcp + st["plo"] >= 30 and r.level < 6:
                    add(Call.bid(6, s))
            add(PASS)
        elif r.is_pass:
            last = a.last_bid
            targets = []
            if st["fit"] >= 0:
                targets.append(st["fit"])
            if st["plast"] >= 0:
                targets.append(st["plast"])
            if st["pnt"] and last is not None and last.strain == Strain.NOTRUMP and a.last_bidder == me.partner:
                targets.append(4)
            for s in dict.fromkeys(targets):
                cheapest = (1 if last is None else last.level if s > int(last.strain) else last.level + 1)
                game = GAME_LEVEL[Strain(s)]
                if cheapest <= game:
                    add(Call.bid(cheapest, s))
                    if cheapest < game <= cheapest + 1:
                        add(Call.bid(game, s))
        elif r.is_double:
            add(PASS)
        return out[: self.settings.max_candidates], ("" if len(out) > 1 else "no sane alternative to the rules' call")

    # --- the decision --------------------------------------------------------------------------------------------
    def choose(self, view: SeatView, rng: random.Random, deadline: float | None = None,
               seconds: float = 2.0) -> BidChoice:
        """The call for ``view`` by ``deadline`` (absolute) and within ``seconds`` of now (the call's budget)."""
        t0 = time.monotonic()
        a = view.auction
        if a is None or a.is_complete or a.next_seat != view.seat:
            raise BridgeError("Borel simulation needs the seat to act in an auction in progress")
        rules = self.ours.choose(view.hand, a, view.vul, alternatives=True, deadline=deadline)
        self.counts["decisions"] += 1
        cands, why = self.options(view, rules)
        report = BorelReport(rules.call, rules.call, tuple(cands), why)
        self.last = report
        if len(cands) < 2:
            return _plain(rules)
        end = earliest(deadline, t0 + seconds)
        end = None if end is None else t0 + self.settings.time_share * max(0.0, end - t0)
        report.simulated = True
        self.counts["simulated"] += 1
        try:
            choice = self._simulate(view, rules, cands, rng, end, report)
        except DeadlineReached as exc:
            report.cut_short, report.why_not = True, f"out of time ({exc}): the rules' call"
            self.counts["cut_short"] += 1
            choice = _plain(rules)
        report.seconds = time.monotonic() - t0
        self.counts["seconds"] += report.seconds
        report.call = choice.call
        return dataclasses.replace(choice, relaxations=report.relaxations) if report.relaxations else choice

    def _simulate(self, view: SeatView, rules: BidChoice, cands: list[Call], rng: random.Random,
                  end: float | None, report: BorelReport) -> BidChoice:
        st = self.settings
        a, vul, me = view.auction, view.vul, view.seat
        whole = end
        if st.confirm and end is not None:
            end = slice_of(end, 0.6)  # the rest is the confirmation's
        # 1-3. worlds, their projections and their final contracts, in rounds (``sequential``): min_worlds first,
        # then round_worlds at a time, each round dealt, projected and solved before the next is dealt, and the
        # simulation stops, keeping the rules' call, once no candidate could still pass the margin. Most simulated
        # calls keep the rules' call, and most of those are clear after the first round: the worlds not dealt cost
        # nothing. A world where every candidate ends in the same contract needs no solving.
        constraints = self.ours.explain_auction(a, vul, viewpoint=me, alerted=view.alerted,
                                                explanations=dict(view.explanations))
        sampler = RelaxingSampler(view, constraints, deadline=slice_of(end, 0.25))
        margin = st.margin_imps if st.scoring == "imps" else st.margin_points
        sizes = ([st.min_worlds] + [st.round_worlds] * -(-(st.worlds - st.min_worlds) // st.round_worlds)
                 if st.sequential else [st.worlds])
        deals: list[Deal] = []
        finals: list[list[Contract | None]] = []
        scores = np.zeros((st.worlds, len(cands)))
        ok = np.ones(st.worlds, dtype=bool)
        weights = np.ones(st.worlds)
        solve_end = slice_of(end, 0.8)
        for k, size in enumerate(sizes):
            size = min(size, st.worlds - len(deals))
            t = time.monotonic()
            if k > 0:  # a later round: the rung the first settled on (worlds of one rung are weighed alike)
                sampler.start, sampler.deadline = sampler.rung, slice_of(solve_end, 0.25)
            try:
                worlds = sampler.sample(size, rng)
            except DeadlineReached:
                if k == 0:
                    raise
                break  # out of time for more worlds: decide on those solved
            finally:
                report.relaxations = tuple(sampler.relaxations)
            report.stages["sample"] = report.stages.get("sample", 0.0) + time.monotonic() - t
            if k == 0:
                report.rung = sampler.relaxed
            fresh = worlds.deals()
            weights[len(deals):len(deals) + len(fresh)] = self._world_weights(fresh, sampler, constraints, me)
            t = time.monotonic()
            proj_end = slice_of(solve_end, 0.5) if k else slice_of(end, 0.35)
            first = len(deals)
            for d in fresh:
                if expired(proj_end):
                    break
                deals.append(d)
                finals.append([self._project(d, a.then(c), vul, me) for c in cands])
            report.stages["project"] = report.stages.get("project", 0.0) + time.monotonic() - t
            if len(deals) < st.min_worlds:
                raise DeadlineReached(f"only {len(deals)} worlds projected in time")
            t = time.monotonic()
            self._solve_worlds(deals, finals, range(first, len(deals)), vul, me, scores, ok, solve_end)
            report.stages["solve"] = report.stages.get("solve", 0.0) + time.monotonic() - t
            done = len(deals)
            if done < st.worlds and k + 1 < len(sizes) and not expired(solve_end):
                seen = ok[:done]
                if seen.sum() >= st.min_worlds:
                    d, w = self._gains(scores[:done][seen]), weights[:done][seen]
                    optimistic = [m + st.stop_z * se
                                  for m, se in (weighted_mean_se(d[:, j], w) for j in range(1, len(cands)))]
                    if max(optimistic) <= margin:
                        report.worlds = int(seen.sum())
                        report.why_not = (f"no call could beat the rules' after {int(seen.sum())} deals (every "
                                          f"candidate's gain + {st.stop_z:g} se below the margin)")
                        return _plain(rules)
            if len(deals) - first < len(fresh) or expired(solve_end):
                break  # the clock stopped this round: decide on the worlds solved
        n = len(deals)
        if ok[:n].sum() < st.min_worlds:
            raise DeadlineReached(f"only {int(ok[:n].sum())} worlds solved in time")
        scores, w, kept = scores[:n][ok[:n]], weights[:n][ok[:n]], [deals[i] for i in range(n) if ok[i]]
        report.worlds = len(kept)
        n_eff = effective_sample_size(w)
        if n_eff < st.min_worlds:  # relaxed worlds that mostly contradict the auction: too little evidence
            report.why_not = f"the worlds fit the auction too poorly (effective sample {n_eff:.1f})"
            return _plain(rules)
        # 4. gains against the rules' call
        diff = self._gains(scores)
        stats = {j: weighted_mean_se(diff[:, j], w) for j in range(1, len(cands))}
        report.gains = {str(cands[j]): (round(m, 3), round(se, 3)) for j, (m, se) in stats.items()}
        ranked = sorted(stats, key=lambda j: -(stats[j][0] - st.z * stats[j][1]))
        clear = [j for j in ranked if stats[j][0] - st.z * stats[j][1] > margin][:2]
        if not clear:
            j = ranked[0]
            report.why_not = (f"no call beats the rules' clearly (best {cands[j]}: {stats[j][0]:+.2f} ± "
                              f"{stats[j][1]:.2f})")
            return _plain(rules)
        # 5. gaps: worlds where the deviation beats par by far are the opponents' model failing, not a gain
        big = st.gap_imps if st.scoring == "imps" else IMP_BOUNDARIES[st.gap_imps - 1]  # (the fewest points worth it)
        t = time.monotonic()
        notes, passed = [], []
        tables_of: dict[int, object] = {}  # world -> its table (the two candidates' big wins are often the same worlds)
        for best in clear:
            m, se = stats[best]
            gaining = [i for i in np.argsort(-diff[:, best]) if diff[i, best] >= big]
            # Set every big win aside first: a call that still gains clearly without them needs no par table (the
            # check can only set wins aside, and here it would not matter which).
            without = diff[:, best].copy()
            without[gaining] = 0.0
            m0, se0 = weighted_mean_se(without, w)
            if m0 - st.z * se0 > margin:
                passed.append((m0 - st.z * se0, best, m0, se0, without, len(gaining)))
                continue
            trusted, distrusted = self._set_gaps_aside(diff[:, best], scores[:, best], gaining, kept, vul, me, end,
                                                       tables_of)
            m2, se2 = weighted_mean_se(trusted, w)
            report.gains[str(cands[best])] = (round(m2, 3), round(se2, 3))
            if m2 - st.z * se2 > margin:
                passed.append((m2 - st.z * se2, best, m2, se2, trusted, distrusted))
            else:
                notes.append(f"{cands[best]} gained {m:+.2f} ± {se:.2f}, but {distrusted} of its big wins were "
                             f"database gaps or unchecked: {m2:+.2f} ± {se2:.2f}")
        report.stages["gaps"] = time.monotonic() - t
        if passed:
            _score, best, m2, se2, trusted, distrusted = max(passed, key=lambda x: x[0])
            report.distrusted = distrusted
            if st.confirm:
                fresh = self._confirm(view, rules, cands[best], m2, sampler, constraints, rng, whole, report)
                if fresh is None:
                    return _plain(rules)
                m2, se2, trusted, w = fresh
            return self._override(view, rules, cands[best], m2, se2, trusted, w, report)
        report.why_not = "; ".join(notes)
        return _plain(rules)

    def _confirm(self, view: SeatView, rules: BidChoice, call: Call, gain: float, sampler: RelaxingSampler,
                 constraints: dict, rng: random.Random, end: float | None, report: BorelReport):
        """``call`` against the rules' call alone on ``worlds`` fresh worlds (the same rung of the sampler), with the
        same test and the same gap check: (mean, se, gains, weights) of the fresh worlds if it passes there too,
        else ``None`` (``report.why_not`` says why). Out of time: ``None`` (the rules' call)."""
        st = self.settings
        a, vul, me = view.auction, view.vul, view.seat
        margin = st.margin_imps if st.scoring == "imps" else st.margin_points
        t = time.monotonic()
        first = f"{call} passed on {report.worlds} deals ({gain:+.2f})"
        try:
            sampler.start, sampler.deadline = sampler.rung, slice_of(end, 0.3)
            deals = sampler.sample(st.worlds, rng).deals()
            weights = self._world_weights(deals, sampler, constraints, me)
            proj_end = slice_of(end, 0.4)
            finals = []
            for d in deals:
                if expired(proj_end):
                    break
                finals.append([self._project(d, a.then(c), vul, me) for c in (rules.call, call)])
            deals = deals[:len(finals)]
            scores = np.zeros((len(deals), 2))
            ok = np.ones(len(deals), dtype=bool)
            self._solve_worlds(deals, finals, range(len(deals)), vul, me, scores, ok, slice_of(end, 0.8))
        except DeadlineReached:
            ok = np.zeros(0, dtype=bool)
        report.stages["confirm"] = time.monotonic() - t
        if ok.sum() < st.min_worlds:
            report.why_not = f"{first}, but no time was left to confirm it on fresh deals: the rules' call"
            return None
        kept = [deals[i] for i in range(len(deals)) if ok[i]]
        scores, w = scores[ok], weights[ok]
        diff = self._gains(scores)[:, 1]
        big = st.gap_imps if st.scoring == "imps" else IMP_BOUNDARIES[st.gap_imps - 1]
        gaining = [i for i in np.argsort(-diff) if diff[i] >= big]
        trusted = diff.copy()
        trusted[gaining] = 0.0
        m, se = weighted_mean_se(trusted, w)
        if not m - st.z * se > margin and gaining:
            trusted, _n = self._set_gaps_aside(diff, scores[:, 1], gaining, kept, vul, me, end, {})
            m, se = weighted_mean_se(trusted, w)
        report.stages["confirm"] = time.monotonic() - t
        if m - st.z * se > margin:
            report.confirmed = len(kept)
            return m, se, trusted, w
        report.why_not = f"{first}, not confirmed on {len(kept)} fresh deals ({m:+.2f} ± {se:.2f})"
        return None

    def _world_weights(self, deals: Sequence[Deal], sampler: RelaxingSampler, constraints: dict,
                       me: Seat) -> np.ndarray:
        """Each world's weight: 1, or ``relaxed_weight ** k`` when the sampler relaxed the auction's constraints and
        its hands would not have made ``k`` of the past calls."""
        weights = np.ones(len(deals))
        if sampler.rung > 0 and self.settings.relaxed_weight < 1:
            for i, d in enumerate(deals):
                misses = sum(not p(d[s]) for s, c in constraints.items() if s != me for p in c.predicates)
                weights[i] = self.settings.relaxed_weight ** misses
        return weights

    def _set_gaps_aside(self, gains: np.ndarray, ours: np.ndarray, gaining: list, deals: Sequence[Deal], vul: Vul,
                        me: Seat, end: float | None, tables_of: dict) -> tuple[np.ndarray, int]:
        """``gains`` with each big win in ``gaining`` set to 0 where the deviation's score (``ours``) beats the
        deal's double-dummy par by ``gap_imps`` or more (a database gap), or where no par table was solved in time;
        and how many were. ``tables_of`` caches the tables by world (the two best candidates' big wins are often the
        same worlds)."""
        todo = [i for i in gaining if i not in tables_of]
        try:
            solved = self.solver.solve_tables([deals[i] for i in todo], self.settings.threads, end)
        except DeadlineReached as exc:
            solved = exc.partial
        tables_of.update((i, tab) for i, tab in zip(todo, solved) if tab is not None)
        trusted, distrusted = gains.copy(), 0
        for i in gaining:
            tab = tables_of.get(i)
            gap = True  # not checked in time: not trusted either
            if tab is not None:
                ns, _c = par(tab, vul)
                gap = imps(ours[i] - (ns if me.is_ns else -ns)) >= self.settings.gap_imps
            if gap:
                trusted[i] = 0.0
                distrusted += 1
        return trusted, distrusted

    def _solve_worlds(self, deals: Sequence[Deal], finals: list[list[Contract | None]], which: range, vul: Vul,
                      me: Seat, scores: np.ndarray, ok: np.ndarray, end: float | None) -> None:
        """Solve the final contracts of worlds ``which`` in one threaded batch; fill their ``scores`` (our side's)
        and mark a world the deadline left unsolved in ``ok``."""
        keys: dict[tuple[int, int, int], int] = {}
        jobs = []
        for i in which:
            row = finals[i]
            if all(c == row[0] for c in row[1:]):
                continue
            for c in row:
                if c is not None:
                    k = (i, int(c.declarer), int(c.strain))
                    if k not in keys:
                        keys[k] = len(jobs)
                        jobs.append((deals[i], c.declarer.next(1), c.strain))
        if not jobs:
            return
        try:
            res = self.solver.solve_leaders(jobs, self.settings.threads, end)
        except DeadlineReached as exc:
            res = exc.partial
        for i in which:
            for j, c in enumerate(finals[i]):
                k = None if c is None else keys.get((i, int(c.declarer), int(c.strain)))
                if k is None:
                    continue  # passed out, or every candidate's contract is the same: no gain either way
                got = res[k]
                if got is None:
                    ok[i] = False
                    continue
                s = score(self._as_defended(c, 13 - got), 13 - got, vul.is_vulnerable(c.declarer))
                scores[i, j] = s if c.declarer.same_side(me) else -s

    def _as_defended(self, c: Contract, tricks: int) -> Contract:
        """``c`` as its defenders leave it: doubled when undoubled and ``double_failing`` or more tricks short."""
        n = self.settings.double_failing
        if n and not c.doubled and c.tricks_needed - tricks >= n:
            return Contract(c.level, c.strain, 1, c.declarer)
        return c

    def _gains(self, scores: np.ndarray) -> np.ndarray:
        """Per world and candidate: the gain against the rules' call (column 0), IMPs or points."""
        d = scores - scores[:, :1]
        if self.settings.scoring == "imps":
            return np.vectorize(imps, otypes=[float])(d) if d.size else d
        return d

    def _project(self, deal: Deal, auction: Auction, vul: Vul, me: Seat) -> Contract | None:
        """The rest of the auction bid by the rules for all four seats of ``deal``; its final contract."""
        a = auction
        for _ in range(_MAX_PROJECTED_CALLS):
            if a.is_complete:
                return a.contract
            seat = a.next_seat
            bidder = self.ours if seat.same_side(me) else self.theirs
            a = a.then(bidder.choose(deal[seat], a, vul, alternatives=False).call)
        raise BridgeError("a projected auction did not end")  # pragma: no cover - bids rise, auctions end

    def _override(self, view: SeatView, rules: BidChoice, call: Call, mean: float, se: float, gains: np.ndarray,
                  w: np.ndarray, report: BorelReport) -> BidChoice:
        unit = "IMPs" if self.settings.scoring == "imps" else "points"
        better, worse = int((gains > 0).sum()), int((gains < 0).sum())
        producer = self._producer(view.auction, view.vul, call)
        reads = producer.explanation() if producer is not None else "natural"
        fresh = f" and {report.confirmed} fresh ones that confirmed it" if report.confirmed else ""
        text = (f"{reads} {OVERRIDE_MARK}{report.worlds} deals{fresh}: {call} instead of the rules' {rules.call}, "
                f"{mean:+.2f} {unit} a deal, se {se:.2f}{' on the fresh deals' if fresh else ''}; better in {better} "
                f"deals, worse in {worse}"
                + (f", {report.distrusted} big wins set aside as possible database gaps" if report.distrusted else "")
                + f"; overrides rule {rules.rule_id}: {rules.explanation})")
        self.counts["overrides"] += 1
        override = BorelOverride(view.seat.letter, view.board, " ".join(str(c) for c in view.auction.calls),
                                 str(view.hand), rules.rule_id, str(rules.call), str(call), dict(report.gains),
                                 report.worlds, report.distrusted, report.rung, better, worse, report.confirmed)
        force = producer.rule.spec.force if producer is not None else "none"
        return BidChoice(call, f"borel:{rules.rule_id}", text, False, force,
                         ((rules.call, rules.rule_id, rules.explanation),), False, override)


def is_override(explanation: str) -> bool:
    """Whether a call's explanation (as a board record keeps it) is that of a simulated call overriding the rules."""
    return OVERRIDE_MARK in explanation


def _plain(rules: BidChoice) -> BidChoice:
    """The rules' call as ``Player.bid`` has always answered it (no alternatives listed)."""
    return BidChoice(rules.call, rules.rule_id, rules.explanation, rules.alert, rules.force, (), rules.cut_short)


"""The rule interpreter: choose a call for a hand, and read what every call of an auction shows and denies.

One algorithm serves both directions, which is what keeps behaviour and meaning from drifting apart:

* for an auction, the *candidates* are the instances of every rule whose pattern and ``require`` match, in
  priority order (hand-independent, cached per auction);
* a hand makes the call of the **first candidate whose ``when`` holds** (a catch-all Pass closes every list);
* so a call *shows* ``when`` of a candidate that produces it, and *denies* the ``when`` of every candidate before
  it. ``meaning_of`` returns that as ``SeatConstraints``: interval hulls for the shape-first sampler plus an exact,
  picklable predicate (``CallMeaning``) that re-evaluates the candidate list on a hand.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from typing import Mapping
from functools import lru_cache

from ..auction import ALL_CALLS, DOUBLE, PASS, REDOUBLE, Auction, Call
from ..cards import BridgeError, Hand, Seat, Vul
from ..sampling import SeatConstraints
from ..scoring import GAME_LEVEL

from .disclosure import read_disclosure
from .features import features_into, features_of, hcp_and_lengths
from .rules import (CONSTANTS, BiddingSystemError, CompiledRule, CompiledSystem, encode, extract_ranges,
                    hcp_sufficient, possible_with, strength_range)

__all__ = ["Bidder", "BidChoice", "CallMeaning", "Candidate", "AuctionState", "CallReading"]

_SUIT_NAMES = ("clubs", "diamonds", "hearts", "spades")
_SAFE_BUILTINS = {"min": min, "max": max, "abs": abs, "len": len, "all": all, "any": any, "range": range, "sum": sum}
_CACHE_LIMIT = 20000  # auctions kept per bidder; a self-play run revisits the same early auctions constantly
_MAKES_MEMO = 2048  # answers a CallTest remembers (a card replay's busiest test saw 1,547 hands in six boards)
#: Entries a rule keeps in its memo (instances per binding and last bid, hulls per binding): a rule meets a few
#: dozen (suit bindings times the last bid's level and strain), so the bound is only a guard.
_RULE_MEMO_LIMIT = 4096


@dataclass(frozen=True)
class Candidate:
    rule: CompiledRule
    bindings: tuple[tuple[str, int], ...]
    call: Call
    note: str = ""  # added by the interpreter (the escape guard), appended to the rule's explanation

    @property
    def env(self) -> dict[str, int]:
        return dict(self.bindings)

    def explanation(self) -> str:
        return render(self.rule.spec.explain, dict(self.bindings), self.call) + self.note

    @property
    def rule_hcp(self) -> tuple[int, int]:
        """HCP hull of the rule's ``when`` (suit bindings do not affect it)."""
        return _ranges_cached(self.rule, ())[0]

    @property
    def rule_ranges(self):
        """(HCP hull, four suit-length hulls) of the rule's ``when`` with this instance's suit bindings."""
        return _ranges_cached(self.rule, self.bindings)


def render(template: str, bindings: dict[str, int], call: Call) -> str:
    def sub(m: re.Match) -> str:
        k = m.group(1)
        if k == "call":
            return str(call)
        if k in bindings:
            return _SUIT_NAMES[bindings[k]]
        return m.group(0)

    return re.sub(r"\{(\w+)\}", sub, template)


@dataclass(frozen=True)
class CallReading:
    """How one past call was read: the candidate that produces it (``None``: no rule makes it, read naturally)."""

    seat: Seat
    call: Call
    candidate: Candidate | None
    hcp_lo: int = 0  # lowest HCP any rule that makes this call here allows
    hcp_hi: int = 37  # highest

    @property
    def force(self) -> str:
        return self.candidate.rule.spec.force if self.candidate else "none"

    @property
    def shown_suit(self) -> int:
        """The suit this call shows (-1 for none): its strain if natural, ``shows`` if artificial."""
        c = self.candidate
        if c is None:
            return int(self.call.strain) if self.call.is_bid and self.call.strain < 4 else -1
        spec = c.rule.spec
        if c.rule.shows_code is not None:
            env = dict(CONSTANTS)
            env.update(c.bindings)
            env["__builtins__"] = {}
            suit = int(eval(c.rule.shows_code, env))  # noqa: S307 - validated expression
            if not 0 <= suit <= 3:
                raise BiddingSystemError(f"rule {c.rule.id}: 'shows' gives {suit} for {self.call} with "
                                         f"{dict(c.bindings)}: not a suit")
            return suit
        if spec.artificial or not self.call.is_bid or self.call.strain == 4:
            return -1
        return int(self.call.strain)

    @property
    def artificial(self) -> bool:
        """Made by a rule that marks the call artificial (Stayman, a strong 2C, Blackwood, ...)."""
        return self.candidate is not None and self.candidate.rule.spec.artificial

    @property
    def conventional(self) -> bool:
        """Artificial, or showing another suit than its own (a transfer): a double of it leaves the system on."""
        return self.artificial or (self.candidate is not None and self.candidate.rule.shows_code is not None)

    @property
    def alertable(self) -> bool:
        """Made by a rule that alerts the call."""
        return self.candidate is not None and self.candidate.rule.spec.alert

    @property
    def natural_nt(self) -> bool:
        return self.call.is_bid and self.call.strain == 4 and not self.artificial

    def explanation(self) -> str:
        if self.candidate is None:
            return "natural (no rule of the system describes this call here)"
        return self.candidate.explanation()


@dataclass(frozen=True)
class BidChoice:
    call: Call
    rule_id: str
    explanation: str
    alert: bool
    force: str
    #: (call, rule id, explanation) of the other calls this hand fits as well, as a player would name them (see
    #: ``Bidder.choose``): shown to people ("also possible")
    alternatives: tuple[tuple[Call, str, str], ...]
    cut_short: bool = False  # the deadline stopped the search for a rule (the explanation says so)
    # What a simulation did on the way (``engine.bidding.borel``), for whoever runs the engine to log: the override
    # of the rules' call (a ``BorelOverride``, or None) and the rungs its sampler gave up (``play.relax.Relaxation``).
    override: object = None
    relaxations: tuple = ()
    #: every later candidate whose ``when`` holds, fallbacks and generic layers included: the raw material a
    #: simulation (``borel``) draws its close calls from, with filters of its own
    matching: tuple[tuple[Call, str, str], ...] = ()

    def describe(self) -> str:
        tags = [self.force.replace("_", " ")] if self.force != "none" else []
        if self.alert:
            tags.append("alert")
        return self.explanation + (f" [{', '.join(tags)}]" if tags else "")


class AuctionState(dict):
    """Hand-independent facts about the auction from the viewpoint of the seat to act (names in ``rules.STATE_NAMES``)."""


def _cheapest_level(last: Call | None, strain: int) -> int:
    if last is None:
        return 1
    return last.level if strain > last.strain else last.level + 1


#: Bidders a system keeps (one per opponents' system it was asked for): a process meets one or two.
_MAX_BIDDERS = 8


class Bidder:
    """A system for our side (and one for the opponents, by default the same), with per-auction caches.

    ``our_side``: ``None`` means "whoever is to act uses ``system``" (the robot bidding its own seat); a seat makes
    that seat's side use ``system`` and the other side ``opponents`` whatever the auction.
    """

    def __init__(self, system: CompiledSystem, opponents: CompiledSystem | None = None) -> None:
        for s in (system, opponents):
            if s is not None and not isinstance(s, CompiledSystem):
                raise TypeError(f"a Bidder takes compiled systems (squeeze.config.bidding.load_system reads one), "
                                f"not {s!r}")
        self.system = system
        self.opponents = opponents if opponents is not None else system
        self._cands: dict = {}
        self._readings: dict = {}
        self._states: dict = {}
        self._envs: dict = {}  # auction -> the rules' namespace without the hand (constants, state, builtins)
        self._tests: dict = {}  # auction -> its candidates compiled into the exact call test (``CallTest``)
        # Warm the one-off lazy structures (catch-all rule, legality table) so the first real call is not slower.
        self.candidates(Seat.NORTH, (), Vul.NONE, 0)
        for system in {id(self.system): self.system, id(self.opponents): self.opponents}.values():
            for rule in system.rules:
                _ranges_cached(rule, ())
            for n in range(0, 20):
                for lead in range(0, min(n, 4) + 1):
                    system.applicable(n, lead)

    @classmethod
    def of(cls, system: CompiledSystem, opponents: CompiledSystem | None = None) -> "Bidder":
        """The ``Bidder`` of ``system`` against ``opponents`` (``None``: the same system), made on first use and kept
        with the system, so that every player of a process that bids it shares its caches of auctions read."""
        key = system if opponents is None else opponents
        with system.bidders_lock:
            b = system.bidders.get(key)
            if b is None:
                if len(system.bidders) >= _MAX_BIDDERS:
                    system.bidders.clear()
                b = system.bidders[key] = cls(system, opponents)
        return b

    @property
    def names(self) -> tuple[str, str]:
        return (self.system.path, self.opponents.path)

    def __reduce__(self):
        # a bidder pickles as its two systems (the caches are rebuilt), and comes back as the one its system keeps
        return _bidder_of, (self.system, self.opponents)

    # --- systems per seat -------------------------------------------------------------------------------------
    def _system_for(self, actor_parity: int, our_parity: int) -> CompiledSystem:
        return self.system if actor_parity == our_parity else self.opponents

    # --- reading the auction ----------------------------------------------------------------------------------
    def doubled_in_unshown_strain(self, auction: Auction, vul: Vul) -> bool:
        """Whether ``auction`` ends doubled or redoubled in an artificial call of the declaring side or in a strain
        that side never showed (the leak the escape guard prevents, and ``bench/bidding_par`` counts)."""
        c = auction.contract
        if c is None or not c.doubled:
            return False
        rd = self.readings(auction.dealer, tuple(auction.calls), vul, int(c.declarer) & 1)
        side = [x for x in rd if x.seat.same_side(c.declarer)]
        last = next(x for x in reversed(side) if x.call.is_bid)
        if last.artificial and last.shown_suit != int(c.strain):
            return True
        if int(c.strain) == 4:  # notrump: shown by a natural notrump call of the side
            return not any(x.natural_nt for x in side)
        return not any(x.shown_suit == int(c.strain) for x in side)

    def readings(self, dealer: Seat, calls: tuple[Call, ...], vul: Vul, our_parity: int) -> tuple[CallReading, ...]:
        """How every call of ``calls`` was read (each by the system of the side that made it)."""
        key = (int(dealer), calls, int(vul), our_parity)
        r = self._readings.get(key)
        if r is not None:
            return r
        if not calls:
            r = ()
        else:
            prev = self.readings(dealer, calls[:-1], vul, our_parity)
            cands = self.candidates(dealer, calls[:-1], vul, our_parity)
            call = calls[-1]
            producers = [c for c in cands if c.call == call and not c.rule.id.startswith("__")]
            found = producers[0] if producers else None
            # the weakest hand any producing rule allows here: what partner can count on (an estimate for the
            # auction state, see rules.strength_range; the sampler's hulls come from meaning_of)
            if producers:
                env = dict(CONSTANTS)
                env.update(self.state(dealer, calls[:-1], vul, our_parity))
                env.update(_SAFE_BUILTINS)
                env["__builtins__"] = {}
                rngs = []
                # last-resort rules (priority under 10: family fallbacks; the catch-all defaults and the values
                # layer, which bid on combined strength) are read only when no rule proper makes the call: a hand
                # rarely gets that far, and they would blur the range the system's own rule shows
                # (rules named "...fallback..." are a family's own last resort: read the same way)
                proper = [c for c in producers if c.rule.spec.priority >= 10 and "fallback" not in c.rule.id
                          and c.rule.spec.group not in ("defaults", "values")] or producers
                # what the call denies on strength alone: the HCP counts an earlier candidate takes whatever else
                # the hand is (a "minimum" catch-all after 15-17 and 18+ rebids shows at most 14)
                before, claimed = {}, 0
                for c in cands:
                    before[id(c)] = claimed
                    claimed |= _hcp_claim(c.rule)
                for c in proper:
                    env.update(c.bindings)
                    rngs.append(_unclaimed(strength_range(c.rule.strength, env), before.get(id(c), 0)))
                lo, hi = min(r[0] for r in rngs), max(r[1] for r in rngs)
            else:
                lo, hi = 0, 37
            r = prev + (CallReading(dealer.next(len(calls) - 1), call, found, lo, hi),)
        if len(self._readings) > _CACHE_LIMIT:
            self._readings.clear()
        self._readings[key] = r
        return r

    def state(self, dealer: Seat, calls: tuple[Call, ...], vul: Vul, our_parity: int) -> AuctionState:
        key = (int(dealer), calls, int(vul), our_parity)
        st = self._states.get(key)
        if st is None:
            st = self._state(dealer, calls, vul, our_parity)
            if len(self._states) > _CACHE_LIMIT:
                self._states.clear()
            self._states[key] = st
        return st

    def _state(self, dealer: Seat, calls: tuple[Call, ...], vul: Vul, our_parity: int) -> AuctionState:
        rd = self.readings(dealer, calls, vul, our_parity)
        n = len(calls)
        me = dealer.next(n)
        st = AuctionState()
        st["vul"] = vul.is_vulnerable(me)
        st["ovul"] = vul.is_vulnerable(me.lho)
        st["seatpos"] = n % 4 + 1  # 1 = dealer ... 4 = fourth seat
        mine = [x for x in rd if x.seat == me]
        part = [x for x in rd if x.seat == me.partner]
        opps = [x for x in rd if not x.seat.same_side(me)]
        st["passed"] = bool(mine) and mine[0].call.is_pass
        st["ppassed"] = bool(part) and part[0].call.is_pass
        # balancing: the last two calls were passes after an opponent's bid (passing now would end the auction)
        st["balancing"] = n >= 3 and calls[-1].is_pass and calls[-2].is_pass and not calls[-3].is_pass
        psuits = [x.shown_suit for x in part if x.shown_suit >= 0]
        mysuits = [x.shown_suit for x in mine if x.shown_suit >= 0]
        osuits = [x.shown_suit for x in opps if x.shown_suit >= 0]
        st["psuit"] = psuits[-1] if psuits else -1
        st["pfirst"] = psuits[0] if psuits else -1
        st["psuits"] = tuple(dict.fromkeys(psuits))
        st["mysuit"] = mysuits[-1] if mysuits else -1
        st["myfirst"] = mysuits[0] if mysuits else -1
        st["mysuits"] = tuple(dict.fromkeys(mysuits))
        st["osuits"] = tuple(dict.fromkeys(osuits))
        lho = [x.shown_suit for x in rd if x.seat == me.lho and x.shown_suit >= 0]
        rho = [x.shown_suit for x in rd if x.seat == me.rho and x.shown_suit >= 0]
        st["lhosuit"] = lho[-1] if lho else -1
        st["rhosuit"] = rho[-1] if rho else -1
        allsuits = set(psuits) | set(mysuits) | set(osuits)
        st["bidsuits"] = tuple(sorted(allsuits))
        st["unbid"] = tuple(s for s in range(4) if s not in allsuits)
        st["nbids"] = sum(1 for c in calls if c.is_bid)
        st["mybids"] = sum(1 for x in mine if x.call.is_bid)
        st["pbids"] = sum(1 for x in part if x.call.is_bid)
        # a double of one of our artificial calls does not make the auction contested (the system stays on)
        lead_dbl = {i for i in range(1, n) if calls[i].is_double and calls[i - 1].is_bid and rd[i - 1].seat.same_side(me)
                    and rd[i - 1].conventional}
        st["obids"] = sum(1 for i, x in enumerate(rd) if not x.seat.same_side(me)
                          and (x.call.is_bid or (x.call.is_double and i not in lead_dbl)))
        st["contested"] = st["obids"] > 0
        last = next((c for c in reversed(calls) if c.is_bid), None)
        st["level"] = last.level if last else 0
        st["strain"] = int(last.strain) if last else -1
        st["pnt"] = bool(part) and part[-1].natural_nt
        st["mynt"] = bool(mine) and mine[-1].natural_nt
        st["pbal"] = any(x.natural_nt for x in part)  # partner has shown a balanced hand (a natural notrump bid)
        fit = [s for s in psuits if s in mysuits]
        st["fit"] = fit[-1] if fit else -1
        lo, hi = 0, 37
        for x in part:
            if x.candidate is not None:
                lo, hi = max(lo, x.hcp_lo), min(hi, x.hcp_hi)
        st["plo"], st["phi"] = lo, hi
        mlo, mhi = 0, 37
        for x in mine:
            if x.candidate is not None:
                mlo, mhi = max(mlo, x.hcp_lo), min(mhi, x.hcp_hi)
        st["mylo"], st["myhi"] = mlo, max(mlo, mhi)  # what my own calls have shown (the same estimate)
        # the fewest cards partner has shown in each suit (from the length hulls of the rules that made his calls)
        plen = [0, 0, 0, 0]
        for x in part:
            if x.candidate is not None:
                for s, (a, _b) in enumerate(x.candidate.rule_ranges[1]):
                    plen[s] = max(plen[s], a)
            elif x.shown_suit >= 0:
                plen[x.shown_suit] = max(plen[x.shown_suit], 4)
        st["plen"] = tuple(plen)
        # a working estimate of partner's strength: halfway into the shown range, the range capped at 8 wide
        st["pexp"] = (lo + min(hi, lo + 8)) // 2 if part else 0
        st["prule"] = part[-1].candidate.rule.id if part and part[-1].candidate else ""
        st["myrule"] = mine[-1].candidate.rule.id if mine and mine[-1].candidate else ""
        ours = [x.call for x in rd if x.seat.same_side(me) and x.call.is_bid]
        st["ourlevel"] = ours[-1].level if ours else 0
        # the suit partner's last call showed, if it was a bid: its strain when natural, the suit an artificial bid
        # shows (a transfer), -1 for notrump and for artificial bids that show no suit (Stayman, a strong 2C)
        st["plast"] = part[-1].shown_suit if part and part[-1].call.is_bid else -1
        # below game: the last bid (whoever made it) is below 3NT / 4 of a major / 5 of a minor
        st["below_game"] = last is None or last.level < GAME_LEVEL[last.strain]
        pforce = part[-1].force if part else "none"
        st["pforce"] = pforce
        # A natural new suit by a passed hand is not forcing (it cannot hold game values); artificial calls still are.
        by_passed_hand = st["ppassed"] and pforce == "forcing" and not (part and part[-1].artificial)
        # (a double of partner's artificial call does not release the force: the system is on, see candidates)
        rho_quiet = n >= 1 and (calls[-1].is_pass or (calls[-1].is_double and n >= 2 and rd[-2].artificial))
        # (a natural bid of game or more is to play, whatever force its rule carries: only artificial calls there,
        # Blackwood, Gerber, cue bids, still force)
        at_game_natural = not st["below_game"] and part and part[-1].call.is_bid and not part[-1].artificial
        st["forced"] = bool(part) and n >= 2 and rho_quiet and pforce in ("forcing", "game_forcing") and \
            rd[-2].seat == me.partner and not by_passed_hand and not at_game_natural
        st["gf"] = any(x.force == "game_forcing" for x in rd if x.seat.same_side(me))
        # "doubled": the last bid has been doubled (and not redoubled); for takeout/penalty and SOS logic
        dbl = 0
        for c in calls:
            if c.is_bid:
                dbl = 0
            elif c.is_double:
                dbl = 1
            elif c.is_redouble:
                dbl = 2
        st["doubled"] = dbl == 1
        st["redoubled"] = dbl == 2
        # "stuck": our side's last bid is doubled or redoubled in a strain our side never showed (an artificial
        # call, or a suit neither of us bid naturally): passing would leave us there
        stuck = False
        if dbl and last is not None:
            bid_i = max(i for i, c in enumerate(calls) if c.is_bid)
            if rd[bid_i].seat.same_side(me):
                ours_rd = [x for x in rd if x.seat.same_side(me)]
                if last.strain == 4:
                    stuck = not any(x.natural_nt for x in ours_rd)
                else:
                    stuck = not any(x.shown_suit == int(last.strain) for x in ours_rd)
        st["stuck"] = stuck
        # "trapped": a pass now ends the auction in a contract no sane side chooses to play: ours, doubled or
        # redoubled in a strain we never showed (``stuck``), or theirs, redoubled in a suit at the one or two level
        # after our double (takeout or negative there: they chose to play it redoubled, we never offered to
        # defend, unless partner's pass of the redouble was read as a penalty pass, a ``defends`` rule). The escape
        # guard (``candidates``) then tries every natural bid before any pass.
        trapped = stuck and st["balancing"]
        if not trapped and dbl == 2 and st["balancing"] and last is not None and last.level <= 2 and last.strain < 4:
            bid_i = max(i for i, c in enumerate(calls) if c.is_bid)
            xs = [x for x in rd[bid_i + 1:] if x.call.is_double]
            xx_i = max(i for i, c in enumerate(calls) if c.is_redouble)
            offered = any(x.seat.same_side(me) and x.candidate is not None and x.candidate.rule.spec.defends
                          for x in rd[xx_i + 1:])
            trapped = bool(xs) and xs[-1].seat.same_side(me) and not rd[bid_i].seat.same_side(me) and not offered
        st["trapped"] = trapped
        return st

    def candidates(self, dealer: Seat, calls: tuple[Call, ...], vul: Vul, our_parity: int) -> tuple[Candidate, ...]:
        """The rule instances that apply after ``calls``, in the order a hand tries them."""
        key = (int(dealer), calls, int(vul), our_parity)
        c = self._cands.get(key)
        if c is not None:
            return c
        # ``calls`` always comes from a checked ``Auction`` (choose, meaning_of) or a prefix of one, so the facts
        # needed here are computed directly instead of re-validating the whole sequence for every prefix.
        complete, last, legal = _facts(calls)
        if complete:
            raise BridgeError("the auction is over: no call to make")
        system = self._system_for((int(dealer) + len(calls)) & 1, our_parity)
        st = self.state(dealer, calls, vul, our_parity)
        env = dict(CONSTANTS)
        env.update(st)
        env.update(_SAFE_BUILTINS)
        env["__builtins__"] = {}
        text = "".join(encode(str(x)) for x in calls)
        # System on over a double of our artificial call: for our side, an opponent's double right after one of our
        # artificial calls (Stayman, a transfer, a strong 2C, a relay, a Blackwood answer, a cue bid, Michaels, the
        # unusual 2NT) leaves the system in force; a rule matches either the real auction or the auction with such
        # doubles read as passes (pass and redouble stay available: they come from the rules written for them).
        # Rules written for the doubled auction itself (a fixed-length context that matches it and not the
        # undoubled reading, its ``require`` met) take over the whole family: then the system-on reading is not used.
        alt = self._system_on_text(dealer, calls, vul, our_parity, text)
        lead = 0
        while lead < len(calls) and calls[lead].is_pass:
            lead += 1
        applicable = system.applicable(len(calls), lead)
        out = _match(applicable, text, None, last, legal, env)
        if alt is not None and not any(
                c.rule.spec.priority >= 10 and c.rule.spec.group not in _GENERIC_GROUPS
                and all(ln is not None for ln in c.rule.pattern_lens)
                and not any(pat.fullmatch(alt) for pat, _names in c.rule.patterns) for c in out):
            out = _match(applicable, text, alt, last, legal, env)
        out = _unmisread(out)
        out.append(Candidate(_default_pass_rule(), (), PASS))
        if st["trapped"]:
            out = _escape_guard(out, st["stuck"])
        res = tuple(out)
        if len(self._cands) > _CACHE_LIMIT:
            self._cands.clear()
        self._cands[key] = res
        return res

    def _system_on_text(self, dealer: Seat, calls: tuple[Call, ...], vul: Vul, our_parity: int,
                        text: str) -> str | None:
        """``text`` with every opponent's double of one of our artificial calls read as a pass (``None``: none)."""
        me = dealer.next(len(calls))
        rd = None
        out = None
        for i in range(1, len(calls)):
            if not calls[i].is_double or not calls[i - 1].is_bid:
                continue
            if not dealer.next(i - 1).same_side(me):
                continue
            if rd is None:
                rd = self.readings(dealer, calls, vul, our_parity)
            if not rd[i - 1].conventional:
                continue
            if out is None:
                out = list(text)
            out[2 * i:2 * i + 2] = "P-"
        return "".join(out) if out is not None else None

    # --- deciding -----------------------------------------------------------------------------------------------
    def _env(self, hand: Hand, dealer: Seat, calls, vul, our_parity) -> dict:
        """The ``eval`` namespace of the rules for ``hand`` here: its features, then the constants, the auction's
        state and the builtins over them (the latter three built once per auction)."""
        env = dict(_hand_features(hand.bits))
        env.update(self._auction_env(dealer, calls, vul, our_parity))
        return env

    def _auction_env(self, dealer: Seat, calls, vul, our_parity) -> dict:
        key = (int(dealer), calls, int(vul), our_parity)
        base = self._envs.get(key)
        if base is None:
            base = dict(CONSTANTS)
            base.update(self.state(dealer, calls, vul, our_parity))
            base.update(_SAFE_BUILTINS)
            base["__builtins__"] = {}
            if len(self._envs) > _CACHE_LIMIT:
                self._envs.clear()
            self._envs[key] = base
        return base

    def choose(self, hand: Hand, auction: Auction, vul: Vul = Vul.NONE, *, alternatives: bool = True,
               deadline: float | None = None) -> BidChoice:
        """The call ``hand`` makes now, why, and the other calls whose rules this hand also satisfies.

        ``alternatives`` lists, after the call, the other calls a player would name as alternatives: a later rule
        whose ``when`` holds for this hand and that describes it (``_offered``) - never a catch-all or a last
        resort, and never a rule the hand reaches only because nothing excluded it (``1C``, "opening hand", with
        26 HCP: the strong ``2C`` before it takes every hand of 22 HCP or more). ``matching`` keeps every later
        rule that holds, for a simulation.

        ``deadline`` (absolute, ``time.monotonic()``) is read between candidates: when it passes before a rule
        holds, the call is a pass (always legal) marked ``cut_short``; once the call is found, only the search for
        alternatives can be cut short."""
        calls = tuple(auction.calls)
        dealer = auction.dealer
        parity = (int(dealer) + len(calls)) & 1
        cands = self.candidates(dealer, calls, vul, parity)
        if not alternatives and deadline is None:
            # the call alone (a projected auction, a robot's rules-only call): the compiled test finds its candidate
            c = cands[self.call_test(dealer, calls, vul, parity).first_index(hand.bits, shared=True)]
            spec = c.rule.spec
            return BidChoice(c.call, spec.id, c.explanation(), spec.alert, spec.force, ())
        env = self._env(hand, dealer, calls, vul, parity)
        hcp_bit = 1 << env["hcp"]
        chosen = None
        alts: list[tuple[Call, str, str]] = []
        matching: list[tuple[Call, str, str]] = []
        seen, offered = set(), set()
        claimed = 0  # the HCP counts an earlier candidate takes on strength alone
        cut = False
        for c in cands:
            if deadline is not None and time.monotonic() >= deadline:
                if chosen is None:
                    return BidChoice(PASS, "__deadline_pass", "no time to consider the rules: pass (cut short by "
                                     "the deadline)", False, "none", (), True)
                cut = True  # the call is found: only the alternatives are left incomplete
                break
            if c.rule.trivial_when or _holds(c, env):
                if chosen is None:
                    chosen = c
                    seen.add(c.call)
                    offered.add(c.call)
                    if not alternatives:
                        break
                else:
                    if c.call not in seen:
                        seen.add(c.call)
                        matching.append((c.call, c.rule.id, c.explanation()))
                    if c.call not in offered and not claimed & hcp_bit and _offered(c):
                        offered.add(c.call)
                        alts.append((c.call, c.rule.id, c.explanation()))
                claimed |= _hcp_claim(c.rule)
        assert chosen is not None  # the synthetic pass always holds
        spec = chosen.rule.spec
        why = chosen.explanation() + (" (alternatives cut short by the deadline)" if cut else "")
        return BidChoice(chosen.call, spec.id, why, spec.alert, spec.force, tuple(alts), cut, matching=tuple(matching))

    def first_call(self, hand: Hand, dealer: Seat, calls: tuple[Call, ...], vul: Vul, our_parity: int) -> Call:
        """The exact meaning test: the call of the first candidate whose ``when`` holds for ``hand``."""
        return self.call_test(dealer, calls, vul, our_parity).first(hand.bits)

    def call_test(self, dealer: Seat, calls: tuple[Call, ...], vul: Vul, our_parity: int) -> "CallTest":
        """The candidates after ``calls`` compiled for the exact meaning test (``CallTest``), once per auction."""
        key = (int(dealer), calls, int(vul), our_parity)
        t = self._tests.get(key)
        if t is None:
            t = CallTest(self.candidates(dealer, calls, vul, our_parity),
                         self._auction_env(dealer, calls, vul, our_parity))
            if len(self._tests) > _CACHE_LIMIT:
                self._tests.clear()
            self._tests[key] = t
        return t

    # --- meanings ------------------------------------------------------------------------------------------------
    def meaning_of(self, auction: Auction, index: int, vul: Vul = Vul.NONE, viewpoint: Seat | None = None
                   ) -> SeatConstraints:
        """What call ``index`` of ``auction`` shows and denies about its maker's hand."""
        dealer = auction.dealer
        calls = tuple(auction.calls[:index])
        call = auction.calls[index]
        actor = dealer.next(index)
        parity = int(viewpoint if viewpoint is not None else actor) & 1
        cands = self.candidates(dealer, calls, vul, parity)
        producers = [c for c in cands if c.call == call]
        if not producers:
            return SeatConstraints()  # a call no rule makes here: nothing is known from it
        hlo, hhi = 37, 0
        lens = [[13, 0] for _ in range(4)]
        for c in producers:
            (a, b), ls = c.rule_ranges
            hlo, hhi = min(hlo, a), max(hhi, b)
            for s in range(4):
                lens[s][0] = min(lens[s][0], ls[s][0])
                lens[s][1] = max(lens[s][1], ls[s][1])
        first = cands.index(producers[0])
        denied = []
        for c in cands[:first]:
            if c.call != call and str(c.call) not in (d.split(" ")[0] for d in denied):
                denied.append(f"{c.call} ({c.explanation()})")
        pred = CallMeaning(self.system.path, self.opponents.path, int(dealer),
                           tuple(str(c) for c in calls), int(vul), parity, str(call),
                           producers[0].explanation(), tuple(denied), self)
        return SeatConstraints(hcp=(hlo, hhi), lengths=tuple((lo, hi) for lo, hi in lens), predicates=(pred,))

    def explain_auction(self, auction: Auction, vul: Vul = Vul.NONE, viewpoint: Seat | None = None,
                        alerted: frozenset[int] = frozenset(),
                        explanations: Mapping[int, str] | None = None) -> dict[Seat, SeatConstraints]:
        """Per seat, everything its calls so far show and deny (the sampler's input). ``alerted``: the indices of
        the calls the table marked alerted; those ``unread`` names tell nothing by our reading (see there).
        ``explanations``: the table's text of calls by index; an opponent's call whose text states ranges
        (``disclosure.read_disclosure``) shows them, within our reading's ranges where both can hold, and without
        our reading's hand-by-hand test: what they play is what they say, and our test is our system's judgement of
        the call (an opponent of another system fails it far more often than the ranges say)."""
        out = {s: SeatConstraints() for s in Seat}
        skip = self.unread(auction, vul, viewpoint, alerted) if alerted else frozenset()
        for i in range(len(auction.calls)):
            seat = auction.dealer.next(i)
            told = None
            if explanations and viewpoint is not None and not seat.same_side(viewpoint) and i in explanations:
                told = read_disclosure(explanations[i])
            if i in skip:
                if told is not None:
                    out[seat] = out[seat].intersect(told)
                continue
            meaning = self.meaning_of(auction, i, vul, viewpoint)
            if told is not None:
                both = _ranges(meaning).intersect(told)
                meaning = told if both.is_empty_range else both
            out[seat] = out[seat].intersect(meaning)
        return out

    def unread(self, auction: Auction, vul: Vul, viewpoint: Seat | None, alerted: frozenset[int]) -> frozenset[int]:
        """The opponents' alerted bids this model reads as natural: their own convention (a transfer, a Drury 2C,
        a jump shift that shows a fit), whose meaning we do not know. Reading it as natural would place their suit
        and strength where they are not, in the sampler's worlds and so in every card played after it; known
        conventions (our reading is artificial too, Stayman, Michaels, or a rule of ours that alerts it) keep their
        reading."""
        if viewpoint is None:
            return frozenset()
        parity = int(viewpoint) & 1
        calls = tuple(auction.calls)
        rd = self.readings(auction.dealer, calls, vul, parity)
        return frozenset(i for i in alerted if 0 <= i < len(calls) and calls[i].is_bid
                         and not auction.dealer.next(i).same_side(viewpoint) and not rd[i].conventional
                         and not rd[i].alertable)

    def explain_calls(self, auction: Auction, vul: Vul = Vul.NONE, viewpoint: Seat | None = None
                      ) -> list[tuple[Seat, Call, str, bool]]:
        """``(seat, call, explanation, alertable)`` for every call of the auction."""
        parity = int(viewpoint if viewpoint is not None else auction.next_seat) & 1
        rd = self.readings(auction.dealer, tuple(auction.calls), vul, parity)
        return [(x.seat, x.call, x.explanation(), x.alertable) for x in rd]


def _ranges(c: SeatConstraints) -> SeatConstraints:
    """``c``'s HCP and suit-length ranges alone."""
    return SeatConstraints(hcp=c.hcp, lengths=c.lengths)


#: Rule groups that apply to any auction (last-resort layers): they never make a family "written for" an auction.
_GENERIC_GROUPS = ("defaults", "values", "escape", "invitations")
#: Rules a player never names as an alternative to another rule's call: the generic layers that catch what the
#: system's own rules leave (defaults, values, escape; the invitations layer is a real choice) and, below this
#: priority, a family's closing rules (its pass, "no better bid").
_NOT_OFFERED_GROUPS = ("defaults", "values", "escape")
_OFFERED_PRIORITY = 10


def _offered(c: Candidate) -> bool:
    """Whether a rule whose ``when`` holds is an alternative a player would name (its strength aside: see
    ``choose``): not a catch-all (a ``when`` always true, the synthetic pass), not a generic layer, not a closing
    rule of low priority, not a rule marked ``fallback``."""
    spec = c.rule.spec
    return not (c.rule.trivial_when or spec.id.startswith("__") or spec.fallback
                or spec.group in _NOT_OFFERED_GROUPS or spec.priority < _OFFERED_PRIORITY)


_CLAIMS: dict = {}


def _unclaimed(rng: tuple[int, int], claimed: int) -> tuple[int, int]:
    """The HCP range ``rng`` less the counts in ``claimed`` (a bitmask over 0..37), as the hull of what is left;
    ``rng`` itself when nothing is left (an estimate never contradicts the call it reads)."""
    left = [h for h in range(rng[0], rng[1] + 1) if not claimed >> h & 1]
    return (left[0], left[-1]) if left else rng


def _hcp_claim(rule: CompiledRule) -> int:
    """``rules.hcp_sufficient`` of the rule's ``when``, once per rule."""
    hit = _CLAIMS.get(id(rule))
    if hit is not None and hit[0] is rule:
        return hit[1]
    claim = hcp_sufficient(rule.when_tree)
    _CLAIMS[id(rule)] = (rule, claim)
    return claim

_ESCAPE_NOTE = (" [escape guard: a pass would leave our side doubled in a strain its calls never showed, so every "
                "natural bid is tried first]")
_TRAPPED_NOTE = (" [escape guard: a pass would leave the opponents redoubled after our takeout double, so every "
                 "natural bid is tried first]")
_NO_ESCAPE_NOTE = " [escape guard: no natural bid fits this hand]"


_FORCING = ("forcing", "game_forcing")


def _unmisread(cands: list[Candidate]) -> list[Candidate]:
    """The candidates without a forcing rule whose bid an earlier rule already gives a meaning partner may pass.

    Partner reads a call by the first rule that makes it (``readings``): when that rule is not forcing (a weak
    second suit, an invitation, a sign-off), a later rule that makes the same bid as forcing is a bid partner drops.
    ``1D 1H 1N 2C`` is the weak five-four hand, not a game-forcing new suit: a game-forcing hand goes on to the
    rules after it (3NT, a jump) instead of bidding into a pass. Rules read at the same place share the order, so
    ``choose``, the call tests and the readings all see the same list."""
    first: dict[Call, str] = {}
    out: list[Candidate] = []
    for c in cands:
        if c.call.is_bid:
            force = c.rule.spec.force
            prior = first.setdefault(c.call, force)
            if force in _FORCING and prior not in _FORCING:
                continue
        out.append(c)
    return out


def _escape_guard(cands: list[Candidate], stuck: bool) -> list[Candidate]:
    """The escape guard: when a pass would end the auction with our side doubled or redoubled in a strain (or an
    artificial call) it never showed, or with the opponents redoubled after our takeout double, no pass is chosen
    while a sane alternative exists. Natural bids (a bid that shows its own strain) and the redouble (SOS) are tried
    first, in their priority order, and say so; the passes follow, in theirs. The order is hand-independent, so
    ``meaning_of`` reads the calls exactly as ``choose`` makes them."""
    sane, rest = [], []
    note = _ESCAPE_NOTE if stuck else _TRAPPED_NOTE
    for c in cands:
        if c.call.is_bid and not c.rule.spec.artificial and c.rule.shows_code is None:
            sane.append(Candidate(c.rule, c.bindings, c.call, note))
        elif c.call.is_redouble:
            sane.append(Candidate(c.rule, c.bindings, c.call, note))
        elif c.call.is_pass:
            rest.append(Candidate(c.rule, c.bindings, c.call, _NO_ESCAPE_NOTE))
        else:
            rest.append(c)
    return sane + rest


def _match(applicable, text: str, alt: str | None, last, legal, env: dict) -> list[Candidate]:
    """The instances of ``applicable`` rules whose pattern matches ``text`` (or ``alt``) and whose ``require``
    holds, in priority order."""
    out: list[Candidate] = []
    for rule, pats in applicable:
        for pat, _names in pats:
            m = pat.fullmatch(text)
            if m is None and alt is not None:
                m = pat.fullmatch(alt)
            if m is None:
                continue
            b = {k: "CDHS".index(v) for k, v in m.groupdict().items() if v is not None}
            for call, bb in _instances(rule, b, last):
                if call not in legal:
                    continue
                env.update(bb)
                # ``require`` is about the auction only (a free suit variable is bound per instance).
                if rule.trivial_require or _eval(rule, rule.require_code, env, "require"):
                    out.append(Candidate(rule, tuple(sorted(bb.items())), call))
            break
    return out


def _eval(rule: CompiledRule, code, env: dict, what: str):
    try:
        return eval(code, env)  # noqa: S307 - compiled from an expression checked at load (names, node types)
    except Exception as e:  # a rule that cannot be evaluated is a bug in the system file: say which one
        raise BiddingSystemError(f"rule {rule.id}: evaluating '{what}' failed: {type(e).__name__}: {e}") from None


@lru_cache(maxsize=4096)
def _hand_features(bits: int):
    """A hand's features, shared: the exact meaning tests check the same hand against each call of its seat, and
    the sampler the same partial deals again (callers copy it before adding to it)."""
    return features_of(Hand(bits))


def _holds(c: Candidate, env: dict) -> bool:
    if c.bindings:
        env.update(c.bindings)
    return bool(_eval(c.rule, c.rule.when_code, env, "when"))


def _facts(calls: tuple[Call, ...]) -> tuple[bool, Call | None, frozenset[Call]]:
    """(auction over?, last bid, legal calls now) for a legal call sequence, without building an ``Auction``."""
    n = len(calls)
    last = None
    act_i = -1  # index of the last non-pass call
    dbl = 0
    for i, c in enumerate(calls):
        if c.index >= 3:
            last, dbl = c, 0
        elif c.index == 1:
            dbl = 1
        elif c.index == 2:
            dbl = 2
        if c.index != 0:
            act_i = i
    if last is None:
        complete = n >= 4
    else:
        complete = n - act_i - 1 >= 3
    first_bid = 3 if last is None else last.index + 1
    extra = 0
    # the last non-pass call was made by an opponent of the seat to act iff an odd number of calls followed it
    if last is not None and (n - act_i) % 2 == 1:
        extra = 1 if dbl == 0 else 2 if dbl == 1 else 0
    return complete, last, _legal_from(first_bid, extra)


def _legal_set(auction: Auction) -> frozenset[Call]:
    """Legal calls now, computed directly (the hot path cannot afford 38 checked ``is_legal`` calls)."""
    return _facts(tuple(auction.calls))[2]


@lru_cache(maxsize=128)  # (first bid 3..38) x (no double, double, redouble available): at most 114 sets
def _legal_from(first_bid: int, extra: int) -> frozenset[Call]:
    out = {PASS}
    out.update(ALL_CALLS[first_bid:])
    if extra == 1:
        out.add(DOUBLE)
    elif extra == 2:
        out.add(REDOUBLE)
    return frozenset(out)


def _remember(rule: CompiledRule, key: tuple, value):
    memo = rule.memo
    if len(memo) >= _RULE_MEMO_LIMIT:
        memo.clear()
    memo[key] = value
    return value


def _instances(rule: CompiledRule, b: dict[str, int], last: Call | None):
    key = ("instances", tuple(sorted(b.items())), last.index if last is not None else -1)
    hit = rule.memo.get(key)
    if hit is not None:
        return hit
    return _remember(rule, key, tuple(_instances_uncached(rule, b, last)))


def _instances_uncached(rule: CompiledRule, b: dict[str, int], last: Call | None):
    if not rule.level:
        yield Call.parse(rule.spec.call), b
        return
    if rule.free_var:
        taken = set(b.values())
        v = rule.free_var
        pool = (2, 3) if v in "MO" else (0, 1) if v in "mn" else (0, 1, 2, 3)
        suits = [s for s in (3, 2, 1, 0) if s in pool and s not in taken]
        combos = [(s, {**b, v: s}) for s in suits]
    else:
        st = rule.strain
        s = b[st] if st in b else "CDHSN".index(st)
        combos = [(s, b)]
    for strain, bb in combos:
        if bb and not possible_with(rule.when_tree, bb):
            continue  # e.g. a transfer instance into a suit the rule never transfers to: it would misread the call
        lv = rule.level
        if lv.isdigit():
            level = int(lv)
        else:
            level = _cheapest_level(last, strain) + {"c": 0, "j": 1, "jj": 2}[lv]
        if level <= 7:
            yield Call.bid(level, strain), bb


def _ranges_cached(rule: CompiledRule, bindings: tuple):
    """Interval hulls of ``rule`` with these suit bindings, worked out once per rule (rules are immutable)."""
    key = ("ranges", bindings)
    hit = rule.memo.get(key)
    if hit is not None:
        return hit
    return _remember(rule, key, extract_ranges(rule.when_tree, dict(bindings)))




@lru_cache(maxsize=1)
def _default_pass_rule() -> CompiledRule:
    """The catch-all that closes every candidate list: no other rule fits, so pass (never silence)."""
    from .rules import RuleSpec, _check_expr

    spec = RuleSpec(id="__default_pass", context="*", call="P", priority=-10**6,
                    explain="no rule of the system fits this hand: pass")
    tree, code = _check_expr("True", spec.id, {"True"}, "when")
    return CompiledRule(spec, 10**9, (), tree, code, code, "", "", None, True)


def _bidder_of(system: CompiledSystem, opponents: CompiledSystem) -> Bidder:
    return Bidder.of(system, None if opponents == system else opponents)


# --- the exact call test ---------------------------------------------------------------------------------------------

class CallTest:
    """One auction's candidates compiled for the exact call test: the call of the first candidate whose ``when``
    holds for a hand, worked out the way ``Bidder.choose`` does (candidates in order, each ``when`` evaluated in the
    auction's namespace with the hand's features) but skipping whatever cannot change the answer:

    * a candidate whose HCP and suit-length hulls (``rules.extract_ranges``: a superset of the hands its ``when``
      accepts) exclude the hand cannot hold: skipped without evaluating it;
    * a candidate that takes the hand's HCP on strength alone (``rules.hcp_sufficient``: a subset) holds: taken
      without evaluating it;
    * "does the hand make call X" stops after the last candidate that makes X (none later can);
    * the hand's features are worked out only when a ``when`` has to be evaluated;
    * "does the hand make call X" is remembered per hand (``_MAKES_MEMO`` answers a test): the card player's sampler
      asks it of every candidate world at every card, and as the cards are seen the hidden hands repeat (96 % of
      the questions of a card replay were asked before).

    Every shortcut is exact, so the answer is the plain evaluation's (a skipped candidate's suit bindings are not
    set in the namespace either: no later ``when`` reads them, since the loader makes every ``when`` read only the
    variables its own pattern or free variable binds). Built by ``Bidder.call_test``, owned by the bidder's bounded
    cache and by the meanings (``CallMeaning``) that use it.
    """

    __slots__ = ("steps", "base", "_upto", "_memo")

    def __init__(self, cands: tuple[Candidate, ...], base: dict) -> None:
        self.base = base
        steps = []
        for c in cands:
            rest = c.rule.memo.get(("step", c.bindings))  # (an auction is compiled once, a rule met in many)
            steps.append((c.call,) + (rest if rest is not None else _step(c)))
        self.steps = tuple(steps)
        self._upto: dict[Call, tuple] = {}  # call -> the steps up to its last producer (a few calls per auction)
        self._memo: dict[tuple[Call, int], bool] = {}  # (call, hand) -> makes(hand, call), at most _MAKES_MEMO

    def first(self, bits: int) -> Call:
        """The call the hand whose 52-bit mask is ``bits`` makes here."""
        return self.steps[self.first_index(bits)][0]

    def first_index(self, bits: int, shared: bool = False) -> int:
        """The index (among the auction's candidates) of the candidate that hand's call comes from. ``shared``: take
        the hand's features from the interpreter's cache of recent hands (a projected auction bids the same four
        hands again and again; the sampler's hands are new, and would only crowd it)."""
        return self._run(self.steps, bits, shared)  # (the synthetic pass closes every list: always found)

    def makes(self, bits: int, call: Call) -> bool:
        """Whether that hand makes ``call`` here."""
        key = (call, bits)
        known = self._memo.get(key)
        if known is not None:
            return known
        steps = self._upto.get(call)
        if steps is None:
            last = max((i for i, st in enumerate(self.steps) if st[0] == call), default=-1)
            steps = self._upto[call] = self.steps[:last + 1]
        i = self._run(steps, bits, False)
        answer = i >= 0 and steps[i][0] == call
        if len(self._memo) >= _MAKES_MEMO:
            self._memo.clear()  # (bounded: a test lives as long as the bidder's cache keeps it)
        self._memo[key] = answer
        return answer

    def _run(self, steps: tuple, bits: int, shared: bool) -> int:
        """The index of the first of ``steps`` (a prefix of the candidates) that holds for the hand, -1 if none."""
        hcp, c, d, h, s = hcp_and_lengths(bits)
        env = None
        for i, (_call, code, bindings, hlo, hhi, lens, claim, rule) in enumerate(steps):
            if code is None:
                return i
            if hcp < hlo or hcp > hhi:
                continue
            if lens is not None and not (lens[0] <= c <= lens[1] and lens[2] <= d <= lens[3]
                                         and lens[4] <= h <= lens[5] and lens[6] <= s <= lens[7]):
                continue
            if claim >> hcp & 1:
                return i
            if env is None:
                if shared:
                    env = self.base.copy()
                    env.update(_hand_features(bits))
                else:
                    env = features_into(self.base.copy(), bits)
            if bindings:
                env.update(bindings)
            if _eval(rule, code, env, "when"):
                return i
        return -1


def _step(c: Candidate) -> tuple:
    """What ``CallTest`` needs of a candidate but its call: (its ``when`` compiled or None when always true, its
    bindings, HCP hull, length hulls as 8 bounds or None when there are none, HCP claim, rule), kept by the rule."""
    rule = c.rule
    if rule.trivial_when:
        return _remember(rule, ("step", c.bindings), (None, (), 0, 37, None, 0, rule))
    (hlo, hhi), ls = c.rule_ranges
    lens = tuple(x for r in ls for x in r)
    if lens == (0, 13) * 4:
        lens = None
    return _remember(rule, ("step", c.bindings), (rule.when_code, c.bindings, hlo, hhi, lens, _hcp_claim(rule), rule))


# --- picklable exact predicate --------------------------------------------------------------------------------------

@dataclass(frozen=True)
class CallMeaning:
    """Exact test "this hand makes ``call`` after ``calls``": own rule holds and no earlier candidate's does.

    Compared by the systems' names and the auction; it holds the bidder that made it, and pickles with it (as the
    bidder's systems: a pickled predicate needs no file to work).
    """

    system: str
    opponents: str
    dealer: int
    calls: tuple[str, ...]
    vul: int
    parity: int
    call: str
    text: str
    denies: tuple[str, ...] = ()  # the higher-priority calls that were available, as "call (explanation)"
    bidder: Bidder | None = field(default=None, compare=False, repr=False)

    def __call__(self, hand: Hand) -> bool:
        b = self.bidder
        if b is None:
            raise BiddingSystemError(f"the meaning of {self.call} was made without a bidder to test it")
        test = self.__dict__.get("_test")
        if test is None:  # (once per meaning: the sampler calls it for every candidate hand)
            calls = tuple(Call.parse(c) for c in self.calls)
            test = (b.call_test(Seat(self.dealer), calls, Vul(self.vul), self.parity), Call.parse(self.call))
            object.__setattr__(self, "_test", test)
        return test[0].makes(hand.bits, test[1])

    def __getstate__(self):
        # the compiled test holds code objects (not picklable) and is rebuilt from the bidder on first use
        state = dict(self.__dict__)
        state.pop("_test", None)
        return state

    def describe(self) -> str:
        if not self.denies:
            return f"{self.call}: {self.text} (and no higher-priority call)"
        shown = "; ".join(self.denies[:4]) + ("; ..." if len(self.denies) > 4 else "")
        return f"{self.call}: {self.text}; denies {shown}"

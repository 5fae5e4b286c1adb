"""``Player``: the one object a seat at a table asks for its calls and cards.

A seat knows its own hand, the auction, dummy's hand once it is down and the cards played: its ``SeatView``
(``engine.view``). ``Player.bid`` asks the rule-database bidder; ``Player.play`` asks a ``CardPlayer`` with the
view itself (no deal is made up for it): its worlds follow what the auction showed and denied
(``Bidder.explain_auction``) and its beliefs carry over from card to card of the board.

Decisions are deterministic given ``seed`` and the view (a re-run or resumed board plays the same), except where
an αμ time budget or a deadline cuts a search short.

Deadlines: ``bid(view, deadline)`` and ``play(view, deadline)`` take an absolute ``time.monotonic()`` value and
return by it with the best answer found so far (``BidChoice.cut_short`` / ``PlayDecision.cut_short`` say when the
deadline stopped something), never an exception for lack of time. The first card of a session also builds the
double-dummy solver (about 0.2 s, mostly its table's memory): ``prepare()`` does that, and loads the bidding
system, ahead of the first deadline.

The engine reads no file: ``PlayerParams`` names the bidding systems, and the ``Player`` is given ``systems``, a
loader that turns a name into a ``CompiledSystem`` (``squeeze.config.bidding.load_system`` reads the packaged
systems and ``.toml`` paths).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Callable

from .bidding import BidChoice, Bidder, CompiledSystem
from .bidding.borel import BorelBidder, BorelSettings
from .board import IllegalCardError
from .cards import BridgeError
from .play.card_player import CardPlayer, PlayDecision, PlaySettings
from .play.oracle import DDOracle, default_oracle
from .view import SeatView

__all__ = ["SeatView", "Player", "PlayerParams", "SystemLoader"]  # SeatView is engine.view's, re-exported

#: How a ``Player`` turns the system names of its ``PlayerParams`` into compiled systems.
SystemLoader = Callable[[str], CompiledSystem]


@dataclass(frozen=True)
class PlayerParams:
    """Everything a ``Player`` is configured with, as plain data (picklable, comparable). Its defaults and those of
    ``PlaySettings`` are the engine's defaults; ``squeeze.config.settings.engine_params`` builds one from settings."""

    system: str = "sayc"  # our bidding system: a name the Player's loader knows (a packaged system or a .toml path)
    opponents_system: str | None = None  # how we read the opponents' calls (None: as our own system)
    play: PlaySettings = field(default_factory=PlaySettings)
    seconds_per_call: float = 2.0  # a call's time budget (the rule-based bidder answers well within it)
    # The opening lead's time budget at a table (a seat's clock, robot.agent, spends it): the one card chosen from the
    # auction alone, where the sampler meets the most relaxed worlds; on a loaded machine a 2 s card budget cut a
    # third of our leads short against BEN (bench/RESULTS.md, "On the BEN match's own auctions").
    seconds_per_lead: float = 8.0
    borel: BorelSettings = field(default_factory=BorelSettings)  # Borel simulation at close calls (on by default)
    seed: int = 0  # with the board, seat and step, picks every random choice (see ``Player._rng``)

    def __post_init__(self) -> None:
        if self.seconds_per_call <= 0:
            raise BridgeError(f"seconds_per_call must be > 0, got {self.seconds_per_call}")
        if self.seconds_per_lead <= 0:
            raise BridgeError(f"seconds_per_lead must be > 0, got {self.seconds_per_lead}")


@dataclass
class _Board:
    key: tuple
    card_player: CardPlayer


@dataclass
class Player:
    """A seat's brain: ``bid(view)`` and ``play(view)``. One ``Player`` serves one seat for a whole session (it keeps
    the card player of the board in progress, so beliefs persist between the seat's cards). ``systems`` loads the
    bidding systems ``params`` names (see the module doc)."""

    params: PlayerParams = field(default_factory=PlayerParams)
    oracle: DDOracle | None = None
    systems: SystemLoader | None = None
    _board: _Board | None = field(default=None, init=False, repr=False)
    _borel: BorelBidder | None = field(default=None, init=False, repr=False)
    _bidder: Bidder | None = field(default=None, init=False, repr=False)

    @property
    def bidder(self) -> Bidder:
        """The rules of our system (and the opponents'), loaded on first use; shared with every player of the
        process that bids the same systems (``Bidder.of``)."""
        if self._bidder is None:
            if self.systems is None:
                raise BridgeError(f"no loader for the bidding system {self.params.system!r}: give the Player "
                                  "systems= (squeeze.config.bidding.load_system reads the packaged systems)")
            ours = self.systems(self.params.system)
            opp = self.params.opponents_system
            self._bidder = Bidder.of(ours, self.systems(opp) if opp is not None else None)
        return self._bidder

    def _rng(self, view: SeatView, step: int) -> random.Random:
        # an explicit integer mix (not hash()): the same board, seat and step give the same decision in any process
        return random.Random(((self.params.seed * 1_000_003 + view.board) * 7 + int(view.seat)) * 1_009 + step)

    def prepare(self) -> None:
        """Load the bidding system and build the solver now, so that no deadline is spent on them later."""
        _ = self.bidder  # the loader compiles a system once per process
        if self.oracle is None:
            self.oracle = default_oracle(self.params.play.solver_tt_mib, self.params.play.solver_core)

    def end_board(self) -> None:
        """Forget the board in progress. A player that may meet the same board again with the same auction (a
        tournament plays board k in every pairing) calls this between them, so that it starts the board afresh
        rather than carry on with the beliefs of the other table's play."""
        self._board = None

    def bid(self, view: SeatView, deadline: float | None = None) -> BidChoice:
        """The seat's call now, with its explanation and alert flag (raises ``BridgeError`` if it is not its turn).
        ``deadline``: see the module doc (a call cut short is a pass unless a rule's call was already found). With
        ``params.borel.enabled``, close calls are simulated (``engine.bidding.borel``) within ``seconds_per_call``;
        out of time, the rules' call."""
        if view.auction.is_complete:
            raise BridgeError("the auction is over: no call to make")
        if view.auction.next_seat != view.seat:
            raise BridgeError(f"{view.auction.next_seat.title} is to call, not {view.seat.title}")
        if self.params.borel.enabled:
            return self.borel.choose(view, self._rng(view, len(view.auction.calls)), deadline,
                                     self.params.seconds_per_call)
        return self.bidder.choose(view.hand, view.auction, view.vul, alternatives=False, deadline=deadline)

    @property
    def borel(self) -> BorelBidder:
        """The Borel-simulation bidder (``params.borel``), with its own solver (built on its first simulated call)."""
        if self._borel is None:
            self._borel = BorelBidder(self.bidder, self.params.borel, core=self.params.play.solver_core)
        return self._borel

    def play(self, view: SeatView, deadline: float | None = None) -> PlayDecision:
        """The next card for the seat, or for dummy when the seat is declarer, with the reason for it.
        ``deadline``: see the module doc.

        Raises ``BridgeError`` when the auction was passed out or is not over, the play is over, or it is another
        seat's turn.
        """
        play = view.play
        if play is None:
            raise BridgeError("no contract: the auction is not over or was passed out")
        if play.is_complete:
            raise BridgeError("the play is over: no card to choose")
        if view.seat != view.decider:
            raise BridgeError(f"{view.decider.title} chooses {play.next_seat.title}'s card now, not "
                              f"{view.seat.title}")
        decision = self._card_player(view).choose(view, self._rng(view, 100 + len(view.cards)), deadline)
        if decision.card not in view.legal_cards():  # the engine's own invariant, checked at the boundary
            raise IllegalCardError(f"the card player chose {decision.card}, which is not legal here")
        return decision

    def _card_player(self, view: SeatView) -> CardPlayer:
        calls = () if view.auction is None else tuple(view.auction.calls)
        key = (view.board, int(view.seat), view.hand.bits, calls, str(view.contract), int(view.vul), view.alerted,
               view.explanations)
        if self._board is None or self._board.key != key:
            if self.oracle is None:
                # built on the first card, so a bidding-only seat needs no solver
                self.oracle = default_oracle(self.params.play.solver_tt_mib, self.params.play.solver_core)
            constraints = (None if view.auction is None
                           else self.bidder.explain_auction(view.auction, view.vul, viewpoint=view.seat,
                                                             alerted=view.alerted,
                                                             explanations=dict(view.explanations)))
            self._board = _Board(key, CardPlayer(self.params.play, oracle=self.oracle, constraints=constraints))
        return self._board.card_player

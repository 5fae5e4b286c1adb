"""The table manager's clock policy: given the time and what a table waits for, what should happen.

Pure logic (no sockets, no store, no clock of its own: every call is given ``now``). The server keeps a
``TableClock`` per table, describes what the table waits for as a ``Wait`` at every tick, asks ``TableClock.decide``
and carries out the answer: it records each action's incident (``Action.kind``, ``Action.detail``), sends a
``Warn``'s ``notice`` to the seat as an ``Error`` line, restarts the board for a ``Void``, and has the table make
the seat's line for a ``Force`` or ``CatchUp`` (``TableMachine.act_for``, reason ``Action.reason``), telling the
clock with ``TableClock.forced_line`` when it did.

The policy (the ``[tm]`` settings): a seat whose call or card takes longer than ``seconds_per_call`` /
``seconds_per_card``, whose side's thinking time on the board passes ``board_seconds``, or that owes a ready line
for ``ready_seconds``, is over its time. The first tick that sees it warns (always an incident; the seat itself is
told only with ``warn_at_table`` and a fate other than ``warn``: the clocks are the director's, not the protocol's,
and a protocol-18 robot may drop the table on a line it does not know). Then ``time_fate``: ``warn`` does nothing
more; ``force``, ``grace_seconds`` after the warning, has the table make the line; ``void`` voids the board then and
plays it again from the start, once per board (a second overrun of that board is forced).

A seat the table acted for on a board is out of step with it until the next board starts (it still thinks the
forced turn is its own): every line it owes meanwhile is made at once (``CatchUp``), so one hung robot costs the
board one wait, not one per trick. A seat that dropped is held ``hold_seconds``; past that, the board in progress
is voided, to be replayed when it is back (``expired_holds``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping, Optional, Protocol

from squeeze.engine.cards import Seat

__all__ = ["ClockRules", "Wait", "Warn", "Force", "CatchUp", "Void", "HoldExpired", "Action", "TableClock",
           "overrun", "expired_holds", "tick_seconds"]


class ClockRules(Protocol):
    """The ``[tm]`` settings the clocks read (``config.settings.TableManagerSettings`` is one)."""

    seconds_per_call: float
    seconds_per_card: float
    board_seconds: float
    ready_seconds: float
    time_fate: str
    grace_seconds: float
    warn_at_table: bool
    hold_seconds: float


@dataclass(frozen=True)
class Wait:
    """What a table waits for at one moment (``TableMachine.waiting_for`` and where the board is).

    ``kind``: the gate (``bid``, ``card`` or a ready line's kind); ``missing``: seats that owe a ready line;
    ``acting``: the seat whose call or card is awaited (``None``: none is); ``seated``: seats with a live connection
    (a seat nobody plays has no clock); ``side_used``: seconds the acting seat's side has used on the board so far,
    this wait excluded; ``board``, ``calls``, ``cards``: the board in progress and how far it is."""

    kind: str
    missing: tuple[Seat, ...]
    acting: Optional[Seat]
    seated: frozenset[Seat]
    side_used: float = 0.0
    board: Optional[int] = None
    calls: int = -1
    cards: int = -1

    @property
    def key(self) -> tuple:
        """Equal for two ticks of the same wait; a new wait (a line arrived, or a new board) restarts the clock."""
        return self.board, self.calls, self.cards, self.kind, self.acting, self.missing


@dataclass(frozen=True)
class Warn:
    """A seat is over its time: record it; send ``notice`` to the seat as an ``Error`` line when it is not None."""

    seat: Seat
    why: str
    notice: Optional[str] = None
    kind = "clock"

    @property
    def detail(self) -> str:
        return f"{self.seat.title}: {self.why}"


@dataclass(frozen=True)
class Force:
    """The grace is over: the table makes the seat's line (``what``: call, card or ready line) itself."""

    seat: Seat
    what: str
    why: str
    kind = "forced"

    @property
    def reason(self) -> str:
        return f"forced by the table manager: {self.seat.title} over the time limit ({self.why})"

    @property
    def detail(self) -> str:
        return f"{self.seat.title}: the table made its {self.what} ({self.why})"


@dataclass(frozen=True)
class CatchUp:
    """A seat already forced on this board owes a line: the table makes it at once (no incident of its own)."""

    seat: Seat

    @property
    def reason(self) -> str:
        return f"forced by the table manager: {self.seat.title} is out of step after a forced line"


@dataclass(frozen=True)
class Void:
    """The grace is over and the fate is ``void``: the board is voided and played again from the start."""

    seat: Seat
    board: int
    why: str
    kind = "void"

    @property
    def detail(self) -> str:
        return f"board {self.board}: {self.seat.title} over the time limit ({self.why}); replayed now"


@dataclass(frozen=True)
class HoldExpired:
    """A dropped seat was held longer than ``hold_seconds``: with ``board`` (one in progress), void it, to be
    replayed when the seat is back."""

    seat: Seat
    board: Optional[int]
    hold_seconds: float
    kind = "void"

    @property
    def detail(self) -> str:
        return (f"board {self.board}: {self.seat.title} disconnected for more than {self.hold_seconds:g} s; "
                "replayed on its return")


Action = Warn | Force | CatchUp | Void


def tick_seconds(rules: ClockRules) -> float:
    """How often the server looks at its tables: a quarter of the shortest limit, between 0.02 and 0.25 s."""
    s = rules
    return max(0.02, min(0.25, s.grace_seconds / 4 or 0.25, s.seconds_per_call / 4, s.seconds_per_card / 4,
                         s.ready_seconds / 4, (s.hold_seconds / 4) or 0.25))


def overrun(rules: ClockRules, wait: Wait, elapsed: float) -> Optional[tuple[Seat, str]]:
    """The seat over its time after ``elapsed`` seconds of ``wait``, and why; ``None``: nobody is."""
    s = rules
    acting = wait.acting
    if acting is not None and acting in wait.seated:
        limit = s.seconds_per_call if wait.kind == "bid" else s.seconds_per_card
        used = wait.side_used + elapsed
        if elapsed > limit:
            return acting, f"{elapsed:.1f} s on one {'call' if wait.kind == 'bid' else 'card'} (limit {limit:g} s)"
        if used > s.board_seconds:
            return acting, f"its side used {used:.1f} s on the board (limit {s.board_seconds:g} s)"
    if elapsed > s.ready_seconds:
        owing = [x for x in wait.missing if x in wait.seated]
        if owing:
            return owing[0], (f"no ready line for {elapsed:.1f} s (waiting for '{wait.kind}', "
                              f"limit {s.ready_seconds:g} s)")
    return None


def expired_holds(rules: ClockRules, held: Mapping[Seat, Optional[float]], now: float,
                  board: Optional[int]) -> list[HoldExpired]:
    """The dropped seats (``held``: seat -> when it dropped, ``None`` once its hold has expired) whose hold expires
    at ``now``; ``board``: the board in progress (``None``: none is, so nothing is voided)."""
    return [HoldExpired(seat, board, rules.hold_seconds) for seat, since in held.items()
            if since is not None and now - since > rules.hold_seconds]


@dataclass
class TableClock:
    """One table's clock state, and the policy applied to it (``decide``)."""

    wait_key: tuple = ()
    wait_since: float = 0.0
    warned_at: Optional[float] = None  #: when the current wait's overrun was warned
    forced: set[Seat] = field(default_factory=set)  #: seats the table has made a line for on this board
    voided: dict[int, int] = field(default_factory=dict)  #: board -> times voided for a clock

    def new_board(self) -> None:
        """A board (or a new attempt of it) has started: no seat is out of step, the next wait starts afresh."""
        self.wait_key = ()
        self.forced = set()

    def forced_line(self, seat: Seat) -> None:
        """The table made ``seat``'s line (a ``Force`` carried out)."""
        self.forced.add(seat)
        self.warned_at = None

    def out_of_step(self, wait: Wait) -> Optional[Seat]:
        """A seat forced on this board that owes a line in ``wait`` (the acting seat first), if any."""
        owing = [x for x in ((wait.acting,) if wait.acting is not None else ()) + wait.missing
                 if x in self.forced and x in wait.seated]
        return owing[0] if owing else None

    def decide(self, rules: ClockRules, wait: Wait, now: float, *, catch_up: bool = True) -> Optional[Action]:
        """What should happen at ``now`` while the table waits for ``wait`` (``None``: nothing yet).

        The first tick of a new wait only starts its clock. ``catch_up=False``: do not ask for a ``CatchUp`` (the
        table could make none of the lines a forced seat owes)."""
        if wait.key != self.wait_key:
            self.wait_key, self.wait_since, self.warned_at = wait.key, now, None
            return None
        if catch_up and self.forced:
            seat = self.out_of_step(wait)
            if seat is not None:
                return CatchUp(seat)
        late = overrun(rules, wait, now - self.wait_since)
        if late is None:
            return None
        seat, why = late
        s = rules
        if self.warned_at is None:
            self.warned_at = now
            notice = None
            if s.time_fate != "warn" and s.warn_at_table:
                notice = f"Time limit: {seat.title}, {why}; the table acts in {s.grace_seconds:g} s"
            return Warn(seat, why, notice)
        if s.time_fate == "warn" or now - self.warned_at < s.grace_seconds:
            return None
        board = wait.board
        if s.time_fate == "void" and board is not None and self.voided.get(board, 0) < 1:
            self.voided[board] = self.voided.get(board, 0) + 1
            return Void(seat, board, why)
        what = ("call" if wait.kind == "bid" else "card") if seat == wait.acting else "ready line"
        return Force(seat, what, why)

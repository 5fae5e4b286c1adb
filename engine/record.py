"""The record of one board as played at one table, and its JSON form.

``BoardRecord`` is what a table produces for a board and what PBN/LIN export, IMP scoring, the results store and live
events exchange: deal, dealer, vulnerability, auction, play, result, contract, players, event, room and table, plus
what a robot table knows beyond PBN: a ``CallNote`` per call (alert, explanation, seconds the decision took), a
``CardNote`` per card (the player's reason, seconds) and the seconds each side used on the board.

``record.to_json()`` writes one line of JSON (sorted keys, so the same record always gives the same text);
``BoardRecord.from_json(text)`` reads it back, replaying the auction and the play for legality. Every problem with
the input raises ``RecordError`` (a ``BridgeError``) naming the field: ``record field 'play': card 7 (HQ): HQ is a
revoke: West must follow spades``.

JSON layout, schema 1 (the text forms are ARCHITECTURE.md's contracts, printed and parsed by ``engine.cards`` and
``engine.auction``)::

    {"schema": 1, "board": 3, "deal": "N:AK94.T82.K73.QJ5 ...", "dealer": "S", "vul": "EW",
     "auction": ["1N", "P", "3N", "P", "P", "P"] | null,
     "call_notes": [{"alert": false, "explanation": "15-17 balanced", "seconds": 0.12 | null}, ...] (one a call, or []),
     "contract": "3NS" | null, "play": ["SA", "S2", ...],
     "card_notes": [{"reason": "...", "seconds": 1.5 | null}, ...] (one a card, or []),
     "result": 9 | null, "players": {"N": "name", ...}, "event": "", "room": "Open", "table": "",
     "seconds_ns": 12.5 | null, "seconds_ew": 9.25 | null}
"""

from __future__ import annotations

import dataclasses
import json
import math
from dataclasses import dataclass, field
from typing import Any, Callable

from .auction import Auction, Call, Contract
from .board import Play
from .cards import BridgeError, Card, Deal, Seat, Vul, dealer_for_board, vul_for_board

__all__ = ["CallNote", "CardNote", "BoardRecord", "RecordError", "RECORD_SCHEMA"]

#: Version of the JSON layout; a reader refuses any other, so an old reader never misreads a newer record.
RECORD_SCHEMA = 1


class RecordError(BridgeError):
    """A board record's JSON form that cannot be read: not JSON, a wrong schema, a missing, unknown or bad field."""


def _seconds(value: float | None, what: str) -> float | None:
    """``None`` (not measured) or a finite, non-negative number of seconds, as a float (JSON cannot hold NaN)."""
    if value is None:
        return None
    try:
        seconds = float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else math.nan
    except OverflowError:  # an int too large for a float
        seconds = math.inf
    if not math.isfinite(seconds) or seconds < 0:
        raise BridgeError(f"{what} must be a finite number of seconds >= 0 or None, got {_show(value)}")
    return seconds


def _text(value: str, what: str) -> str:
    if not isinstance(value, str):
        raise BridgeError(f"{what} must be text, got {value!r}")
    return value


@dataclass(frozen=True)
class CallNote:
    """What goes with one call: the alert flag, the explanation the caller gave, and the seconds it took to decide
    (``None`` when not measured)."""

    alert: bool = False
    explanation: str = ""
    seconds: float | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.alert, bool):
            raise BridgeError(f"alert must be True or False, got {self.alert!r}")
        _text(self.explanation, "explanation")
        object.__setattr__(self, "seconds", _seconds(self.seconds, "a call's seconds"))


@dataclass(frozen=True)
class CardNote:
    """What goes with one card: the player's reason for it and the seconds it took to choose (``None``: not
    measured). A dummy's card carries declarer's reason: declarer chose it."""

    reason: str = ""
    seconds: float | None = None

    def __post_init__(self) -> None:
        _text(self.reason, "reason")
        object.__setattr__(self, "seconds", _seconds(self.seconds, "a card's seconds"))


@dataclass(frozen=True)
class BoardRecord:
    """One board as played at one table: everything PBN export, IMP scoring and result stores need.

    ``dealer`` and ``vul`` default to the board number's (the dealer to the auction's when there is one);
    ``contract`` to the auction's. ``result`` is declarer's tricks (``None`` when passed out or unknown); it defaults
    to what a complete play gives, and when the play stopped early (claim) it may exceed what ``play`` shows.
    ``call_notes`` / ``card_notes`` are either empty (not known) or one per call of ``auction`` / card of ``play``.
    ``seconds_ns`` / ``seconds_ew``: the time each side used on the board (``None``: not measured).

    Raises ``BridgeError`` for what cannot be one board: an illegal card, a play without a contract, an auction that
    starts with another dealer, a contract other than the complete auction's, notes that do not match the calls or
    cards in number, a result outside 0..13.
    """

    board: int
    deal: Deal
    dealer: Seat | None = None
    vul: Vul | None = None
    auction: Auction | None = None
    play: tuple[Card, ...] = ()
    result: int | None = None
    contract: Contract | None = None
    players: dict[Seat, str] = field(default_factory=dict)
    event: str = ""
    room: str = ""
    table: str = ""
    call_notes: tuple[CallNote, ...] = ()
    card_notes: tuple[CardNote, ...] = ()
    seconds_ns: float | None = None
    seconds_ew: float | None = None

    def __post_init__(self) -> None:
        self._check_and_default(replay=True)

    def _check_and_default(self, *, replay: bool) -> None:
        """Defaults and checks; ``replay=False`` when the play is a ``Play`` already checked card by card."""
        s = object.__setattr__
        b = self.board
        default_dealer = dealer_for_board(b)  # (also refuses a board number below 1)
        if self.dealer is None:
            s(self, "dealer", self.auction.dealer if self.auction is not None else default_dealer)
        if self.vul is None:
            s(self, "vul", vul_for_board(b))
        if self.auction is not None:
            if self.auction.dealer != self.dealer:
                raise BridgeError(f"board {b}: the auction starts with {self.auction.dealer.title} "
                                  f"but the dealer is {self.dealer.title}")  # type: ignore[union-attr]
            if self.contract is None:
                s(self, "contract", self.auction.contract)
            elif self.auction.is_complete and self.auction.contract != self.contract:
                raise BridgeError(f"board {b}: contract {self.contract} does not match the auction's "
                                  f"{self.auction.contract}")
        if self.result is not None and not 0 <= self.result <= 13:
            raise BridgeError(f"board {b}: result must be 0..13 tricks, got {self.result}")
        s(self, "play", tuple(self.play))
        if self.play:
            if self.contract is None:
                raise BridgeError(f"board {b}: cards are played but there is no contract")
            if replay:
                p = Play(self.deal, self.contract, self.play)  # validates every card
                if self.result is None and p.is_complete:
                    s(self, "result", p.declarer_tricks)
        for name in ("event", "room", "table"):
            _text(getattr(self, name), f"board {b}: {name}")
        for seat, name in self.players.items():
            if not isinstance(seat, Seat):
                raise BridgeError(f"board {b}: players are named by Seat, got {seat!r}")
            _text(name, f"board {b}: {seat.title}'s name")
        s(self, "players", dict(self.players))  # a copy: the caller's dict cannot change the record
        s(self, "call_notes", tuple(self.call_notes))
        s(self, "card_notes", tuple(self.card_notes))
        n_calls = len(self.auction.calls) if self.auction is not None else 0
        if self.call_notes and len(self.call_notes) != n_calls:
            raise BridgeError(f"board {b}: {len(self.call_notes)} call notes for an auction of {n_calls} calls")
        if self.card_notes and len(self.card_notes) != len(self.play):
            raise BridgeError(f"board {b}: {len(self.card_notes)} card notes for a play of {len(self.play)} cards")
        for notes, kind in ((self.call_notes, CallNote), (self.card_notes, CardNote)):
            for note in notes:
                if not isinstance(note, kind):
                    raise BridgeError(f"board {b}: expected a {kind.__name__}, got {note!r}")
        s(self, "seconds_ns", _seconds(self.seconds_ns, f"board {b}: seconds_ns"))
        s(self, "seconds_ew", _seconds(self.seconds_ew, f"board {b}: seconds_ew"))

    @classmethod
    def from_play(cls, board: int, play: Play, **fields) -> "BoardRecord":
        """A record of a board whose play is already a checked ``Play`` (no second replay of the cards).

        ``result`` defaults to declarer's tricks when the play is complete.
        """
        taken = sorted(fields.keys() & {"board", "deal", "contract", "play"})
        if taken:
            raise TypeError(f"BoardRecord.from_play() takes {', '.join(taken)} from its arguments, not as fields")
        unknown = sorted(fields.keys() - cls.__dataclass_fields__.keys())
        if unknown:
            raise TypeError(f"BoardRecord.from_play() got unexpected fields {', '.join(unknown)}")
        values = {"board": board, "deal": play.deal, "contract": play.contract, "play": play.cards, **fields}
        rec = object.__new__(cls)
        for f in dataclasses.fields(cls):
            if f.name in values:
                value = values[f.name]
            else:
                value = f.default_factory() if f.default_factory is not dataclasses.MISSING else f.default
            object.__setattr__(rec, f.name, value)
        rec._check_and_default(replay=False)
        if rec.result is None and play.is_complete:
            object.__setattr__(rec, "result", play.declarer_tricks)
        return rec

    @property
    def is_passed_out(self) -> bool:
        return self.auction is not None and self.auction.is_passed_out

    def score_ns(self) -> int:
        """Score from North-South's point of view (0 when passed out)."""
        from .scoring import score as _score

        if self.contract is None or self.result is None:
            return 0
        decl = self.contract.declarer
        if decl is None:
            raise BridgeError(f"board {self.board}: contract {self.contract} has no declarer")
        s = _score(self.contract, self.result, self.vul.is_vulnerable(decl))  # type: ignore[union-attr]
        return s if decl.is_ns else -s

    # --- JSON -----------------------------------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """The record as JSON-able data (schema ``RECORD_SCHEMA``; see the module docstring)."""
        return {
            "schema": RECORD_SCHEMA,
            "board": self.board,
            "deal": self.deal.to_pbn(),
            "dealer": self.dealer.letter,  # type: ignore[union-attr]
            "vul": self.vul.pbn,  # type: ignore[union-attr]
            "auction": None if self.auction is None else [str(c) for c in self.auction.calls],
            "call_notes": [dataclasses.asdict(n) for n in self.call_notes],
            "contract": None if self.contract is None else str(self.contract),
            "play": [str(c) for c in self.play],
            "card_notes": [dataclasses.asdict(n) for n in self.card_notes],
            "result": self.result,
            "players": {seat.letter: name for seat, name in self.players.items()},
            "event": self.event,
            "room": self.room,
            "table": self.table,
            "seconds_ns": self.seconds_ns,
            "seconds_ew": self.seconds_ew,
        }

    def to_json(self) -> str:
        """One line of JSON, keys sorted and non-ASCII escaped: the same record always gives the same text."""
        return json.dumps(self.to_dict(), sort_keys=True, separators=(",", ":"))

    @classmethod
    def from_dict(cls, data: Any) -> "BoardRecord":
        """The record ``to_dict`` wrote: every field checked, the auction and the play replayed.

        Raises:
            RecordError: not an object, a schema other than ``RECORD_SCHEMA``, a missing or unknown key, or a field
                that is not what it should be (its message names the field).
        """
        if not isinstance(data, dict):
            raise RecordError(f"a board record is a JSON object, got {_show(data)}")
        schema = data.get("schema")
        if schema != RECORD_SCHEMA or isinstance(schema, bool):
            raise RecordError(f"record field 'schema': version {_show(schema)} is not supported (this reader reads "
                              f"{RECORD_SCHEMA})")
        for keys, what in ((_JSON_KEYS - data.keys(), "missing"), (data.keys() - _JSON_KEYS, "unknown")):
            if keys:
                names = sorted(map(str, keys))
                raise RecordError(f"record field {names[0]!r} is {what}"
                                  + (f" (and {', '.join(map(repr, names[1:]))})" if names[1:] else ""))
        board = _read(data, "board", _board_number)
        deal = _read(data, "deal", _deal)
        dealer = _read(data, "dealer", lambda v: Seat.parse(_str(v)))
        auction = _read(data, "auction", lambda v: None if v is None else _replay_auction(dealer, v))
        contract = _read(data, "contract", lambda v: None if v is None else Contract.parse(_str(v)))
        if auction is not None and auction.is_complete and auction.contract != contract:
            raise RecordError(f"record field 'contract': {contract} is not the auction's contract, {auction.contract}")
        play = _read(data, "play", lambda v: _replay_play(deal, contract, v))
        result = _read(data, "result", lambda v: None if v is None else _result(v, play))
        fields = dict(
            dealer=dealer, vul=_read(data, "vul", lambda v: Vul.parse(_str(v))), auction=auction, result=result,
            players=_read(data, "players", _players),
            event=_read(data, "event", _str), room=_read(data, "room", _str), table=_read(data, "table", _str),
            call_notes=_read(data, "call_notes", lambda v: _notes(v, CallNote)),
            card_notes=_read(data, "card_notes", lambda v: _notes(v, CardNote)),
            seconds_ns=_read(data, "seconds_ns", lambda v: _seconds(v, "seconds_ns")),
            seconds_ew=_read(data, "seconds_ew", lambda v: _seconds(v, "seconds_ew")),
        )
        try:
            if play is None:
                return cls(board=board, deal=deal, contract=contract, **fields)
            return cls.from_play(board, play, **fields)
        except BridgeError as exc:  # what only the whole record can check: the notes against the calls and cards
            raise RecordError(f"record: {exc}") from None

    @classmethod
    def from_json(cls, text: str | bytes | dict) -> "BoardRecord":
        """The record ``to_json`` wrote (JSON text or bytes, or the object already parsed); see ``from_dict``."""
        if isinstance(text, dict):
            return cls.from_dict(text)
        try:
            data = json.loads(text)
        except (json.JSONDecodeError, UnicodeDecodeError, TypeError) as exc:
            raise RecordError(f"a board record must be JSON text: {exc}") from None
        return cls.from_dict(data)


#: The keys of the JSON object: the schema version and one per field, named as the field is.
_JSON_KEYS = frozenset(["schema", *(f.name for f in dataclasses.fields(BoardRecord))])


def _show(value: Any) -> str:
    """A value as the JSON it came from (``null``, ``"x"``), for error messages."""
    try:
        return json.dumps(value)
    except (TypeError, ValueError):
        return repr(value)


def _read(data: dict, name: str, convert: Callable[[Any], Any]) -> Any:
    """``convert(data[name])``, a ``BridgeError`` it raises reported as a ``RecordError`` naming the field."""
    try:
        return convert(data[name])
    except BridgeError as exc:
        raise RecordError(f"record field {name!r}: {exc}") from None


def _str(value: Any) -> str:
    if not isinstance(value, str):
        raise BridgeError(f"expected text, got {_show(value)}")
    return value


def _int(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise BridgeError(f"expected a whole number, got {_show(value)}")
    return value


def _list(value: Any) -> list:
    if not isinstance(value, list):
        raise BridgeError(f"expected a list, got {_show(value)}")
    return value


def _board_number(value: Any) -> int:
    dealer_for_board(_int(value))  # refuses a number below 1
    return value


def _deal(value: Any) -> Deal:
    """A complete deal, or an end position (every hand the same number of cards), as PBN allows."""
    deal = Deal.parse(_str(value), complete=False)
    lengths = {len(h) for h in deal.hands}
    if len(lengths) != 1 or 0 in lengths:
        raise BridgeError(f"{value!r} is not a deal: the hands hold {'/'.join(str(len(h)) for h in deal.hands)} "
                          "cards (13 each, or the same number in each for an end position)")
    return deal


def _replay_auction(dealer: Seat, calls: Any) -> Auction:
    auction = Auction(dealer)
    for i, text in enumerate(_list(calls)):
        try:
            auction = auction.then(Call.parse(_str(text)))
        except BridgeError as exc:
            raise BridgeError(f"call {i + 1} ({_show(text)}): {exc}") from None
    return auction


def _replay_play(deal: Deal, contract: Contract | None, cards: Any) -> Play | None:
    """The checked ``Play`` of ``cards``; ``None`` when no card was played."""
    if not _list(cards):
        return None
    if contract is None or contract.declarer is None:
        raise BridgeError("cards are played but there is no contract with a declarer")
    play = Play(deal, contract)
    for i, text in enumerate(cards):
        try:
            play = play.then(Card.parse(_str(text)))
        except BridgeError as exc:
            raise BridgeError(f"card {i + 1} ({_show(text)}): {exc}") from None
    return play


def _result(value: Any, play: Play | None) -> int:
    """Declarer's tricks: 0..13, and with a play at least the tricks it gives declarer, at most those plus the
    tricks still to play (a claim)."""
    result = _int(value)
    if not 0 <= result <= 13:
        raise BridgeError(f"{result} is not 0..13 tricks")
    if play is not None:
        done = play.declarer_tricks
        most = done + min(len(h) for h in play.deal.hands) - len(play.tricks)
        if not done <= result <= most:
            raise BridgeError(f"{result} tricks, but the play gives declarer {done}"
                              + (f" to {most}" if most > done else ""))
    return result


def _players(value: Any) -> dict[Seat, str]:
    if not isinstance(value, dict):
        raise BridgeError(f"expected an object of seat letters to names, got {_show(value)}")
    out = {}
    for seat, name in value.items():
        try:
            out[Seat.parse(_str(seat))] = _str(name)
        except BridgeError as exc:
            raise BridgeError(f"{seat!r}: {exc}") from None
    return out


def _notes(value: Any, kind: type) -> tuple:
    """``CallNote`` or ``CardNote`` values from their objects; every key of the note, and no other, is required."""
    keys = {f.name for f in dataclasses.fields(kind)}
    out = []
    for i, item in enumerate(_list(value)):
        try:
            if not isinstance(item, dict) or item.keys() != keys:
                raise BridgeError(f"expected an object with the keys {', '.join(sorted(keys))}, got {_show(item)}")
            out.append(kind(**item))
        except BridgeError as exc:
            raise BridgeError(f"note {i + 1}: {exc}") from None
    return tuple(out)

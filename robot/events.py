"""Live events of the tables (issue 20): the event model, its builders from engine types, and the MQTT publisher.

Any source of play - the table manager (``robot.tm``), a match, self-play - describes what happens at a table with
the builders below and hands the events to ``EventPublisher.publish``, which never blocks: events wait in a bounded
queue for a background task that publishes them to an MQTT broker, reconnecting whenever the broker is gone. When
the queue is full an event is dropped, counted (``PublisherStats.dropped``) and logged; the table never waits.
``TableFeed`` is the live sequence for one table (board, each call, each card - dummy's hand after the opening lead -,
each trick, then deal, result and summary), holding the deal back until the board is over; ``board_events`` is the same sequence after the fact,
from a finished ``BoardRecord``. ``subscribe`` is the watcher's side (``squeeze watch``). This module is the only
one that imports the MQTT libraries, so a change of client (aiomqtt 3.x) or broker stays here.

Topics: ``<prefix>/<event>/<table>/<kind>`` - prefix ``[mqtt] topic_prefix`` (``squeeze``), the event's name
(``[tm] event``; ``-`` when empty), the table (``<match>.<room>`` at the table manager), and the kind:

========= ===== ======== =========================================================================================
kind      QoS   retained payload fields (besides the common ones)
========= ===== ======== =========================================================================================
board     0              dealer, vul, players {N,E,S,W: name}, room, restarted - a board starts (never its hands)
call      0              index (0-based), seat, call (``1N``, ``P``, ``X``), alert, explanation, seconds
card      0              index (0..51), trick (1..13), seat (whose hand), card (``SA``), reason, seconds
trick     0              trick, leader, cards (4, from the leader), winner, tricks_ns, tricks_ew (so far)
dummy     0     yes      seat (dummy's), hand (its 13 cards as dealt, PBN), played (dummy's cards gone so far),
                         contract, declarer - after the opening lead, when dummy is on the table for all to see,
                         and again after each trick (retained: a watcher joining during the play is up to date)
deal      0              deal (PBN), dealer, vul - only after the board (or ``deal_delay_seconds`` after its start)
result    1              contract, declarer, tricks, score_ns, record (``BoardRecord.to_dict()``: notes, times)
summary   0     yes      boards, score_ns (total), results [{board, contract, declarer, tricks, score_ns, imps}],
                         compared, imps (two rooms: team a's IMPs over the boards both rooms finished)
incident  1              incident (clock, forced, void, restart, ...), detail - what the director must know (a
                         clock overrun, a line made by the table, a voided board); never sent to the robots
========= ===== ======== =========================================================================================

Common fields: ``schema`` (``EVENT_SCHEMA``; a reader refuses any other), ``kind``, ``event``, ``table``,
``board``, ``seq`` (per table, from 1, given by the publisher: a gap is a dropped event, a repeat a redelivery) and
``time`` (Unix seconds when the event was built). ``parse_event`` reads a payload back, checking every field, and
raises ``EventError`` naming what is wrong.
"""

from __future__ import annotations

import asyncio
import collections
import itertools
import logging
import os
import threading
import time
import uuid
from dataclasses import dataclass
from typing import Annotated, Any, AsyncIterator, Callable, Literal, Optional, Sequence, Union
from urllib.parse import urlsplit

import structlog
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, field_validator, model_validator

from squeeze.config.settings import MqttSettings
from squeeze.engine.auction import Auction, Call, Contract
from squeeze.engine.board import Play, PublicPlay
from squeeze.engine.cards import BridgeError, Card, Deal, Hand, Seat
from squeeze.engine.record import BoardRecord, CallNote, CardNote
from squeeze.engine.teams import room_swing

from .versioned import field_errors, load_versioned

__all__ = [
    "EVENT_SCHEMA", "KINDS", "RETAINED", "EventError", "Event", "BoardEvent", "CallEvent", "CardEvent", "TrickEvent",
    "DummyEvent", "DealEvent", "ResultEvent", "SummaryEvent", "IncidentEvent", "SummaryRow", "parse_event",
    "topic_segment", "table_id", "parse_mqtt_url", "board_event", "deal_event", "dummy_event", "call_event",
    "card_event", "trick_event", "result_event",
    "summary_event", "board_events", "TableFeed", "RoomsFeed", "EventPublisher", "BackgroundPublisher", "PublisherStats", "EmbeddedBroker",
    "subscribe",
]

_log = structlog.get_logger("squeeze.events")

#: Version of the payloads; bumped whenever a field changes meaning or goes away, so an old watcher refuses a newer
#: payload instead of misreading it.
EVENT_SCHEMA = 1
KINDS = ("board", "call", "card", "trick", "dummy", "deal", "result", "summary", "incident")

#: The kinds the broker keeps (the latest per table): a watcher may get one long after it was published.
RETAINED = ("summary", "dummy")

_SeatLetter = Literal["N", "E", "S", "W"]
_VulText = Literal["None", "NS", "EW", "All"]


class EventError(ValueError):
    """A payload that is not an event of this schema, or a bad ``--mqtt`` address; the message says what."""


class _Event(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    schema_version: Literal[1] = Field(EVENT_SCHEMA, alias="schema")
    event: str
    table: str = Field(min_length=1)
    board: int = Field(ge=1)
    seq: int = Field(0, ge=0)
    time: float = Field(default_factory=time.time)

    @property
    def qos(self) -> int:
        """1 for what must arrive (results, incidents); 0 for the stream a late watcher can do without (dummy's
        hand included: the next trick sends it again)."""
        return 1 if self.kind in ("result", "incident") else 0  # type: ignore[attr-defined]

    @property
    def retain(self) -> bool:
        """The broker keeps each table's latest summary and dummy, for watchers that join late."""
        return self.kind in RETAINED  # type: ignore[attr-defined]

    def topic(self, prefix: str = "squeeze") -> str:
        return f"{prefix}/{topic_segment(self.event)}/{topic_segment(self.table)}/{self.kind}"  # type: ignore

    def to_json(self) -> str:
        return self.model_dump_json(by_alias=True)


def _canonical(parse: Callable[[str], Any]) -> Callable[[str], str]:
    """A check that refuses what the engine cannot parse and keeps the canonical text."""

    def check(value: str) -> str:
        try:
            return str(parse(value))
        except BridgeError as exc:
            raise ValueError(str(exc)) from None

    return check


def _canonical_field(name: str, parse: Callable[[str], Any]) -> Any:
    """A model's validator of the text field ``name`` (see ``_canonical``)."""
    check = _canonical(parse)
    return field_validator(name)(classmethod(lambda cls, value: check(value)))


class BoardEvent(_Event):
    kind: Literal["board"] = "board"
    dealer: _SeatLetter
    vul: _VulText
    players: dict[_SeatLetter, str] = {}
    room: str = ""
    restarted: bool = False


class _Decision(_Event):
    """A call or a card: who made it, its place in the board, the seconds it took (``None``: not measured)."""

    index: int = Field(ge=0, le=318)  # the longest auction has 319 calls; a play has 52 cards
    seat: _SeatLetter
    seconds: Optional[float] = Field(None, ge=0)


class CallEvent(_Decision):
    kind: Literal["call"] = "call"
    call: str
    alert: bool = False
    explanation: str = ""

    _check_call = _canonical_field("call", Call.parse)


class CardEvent(_Decision):
    kind: Literal["card"] = "card"
    trick: int = Field(ge=1, le=13)
    card: str
    reason: str = ""

    _check_card = _canonical_field("card", Card.parse)

    @model_validator(mode="after")
    def _in_the_play(self) -> "CardEvent":
        if self.index > 51 or self.trick != self.index // 4 + 1:
            raise ValueError(f"card {self.index} of a play cannot be in trick {self.trick}")
        return self


class TrickEvent(_Event):
    kind: Literal["trick"] = "trick"
    trick: int = Field(ge=1, le=13)
    leader: _SeatLetter
    cards: list[str] = Field(min_length=4, max_length=4)
    winner: _SeatLetter
    tricks_ns: int = Field(ge=0, le=13)
    tricks_ew: int = Field(ge=0, le=13)

    @field_validator("cards")
    @classmethod
    def _cards(cls, value: list[str]) -> list[str]:
        check = _canonical(Card.parse)
        return [check(c) for c in value]


class DummyEvent(_Event):
    """Dummy's hand, published once the opening lead is made (it is then on the table for everyone to see), with
    the contract, so a watcher that joins during the play knows both."""

    kind: Literal["dummy"] = "dummy"
    seat: _SeatLetter
    hand: str
    played: list[str] = Field(default_factory=list, max_length=13)
    contract: str
    declarer: _SeatLetter

    @field_validator("hand")
    @classmethod
    def _hand(cls, value: str) -> str:
        return _canonical(lambda t: str(_hand_of_13(t)))(value)

    @field_validator("played")
    @classmethod
    def _played(cls, value: list[str]) -> list[str]:
        check = _canonical(Card.parse)
        return [check(c) for c in value]

    _check_contract = _canonical_field("contract", Contract.parse)

    @model_validator(mode="after")
    def _dummy_faces_declarer(self) -> "DummyEvent":
        contract = Contract.parse(self.contract)
        if contract.declarer is None or contract.declarer.letter != self.declarer:
            raise ValueError(f"contract {self.contract} is not declared by {self.declarer}")
        if Seat.parse(self.seat) != contract.declarer.partner:
            raise ValueError(f"dummy {self.seat} is not declarer {self.declarer}'s partner")
        hand = Hand.parse(self.hand)
        if len(set(self.played)) != len(self.played) or any(Card.parse(c) not in hand for c in self.played):
            raise ValueError(f"played {self.played} are not cards of dummy's hand {self.hand}, once each")
        return self

    def remaining(self, seen: Sequence[str] = ()) -> Hand:
        """Dummy's cards still in hand: as dealt, less those played by this event and the cards ``seen`` since."""
        gone = {Card.parse(c) for c in (*self.played, *seen)}
        return Hand.parse(self.hand) - Hand.from_cards(gone)


def _hand_of_13(text: str) -> Hand:
    hand = Hand.parse(text)
    if len(hand) != 13:
        raise BridgeError(f"a hand of {len(hand)} cards, not 13: {text!r}")
    return hand


class DealEvent(_Event):
    kind: Literal["deal"] = "deal"
    deal: str
    dealer: _SeatLetter
    vul: _VulText

    @field_validator("deal")
    @classmethod
    def _deal(cls, value: str) -> str:
        return _canonical(lambda t: Deal.parse(t).to_pbn())(value)


class ResultEvent(_Event):
    kind: Literal["result"] = "result"
    contract: Optional[str]
    declarer: Optional[_SeatLetter]
    tricks: Optional[int] = Field(ge=0, le=13)
    score_ns: int
    record: dict[str, Any]

    @field_validator("record")
    @classmethod
    def _record(cls, value: dict) -> dict:
        try:
            BoardRecord.from_dict(value)
        except BridgeError as exc:
            raise ValueError(str(exc)) from None
        return value

    def board_record(self) -> BoardRecord:
        return BoardRecord.from_dict(self.record)


class SummaryRow(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    board: int = Field(ge=1)
    contract: Optional[str]
    declarer: Optional[_SeatLetter]
    tricks: Optional[int] = Field(ge=0, le=13)
    score_ns: int
    imps: Optional[int] = None  # N/S's swing against the other room (two rooms, once both played the board)


class SummaryEvent(_Event):
    kind: Literal["summary"] = "summary"
    boards: int = Field(ge=0)
    score_ns: int
    results: list[SummaryRow]
    compared: int = Field(0, ge=0)
    imps: Optional[int] = None


class IncidentEvent(_Event):
    kind: Literal["incident"] = "incident"
    incident: str = Field(min_length=1, max_length=40)
    detail: str = Field(max_length=2000)


Event = Union[BoardEvent, CallEvent, CardEvent, TrickEvent, DummyEvent, DealEvent, ResultEvent, SummaryEvent,
              IncidentEvent]
_EVENT = TypeAdapter(Annotated[Event, Field(discriminator="kind")])


def parse_event(payload: str | bytes) -> Event:
    """The event a payload holds, every field checked.

    Raises:
        EventError: not JSON, another schema, an unknown kind, or a field that is missing, unknown or wrong.
    """
    data = load_versioned(payload, EVENT_SCHEMA, "an event", EventError)
    if data.get("kind") not in KINDS:
        raise EventError(f"unknown event kind {data.get('kind')!r} (known: {', '.join(KINDS)})")
    try:
        return _EVENT.validate_python(data)
    except ValidationError as exc:
        raise EventError(f"bad {data['kind']} event: {field_errors(exc, skip=1)}") from None


# --- topics and addresses -------------------------------------------------------------------------------------


def topic_segment(name: str) -> str:
    """``name`` as one topic level: the MQTT separators and wildcards (``/ + #``) and NUL become ``_``, and an empty
    name ``-`` (an empty level would merge with its neighbours in a reader's eyes)."""
    text = "".join("_" if ch in "/+#\0" else ch for ch in name)
    return text or "-"


def table_id(match: str, room: str = "") -> str:
    """The table of ``match``'s ``room`` as the topics name it: ``match.Open``, or ``match`` for one room."""
    return f"{match}.{room}" if room else match


def parse_mqtt_url(text: str) -> tuple[str, int] | Literal["embedded"]:
    """``mqtt://HOST[:PORT]`` (port 1883 by default) as ``(host, port)``, or ``"embedded"``.

    Raises:
        EventError: another scheme (TLS, websockets are not supported), no host, a port that is not 1..65535.
    """
    if text.strip().lower() == "embedded":
        return "embedded"
    parts = urlsplit(text.strip())
    if parts.scheme != "mqtt":
        raise EventError(f"--mqtt takes mqtt://HOST:PORT or 'embedded', got {text!r}")
    if parts.path not in ("", "/") or parts.query or parts.fragment or parts.username:
        raise EventError(f"--mqtt takes only a host and a port: {text!r}")
    try:
        port = parts.port
    except ValueError:
        raise EventError(f"bad port in {text!r} (1..65535)") from None
    if not parts.hostname:
        raise EventError(f"no host in {text!r}")
    if port == 0:
        raise EventError(f"bad port in {text!r} (1..65535)")
    return parts.hostname, 1883 if port is None else port


# --- builders from engine types -------------------------------------------------------------------------------


def board_event(event: str, table: str, board: BoardRecord, *, players: Optional[dict[Seat, str]] = None,
                restarted: bool = False) -> BoardEvent:
    """A board starts: number, dealer, vulnerability, players and room of ``board`` - never its hands."""
    named = board.players if players is None else players
    return BoardEvent(event=event, table=table, board=board.board, dealer=board.dealer.letter, vul=board.vul.pbn,
                      players={s.letter: n for s, n in named.items()}, room=board.room, restarted=restarted)


def deal_event(event: str, table: str, board: BoardRecord) -> DealEvent:
    """The four hands of ``board``. Publish it only once nobody at the table can still use it (``TableFeed``)."""
    return DealEvent(event=event, table=table, board=board.board, deal=board.deal.to_pbn(),
                     dealer=board.dealer.letter, vul=board.vul.pbn)


def dummy_event(event: str, table: str, board: int, deal: Deal, play: PublicPlay | Play) -> DummyEvent:
    """Dummy's hand (all 13 cards, as dealt), the cards it played so far and the contract of ``play``: public from
    the opening lead on, so publish it only once that card is played (``TableFeed`` does)."""
    p = _public(play)
    if not p.cards:
        raise ValueError("dummy_event before the opening lead: dummy's hand is not public yet")
    played = [str(c) for c, seat in zip(p.cards, p.players) if seat == p.dummy]
    return DummyEvent(event=event, table=table, board=board, seat=p.dummy.letter, hand=str(deal[p.dummy]),
                      played=played, contract=str(p.contract), declarer=p.declarer.letter)


def call_event(event: str, table: str, board: int, auction: Auction, note: Optional[CallNote] = None) -> CallEvent:
    """The last call of ``auction``, with its alert, explanation and thinking time."""
    if not auction.calls:
        raise ValueError("call_event needs an auction with at least one call")
    i = len(auction.calls) - 1
    note = note or CallNote()
    return CallEvent(event=event, table=table, board=board, index=i, seat=auction.seat_of(i).letter,
                     call=str(auction.calls[i]), alert=note.alert, explanation=note.explanation, seconds=note.seconds)


def _public(play: PublicPlay | Play) -> PublicPlay:
    return play.public if isinstance(play, Play) else play


def card_event(event: str, table: str, board: int, play: PublicPlay | Play, note: Optional[CardNote] = None
               ) -> CardEvent:
    """The last card of ``play``: whose hand it came from, the player's reason and its thinking time."""
    p = _public(play)
    if not p.cards:
        raise ValueError("card_event needs a play with at least one card")
    i = len(p.cards) - 1
    note = note or CardNote()
    return CardEvent(event=event, table=table, board=board, index=i, trick=i // 4 + 1, seat=p.players[i].letter,
                     card=str(p.cards[i]), reason=note.reason, seconds=note.seconds)


def trick_event(event: str, table: str, board: int, play: PublicPlay | Play) -> TrickEvent:
    """The trick ``play``'s last card completed: leader, cards, winner, and the tricks each side has so far."""
    p = _public(play)
    if not p.cards or len(p.cards) % 4 or p.current_trick:
        raise ValueError(f"trick_event needs a play whose last card ends a trick, got {len(p.cards)} cards")
    leader, cards, winner = p.tricks[-1]
    ns = sum(1 for *_x, w in p.tricks if w.is_ns)
    return TrickEvent(event=event, table=table, board=board, trick=len(p.tricks), leader=leader.letter,
                      cards=[str(c) for c in cards], winner=winner.letter, tricks_ns=ns, tricks_ew=len(p.tricks) - ns)


def result_event(event: str, table: str, record: BoardRecord) -> ResultEvent:
    """A finished board: contract, declarer's tricks, N/S's score and the whole record with its notes."""
    c = record.contract
    return ResultEvent(event=event, table=table, board=record.board, contract=None if c is None else str(c),
                       declarer=None if c is None or c.declarer is None else c.declarer.letter, tricks=record.result,
                       score_ns=record.score_ns(), record=record.to_dict())


def summary_event(event: str, table: str, records: Sequence[BoardRecord], *,
                  other: Optional[Sequence[BoardRecord]] = None) -> SummaryEvent:
    """The table so far: its boards' results and N/S's total; with ``other`` (the boards finished at the other
    table of a two-room match, seats swapped) each board both tables finished gets N/S's IMP swing, and ``imps``
    their sum (this table's N/S team against the other table's N/S; 0 before any board is compared)."""
    if not records:
        raise ValueError("summary_event needs at least one finished board")
    others = {r.board: r.score_ns() for r in other or ()}
    rows = []
    for r in records:
        c = r.contract
        score = r.score_ns()
        rows.append(SummaryRow(board=r.board, contract=None if c is None else str(c),
                               declarer=None if c is None or c.declarer is None else c.declarer.letter,
                               tricks=r.result, score_ns=score,
                               imps=room_swing(score, others[r.board]) if r.board in others else None))
    swings = [row.imps for row in rows if row.imps is not None]
    return SummaryEvent(event=event, table=table, board=records[-1].board, boards=len(rows),
                        score_ns=sum(row.score_ns for row in rows), results=rows, compared=len(swings),
                        imps=sum(swings) if other is not None else None)


def board_events(event: str, table: str, record: BoardRecord, *, history: Sequence[BoardRecord] = (),
                 other: Optional[Sequence[BoardRecord]] = None) -> list[Event]:
    """Every event of a finished board in the order a live table gives them (board, calls, cards and tricks, deal,
    result, then the summary of ``history`` and this board, with IMPs against ``other``, the other room's finished
    boards): for sources that only see boards once they are over (self-play), and for replays."""
    out: list[Event] = [board_event(event, table, record)]
    if record.auction is not None:
        notes = record.call_notes or (CallNote(),) * len(record.auction.calls)
        for i, note in enumerate(notes):
            out.append(call_event(event, table, record.board, Auction(record.auction.dealer,
                                                                       record.auction.calls[:i + 1]), note))
    if record.play:
        play = PublicPlay(record.contract)  # type: ignore[arg-type]
        notes = record.card_notes or (CardNote(),) * len(record.play)
        for card, note in zip(record.play, notes):
            play = play.then(card, trusted=True)
            out.append(card_event(event, table, record.board, play, note))
            if len(play.cards) % 4 == 0:
                out.append(trick_event(event, table, record.board, play))
            if len(play.cards) == 1 or (len(play.cards) % 4 == 0 and len(play.cards) < 52):
                out.append(dummy_event(event, table, record.board, record.deal, play))
    out += [deal_event(event, table, record), result_event(event, table, record),
            summary_event(event, table, [*history, record], other=other)]
    return out


class RoomsFeed:
    """The live events of a two-room match whose boards are seen only once both rooms have played them (self-play):
    ``board_finished({room: record})`` publishes each room's whole board (``board_events``) on table
    ``<match>.<room>``, the summary with the IMPs against the other room, as the table manager's tables do.
    ``finished``: the rooms' boards of an earlier session (a resumed run), so that the summaries count them."""

    def __init__(self, publisher: "EventPublisher | BackgroundPublisher", event: str, match: str, *,
                 finished: Optional[dict[str, Sequence[BoardRecord]]] = None) -> None:
        self.publisher = publisher
        self.event = event
        self.match = match
        self.records: dict[str, list[BoardRecord]] = {room: list(recs) for room, recs in (finished or {}).items()}

    def board_finished(self, rooms: dict[str, BoardRecord]) -> None:
        for room, record in rooms.items():
            history = self.records.setdefault(room, [])
            others = [r for other, recs in self.records.items() if other != room for r in recs]
            others += [r for other, r in rooms.items() if other != room]
            for ev in board_events(self.event, table_id(self.match, room), record, history=history, other=others):
                self.publisher.publish(ev)
            history.append(record)


class TableFeed:
    """The live events of one table, for a source that sees its board as it is played. Call ``board_started``,
    then ``call`` / ``card`` as each is relayed (a trick event follows each fourth card; dummy's hand the opening
    lead and each trick but the last), then ``board_finished`` with the record: the deal (unless already out), the result and the table's
    summary follow, in that order.

    The hands are never published while the board can still be played: at the board's end, or with
    ``deal_delay_seconds`` that long after its start if that comes first (then the caller promises a board cannot
    last that long). A board started again (voided) resets the feed; a deal already out stays out.
    """

    def __init__(self, publisher: "EventPublisher", event: str, table: str, *,
                 deal_delay_seconds: Optional[float] = None, finished: Sequence[BoardRecord] = ()) -> None:
        self.publisher = publisher
        self.event = event
        self.table = table
        self.deal_delay_seconds = deal_delay_seconds
        #: boards finished at this table, in order (``finished``: those of an earlier run, resumed)
        self.records: list[BoardRecord] = list(finished)
        self._board: Optional[BoardRecord] = None
        self._deal_sent = False
        self._timer: Optional[asyncio.TimerHandle] = None

    def board_started(self, board: BoardRecord, *, players: Optional[dict[Seat, str]] = None,
                      restarted: bool = False) -> None:
        if self._board is None or self._board.board != board.board:
            self._deal_sent = False
            self._cancel_timer()
        self._board = board
        self.publisher.publish(board_event(self.event, self.table, board, players=players, restarted=restarted))
        if self.deal_delay_seconds is not None and not self._deal_sent and self._timer is None:
            self._timer = asyncio.get_running_loop().call_later(self.deal_delay_seconds, self._send_deal, board)

    def call(self, auction: Auction, note: Optional[CallNote] = None) -> None:
        self.publisher.publish(call_event(self.event, self.table, self._current(), auction, note))

    def card(self, play: PublicPlay | Play, note: Optional[CardNote] = None) -> None:
        board = self._current()
        self.publisher.publish(card_event(self.event, self.table, board, play, note))
        n = len(_public(play).cards)
        if n % 4 == 0:
            self.publisher.publish(trick_event(self.event, self.table, board, play))
        # dummy goes down after the opening lead, public from then on; again after each trick, so the broker's
        # copy (retained) tells a watcher who joins during the play which of dummy's cards are left
        if n == 1 or (n % 4 == 0 and n < 52):
            self.publisher.publish(dummy_event(self.event, self.table, board, self._board.deal, play))

    def board_finished(self, record: BoardRecord, *, other: Optional[Sequence[BoardRecord]] = None) -> None:
        """The board is over: its deal (if not out yet), result, and the table's summary (``other``: the other
        room's finished boards, for IMPs)."""
        self._cancel_timer()
        if not self._deal_sent:
            self._send_deal(record)
        self.records.append(record)
        self.publisher.publish(result_event(self.event, self.table, record))
        self.publisher.publish(summary_event(self.event, self.table, self.records, other=other))
        self._board = None

    def incident(self, board: int, kind: str, detail: str) -> None:
        """Something the director must know of: a clock overrun, a line the table made, a voided board."""
        self.publisher.publish(IncidentEvent(event=self.event, table=self.table, board=board, incident=kind,
                                             detail=detail))

    def _current(self) -> int:
        if self._board is None:
            raise RuntimeError(f"table {self.table}: a call or card before board_started")
        return self._board.board

    def _send_deal(self, board: BoardRecord) -> None:
        self._timer = None
        if self._deal_sent:
            return
        self._deal_sent = True
        self.publisher.publish(deal_event(self.event, self.table, board))

    def _cancel_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None


# --- the broker inside the process ----------------------------------------------------------------------------


class _DropRecords(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return False


class EmbeddedBroker:
    """An amqtt broker in this asyncio loop (``--mqtt embedded``): MQTT 3.1.1, anonymous clients, no persistence.
    ``await start()`` returns the port it listens on (``port=0``: any free one)."""

    def __init__(self, host: str = "127.0.0.1", port: int = 1883) -> None:
        self.host = host
        self.port = port
        self._broker: Any = None

    async def start(self) -> int:
        from amqtt.broker import Broker

        config = {"listeners": {"default": {"type": "tcp", "bind": f"{self.host}:{self.port}"}},
                  # only the authentication plugin: amqtt's default set also logs every packet and publishes $SYS
                  "plugins": {"amqtt.plugins.authentication.AnonymousAuthPlugin": {"allow_anonymous": True}}}
        broker = Broker(config)
        # amqtt logs its own traceback of a failed start (to stderr, through logging's last resort); the error we
        # raise says it in one line instead
        quiet = _DropRecords()
        broker.logger.addFilter(quiet)
        try:
            await broker.start()
        except Exception as exc:  # amqtt wraps the bind error (address in use) in its own BrokerError
            cause = exc.__cause__ if isinstance(exc.__cause__, OSError) else exc
            errno = getattr(cause, "errno", None)
            reason = os.strerror(errno) if errno and errno > 0 else getattr(cause, "strerror", None) or str(cause)
            raise OSError(f"the embedded MQTT broker cannot listen on {self.host}:{self.port}: {reason.lower()} "
                          "(another broker there? set [mqtt] port, or SQUEEZE_MQTT__PORT)") from None
        finally:
            broker.logger.removeFilter(quiet)
        self._broker = broker
        # amqtt has no public accessor for the bound address; its listener wraps an asyncio Server
        server = broker._servers["default"].instance
        self.port = server.sockets[0].getsockname()[1]
        _log.info("events.broker_started", host=self.host, port=self.port)
        return self.port

    async def stop(self) -> None:
        if self._broker is not None:
            broker, self._broker = self._broker, None
            await broker.shutdown()


# --- the publisher --------------------------------------------------------------------------------------------


@dataclass
class PublisherStats:
    queued: int = 0  #: waiting to be published now
    published: int = 0  #: accepted by the broker (QoS 1) or handed to the socket (QoS 0)
    dropped: int = 0  #: lost: the queue was full, or still unsent at close
    connected: bool = False
    connections: int = 0  #: successful connections (more than one: it reconnected)
    last_error: str = ""


def _client(host: str, port: int, settings: MqttSettings, identifier: Optional[str] = None):
    import aiomqtt

    # MQTT 3.1.1: what every broker speaks, amqtt included (it refuses MQTT 5)
    return aiomqtt.Client(host, port, identifier=identifier, protocol=aiomqtt.ProtocolVersion.V311,
                          clean_session=True, timeout=settings.timeout_seconds,
                          keepalive=max(2, int(settings.timeout_seconds * 2)))


class EventPublisher:
    """Publishes events to the broker of ``settings`` (``[mqtt]``) from a background task; ``publish`` never
    blocks and may be called from any thread.

    ``await start()`` starts the embedded broker (``settings.embedded``) and the sending task; ``await close()``
    sends what it can within ``flush_seconds``, stops, and logs the counts. Events are sent in the order given;
    one being sent when the connection breaks is sent again after the reconnection (a consumer may see it twice:
    ``seq`` tells). When the queue holds ``queue_size`` events, the oldest call, card, trick or dummy event makes room
    for a result or summary; any other new event is dropped.
    """

    def __init__(self, settings: MqttSettings, *, host: Optional[str] = None, port: Optional[int] = None) -> None:
        self.settings = settings
        self.host = settings.host if host is None else host
        self.port = settings.port if port is None else port
        if self.port == 0 and not settings.embedded:
            raise ValueError("port 0 (any free port) is only for the embedded broker: give the broker's port")
        self.broker: Optional[EmbeddedBroker] = None
        self.stats = PublisherStats()
        self._queue: collections.deque[Event] = collections.deque()
        self._lock = threading.Lock()
        self._seq: dict[tuple[str, str], itertools.count] = {}
        self._loop: Optional[asyncio.AbstractEventLoop] = None
        self._wake: Optional[asyncio.Event] = None
        self._task: Optional[asyncio.Task] = None
        self._inflight: Optional[Event] = None
        self._failing = False  # the last connection attempt failed (close() does not wait for such a broker)
        self._drop_logged_at = 0.0
        self._drops_unlogged = 0
        self._identifier = f"squeeze-{uuid.uuid4().hex[:12]}"

    @property
    def url(self) -> str:
        return f"mqtt://{self.host}:{self.port}"

    async def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._wake = asyncio.Event()
        if self.settings.embedded:
            self.broker = EmbeddedBroker(self.host, self.port)
            self.port = await self.broker.start()
        self._task = asyncio.create_task(self._run(), name="squeeze-events")
        if self._queue:
            self._wake.set()

    # --- the sources' side ---------------------------------------------------------------------------------------
    def publish(self, event: Event) -> Optional[Event]:
        """Queue ``event`` with its table's next ``seq``; returns it as queued, or ``None`` when it was dropped.
        Never blocks, never raises for a broker's trouble."""
        with self._lock:
            counter = self._seq.setdefault((event.event, event.table), itertools.count(1))
            event = event.model_copy(update={"seq": next(counter)})
            if len(self._queue) >= self.settings.queue_size and not self._make_room(event):
                self._dropped(1)
                return None
            self._queue.append(event)
            self.stats.queued = len(self._queue)
        self._signal()
        return event

    def _make_room(self, event: Event) -> bool:
        """A full queue: drop the oldest call/card/trick/dummy for a result or summary (what a watcher needs most)."""
        if event.kind not in ("result", "summary"):
            return False
        for i, old in enumerate(self._queue):
            if old.kind in ("call", "card", "trick", "dummy"):
                del self._queue[i]
                self._dropped(1)
                return True
        return False

    def _dropped(self, n: int) -> None:
        self.stats.dropped += n
        self._drops_unlogged += n
        now = time.monotonic()
        # the first drop of an outage at once, then at most one line every 5 s: a dead broker must not flood logs
        if now - self._drop_logged_at >= 5.0:
            self._drop_logged_at = now
            _log.warning("events.dropped", dropped=self._drops_unlogged, dropped_total=self.stats.dropped,
                         queue_size=self.settings.queue_size, broker=self.url, connected=self.stats.connected)
            self._drops_unlogged = 0

    def _signal(self) -> None:
        loop, wake = self._loop, self._wake
        if loop is None or wake is None or loop.is_closed():
            return  # not started yet: start() wakes the sender
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is loop:
            wake.set()
        else:
            loop.call_soon_threadsafe(wake.set)

    # --- the sending task --------------------------------------------------------------------------------------
    async def _next(self) -> Event:
        while True:
            with self._lock:
                if self._queue:
                    self._inflight = self._queue.popleft()
                    self.stats.queued = len(self._queue)
                    return self._inflight
                self._wake.clear()
            await self._wake.wait()

    def _put_back(self) -> None:
        with self._lock:
            if self._inflight is not None:
                self._queue.appendleft(self._inflight)
                self._inflight = None
                self.stats.queued = len(self._queue)

    async def _run(self) -> None:
        import aiomqtt

        delay = 0.05
        failures = 0
        while True:
            try:
                async with _client(self.host, self.port, self.settings, self._identifier) as client:
                    self.stats.connected = True
                    self._failing = False
                    self.stats.connections += 1
                    _log.info("events.connected", broker=self.url, queued=len(self._queue),
                              dropped=self.stats.dropped, reconnected=self.stats.connections > 1)
                    delay, failures = 0.05, 0
                    while True:
                        ev = await self._next()
                        try:
                            await client.publish(ev.topic(self.settings.topic_prefix), ev.to_json().encode(),
                                                 qos=ev.qos, retain=ev.retain, timeout=self.settings.timeout_seconds)
                        except BaseException:
                            self._put_back()
                            raise
                        self._inflight = None
                        self.stats.published += 1
            except Exception as exc:  # MqttError above all; anything else must not end publishing for good
                self.stats.last_error = str(exc)
                if not isinstance(exc, aiomqtt.MqttError):
                    _log.exception("events.sender_error", broker=self.url)
                elif self.stats.connected or failures == 0:
                    _log.warning("events.broker_unreachable", broker=self.url, error=str(exc),
                                 queued=len(self._queue), retry_seconds=self.settings.reconnect_seconds)
                self.stats.connected = False
                self._failing = True
                failures += 1
            await asyncio.sleep(delay)
            delay = min(delay * 2, self.settings.reconnect_seconds)

    async def close(self, flush_seconds: float = 2.0) -> PublisherStats:
        """Send what is queued (for ``flush_seconds`` at most), stop the task and the embedded broker; the rest
        counts as dropped. Returns the final counts (also logged)."""
        deadline = time.monotonic() + flush_seconds
        # wait while the broker takes them, or while the first connection is still being made; not for a broker
        # already known to be gone
        while ((self._queue or self._inflight is not None) and time.monotonic() < deadline
               and (self.stats.connected or not self._failing)):
            await asyncio.sleep(0.01)
        if self._task is not None:
            self._task.cancel()
            try:
                await self._task
            except (asyncio.CancelledError, Exception):  # its errors were logged as they came
                pass
            self._task = None
        with self._lock:
            left = len(self._queue) + (self._inflight is not None)
            self._queue.clear()
            self._inflight = None
            self.stats.queued = 0
            self.stats.dropped += left
        self.stats.connected = False
        if self.broker is not None:
            await self.broker.stop()
        _log.info("events.closed", broker=self.url, published=self.stats.published, dropped=self.stats.dropped,
                  connections=self.stats.connections)
        return self.stats


class BackgroundPublisher:
    """An ``EventPublisher`` on an event loop of its own, in a thread: for a source without an asyncio loop
    (self-play's main loop waits on its workers). ``start()`` starts it (and the embedded broker) and raises what
    the publisher's start raises (``OSError``: the broker cannot listen); ``publish`` never blocks; ``close()``
    flushes, stops and returns the counts."""

    def __init__(self, settings: MqttSettings) -> None:
        self.publisher = EventPublisher(settings)  # (ValueError: port 0 without the embedded broker)
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="squeeze-events-loop", daemon=True)

    @property
    def url(self) -> str:
        return self.publisher.url

    @property
    def stats(self) -> PublisherStats:
        return self.publisher.stats

    def start(self, timeout: float = 30.0) -> None:
        self._thread.start()
        try:
            asyncio.run_coroutine_threadsafe(self.publisher.start(), self._loop).result(timeout)
        except BaseException:
            self._stop_loop()
            raise

    def publish(self, event: Event) -> Optional[Event]:
        return self.publisher.publish(event)

    def close(self, flush_seconds: float = 2.0) -> PublisherStats:
        try:
            return asyncio.run_coroutine_threadsafe(self.publisher.close(flush_seconds),
                                                    self._loop).result(flush_seconds + 30)
        finally:
            self._stop_loop()

    def _stop_loop(self) -> None:
        if self._thread.is_alive():
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(10)
        if not self._loop.is_running():
            self._loop.close()


# --- the watcher's side ---------------------------------------------------------------------------------------


async def subscribe(host: str, port: int, topic_filter: str, *, settings: MqttSettings = MqttSettings(),
                    on_state: Optional[Callable[[bool, str], None]] = None) -> AsyncIterator[Event]:
    """The events on ``topic_filter`` (``squeeze/#``), as they arrive, for ever: a lost broker is reconnected
    (``on_state(connected, detail)`` is told). A payload that is not an event is logged and skipped."""
    import aiomqtt

    delay = 0.1
    while True:
        try:
            async with _client(host, port, settings) as client:
                await client.subscribe(topic_filter, qos=1)
                delay = 0.1
                if on_state is not None:
                    on_state(True, f"mqtt://{host}:{port}")
                async for message in client.messages:
                    try:
                        yield parse_event(message.payload)
                    except EventError as exc:
                        _log.warning("events.bad_payload", topic=str(message.topic), error=str(exc))
        except aiomqtt.MqttError as exc:
            if on_state is not None:
                on_state(False, str(exc))
        await asyncio.sleep(delay)
        delay = min(delay * 2, settings.reconnect_seconds)

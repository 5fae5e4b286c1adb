"""Blue Chip table-manager protocol (v18) messages: one pydantic model per message, ``parse`` and ``format``.

``parse(line)`` is tolerant of everything real peers are known to send (research note
``bluechip-protocol.md`` section 1.13): any letter case, extra or missing spaces, trailing full stops, CR/LF/CRLF,
the seated/teams/hand/timing variants, ``10`` for ``T``, rank-first or suit-first cards, alerts with or without
text (also glued to the call), ``Infos.``/``Rescue.`` markers, WBridge5's upper-case dialect, Bridge Moniteur's
``NS:`` end line. Anything else raises ``ProtocolError`` quoting the line; ``parse`` never raises anything else.

``format(message)`` is strict and canonical: proper case, single spaces (except the Timing line, whose double
spaces are part of the spec text), no punctuation the spec does not define, CRLF at the end. The few places where
real peers disagree on the canonical form (final full stop of the Board line, the full stop after the N/S team,
final full stop of the Timing line) are ``FormatOptions`` fields; whatever is chosen, ``parse(format(m)) == m``.

Cards, calls, seats, hands and vulnerability are the domain types of ``engine`` (``Card``, ``Call``, ``Seat``,
``Hand``, ``Vul``); the protocol spells a card rank-then-suit (``TC``), a notrump bid ``1NT`` and seats ``North``.
"""

from __future__ import annotations

import functools
import re
from typing import Annotated, Literal, Optional, Union

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, InstanceOf, ValidationError, model_validator

from squeeze.engine.auction import Call
from squeeze.engine.cards import SUITS_HIGH_FIRST, Card, Hand, Rank, Seat, Suit, Vul

from .errors import RemoteProtocolError, excerpt

__all__ = [
    "MAX_LINE_LENGTH",
    "PROTOCOL_VERSION",
    "PROTOCOL_19",
    "FormatOptions",
    "Message",
    "Connect",
    "Seated",
    "ReadyForTeams",
    "Teams",
    "ReadyToStart",
    "StartOfBoard",
    "ReadyForDeal",
    "BoardInfo",
    "ReadyForCards",
    "Cards",
    "CallMade",
    "ReadyForCall",
    "IllegalCall",
    "ToLead",
    "ReadyForCard",
    "CardPlayed",
    "ReadyForDummy",
    "DummyCards",
    "IllegalCard",
    "ReceivedDummy",
    "Timing",
    "EndOfSession",
    "ErrorMessage",
    "parse",
    "format",
    "normalize_text",
    "validate_team_name",
    "seat_name",
]

#: Longest line we accept, in characters. The longest legitimate message is a call with an alert explanation;
#: the spec's explanation vocabulary keeps those well under 500 bytes (ZBridge's whole line buffer is 500 bytes
#: and Blue Chip's connect buffer 200), but the research note (edge case 2) asks to accept longer explanations.
#: 8 KiB is 16 times ZBridge's buffer and still bounds the work one line can cost us (h11 bounds headers at 16 KiB
#: for the same reason: a peer must not make us buffer or scan without limit).
MAX_LINE_LENGTH = 8192

#: The protocol version this implementation speaks and sends in ``Connecting`` lines.
PROTOCOL_VERSION = 18

#: The first version with the extensions of JobScheffers' hosts (research note 1.12): ``. Playing IMP`` on the Teams
#: line, `` Open room.`` on the Board line, ``Infos.`` and alert text after any call. A protocol-18 peer is sent
#: none of them: strict implementations match each line exactly and drop the connection on anything extra.
PROTOCOL_19 = 19

#: Board numbers come from the table manager's PBN file and are not 1..n, but they are small positive integers.
#: Six digits bound them far beyond any real event and keep ``int()`` away from Python's 4300-digit limit on a
#: hostile line.
MAX_BOARD_DIGITS = 6

#: Protocol versions fit in three digits (18, 19, ZBridge's 20); the bound keeps ``int()`` cheap and safe.
MAX_VERSION_DIGITS = 3

#: Time values in Timing lines: hours of a whole session fit in three digits.
MAX_TIME_DIGITS = 3

#: Card-play tricks are numbered 1..13.
TRICKS_PER_BOARD = 13


def normalize_text(text: str) -> str:
    """Collapse every run of whitespace to one space and strip the ends (what receivers do, per the spec)."""
    return " ".join(text.split())


def seat_name(seat: Seat) -> str:
    """``Seat.title`` (the protocol spells seats as people do), for callers that hold a seat number."""
    return Seat(seat).title


_SEAT_BY_WORD = {"north": Seat.NORTH, "east": Seat.EAST, "south": Seat.SOUTH, "west": Seat.WEST}
_VUL_WORDS = ("Neither", "N/S", "E/W", "Both")
_RANKS = "23456789TJQKA"


def _clean(text: str) -> str:
    return normalize_text(text)


def _team(text: str) -> str:
    t = normalize_text(text)
    if '"' in t:
        raise ValueError(f"team name {text!r} contains a double quote")
    return t


def _info(text: str) -> str:
    # Extra text after the version: a leading full stop ("version 18. BEN 0.8") is punctuation, not information.
    return normalize_text(normalize_text(text).lstrip(".,:;"))


def _nonempty_team(text: str) -> str:
    t = _team(text)
    if not t:
        raise ValueError("team name is empty")
    return t


def validate_team_name(text: str) -> str:
    """The team name as it will be sent (whitespace normalised). Raises ``ValueError`` if it is empty or contains
    a double quote (it travels between quotes)."""
    return _nonempty_team(text)


Text = Annotated[str, AfterValidator(_clean)]
TeamName = Annotated[str, AfterValidator(_nonempty_team)]
SeatedTeamName = Annotated[str, AfterValidator(_team)]


class FormatOptions(BaseModel):
    """Choices where real peers disagree on the canonical text (research note 1.2, 1.4, 1.8 and section 7).

    Defaults: the forms of JobScheffers' host (``Board ... vulnerable.`` with a final full stop, because one
    client needs it; ``Teams : N/S : "A" E/W : "B"`` without a stop, which BEN can parse) and the spec's Timing
    line (no final full stop, as Bridge Moniteur sends it).
    """

    model_config = ConfigDict(frozen=True)

    board_full_stop: bool = True
    teams_full_stop: bool = False
    timing_full_stop: bool = False


DEFAULT_FORMAT = FormatOptions()


class Message(BaseModel):
    """Base of every protocol message: immutable, compared by value."""

    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)

    def format(self, options: FormatOptions = DEFAULT_FORMAT) -> str:
        """The canonical line for this message, CRLF-terminated."""
        return self._text(options) + "\r\n"

    def _text(self, options: FormatOptions) -> str:  # pragma: no cover - every subclass overrides
        raise NotImplementedError


# ---------------------------------------------------------------------------------------------------------------
# Connection and handshake
# ---------------------------------------------------------------------------------------------------------------


class Connect(Message):
    """C→T ``Connecting "RoboA" as North using protocol version 18``; ``seat=None`` is WBridge5's ``ANYPL``."""

    team: TeamName
    seat: Optional[Seat]
    version: int = Field(PROTOCOL_VERSION, ge=0, lt=10**MAX_VERSION_DIGITS)
    info: Annotated[str, AfterValidator(_info)] = ""

    def _text(self, options: FormatOptions) -> str:
        who = "ANYPL" if self.seat is None else self.seat.title
        tail = f" {self.info}" if self.info else ""
        return f'Connecting "{self.team}" as {who} using protocol version {self.version}{tail}'


class Seated(Message):
    """T→C ``North ("RoboA") seated``."""

    seat: Seat
    team: SeatedTeamName

    def _text(self, options: FormatOptions) -> str:
        return f'{self.seat.title} ("{self.team}") seated'


class ReadyForTeams(Message):
    """C→T ``North ready for teams``."""

    seat: Seat

    def _text(self, options: FormatOptions) -> str:
        return f"{self.seat.title} ready for teams"


class Teams(Message):
    """T→C ``Teams : N/S : "RoboA" E/W : "RoboB"``, optionally ``. Playing IMP`` (protocol 19)."""

    ns: TeamName
    ew: TeamName
    scoring: Optional[Literal["IMP", "MP"]] = None

    def _text(self, options: FormatOptions) -> str:
        stop = "." if options.teams_full_stop else ""
        tail = f". Playing {self.scoring}" if self.scoring else ""
        return f'Teams : N/S : "{self.ns}"{stop} E/W : "{self.ew}"{tail}'


class ReadyToStart(Message):
    """C→T ``North ready to start``."""

    seat: Seat

    def _text(self, options: FormatOptions) -> str:
        return f"{self.seat.title} ready to start"


# ---------------------------------------------------------------------------------------------------------------
# Board set-up
# ---------------------------------------------------------------------------------------------------------------


class StartOfBoard(Message):
    """T→C ``Start of board``."""

    def _text(self, options: FormatOptions) -> str:
        return "Start of board"


class ReadyForDeal(Message):
    """C→T ``North ready for deal``."""

    seat: Seat

    def _text(self, options: FormatOptions) -> str:
        return f"{self.seat.title} ready for deal"


class BoardInfo(Message):
    """T→C ``Board number 3. Dealer South. E/W vulnerable.`` (``room``: protocol 19's ``Open``/``Closed room``)."""

    board: int = Field(ge=1, lt=10**MAX_BOARD_DIGITS)
    dealer: Seat
    vul: Vul
    room: Optional[Literal["Open", "Closed"]] = None

    def _text(self, options: FormatOptions) -> str:
        text = f"Board number {self.board}. Dealer {self.dealer.title}. {_VUL_WORDS[self.vul]} vulnerable"
        if self.room:
            return f"{text}. {self.room} room."
        return text + ("." if options.board_full_stop else "")


class ReadyForCards(Message):
    """C→T ``North ready for cards``."""

    seat: Seat

    def _text(self, options: FormatOptions) -> str:
        return f"{self.seat.title} ready for cards"


def _thirteen(hand: Hand) -> Hand:
    if len(hand) != 13:
        raise ValueError(f"a hand line must hold 13 cards, this one holds {len(hand)}")
    return hand


FullHand = Annotated[InstanceOf[Hand], AfterValidator(_thirteen)]


def _format_hand(hand: Hand) -> str:
    parts = []
    for suit in SUITS_HIGH_FIRST:
        ranks = " ".join(c.rank.letter for c in hand.cards_in(suit))
        parts.append(f"{suit.letter} {ranks or '-'}.")
    return " ".join(parts)


class Cards(Message):
    """T→C ``South's cards : S A Q 4. H K Q 9 2. D A J 5. C J 6 4.`` (each player gets only its own)."""

    seat: Seat
    hand: FullHand

    def _text(self, options: FormatOptions) -> str:
        return f"{self.seat.title}'s cards : {_format_hand(self.hand)}"


# ---------------------------------------------------------------------------------------------------------------
# Auction
# ---------------------------------------------------------------------------------------------------------------


def _format_call(call: Call) -> str:
    if call.index == 0:
        return "passes"
    if call.index == 1:
        return "doubles"
    if call.index == 2:
        return "redoubles"
    s = str(call)
    return "bids " + (s + "T" if s.endswith("N") else s)


class CallMade(Message):
    """A call, both directions: ``North bids 2C Alert. Asking for a major suit.``, ``East passes``.

    ``alert``: the bidder alerted its own call (the TM passes the alert and ``explanation`` to the opponents only).
    An ``explanation`` without ``alert`` is informational (``Infos.``, as Bridge Moniteur and BEN send it).
    """

    seat: Seat
    call: InstanceOf[Call]
    alert: bool = False
    explanation: Text = ""

    def _text(self, options: FormatOptions) -> str:
        text = f"{self.seat.title} {_format_call(self.call)}"
        if self.alert:
            return text + (f" Alert. {self.explanation}" if self.explanation else " Alert.")
        if self.explanation:
            return f"{text} Infos. {self.explanation}"
        return text

    def without_alert(self) -> "CallMade":
        """The same call with no alert and no explanation (what the bidder's partner receives)."""
        if not self.alert and not self.explanation:
            return self
        return CallMade(seat=self.seat, call=self.call)

    def for_version(self, version: int) -> "CallMade":
        """The call as a peer speaking ``version`` may receive it. Protocol 18 defines `` Alert. [explanation]``
        after a bid only: a pass, double or redouble goes bare, and an explanation of an unalerted call
        (``Infos.``, protocol 19) is dropped; from protocol 19 on, the call is unchanged."""
        if version >= PROTOCOL_19 or (not self.alert and not self.explanation):
            return self
        if self.alert and self.call.is_bid:
            return self
        return CallMade(seat=self.seat, call=self.call)


class ReadyForCall(Message):
    """C→T ``East ready for North's bid``."""

    seat: Seat
    caller: Seat

    def _text(self, options: FormatOptions) -> str:
        return f"{self.seat.title} ready for {self.caller.title}'s bid"


class IllegalCall(Message):
    """T→C ``Illegal bid`` (optionally followed by a reason, which we only ever parse)."""

    reason: Text = ""

    def _text(self, options: FormatOptions) -> str:
        return f"Illegal bid. {self.reason}" if self.reason else "Illegal bid"


# ---------------------------------------------------------------------------------------------------------------
# Play
# ---------------------------------------------------------------------------------------------------------------


class ToLead(Message):
    """T→C ``West to lead``; ``seat=None`` is ``Dummy to lead`` (sent to declarer)."""

    seat: Optional[Seat]

    def _text(self, options: FormatOptions) -> str:
        return f"{'Dummy' if self.seat is None else self.seat.title} to lead"


class ReadyForCard(Message):
    """C→T ``East ready for North's card to trick 1``; ``player=None`` is ``ready for dummy's card``.

    ``trick`` is ``None`` only when a peer left out ``to trick n`` (tolerated, never sent by us).
    """

    seat: Seat
    player: Optional[Seat]
    trick: Optional[int] = Field(None, ge=1, le=TRICKS_PER_BOARD)

    def _text(self, options: FormatOptions) -> str:
        who = "dummy" if self.player is None else self.player.title
        tail = f" to trick {self.trick}" if self.trick is not None else ""
        return f"{self.seat.title} ready for {who}'s card{tail}"


class CardPlayed(Message):
    """A card, both directions: ``West plays 3C``; declarer plays dummy's cards as ``North plays 5C``.

    ``seat=None`` is ``Dummy plays 5C`` (defined by the spec, not understood by every TM: we never send it).
    ``info`` is free text after the card (BEN's reasons, protocol 19 signals), never sent unless set.
    """

    seat: Optional[Seat]
    card: InstanceOf[Card]
    info: Text = ""

    def _text(self, options: FormatOptions) -> str:
        who = "Dummy" if self.seat is None else self.seat.title
        text = f"{who} plays {_RANKS[self.card.rank - 2]}{'CDHS'[self.card.suit]}"
        return f"{text}. {self.info}" if self.info else text

    def without_info(self) -> "CardPlayed":
        return self if not self.info else CardPlayed(seat=self.seat, card=self.card)


class ReadyForDummy(Message):
    """C→T ``East ready for dummy`` (after the opening lead; every seat but dummy)."""

    seat: Seat

    def _text(self, options: FormatOptions) -> str:
        return f"{self.seat.title} ready for dummy"


class DummyCards(Message):
    """T→C ``Dummy's cards : S K 8 5 2. H A J 6 3. D 7 4. C Q 9 5.``"""

    hand: FullHand

    def _text(self, options: FormatOptions) -> str:
        return f"Dummy's cards : {_format_hand(self.hand)}"


class IllegalCard(Message):
    """T→C ``Illegal card`` (optionally followed by a reason, which we only ever parse)."""

    reason: Text = ""

    def _text(self, options: FormatOptions) -> str:
        return f"Illegal card. {self.reason}" if self.reason else "Illegal card"


class ReceivedDummy(Message):
    """C→T ``East received dummy``: obsolete (pre-v18), still sent by GIB. Parsed so it can be answered clearly."""

    seat: Seat

    def _text(self, options: FormatOptions) -> str:
        return f"{self.seat.title} received dummy"


# ---------------------------------------------------------------------------------------------------------------
# End of board / session, errors
# ---------------------------------------------------------------------------------------------------------------


def _fmt_board_time(seconds: Optional[int]) -> str:
    if seconds is None:
        return "--:--"
    return f"{seconds // 60:02d}:{seconds % 60:02d}"


def _fmt_total_time(seconds: Optional[int]) -> str:
    if seconds is None:
        return "-:--:--"
    return f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"


_Seconds = Optional[int]


class Timing(Message):
    """T→C thinking times (seconds): ``Timing - N/S : this board  01:52,  total  0:05:40.  E/W : ...``.

    A value is ``None`` when the line did not carry four readable times (some TMs send placeholders).
    """

    ns_board: _Seconds = Field(None, ge=0, lt=100 * 60)
    ns_total: _Seconds = Field(None, ge=0, lt=1000 * 3600)
    ew_board: _Seconds = Field(None, ge=0, lt=100 * 60)
    ew_total: _Seconds = Field(None, ge=0, lt=1000 * 3600)

    @model_validator(mode="after")
    def _all_or_none(self) -> "Timing":
        values = (self.ns_board, self.ns_total, self.ew_board, self.ew_total)
        if any(v is None for v in values) and any(v is not None for v in values):
            raise ValueError("a Timing line carries all four times or none")
        return self

    def _text(self, options: FormatOptions) -> str:
        stop = "." if options.timing_full_stop else ""
        return (
            f"Timing - N/S : this board  {_fmt_board_time(self.ns_board)},  total  {_fmt_total_time(self.ns_total)}."
            f"  E/W : this board  {_fmt_board_time(self.ew_board)},  total  {_fmt_total_time(self.ew_total)}{stop}"
        )


class EndOfSession(Message):
    """T→C ``End of session`` (Bridge Moniteur's ``NS:...`` line is read as this too)."""

    def _text(self, options: FormatOptions) -> str:
        return "End of session"


class ErrorMessage(Message):
    """An error line from a peer (``ERROR: ...``, JS's ``Unexpected ...``/``Expected ...``); ``reason`` is its text."""

    reason: Text = ""

    def _text(self, options: FormatOptions) -> str:
        return f"Error: {self.reason}" if self.reason else "Error"


AnyMessage = Union[
    Connect, Seated, ReadyForTeams, Teams, ReadyToStart, StartOfBoard, ReadyForDeal, BoardInfo, ReadyForCards,
    Cards, CallMade, ReadyForCall, IllegalCall, ToLead, ReadyForCard, CardPlayed, ReadyForDummy, DummyCards,
    IllegalCard, ReceivedDummy, Timing, EndOfSession, ErrorMessage,
]


def format(message: Message, options: FormatOptions = DEFAULT_FORMAT) -> str:  # noqa: A001 - the module's verb
    """The canonical CRLF-terminated line for ``message`` (see ``FormatOptions`` for the few dialect choices)."""
    if not isinstance(message, Message):
        raise TypeError(f"format() needs a protocol message, got {type(message).__name__}")
    return message._text(options) + "\r\n"


# ---------------------------------------------------------------------------------------------------------------
# Parsing
# ---------------------------------------------------------------------------------------------------------------

_I = re.IGNORECASE
_SEAT_RE = r"(north|east|south|west)"
_CONNECT_RE = re.compile(
    r'connecting\s*"([^"]*)"\s*as\s+(north|east|south|west|anypl)\s+using\s+protocol\s+version\s+'
    rf"(\d{{1,{MAX_VERSION_DIGITS}}})\b\s*(.*)$",
    _I,
)
_SEATED_RE = re.compile(
    rf'{_SEAT_RE}\s*(?:\(\s*"([^"]*)"\s*\)|"([^"]*)"|\(([^)"]*)\)|(.*?))\s*seated\s*\.?$', _I
)
_NS_TEAM_RE = re.compile(r'n\s*/?\s*s\s*:?\s*"([^"]*)"', _I)
_EW_TEAM_RE = re.compile(r'e\s*/?\s*w\s*:?\s*"([^"]*)"', _I)
_SCORING_RE = re.compile(r"playing\s+(imp|mp)", _I)
_BOARD_RE = re.compile(rf"board\s*number\s*(\d{{1,{MAX_BOARD_DIGITS}}})\b", _I)
_DEALER_RE = re.compile(rf"dealer\s*:?\s*{_SEAT_RE}\b", _I)
_VUL_RE = re.compile(r"\b(neither|none|nil|love|n\s*/\s*s|n-s|ns|e\s*/\s*w|e-w|ew|both|all)\s*vul", _I)
_ROOM_RE = re.compile(r"\b(open|closed)\s+room\b", _I)
_CARDS_RE = re.compile(rf"^(?:{_SEAT_RE}|(dummy))\s*'?\s*s?\s*cards\s*:?\s*(.*)$", _I)
_BID_RE = re.compile(r"([1-7])\s*(nt|n|c|d|h|s)(.*)$", _I)
_MARKER_RE = re.compile(r"^[\s.,]*(alert|infos?)\b\s*[.:]?\s*(.*)$", _I)
_CARD_RE = re.compile(r"(?:(10|[2-9tjqka])\s*([shdc])|([shdc])\s*(10|[2-9tjqka]))(.*)$", _I)
_READY_CARD_RE = re.compile(rf"(?:{_SEAT_RE}|(dummy))\s*'?\s*s?\s+card(?:\s+to\s+trick\s+(\d{{1,2}}))?\s*\.?$", _I)
_READY_BID_RE = re.compile(rf"{_SEAT_RE}\s*'?\s*s?\s+bid\s*\.?$", _I)
_TIME_RE = re.compile(rf"(\d{{1,{MAX_TIME_DIGITS}}}(?::\d{{1,2}}){{1,2}})")
_VUL_BY_WORD = {
    "neither": Vul.NONE, "none": Vul.NONE, "nil": Vul.NONE, "love": Vul.NONE,
    "ns": Vul.NS, "n-s": Vul.NS, "n/s": Vul.NS,
    "ew": Vul.EW, "e-w": Vul.EW, "e/w": Vul.EW,
    "both": Vul.BOTH, "all": Vul.BOTH,
}
_SUIT_BY_LETTER = {"S": Suit.SPADES, "H": Suit.HEARTS, "D": Suit.DIAMONDS, "C": Suit.CLUBS}
_RANK_BY_TEXT = {r: Rank(i + 2) for i, r in enumerate(_RANKS)}
_RANK_BY_TEXT["10"] = Rank.TEN
_CALL_WORDS = {"passes": 0, "pass": 0, "doubles": 1, "double": 1, "redoubles": 2, "redouble": 2}


class _Reject(Exception):
    """Internal: the line is recognised but malformed; ``parse`` turns it into ``ProtocolError``."""


def parse(line: str | bytes) -> AnyMessage:
    """Parse one protocol line (with or without its CR/LF) into its message.

    Raises:
        ProtocolError: the line is empty, longer than ``MAX_LINE_LENGTH``, not a message of this protocol, or a
            known message with bad content (a hand without 13 cards, a bid of 8S, a board number 0 ...). The error
            quotes the line. Nothing else is ever raised.
    """
    if type(line) is str and len(line) <= PARSE_CACHE_MAX_LINE:
        return _parse_cached(line)
    return _parse_uncached(line)


#: Parsed messages are immutable, and a session repeats a small vocabulary of lines (about 200 distinct
#: ``ready for X's card to trick n`` lines, 208 card lines, a few hundred calls), so a cache of recent lines saves
#: most of the parsing work in self-play. Failures are not cached (``lru_cache`` does not store exceptions).
PARSE_CACHE_SIZE = 4096
#: Only short lines are cached: long ones (explanations, junk) are rarely repeated and would pin memory.
PARSE_CACHE_MAX_LINE = 80


@functools.lru_cache(maxsize=PARSE_CACHE_SIZE)
def _parse_cached(line: str) -> AnyMessage:
    return _parse_uncached(line)


def _parse_uncached(line: str | bytes) -> AnyMessage:
    try:
        if isinstance(line, (bytes, bytearray)):
            if len(line) > MAX_LINE_LENGTH + 2:
                raise _Reject(f"line of {len(line)} bytes is longer than the limit of {MAX_LINE_LENGTH}")
            # latin-1 maps every byte to a character: explanations with non-ASCII bytes never fail to decode.
            line = bytes(line).decode("latin-1")
        elif not isinstance(line, str):
            raise _Reject(f"a line must be str or bytes, not {type(line).__name__}")
        if len(line) > MAX_LINE_LENGTH + 2:
            raise _Reject(f"line of {len(line)} characters is longer than the limit of {MAX_LINE_LENGTH}")
        text = " ".join(line.split())
        if not text:
            raise _Reject("empty line")
        return _parse_text(text)
    except _Reject as exc:
        raise RemoteProtocolError(f"{exc}: {excerpt(line)}", line=line) from None
    except ValidationError as exc:
        problems = "; ".join(e["msg"] for e in exc.errors()[:3])
        raise RemoteProtocolError(f"bad message ({problems}): {excerpt(line)}", line=line) from None


def _parse_text(text: str) -> AnyMessage:
    first, _, rest = text.partition(" ")
    key = first.lower()
    word = key.rstrip(".,:;")
    seat = _SEAT_BY_WORD.get(word)
    if seat is None and "'" in key:
        seat = _SEAT_BY_WORD.get(key.split("'", 1)[0])
        if seat is not None:
            return _parse_cards(text)
    if seat is not None:
        return _parse_seat_line(seat, text, rest)
    if key.startswith("dummy"):
        return _parse_dummy_line(text, rest)
    if key == "connecting":
        return _parse_connect(text)
    if key.startswith("teams"):
        return _parse_teams(text)
    if key == "start":
        if re.fullmatch(r"start\s+of\s+board\s*\.?", text, _I):
            return StartOfBoard()
        raise _Reject("unrecognised line")
    if key == "board":
        return _parse_board(text)
    if key.startswith("timing"):
        return _parse_timing(text)
    if key == "end":
        if re.fullmatch(r"end\s+of\s+session\s*\.?", text, _I):
            return EndOfSession()
        raise _Reject("unrecognised line")
    if key.startswith("ns:"):
        return EndOfSession()
    if key == "illegal":
        m = re.match(r"illegal\s+(bid|call|card|play)\b\s*(?:[.:,]\s*)?(.*)$", text, _I)
        if not m:
            raise _Reject("unrecognised line")
        cls = IllegalCall if m.group(1).lower() in ("bid", "call") else IllegalCard
        return cls(reason=m.group(2))
    if word in ("error", "unexpected", "expected"):
        if word == "error":
            reason = re.sub(r"^error\b\s*(?:[.:,-]\s*)?", "", text, count=1, flags=_I)
        else:
            reason = text
        return ErrorMessage(reason=reason)
    raise _Reject("unrecognised line")


def _parse_connect(text: str) -> Connect:
    m = _CONNECT_RE.match(text)
    if not m:
        raise _Reject('expected \'Connecting "<team>" as <seat> using protocol version <n>\'')
    who = m.group(2).lower()
    return Connect(
        team=m.group(1),
        seat=None if who == "anypl" else _SEAT_BY_WORD[who],
        version=int(m.group(3)),
        info=m.group(4).strip(),
    )


def _parse_teams(text: str) -> Teams:
    ns = _NS_TEAM_RE.search(text)
    ew = _EW_TEAM_RE.search(text, ns.end() if ns else 0) or _EW_TEAM_RE.search(text)
    if not ns or not ew:
        quoted = re.findall(r'"([^"]*)"', text)
        if len(quoted) < 2:
            raise _Reject("Teams line without two quoted team names")
        ns_name, ew_name = quoted[0], quoted[1]
    else:
        ns_name, ew_name = ns.group(1), ew.group(1)
    sc = _SCORING_RE.search(text)
    return Teams(ns=ns_name, ew=ew_name, scoring=sc.group(1).upper() if sc else None)


def _parse_board(text: str) -> BoardInfo:
    b = _BOARD_RE.match(text)
    d = _DEALER_RE.search(text)
    v = _VUL_RE.search(text)
    if not (b and d and v):
        raise _Reject("expected 'Board number <n>. Dealer <seat>. <vul> vulnerable.'")
    vul_word = re.sub(r"\s+", "", v.group(1).lower())
    room = _ROOM_RE.search(text)
    return BoardInfo(
        board=int(b.group(1)),
        dealer=_SEAT_BY_WORD[d.group(1).lower()],
        vul=_VUL_BY_WORD[vul_word],
        room=room.group(1).title() if room else None,
    )


def _parse_hand(body: str) -> Hand:
    """``S A Q 4. H K Q 9 2. D A J 5. C J 6 4.`` in any suit order, ``.``/``. `` separators, ``-`` or nothing for a
    void, ``10`` or ``T``; exactly 13 distinct cards."""
    bits = 0
    seen_suits = set()
    for chunk in body.split("."):
        chunk = chunk.strip()
        if not chunk:
            continue
        letter = chunk[0].upper()
        suit = _SUIT_BY_LETTER.get(letter)
        if suit is None:
            raise _Reject(f"hand: {chunk[:10]!r} does not start with a suit letter S, H, D or C")
        if suit in seen_suits:
            raise _Reject(f"hand: suit {letter} appears twice")
        seen_suits.add(suit)
        ranks = chunk[1:].replace(" ", "").upper()
        if ranks in ("", "-"):
            continue
        i = 0
        while i < len(ranks):
            if ranks.startswith("10", i):
                r, i = Rank.TEN, i + 2
            else:
                r = _RANK_BY_TEXT.get(ranks[i])
                if r is None:
                    raise _Reject(f"hand: {ranks[i]!r} is not a rank")
                i += 1
            bit = 1 << (13 * suit + r - 2)
            if bits & bit:
                raise _Reject(f"hand: {letter}{r.letter} appears twice")
            bits |= bit
    hand = Hand(bits)
    if len(hand) != 13:
        raise _Reject(f"hand holds {len(hand)} cards, not 13")
    return hand


def _parse_cards(text: str) -> Union[Cards, DummyCards]:
    m = _CARDS_RE.match(text)
    if not m:
        raise _Reject("unrecognised line")
    hand = _parse_hand(m.group(3))
    if m.group(2):
        return DummyCards(hand=hand)
    return Cards(seat=_SEAT_BY_WORD[m.group(1).lower()], hand=hand)


def _split_marker(rest: str) -> tuple[bool, str]:
    """Alert/explanation after a call: `` Alert. text``, ``Alert.text``, ``.Infos.text``, `` Infos. text``,
    ``.`` (TableMoniteur's stray full stop), or text glued to the call with no separator."""
    if not rest:
        return False, ""
    m = _MARKER_RE.match(rest)
    if m:
        return m.group(1).lower() == "alert", m.group(2)
    text = rest.strip()
    if text.startswith("."):
        text = text[1:].strip()
    return False, text


def _parse_seat_line(seat: Seat, text: str, rest: str) -> AnyMessage:
    verb, _, tail = rest.partition(" ")
    v = verb.lower().rstrip(".")
    if v == "ready":
        return _parse_ready(seat, tail)
    if v in _CALL_WORDS:
        # "passes" may be glued to an alert marker: "passes.Alert." -> the marker logic sees ".Alert.".
        glued = verb[len(v):] if verb.lower().startswith(v) else ""
        alert, explanation = _split_marker((glued + " " + tail).strip())
        return CallMade(seat=seat, call=Call(_CALL_WORDS[v]), alert=alert, explanation=explanation)
    if v == "bids" or v == "bid":
        m = _BID_RE.match(tail)
        if not m:
            raise _Reject("a bid must be a level 1-7 followed by C, D, H, S or NT")
        strain = "CDHSN".index(m.group(2)[0].upper())
        alert, explanation = _split_marker(m.group(3))
        return CallMade(seat=seat, call=Call.bid(int(m.group(1)), strain), alert=alert, explanation=explanation)
    if v == "plays":
        return CardPlayed(seat=seat, **_parse_card_tail(tail))
    if v == "to":
        if re.fullmatch(r"lead\s*\.?", tail, _I):
            return ToLead(seat=seat)
        raise _Reject("unrecognised line")
    if v == "received":
        if re.fullmatch(r"dummy\s*\.?", tail, _I):
            return ReceivedDummy(seat=seat)
        raise _Reject("unrecognised line")
    if v.startswith("'s") or v in ("s", "cards", "cards:"):
        return _parse_cards(text)
    m = _SEATED_RE.match(text)
    if m:
        team = next((g for g in m.groups()[1:] if g is not None), "")
        return Seated(seat=seat, team=team)
    raise _Reject("unrecognised line")


def _parse_card_tail(tail: str) -> dict:
    m = _CARD_RE.match(tail)
    if not m:
        raise _Reject("a card must be a rank and a suit, like TC, 10C, CT or tc")
    if m.group(1):
        rank_text, suit_text = m.group(1), m.group(2)
    else:
        suit_text, rank_text = m.group(3), m.group(4)
    after = m.group(5)
    if after and after[0].isalnum():
        raise _Reject("unexpected text right after the card")
    card = Card(_SUIT_BY_LETTER[suit_text.upper()], _RANK_BY_TEXT[rank_text.upper()])
    info = after.strip()
    if info.startswith("."):
        info = info[1:].strip()
    return {"card": card, "info": info}


def _parse_ready(seat: Seat, tail: str) -> AnyMessage:
    t = tail.strip().rstrip(".").strip()
    low = t.lower()
    if low == "to start" or low == "for start":
        return ReadyToStart(seat=seat)
    if not low.startswith("for "):
        raise _Reject("unrecognised 'ready' line")
    what = t[4:].strip()
    wl = what.lower()
    if wl == "teams":
        return ReadyForTeams(seat=seat)
    if wl == "deal":
        return ReadyForDeal(seat=seat)
    if wl == "cards":
        return ReadyForCards(seat=seat)
    if wl == "dummy":
        return ReadyForDummy(seat=seat)
    m = _READY_BID_RE.match(what)
    if m:
        return ReadyForCall(seat=seat, caller=_SEAT_BY_WORD[m.group(1).lower()])
    m = _READY_CARD_RE.match(what)
    if m:
        player = None if m.group(2) else _SEAT_BY_WORD[m.group(1).lower()]
        trick = int(m.group(3)) if m.group(3) else None
        return ReadyForCard(seat=seat, player=player, trick=trick)
    raise _Reject("unrecognised 'ready' line")


def _parse_dummy_line(text: str, rest: str) -> AnyMessage:
    low = text.lower()
    if re.match(r"dummy\s*'?\s*s?\s*cards", low):
        return _parse_cards(text)
    if re.fullmatch(r"dummy\s+to\s+lead\s*\.?", low):
        return ToLead(seat=None)
    m = re.match(r"dummy\s+plays\s+(.*)$", text, _I)
    if m:
        return CardPlayed(seat=None, **_parse_card_tail(m.group(1)))
    raise _Reject("unrecognised line")


def _parse_time(value: str) -> int:
    parts = [int(p) for p in value.split(":")]
    seconds = 0
    for p in parts:
        seconds = seconds * 60 + p
    return seconds


def _parse_timing(text: str) -> Timing:
    if not re.match(r"timing\b", text, _I):
        raise _Reject("unrecognised line")
    values = _TIME_RE.findall(text)
    if len(values) != 4:
        return Timing()
    ns_board, ns_total, ew_board, ew_total = (_parse_time(v) for v in values)
    try:
        return Timing(ns_board=ns_board, ns_total=ns_total, ew_board=ew_board, ew_total=ew_total)
    except ValidationError:
        # Out-of-range values (the midnight-wrap bug of some TMs reports ~24 h): keep the line, drop the values.
        return Timing()

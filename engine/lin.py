"""BBO LIN: export for BBO's hand viewer, and a reader for LIN hand records.

A LIN record is a flat sequence of ``key|value|`` pairs, one board per line. There is no official specification
(BBO staff said so); the keys below follow what BBO's viewer and other tools (endplay, Bridge Composer) use:

====  ======================================================================================================
pn    player names, order South, West, North, East
qx    room + board: ``o5`` open room board 5, ``c5`` closed room
md    dealer digit (1=S, 2=W, 3=N, 4=E), then the hands in order S, W, N, E, each ``S..H..D..C..``
sv    vulnerability ``o`` none, ``n`` NS, ``e`` EW, ``b`` both
ah    board header, ``Board 5``
mb    one call: ``p d r 1C .. 7N``; a trailing ``!`` marks an alert, explained by a following ``an``
pc    one card, in *play order* (unlike PBN's Play section)
pg    viewer pause: after the auction and after every trick
mc    claim: declarer's total tricks
vg    vugraph (match) header: event, segment, scoring, first and last board, teams and carry-over
rs    vugraph results, one per table in board order, open room first: ``3NN=``, ``4SXE-2``, ``PASS``
====  ======================================================================================================

``lin_board(game)`` / ``write_lin(games)`` (one board a line, for BBO's handviewer) and ``write_lin_match(games)``
(a team match as a vugraph file, keeping the match header) take ``PbnGame`` or ``BoardRecord``; ``read_lin(text)``
reads both kinds into ``PbnGame`` values (alerts become call annotations, ``mc`` the result), checked against the
deal like PBN import. Not carried: NAGs, card notes, comments, PBN tags other than the players, board, room, event.
"""

from __future__ import annotations

import re
from typing import Iterable

from .auction import Auction, Call, IllegalCallError
from .board import IllegalCardError, Play
from .cards import ALL_CARDS, BridgeError, Card, Deal, Hand, ParseError, Rank, Seat, Suit, Vul
from .pbn import Annotation, PbnGame
from .record import BoardRecord

__all__ = ["LinError", "lin_board", "write_lin", "write_lin_match", "read_lin"]

#: LIN's seat order (pn, md) and dealer digits 1..4.
_LIN_SEATS = (Seat.SOUTH, Seat.WEST, Seat.NORTH, Seat.EAST)
_VUL_TO_LIN = {Vul.NONE: "o", Vul.NS: "n", Vul.EW: "e", Vul.BOTH: "b"}
_LIN_TO_VUL = {"o": Vul.NONE, "0": Vul.NONE, "n": Vul.NS, "e": Vul.EW, "b": Vul.BOTH}
_SUIT_SYMBOLS = str.maketrans({"\u2660": "!S", "\u2665": "!H", "\u2666": "!D", "\u2663": "!C"})


class LinError(ParseError):
    """A LIN record that cannot be read: ``board`` is the 1-based record (line) number."""

    def __init__(self, record: int, message: str) -> None:
        self.record = record
        self.message = message
        super().__init__(f"record {record}: {message}")


def _clean(text: str) -> str:
    """LIN has no escape for its separator: a '|' in free text would end the value, so it becomes '/'; suit
    symbols become BBO's ``!S !H !D !C``; line breaks become spaces (one record per line)."""
    return " ".join(text.translate(_SUIT_SYMBOLS).replace("|", "/").splitlines())


def _hand(h: Hand) -> str:
    return "".join(s.letter + "".join(c.rank.letter for c in h.cards_in(s))
                   for s in (Suit.SPADES, Suit.HEARTS, Suit.DIAMONDS, Suit.CLUBS))


def _call(call: Call) -> str:
    if call.is_pass:
        return "p"
    if call.is_double:
        return "d"
    if call.is_redouble:
        return "r"
    return str(call)


def _names(r: BoardRecord) -> list[str]:
    return [_clean(r.players.get(s, "")).replace(",", " ") for s in _LIN_SEATS]


def lin_board(game: PbnGame | BoardRecord, *, names: bool = True) -> str:
    """One board as a LIN record (no line end). ``names=False`` leaves out ``pn`` (vugraph boards take the names
    from the file's header)."""
    g = game if isinstance(game, PbnGame) else PbnGame(game)
    r = g.record
    out: list[tuple[str, str]] = []
    if names:
        out.append(("pn", ",".join(_names(r))))
    room = r.room.strip().lower()
    if room in ("open", "closed"):  # (first in a vugraph board, as BBO writes them)
        out.append(("qx", f"{room[0]}{r.board}"))
    out.append(("st", ""))
    dealer_digit = _LIN_SEATS.index(r.dealer) + 1  # type: ignore[arg-type]
    out.append(("md", f"{dealer_digit}" + ",".join(_hand(r.deal[s]) for s in _LIN_SEATS)))
    out.append(("rh", ""))
    out.append(("ah", f"Board {r.board}"))
    out.append(("sv", _VUL_TO_LIN[r.vul]))  # type: ignore[index]
    if r.auction is not None:
        for i, call in enumerate(r.auction.calls):
            ann = g.call_annotations.get(i)
            alerted = ann is not None and ann.note is not None
            out.append(("mb", _call(call) + ("!" if alerted else "")))
            if alerted and ann.note:  # type: ignore[union-attr]
                out.append(("an", _clean(ann.note)))  # type: ignore[union-attr]
        out.append(("pg", ""))
    for i, card in enumerate(r.play):  # (the record checked the play when it was built)
        out.append(("pc", str(card)))
        if i % 4 == 3:
            out.append(("pg", ""))
    complete = len(r.play) == 4 * min(len(h) for h in r.deal.hands)
    if r.result is not None and not complete and r.contract is not None:
        out.append(("mc", str(r.result)))
    return "".join(f"{k}|{v}|" for k, v in out)


def write_lin(games: Iterable[PbnGame | BoardRecord]) -> str:
    """A LIN file: one record per line."""
    return "".join(lin_board(g) + "\n" for g in games)


def _rs_entry(g: PbnGame) -> str:
    """A result as vugraph ``rs`` lists it: ``3NN=``, ``4SXE-2``, ``PASS``; empty when unknown."""
    r = g.record
    if g.passed_out:
        return "PASS"
    c = r.contract
    if c is None or c.declarer is None or r.result is None:
        return ""
    diff = r.result - c.tricks_needed
    return f"{c.level}{c.strain.letter}{'X' * c.doubled}{c.declarer.letter}{'=' if diff == 0 else f'{diff:+d}'}"


def write_lin_match(games: Iterable[PbnGame | BoardRecord], *, event: str = "", segment: str = "",
                    teams: tuple[str, str] = ("", "")) -> str:
    """A team match as a BBO vugraph file: ``vg`` (event, segment, scoring, boards, teams), ``rs`` (every table
    result), ``pn`` (open room S, W, N, E then closed room S, W, N, E; repeated whenever the players change), then one
    ``qx|o<board>|`` / ``qx|c<board>|`` record per table. Boards are written in board order, open room first; a
    game without ``Room`` counts as the open room. Keeps the match header that one-board-per-line LIN loses."""
    gs = [g if isinstance(g, PbnGame) else PbnGame(g) for g in games]
    if not gs:
        raise BridgeError("a vugraph file needs at least one board")

    def key(g: PbnGame) -> tuple[int, int]:
        return (g.record.board, 1 if g.record.room.strip().lower() == "closed" else 0)

    gs.sort(key=key)
    seen: set[tuple[int, int]] = set()
    for g in gs:
        k = key(g)
        if k in seen:
            raise BridgeError(f"board {k[0]} appears twice in the {'closed' if k[1] else 'open'} room")
        seen.add(k)
    boards = sorted({g.record.board for g in gs})
    by_key = {key(g): g for g in gs}
    vg = [_clean(event).replace(",", " "), _clean(segment).replace(",", " "), "I", str(boards[0]), str(boards[-1]),
          _clean(teams[0]).replace(",", " "), "0", _clean(teams[1]).replace(",", " "), "0"]
    rs = []
    for b in boards:
        for room in (0, 1):
            g = by_key.get((b, room))
            rs.append(_rs_entry(g) if g is not None else "")
    lines = [f"vg|{','.join(vg)}|", f"rs|{','.join(rs)}|"]
    current_names: list[str] | None = None
    for b in boards:
        open_g, closed_g = by_key.get((b, 0)), by_key.get((b, 1))
        names = (_names(open_g.record) if open_g else [""] * 4) + (_names(closed_g.record) if closed_g else [""] * 4)
        for g in (open_g, closed_g):
            if g is None:
                continue
            if names != current_names:
                lines.append(f"pn|{','.join(names)}|pg||")
                current_names = names
            rec = g.record
            if rec.room.strip().lower() not in ("open", "closed"):  # qx needs a room
                g = PbnGame(BoardRecord(**{**rec.__dict__, "room": "Open"}), call_annotations=g.call_annotations)
            lines.append(lin_board(g, names=False))
    return "".join(line + "\n" for line in lines)


# --------------------------------------------------------------------------------------------------------------
# Reading
# --------------------------------------------------------------------------------------------------------------


def _parse_lin_hand(text: str) -> Hand:
    """``S3TJH379QKD4QAC48``: suit letters then ranks in any order; a missing suit letter means a void."""
    bits = 0
    suit = None
    for ch in text.strip().upper():
        if ch in "SHDC":
            suit = Suit.parse(ch)
            continue
        if suit is None:
            raise ParseError(f"hand {text!r}: rank {ch!r} before any suit letter")
        card = Card(suit, Rank.parse(ch))
        if bits & card.mask:
            raise BridgeError(f"card {card} appears twice")
        bits |= card.mask
    return Hand(bits)


def _parse_md(value: str) -> tuple[Seat, Deal]:
    v = value.strip()
    if not v or v[0] not in "1234":
        raise ParseError(f"md {value!r}: must start with the dealer digit 1..4 (1=S, 2=W, 3=N, 4=E)")
    dealer = _LIN_SEATS[int(v[0]) - 1]
    parts = v[1:].split(",")
    if len(parts) < 3 or len(parts) > 4:
        raise ParseError(f"md {value!r}: expected 3 or 4 hands separated by commas")
    hands = [Hand(0)] * 4
    known = 0
    for seat, text in zip(_LIN_SEATS, parts):
        if text.strip():
            h = _parse_lin_hand(text)
            dup = known & h.bits
            if dup:
                raise BridgeError(f"card {Card.from_index(dup.bit_length() - 1)} appears twice")
            known |= h.bits
            hands[seat] = h
    missing = [s for s, text in zip(_LIN_SEATS, parts + [""] * (4 - len(parts))) if not text.strip()]
    if len(missing) == 1:  # the last hand is often left out: it holds the cards the others lack
        hands[missing[0]] = Hand(ALL_CARDS & ~known)
    return dealer, Deal(hands)


def read_lin(text: str) -> list[PbnGame]:
    """Read the boards of a LIN file: BBO hand records (one board a line, each starting with ``pn``) and vugraph
    files (a header with ``vg`` = event and ``pn`` = the eight players of both rooms, then boards started by
    ``qx|o1|``/``qx|c1|``). Raises ``LinError`` naming the board record (1-based) and what is wrong."""
    # Values never hold line breaks; writers break lines between (and occasionally inside) pairs.
    flat = text.replace("\r", "").replace("\n", "")
    parts = flat.split("|")
    pairs = [(k.strip().lower(), v) for k, v in zip(parts[::2], parts[1::2])]
    records: list[list[tuple[str, str]]] = []
    current: list[tuple[str, str]] = []
    has_deal = False
    names: list[str] = []  # the last pn seen: it applies to the following boards
    event = ""
    for key, value in pairs:
        starts_board = key == "qx" or (key in ("pn", "md") and has_deal)
        if starts_board and current:
            if has_deal or _has_board_data(current):
                records.append(current)
            current, has_deal = [], False
        if key == "vg":
            event = value.split(",")[0].strip()
            continue
        if key == "pn":
            names = value.split(",")
            continue
        if key == "md":
            has_deal = True
        if not current:
            current.append(("_event", event))
            current.append(("_names", ",".join(names)))
        current.append((key, value))
    if current and (has_deal or _has_board_data(current)):
        records.append(current)  # (a record with calls or cards but no md is reported as an error)
    return [_read_record(i, rec) for i, rec in enumerate(records, start=1)]


def _has_board_data(pairs: list[tuple[str, str]]) -> bool:
    return any(k in ("ah", "sv", "mb", "pc", "mc") for k, _v in pairs)


def _read_record(n: int, pairs: list[tuple[str, str]]) -> PbnGame:
    def err(msg: str) -> LinError:
        return LinError(n, msg)

    players: dict[Seat, str] = {}
    dealer = deal = vul = None
    board = None
    room = ""
    calls: list[Call] = []
    anns: dict[int, Annotation] = {}
    cards: list[tuple[Card, str]] = []
    claim = None
    event = ""
    names: list[str] = []
    for key, value in pairs:
        try:
            if key == "_event":
                event = value
            elif key == "_names":
                names = value.split(",") if value else []
            elif key == "md":
                dealer, deal = _parse_md(value)
            elif key == "sv":
                v = value.strip().lower()
                if v not in _LIN_TO_VUL:
                    raise ParseError(f"sv {value!r} is not a vulnerability (o, n, e, b)")
                vul = _LIN_TO_VUL[v]
            elif key == "ah":
                m = re.search(r"(\d+)", value)
                if m and board is None:
                    board = int(m.group(1))
            elif key == "qx":
                m = re.match(r"^\s*([oc])(\d+)", value, re.IGNORECASE)
                if m:
                    room = "Open" if m.group(1).lower() == "o" else "Closed"
                    board = int(m.group(2))
            elif key == "mb":
                v = value.strip()
                alert = v.endswith("!")
                call = Call.parse(v.rstrip("!"))
                calls.append(call)
                if alert:
                    anns[len(calls) - 1] = Annotation(note="")
            elif key == "an":
                if not calls:
                    raise ParseError("an (explanation) before any call")
                prev = anns.get(len(calls) - 1)
                anns[len(calls) - 1] = Annotation(note=value, nags=prev.nags if prev else ())
            elif key == "pc":
                cards.append((Card.parse(value), value))
            elif key == "mc":
                claim = int(value.strip())
        except (BridgeError, ValueError) as exc:
            raise err(f"{key}|{value}|: {exc}") from None
    # pn lists South, West, North, East; vugraph files list the open room's four, then the closed room's four.
    if len(names) >= 8 and room == "Closed":
        names = names[4:8]
    for seat, name in zip(_LIN_SEATS, names[:4]):
        if name.strip():
            players[seat] = name
    if deal is None or dealer is None:
        raise err("no deal (md)")
    if board is None:
        raise err("no board number (ah or qx)")
    try:
        auction = Auction(dealer)
        for i, c in enumerate(calls):
            try:
                auction = auction.then(c)
            except IllegalCallError as exc:
                raise err(f"call {i + 1}: {exc}") from None
        contract = auction.contract
        play_cards: tuple[Card, ...] = ()
        if cards:
            if contract is None:
                raise err("cards are played but the auction has no contract")
            p = Play(deal, contract)
            for i, (card, _t) in enumerate(cards):
                try:
                    p = p.then(card)
                except IllegalCardError as exc:
                    raise err(f"trick {i // 4 + 1}: {exc}") from None
            play_cards = p.cards
        record = BoardRecord(board=board, deal=deal, dealer=dealer, vul=vul, auction=auction, play=play_cards,
                             result=claim if contract is not None else None, players=players, room=room,
                             event=event)
        return PbnGame(record, call_annotations=anns)
    except LinError:
        raise
    except BridgeError as exc:
        raise err(str(exc)) from None

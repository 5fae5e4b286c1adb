"""A strict protocol-18 robot, written from the Blue Chip specification (see ``spec18.py``), for testing table
managers the way an exacting third-party robot would:

    python tests/strict18/strict_robot.py HOST PORT SEAT TEAM [--slow-once SECONDS] [--record FILE] [--log FILE]

It connects as protocol 18 and, at every step, knows the one line the spec says comes next on its socket: its
``seated`` line, the Teams line, ``Start of board`` or ``End of session``, the Board line, its hand, each call it
asked for (an alert and its text only on an opponent's bid: the bidder's partner never sees them), ``to lead`` before
each of its leads (``Dummy to lead`` when it declares and dummy leads), each card it asked for, dummy's cards after
the opening lead, the Timing line after a played board, and after ``End of session`` the manager closing the
connection. Calls and cards are checked: a call must be legal, a card must be held (as far as it can know: its own
hand, dummy's, the cards seen, the suits a player has shown out of). Anything else - an ``Error`` line, ``Illegal
bid``, an ``Infos.`` text, ``. Playing IMP`` on the Teams line, `` Open room.`` on the Board line, a line out of turn
- ends it with a clear message and exit status 1.

Its bidding is simple and legal: it opens one of its longest suit with 12 or more high-card points, raises partner's
suit to two with three cards, or bids a new suit at the one level, else 1NT, with 6 or more; otherwise it passes.
It plays the lowest legal card (following suit), dummy's too when it declares.

``--slow-once SECONDS``: wait that long before the first card it plays from its own hand as first, second or third
hand (to overrun a manager's clock once). ``--record FILE``: a JSON record of each board as this robot saw it.

Standard library only; nothing of Squeeze. Exit status: 0 after ``End of session``, 1 a line outside the protocol
(or an illegal call or card), 3 the manager could not be reached.
"""

from __future__ import annotations

import argparse
import json
import re
import socket
import sys
import time
from pathlib import Path
from typing import Optional

sys.path.insert(0, str(Path(__file__).resolve().parent))

from spec18 import (  # noqa: E402  (the folder of this script is the import path of its helper)
    BOARD_RE, HAND_RE, HAND_SUITS, TEAMS_RE, TIMING_RE, Auction, Illegal, call_of, call_re, call_text, left_of,
    legal_cards, lowest, parse_hand, partner_of, seat_of, side_of, trick_winner,
)

EXIT_ILLEGAL = 1
EXIT_UNREACHABLE = 3
_HCP = {"A": 4, "K": 3, "Q": 2, "J": 1}
_CARD_RE = r"([AKQJT98765432][SHDC])"


def choose_call(me: str, hand: list[str], auction: Auction) -> str:
    """Open one of the longest suit with 12+ HCP; with 6+ HCP answer partner's opening (no intervention) with a
    raise to two on three cards, else a new four-card suit at the one level, else 1NT; pass otherwise."""
    hcp = sum(_HCP.get(c[0], 0) for c in hand)
    length = {s: sum(1 for c in hand if c[1] == s) for s in HAND_SUITS}
    bids = [(s, c) for s, c in auction.calls if c not in ("P", "X", "XX")]
    candidates: list[str] = []
    if not bids and hcp >= 12:
        candidates.append("1" + max(HAND_SUITS, key=lambda s: (length[s], "CDHS".index(s))))
    elif len(bids) == 1 and bids[0][0] == partner_of(me) and hcp >= 6:
        strain = bids[0][1][1:]
        if strain != "NT" and length[strain] >= 3:
            candidates.append("2" + strain)
        candidates += ["1" + s for s in "CDHS" if length[s] >= 4 and s != strain]
        candidates.append("1NT")
    for call in candidates:
        if auction.why_illegal(me, call) is None:
            return call
    return "P"


class Failed(Exception):
    """The robot stops: a line outside the protocol, an illegal call or card seen, or the manager gone."""


class StrictRobot:
    def __init__(self, host: str, port: int, seat: str, team: str, *, slow_once: float = 0.0,
                 timeout: float = 120.0, log_file=None) -> None:
        self.host, self.port, self.me, self.team = host, port, seat, team
        self.slow_once = slow_once
        self.timeout = timeout
        self.log_file = log_file
        self.sock: Optional[socket.socket] = None
        self._buf = b""
        self._pushed: Optional[str] = None
        self.records: list[dict] = []
        self.started = time.monotonic()

    # --- transport -------------------------------------------------------------------------------------------
    def log(self, text: str) -> None:
        if self.log_file is not None:
            self.log_file.write(f"{time.monotonic() - self.started:9.3f} {text}\n")
            self.log_file.flush()

    def connect(self) -> None:
        deadline = time.monotonic() + 15
        while True:
            try:
                self.sock = socket.create_connection((self.host, self.port), timeout=5)
                break
            except OSError as exc:
                if time.monotonic() > deadline:
                    raise ConnectionError(f"cannot reach {self.host}:{self.port}: {exc}") from None
                time.sleep(0.2)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.sock.settimeout(self.timeout)

    def send(self, line: str) -> None:
        self.log(f"-> {line}")
        self.sock.sendall(line.encode("ascii") + b"\r\n")

    def _line(self, what: str) -> Optional[str]:
        """The next line (CR LF checked), or None at the end of the connection."""
        if self._pushed is not None:
            line, self._pushed = self._pushed, None
            return line
        while b"\n" not in self._buf:
            try:
                data = self.sock.recv(65536)
            except socket.timeout:
                raise Failed(f"nothing from the manager for {self.timeout:g} s while waiting for {what}") from None
            except OSError as exc:
                raise Failed(f"connection error while waiting for {what}: {exc}") from None
            if not data:
                if self._buf:
                    raise Failed(f"the manager closed the connection in the middle of a line: {self._buf!r}")
                return None
            self._buf += data
        raw, self._buf = self._buf.split(b"\n", 1)
        if not raw.endswith(b"\r") or b"\r" in raw[:-1]:
            whole = raw + b"\n"
            raise Failed(f"a line not terminated by CR LF: {whole!r}")
        body = raw[:-1]
        if any(b < 32 or b > 127 for b in body):
            raise Failed(f"a line with characters outside ASCII #32-#127: {body!r}")
        line = body.decode("ascii")
        self.log(f"<- {line}")
        return line

    def _next(self, what: str) -> str:
        line = self._line(what)
        if line is None:
            raise Failed(f"the manager closed the connection while we waited for {what}")
        return line

    def expect(self, *forms: str) -> str:
        what = " or ".join(repr(f) for f in forms)
        line = self._next(what)
        if line not in forms:
            raise Failed(f"unexpected line {line!r}; the protocol has {what} next")
        return line

    def expect_re(self, pattern: str, what: str) -> re.Match:
        line = self._next(what)
        mt = re.fullmatch(pattern, line)
        if mt is None:
            raise Failed(f"unexpected line {line!r}; the protocol has {what} next")
        return mt

    # --- session ---------------------------------------------------------------------------------------------
    def run(self) -> None:
        me = self.me
        self.send(f'Connecting "{self.team}" as {me} using protocol version 18')
        self.expect(f'{me} ("{self.team}") seated')
        self.send(f"{me} ready for teams")
        mt = self.expect_re(TEAMS_RE, 'the Teams line (Teams : N/S : "[team]". E/W : "[team]")')
        ours, theirs = (mt.group(1), mt.group(2)) if side_of(me) == "N/S" else (mt.group(2), mt.group(1))
        if ours != self.team or theirs == self.team:
            raise Failed(f"the Teams line {mt.group(0)!r} does not seat our team {self.team!r} on our side")
        self.send(f"{me} ready to start")
        while self.expect("Start of board", "End of session") == "Start of board":
            self.play_board()
        end = self._line("the manager closing the connection after End of session")
        if end is not None:
            raise Failed(f"unexpected line {end!r} after End of session")

    def play_board(self) -> None:
        me = self.me
        self.send(f"{me} ready for deal")
        mt = self.expect_re(BOARD_RE, "the Board line (Board number [n]. Dealer [Hand]. [vulnerability] vulnerable)")
        number, dealer, vul = int(mt.group(1)), mt.group(2), mt.group(3)
        self.send(f"{me} ready for cards")
        hand = parse_hand(self.expect_re(rf"{me}'s cards : ({HAND_RE})", f"{me}'s cards").group(1))
        record: dict = {"board": number, "dealer": dealer, "vulnerable": vul, "hand": sorted(hand), "auction": [],
                        "alerts_seen": {}, "contract": None, "declarer": None, "tricks": [], "declarer_tricks": None}
        self.records.append(record)

        auction = Auction(dealer)
        while not auction.complete:
            bidder = auction.next_seat
            if bidder == me:
                call = choose_call(me, hand, auction)
                self.send(call_text(me, call))
            else:
                self.send(f"{me} ready for {bidder}'s bid")
                mt = self.expect_re(call_re(bidder), f"{bidder}'s call")
                call = call_of(mt)
                if mt.group(3):
                    if bidder == partner_of(me):
                        raise Failed(f"our partner's alert reached us: {mt.group(0)!r} (the spec sends it to the "
                                     "bidder's opponents only)")
                    record["alerts_seen"][str(len(auction.calls) + 1)] = mt.group(3)[len(" Alert."):].strip()
            try:
                auction.add(bidder, call)
            except Illegal as exc:
                raise Failed(f"{exc} (relayed by the manager)") from None
        record["auction"] = auction.tokens()
        contract = auction.contract()
        if contract is None:  # passed out: the Timing line may come, then the next board or the end
            line = self._next("the Timing line, Start of board or End of session")
            if not re.fullmatch(TIMING_RE, line):
                self._pushed = line
            return
        record["contract"] = contract["bid"] + contract["doubled"]
        record["declarer"] = contract["declarer"]
        record["declarer_tricks"] = self.play(hand, contract, record)
        self.expect_re(TIMING_RE, "the Timing line")

    def play(self, hand: list[str], contract: dict, record: dict) -> int:
        me = self.me
        declarer = contract["declarer"]
        dummy = partner_of(declarer)
        strain = contract["bid"][1:]
        trumps = None if strain == "NT" else strain
        known: dict[str, list[str]] = {me: hand}  # the hands we can see: ours, and dummy's once shown
        seen: set[str] = set(hand)
        voids: dict[str, set[str]] = {}
        leader = left_of(declarer)
        won = 0
        for number in range(1, 14):
            trick: list[str] = []
            for i in range(4):
                player = left_of(leader, i)
                actor = declarer if player == dummy else player
                if actor == me:
                    if i == 0:
                        self.expect("Dummy to lead" if player == dummy else f"{me} to lead")
                    card = lowest(legal_cards(known[player], trick))
                    if self.slow_once and player == me and i < 3:
                        self.log(f"-- sleeping {self.slow_once:g} s before this card (--slow-once)")
                        time.sleep(self.slow_once)
                        self.slow_once = 0.0
                    self.send(f"{player} plays {card}")
                else:
                    about = "dummy" if (player == dummy and me == dummy) else player
                    self.send(f"{me} ready for {about}'s card to trick {number}")
                    card = self.expect_re(rf"{player} plays {_CARD_RE}", f"{player}'s card to trick {number}").group(1)
                    self._check_card(player, card, trick, known, seen, voids)
                if player in known:
                    known[player].remove(card)
                seen.add(card)
                trick.append(card)
                if number == 1 and i == 0 and me != dummy:
                    self.send(f"{me} ready for dummy")
                    shown = parse_hand(self.expect_re(rf"Dummy's cards : ({HAND_RE})", "dummy's cards").group(1))
                    if seen & set(shown):
                        raise Failed(f"dummy's cards include cards already seen: {sorted(seen & set(shown))}")
                    known[dummy] = shown
                    seen |= set(shown)
            winner = trick_winner(leader, trick, trumps)
            record["tricks"].append({"leader": leader, "cards": trick, "winner": winner})
            won += side_of(winner) == side_of(declarer)
            leader = winner
        return won

    @staticmethod
    def _check_card(player: str, card: str, trick: list[str], known: dict, seen: set, voids: dict) -> None:
        if player in known:
            if card not in known[player]:
                raise Failed(f"{player} played {card}, which is not in its hand")
            if card not in legal_cards(known[player], trick):
                raise Failed(f"{player} played {card} and did not follow suit")
            return
        if card in seen:
            raise Failed(f"{player} played {card}, a card already seen")
        if card[1] in voids.get(player, set()):
            raise Failed(f"{player} played {card} after showing out of that suit")
        if trick and card[1] != trick[0][1]:
            voids.setdefault(player, set()).add(trick[0][1])


def main(argv: Optional[list[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("host")
    ap.add_argument("port", type=int)
    ap.add_argument("seat", help="N, E, S, W (or the seat's name)")
    ap.add_argument("team")
    ap.add_argument("--slow-once", type=float, default=0.0, metavar="SECONDS",
                    help="wait this long before one of our cards (to overrun the manager's clock once)")
    ap.add_argument("--record", type=Path, help="JSON record of the boards as this robot saw them")
    ap.add_argument("--log", type=Path, help="every line in and out, with its time")
    ap.add_argument("--timeout", type=float, default=120.0, help="seconds to wait for the manager's next line")
    args = ap.parse_args(argv)
    try:
        seat = seat_of(args.seat)
    except ValueError as exc:
        ap.error(str(exc))
    if '"' in args.team or not args.team:
        ap.error("the team name must be non-empty and without double quotes")
    log_file = open(args.log, "w", encoding="ascii", errors="backslashreplace") if args.log else None
    robot = StrictRobot(args.host, args.port, seat, args.team, slow_once=args.slow_once, timeout=args.timeout,
                        log_file=log_file)
    code, error = 0, None
    try:
        robot.connect()
        robot.run()
    except ConnectionError as exc:
        code, error = EXIT_UNREACHABLE, str(exc)
    except (Failed, Illegal) as exc:
        code, error = EXIT_ILLEGAL, f"strict robot {seat}: {exc}"
    finally:
        if robot.sock is not None:
            robot.sock.close()
    if error is not None:
        robot.log(error)
        print(error, file=sys.stderr, flush=True)
    if args.record is not None:
        args.record.write_text(json.dumps({"ok": code == 0, "seat": seat, "team": args.team, "error": error,
                                           "boards": robot.records}, indent=1))
    if log_file is not None:
        log_file.close()
    return code


if __name__ == "__main__":
    sys.exit(main())

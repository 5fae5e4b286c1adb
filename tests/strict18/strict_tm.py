"""A strict protocol-18 table manager, written from the Blue Chip specification (see ``spec18.py``), for testing
robots the way an exacting third-party manager would:

    python tests/strict18/strict_tm.py --port 0 --boards 2 --seed 7 --out results.json [--log lines.log]

One listening port (``0``: any free port; the first line on standard output is ``listening on HOST:PORT``). Four
players connect with protocol 18; then every board runs in lock step exactly as the spec's message summary lays it
out: Teams, ``Start of board``, the Board line, each hand, the auction (each call relayed once the other three are
ready; an alert and its text only to the bidder's opponents), ``to lead`` before every trick to the leader
(``Dummy to lead`` to declarer), dummy's cards after the opening lead to the three who asked, each card to the three
others (declarer never gets dummy's cards echoed), a one-second pause at the end of each trick (``--lead-pause``),
the Timing line, and ``End of session`` after the last board.

Every line a player sends must be the one the spec says comes next from that player, character for character (the
case-sensitive forms the spec prints, CR LF at the end, printable ASCII): a call is ``passes``, ``doubles``,
``redoubles`` - nothing after them - or ``bids 1NT`` optionally followed by `` Alert.`` and its information. Calls
and cards are checked for legality (insufficient bids, doubles and redoubles, revokes, cards not held, play out of
turn). On anything else - a line it cannot match, an illegal call or card, a player going silent or away - it
logs ``Illegal ...`` with the line, closes every socket and exits with a non-zero status, as the third-party manager
that prompted it did. Lines from one player are read in order; lines from different players may come in any order.

``--out`` receives a JSON record of every board: deal, auction (with the alerts), contract, declarer, each trick's
cards, leader and winner, declarer's tricks; plus ``ok`` and, after a failure, ``error``.

Standard library only; nothing of Squeeze.
"""

from __future__ import annotations

import argparse
import json
import queue
import random
import re
import socket
import sys
import threading
import time
from pathlib import Path
from typing import Optional

sys.path.insert(0, str(Path(__file__).resolve().parent))

from spec18 import (  # noqa: E402  (the folder of this script is the import path of its helper)
    CONNECT_RE, SEATS, Auction, Illegal, call_of, call_re, call_text, dealer_of, full_deck, hand_text,
    left_of, legal_cards, partner_of, side_of, timing_text, trick_winner, vulnerability_of,
)

EXIT_ILLEGAL = 1
EXIT_USAGE = 2


class _Closed:
    """A reader thread's mark: the connection ended (``why`` says how)."""

    def __init__(self, why: str) -> None:
        self.why = why


class Player:
    """One player's socket and a thread that queues its lines, checking the framing (CR LF, printable ASCII)."""

    def __init__(self, sock: socket.socket, address: str, log) -> None:
        self.sock = sock
        self.address = address
        self.seat: Optional[str] = None
        self.lines: "queue.Queue[str | _Closed]" = queue.Queue()
        self._log = log
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        buf = b""
        while True:
            try:
                data = self.sock.recv(65536)
            except OSError as exc:
                self.lines.put(_Closed(f"socket error: {exc}"))
                return
            if not data:
                self.lines.put(_Closed("closed the connection" + (f" with {buf!r} unterminated" if buf else "")))
                return
            buf += data
            while b"\n" in buf:
                raw, buf = buf.split(b"\n", 1)
                if not raw.endswith(b"\r") or b"\r" in raw[:-1]:
                    whole = raw + b"\n"
                    self.lines.put(_Closed(f"sent a line not terminated by CR LF: {whole!r}"))
                    return
                body = raw[:-1]
                if any(b < 32 or b > 127 for b in body):
                    self.lines.put(_Closed(f"sent a line with characters outside ASCII #32-#127: {body!r}"))
                    return
                self.lines.put(body.decode("ascii"))

    def send(self, line: str) -> None:
        self._log(f"-> {self.seat or self.address}: {line}")
        try:
            self.sock.sendall(line.encode("ascii") + b"\r\n")
        except OSError as exc:
            raise Illegal(f"cannot send to {self.seat or self.address}: {exc}") from None

    def close(self) -> None:
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.sock.close()


class StrictTableManager:
    def __init__(self, boards: int, seed: int, *, timeout: float, lead_pause: float, log_file=None,
                 ns_team: Optional[str] = None, ew_team: Optional[str] = None) -> None:
        self.boards = boards
        self.rng = random.Random(seed)
        self.timeout = timeout
        self.lead_pause = lead_pause
        self.log_file = log_file
        self.teams = {"N/S": ns_team, "E/W": ew_team}
        self.players: dict[str, Player] = {}
        self.everyone: list[Player] = []
        self.records: list[dict] = []
        self.total = {"N/S": 0.0, "E/W": 0.0}
        self.started = time.monotonic()

    # --- log -------------------------------------------------------------------------------------------------
    def log(self, text: str) -> None:
        if self.log_file is not None:
            self.log_file.write(f"{time.monotonic() - self.started:9.3f} {text}\n")
            self.log_file.flush()

    # --- reading ---------------------------------------------------------------------------------------------
    def _next(self, player: Player, what: str) -> str:
        try:
            line = player.lines.get(timeout=self.timeout)
        except queue.Empty:
            raise Illegal(f"{player.seat or player.address} sent nothing for {self.timeout:g} s while the table "
                          f"waited for {what}") from None
        if isinstance(line, _Closed):
            raise Illegal(f"{player.seat or player.address} {line.why} while the table waited for {what}")
        self.log(f"<- {player.seat or player.address}: {line}")
        return line

    def expect(self, seat: str, *forms: str) -> str:
        """The next line from ``seat``, which must be one of ``forms`` exactly."""
        line = self._next(self.players[seat], " or ".join(repr(f) for f in forms))
        if line not in forms:
            raise Illegal(f"Illegal line from {seat}: {line!r}; expected {' or '.join(repr(f) for f in forms)}")
        return line

    def expect_re(self, seat: str, pattern: str, what: str) -> re.Match:
        line = self._next(self.players[seat], what)
        mt = re.fullmatch(pattern, line)
        if mt is None:
            raise Illegal(f"Illegal line from {seat}: {line!r}; expected {what}")
        return mt

    def send(self, seats, line: str) -> None:
        for s in seats:
            self.players[s].send(line)

    # --- session ---------------------------------------------------------------------------------------------
    def seat_players(self, server: socket.socket) -> None:
        """Accept connections until the four seats are taken: ``Connecting`` checked (version 18, a free seat,
        partners under one team name, opponents under another), answered ``[Hand] ("[team]") seated``."""
        deadline = time.monotonic() + self.timeout
        while len(self.players) < 4:
            server.settimeout(max(0.1, deadline - time.monotonic()))
            try:
                sock, addr = server.accept()
            except socket.timeout:
                raise Illegal(f"only {len(self.players)} players connected within {self.timeout:g} s") from None
            player = Player(sock, f"{addr[0]}:{addr[1]}", self.log)
            self.everyone.append(player)
            line = self._next(player, "Connecting")
            mt = re.fullmatch(CONNECT_RE, line)
            if mt is None:
                raise Illegal(f"Illegal connection line from {player.address}: {line!r}; expected "
                              "'Connecting \"[team name]\" as [Hand] using protocol version 18'")
            team, seat, version = mt.group(1), mt.group(2), mt.group(3)
            if version != "18":
                raise Illegal(f"Illegal protocol version {version} from {seat}: this table manager speaks 18")
            if seat in self.players:
                raise Illegal(f"Illegal connection: {seat} is already seated")
            side = side_of(seat)
            other = "E/W" if side == "N/S" else "N/S"
            if self.teams[side] is not None and self.teams[side] != team:
                raise Illegal(f"Illegal team name {team!r} for {seat}: {side} is {self.teams[side]!r}")
            if self.teams[other] == team:
                raise Illegal(f"Illegal team name {team!r} for {seat}: that is the opponents' name")
            self.teams[side] = team
            player.seat = seat
            self.players[seat] = player
            player.send(f'{seat} ("{team}") seated')

    def run(self) -> None:
        for s in SEATS:
            self.expect(s, f"{s} ready for teams")
        self.send(SEATS, f'Teams : N/S : "{self.teams["N/S"]}". E/W : "{self.teams["E/W"]}"')
        for s in SEATS:
            self.expect(s, f"{s} ready to start")
        for number in range(1, self.boards + 1):
            self.play_board(number)
        self.send(SEATS, "End of session")
        time.sleep(0.5)  # the spec's short pause before disconnecting; nothing may come meanwhile
        for s in SEATS:
            try:
                extra = self.players[s].lines.get_nowait()
            except queue.Empty:
                continue
            if not isinstance(extra, _Closed):
                raise Illegal(f"Illegal line from {s} after End of session: {extra!r}")

    def play_board(self, number: int) -> None:
        deck = full_deck()
        self.rng.shuffle(deck)
        hands = {s: deck[13 * i:13 * i + 13] for i, s in enumerate(SEATS)}
        dealer, vul = dealer_of(number), vulnerability_of(number)
        record: dict = {"board": number, "dealer": dealer, "vulnerable": vul,
                        "hands": {s: hand_text(h) for s, h in hands.items()}, "auction": [], "alerts": {},
                        "contract": None, "declarer": None, "tricks": [], "declarer_tricks": None}
        self.records.append(record)
        used = {"N/S": 0.0, "E/W": 0.0}
        self.send(SEATS, "Start of board")
        for s in SEATS:
            self.expect(s, f"{s} ready for deal")
        self.send(SEATS, f"Board number {number}. Dealer {dealer}. {vul} vulnerable")
        for s in SEATS:
            self.expect(s, f"{s} ready for cards")
        for s in SEATS:
            self.players[s].send(f"{s}'s cards : {hand_text(hands[s])}")

        auction = Auction(dealer)
        while not auction.complete:
            bidder = auction.next_seat
            for s in SEATS:
                if s != bidder:
                    self.expect(s, f"{s} ready for {bidder}'s bid")
            t0 = time.monotonic()
            mt = self.expect_re(bidder, call_re(bidder), f"a call from {bidder}")
            used[side_of(bidder)] += time.monotonic() - t0
            call = call_of(mt)
            try:
                auction.add(bidder, call)
            except Illegal as exc:
                raise Illegal(f"Illegal bid from {bidder}: {exc}") from None
            record["auction"].append(call)
            if mt.group(3):
                record["alerts"][str(len(record["auction"]))] = mt.group(3)[len(" Alert."):].strip()
            # the alert and its information to the bidder's opponents only
            self.players[partner_of(bidder)].send(call_text(bidder, call))
            self.send([left_of(bidder), left_of(bidder, 3)], mt.group(0))

        contract = auction.contract()
        if contract is not None:
            record["contract"] = contract["bid"] + contract["doubled"]
            record["declarer"] = contract["declarer"]
            record["declarer_tricks"] = self.play_cards(hands, contract, record, used)
        ns, ew = used["N/S"], used["E/W"]
        self.total["N/S"] += ns
        self.total["E/W"] += ew
        self.send(SEATS, timing_text(ns, self.total["N/S"], ew, self.total["E/W"]))

    def play_cards(self, hands: dict, contract: dict, record: dict, used: dict) -> int:
        declarer = contract["declarer"]
        dummy = partner_of(declarer)
        strain = contract["bid"][1:]
        trumps = None if strain == "NT" else strain
        leader = left_of(declarer)
        won = 0
        for number in range(1, 14):
            if number > 1:
                time.sleep(self.lead_pause)  # the spec's pause before "to lead"
            trick: list[str] = []
            for i in range(4):
                player = left_of(leader, i)
                actor = declarer if player == dummy else player
                if i == 0:
                    self.players[actor].send("Dummy to lead" if player == dummy else f"{player} to lead")
                for s in SEATS:
                    if s == actor:
                        continue
                    if s == dummy:  # dummy says "dummy's card" for its own cards (item 4)
                        own = player == dummy
                        self.expect(s, f"{s} ready for {'dummy' if own else player}'s card to trick {number}")
                    elif player == dummy:
                        self.expect(s, f"{s} ready for {player}'s card to trick {number}",
                                    f"{s} ready for dummy's card to trick {number}")
                    else:
                        self.expect(s, f"{s} ready for {player}'s card to trick {number}")
                t0 = time.monotonic()
                mt = self.expect_re(actor, rf"{player} plays ([AKQJT98765432][SHDC])",
                                    f"{player}'s card to trick {number}" + (" (played by declarer)" if actor != player
                                                                            else ""))
                used[side_of(actor)] += time.monotonic() - t0
                card = mt.group(1)
                if card not in hands[player]:
                    raise Illegal(f"Illegal card from {player}: {card} is not in its hand")
                if card not in legal_cards(hands[player], trick):
                    raise Illegal(f"Illegal card from {player}: {card} does not follow suit ({trick[0][1]} led)")
                hands[player].remove(card)
                trick.append(card)
                self.send([s for s in SEATS if s != actor], f"{player} plays {card}")
                if number == 1 and i == 0:
                    for s in SEATS:
                        if s != dummy:
                            self.expect(s, f"{s} ready for dummy")
                    self.send([s for s in SEATS if s != dummy], f"Dummy's cards : {hand_text(hands[dummy])}")
            winner = trick_winner(leader, trick, trumps)
            record["tricks"].append({"leader": leader, "cards": trick, "winner": winner})
            if side_of(winner) == side_of(declarer):
                won += 1
            leader = winner
        return won

    def close_all(self) -> None:
        for p in self.everyone:
            p.close()


def main(argv: Optional[list[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=2000, help="0: any free port")
    ap.add_argument("--boards", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", type=Path, required=True, help="JSON record of the boards")
    ap.add_argument("--log", type=Path, help="every line in and out, with its time")
    ap.add_argument("--ns-team", help="the N/S team name required (default: the first N/S player's)")
    ap.add_argument("--ew-team", help="the E/W team name required (default: the first E/W player's)")
    ap.add_argument("--timeout", type=float, default=120.0, help="seconds a player may stay silent")
    ap.add_argument("--lead-pause", type=float, default=1.0, help="pause before 'to lead' (the spec: one second)")
    args = ap.parse_args(argv)
    if args.boards < 1:
        ap.error("--boards must be at least 1")
    log_file = open(args.log, "w", encoding="ascii", errors="backslashreplace") if args.log else None
    tm = StrictTableManager(args.boards, args.seed, timeout=args.timeout, lead_pause=args.lead_pause,
                            log_file=log_file, ns_team=args.ns_team, ew_team=args.ew_team)
    server = socket.create_server((args.host, args.port))
    print(f"listening on {args.host}:{server.getsockname()[1]}", flush=True)
    error: Optional[str] = None
    try:
        tm.seat_players(server)
        tm.run()
    except Illegal as exc:
        error = str(exc) if str(exc).startswith("Illegal") else f"Illegal: {exc}"
    finally:
        server.close()
        tm.close_all()
    result = {"ok": error is None, "teams": tm.teams, "boards": tm.records}
    if error is not None:
        result["error"] = error
        tm.log(error)
        print(error, file=sys.stderr, flush=True)
    args.out.write_text(json.dumps(result, indent=1))
    if log_file is not None:
        log_file.close()
    return 0 if error is None else EXIT_ILLEGAL


if __name__ == "__main__":
    sys.exit(main())

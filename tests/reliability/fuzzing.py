"""Fuzz targets: every parser and machine that reads what a peer or a file says, each with the contract it keeps.

A target is a function of one input (text or bytes) that returns ``True`` when the input was accepted, ``False``
when it was rejected with the documented error type, and raises ``AssertionError`` (or lets any other exception
out) when the contract is broken. The inputs are mutations of real ones (``mutate``): a corpus from a played
session, files and strings, changed byte by byte, spliced with each other and with hostile pieces. The same
targets run under Hypothesis in ``test_rel_fuzz.py`` and in a seeded loop in ``bench/reliability.py``.

Contracts (from the docs of each module):

- ``protocol.messages.parse``: a ``Message`` or ``ProtocolError``; what it accepts formats canonically and parses
  back to the same message;
- ``ClientMachine.receive_line`` / ``TableMachine.receive``: only ``ProtocolError``, and a rejected line leaves
  its state as it was (``machine_state``; the documented exception: a refusal while connecting puts the client in
  ERROR);
- ``engine.pbn.read_pbn``: never raises (problems are ``PbnError`` entries), and ``strict=True`` raises only
  ``PbnError``; ``engine.lin.read_lin``: only ``LinError``;
- ``Deal.parse``, ``Contract.parse``, ``Auction(dealer, calls)``, ``BoardRecord.from_json``: only
  ``BridgeError`` (the engine's documented base error: ``ParseError``, ``InvalidDealError``, ``IllegalCallError``,
  ``RecordError``).
"""

from __future__ import annotations

import copy
import random
from typing import Callable

from squeeze.engine.auction import Auction, Contract
from squeeze.engine.cards import BridgeError, Deal, Seat
from squeeze.engine.lin import LinError, read_lin, write_lin
from squeeze.engine.pbn import PbnError, read_pbn, write_pbn
from squeeze.engine.record import BoardRecord
from squeeze.protocol import messages as m
from squeeze.protocol.client import ClientPhase
from squeeze.protocol.errors import ProtocolError
from squeeze.robot.tm.plan import random_boards
from test_protocol_machines import CLIENT_STATES, TABLE_STATES
from test_protocol_support import machine_state

#: Pieces a mutation splices in: line ends, separators of every format, non-ASCII, NUL, huge numbers, quotes.
_HOSTILE = ["\r\n", "\n", "\r", "\x00", "|", "||", '"', "[", "]", "{", "}", ";", ":", ".", "-", "10", "T", "NT",
            "XX", "99999999999999999999", "-1", "é", "\u202e", "\ufeff", "  ", "\t", "North", "ANYPL", "pn|", "md|",
            "mb|", "pc|", "%", "\\", "Alert.", "Infos.", "S", "H", "D", "C"]


def _session_lines() -> list[str]:
    """Every line of real sessions: the machines' unanswered and sent lines at many points of a session."""
    lines: set[str] = set()
    for c in CLIENT_STATES:
        lines.update(line.rstrip("\r\n") for line in c.unanswered_lines())
    lines.update(["Connecting \"Squeeze\" as North using protocol version 18", "North (\"Squeeze\") seated",
                  "Teams : N/S : \"Squeeze\" E/W : \"Other\"", "Start of board", "Board number 3. Dealer South. "
                  "Neither vulnerable.", "North's cards : S A K 9 4. H T 8 2. D K 7 3. C Q J 5.",
                  "East bids 1NT Alert. 15-17", "South passes", "West doubles", "North redoubles",
                  "Dummy to lead", "East plays 10C", "Dummy's cards : S Q 7 6. H A J 5. D T 8 6 2. C T 9 2.",
                  "Timing - N/S : this board  00:00:01,  total  00:00:02.  E/W : this board  00:00:01,  total  "
                  "00:00:02.", "End of session", "Error: Seat North has already been taken", "Illegal bid",
                  "North ready for teams", "North ready to start", "North ready for deal", "North ready for cards",
                  "North ready for East's bid", "North ready for dummy", "North ready for dummy's card to trick 2"])
    return sorted(lines)


def _records() -> list[BoardRecord]:
    return random_boards(1, 3, 11)


def mutate(text: str, rng: random.Random, corpus: list[str], steps: int = 0) -> str:
    """``text`` changed by 1-4 random edits: flip, insert, delete, duplicate, splice, case, truncate, repeat."""
    for _ in range(steps or rng.randint(1, 4)):
        n = len(text)
        i = rng.randint(0, n)
        j = min(n, i + rng.randint(0, 12))
        op = rng.randrange(9)
        if op == 0 and n:
            k = rng.randrange(n)
            text = text[:k] + chr(rng.choice([rng.randrange(32, 127), rng.randrange(0, 256), rng.randrange(0x10000)])) \
                + text[k + 1:]
        elif op == 1:
            text = text[:i] + rng.choice(_HOSTILE) + text[i:]
        elif op == 2:
            text = text[:i] + text[j:]
        elif op == 3:
            text = text[:j] + text[i:j] + text[j:]
        elif op == 4:
            other = rng.choice(corpus)
            k = rng.randint(0, len(other))
            text = text[:i] + other[k:k + rng.randint(1, 40)] + text[j:]
        elif op == 5:
            text = text[:i] + text[i:j].swapcase() + text[j:]
        elif op == 6:
            text = text[:i]
        elif op == 7:
            text = text[:i] + text[i:j] * rng.randint(2, 50) + text[j:]
        else:
            text = text[:i] + " " * rng.randint(1, 5) + text[i:]
    return text


# --- targets ------------------------------------------------------------------------------------------------------
def check_parse(line: str) -> bool:
    try:
        msg = m.parse(line)
    except ProtocolError:
        return False
    canonical = m.format(msg)
    assert m.parse(canonical) == msg, f"{line!r}: accepted as {canonical!r}, which parses differently"
    return True


def check_client(line: str, state: int) -> bool:
    c = copy.deepcopy(CLIENT_STATES[state % len(CLIENT_STATES)])
    phase = c.phase
    before = machine_state(c)
    try:
        c.receive_line(line)
    except ProtocolError:
        if phase == ClientPhase.CONNECTING and c.phase == ClientPhase.ERROR:
            return False  # documented: a refused connection is final
        assert machine_state(c) == before, f"{line!r} rejected in {phase.value} but the client changed"
        return False
    return True


def check_table(line: str, state: int) -> bool:
    t = copy.deepcopy(TABLE_STATES[state % len(TABLE_STATES)])
    conns = [s for s in Seat if t.seat_of(s) is not None] + ["stranger"]
    waiting = t.waiting_for
    before = machine_state(t)
    try:
        t.receive(conns[state % len(conns)], line)
    except ProtocolError as exc:
        assert machine_state(t) == before, (f"{line!r} rejected at gate {waiting and waiting[0]} but the table "
                                            "changed")
        assert exc.reply is None or exc.reply.endswith("\r\n")
        return False
    return True


def check_pbn(text: str) -> bool:
    result = read_pbn(text)
    assert all(isinstance(e, PbnError) for e in result.errors + result.warnings)
    try:
        read_pbn(text, strict=True)
    except PbnError:
        pass
    return not result.errors


def check_lin(text: str) -> bool:
    try:
        read_lin(text)
    except LinError:
        return False
    return True


def _only_bridge_errors(parse: Callable[[], object]) -> bool:
    try:
        parse()
    except BridgeError:
        return False
    return True


def check_deal(text: str) -> bool:
    return _only_bridge_errors(lambda: Deal.parse(text))


def check_contract(text: str) -> bool:
    return _only_bridge_errors(lambda: Contract.parse(text))


def check_auction(text: str) -> bool:
    return _only_bridge_errors(lambda: Auction(Seat.NORTH, text.split()))


def check_record(text: str) -> bool:
    return _only_bridge_errors(lambda: BoardRecord.from_json(text))


def corpora() -> dict[str, list[str]]:
    records = _records()
    return {
        "parse": _session_lines(),
        "client": _session_lines(),
        "table": _session_lines(),
        "pbn": [write_pbn(records), write_pbn(records[:1], score=True)],
        "lin": [write_lin(records), write_lin(records[1:])],
        "deal": [r.deal.to_pbn() for r in records],
        "contract": ["4H", "3NT", "6SXX", "3NS", "4SXN", "7C", "1NTXXW"],
        "auction": ["1N P 3N P P P", "P P P P", "1C X XX 1S P 2S X P P XX P P P", "2C P 2D P 2N P 3N P P P"],
        "record": [r.to_json() for r in records],
    }


#: name -> function of (input, state index); the state index picks a machine state and a connection.
TARGETS: dict[str, Callable[[str, int], bool]] = {
    "parse": lambda text, _s: check_parse(text),
    "client": check_client,
    "table": check_table,
    "pbn": lambda text, _s: check_pbn(text),
    "lin": lambda text, _s: check_lin(text),
    "deal": lambda text, _s: check_deal(text),
    "contract": lambda text, _s: check_contract(text),
    "auction": lambda text, _s: check_auction(text),
    "record": lambda text, _s: check_record(text),
}


def fuzz(name: str, runs: int, seed: int = 0) -> tuple[int, int, list[str]]:
    """``runs`` mutated inputs through target ``name``: (accepted, rejected, failures as text)."""
    rng = random.Random(f"{seed}:{name}")
    corpus = corpora()[name]
    target = TARGETS[name]
    accepted = rejected = 0
    failures: list[str] = []
    for _i in range(runs):
        text = mutate(rng.choice(corpus), rng, corpus)
        try:
            if target(text, rng.randrange(1 << 16)):
                accepted += 1
            else:
                rejected += 1
        except Exception as exc:  # the contract is broken: keep the input that shows it
            failures.append(f"{name}: {type(exc).__name__}: {str(exc)[:200]} <- {text[:200]!r}")
    return accepted, rejected, failures

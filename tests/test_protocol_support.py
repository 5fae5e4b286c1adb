"""Shared helpers for the protocol tests (no tests here): machines brought to a point of a session by real lines."""

from __future__ import annotations

import enum

from squeeze.engine.record import BoardRecord
from squeeze.engine.cards import Deal, Seat, Vul
from squeeze.protocol import messages as m
from squeeze.protocol.client import ClientMachine
from squeeze.protocol.table import TableMachine

DEAL = Deal.parse("N:K852.AJ63.74.Q95 J97.85.K63.AKT87 AQ4.KQ92.AJ5.J64 T63.T74.QT982.32")
TEAM = {Seat.NORTH: "RoboA", Seat.SOUTH: "RoboA", Seat.EAST: "RoboB", Seat.WEST: "RoboB"}


#: Attributes that record the last input rather than the protocol's state: the client's last line accepted (to
#: recognise a re-sent one; an informational line such as Timing updates it and changes nothing else) and the
#: time the table was given with the line being handled.
NOT_STATE = frozenset({"_last_msg", "_now"})


def machine_state(obj, _depth=0):
    """Everything ``obj`` (a protocol machine) holds, as a plain comparable value: attributes, recursively, with
    dicts and sets in a fixed order, less ``NOT_STATE``. A rejected line must leave it equal (the machines'
    documented contract)."""
    if _depth > 40:
        raise RecursionError("machine_state: nested too deep (a cycle?)")
    if obj is None or isinstance(obj, (bool, int, float, str, bytes)):
        return obj.value if isinstance(obj, enum.Enum) else obj
    if isinstance(obj, enum.Enum):
        return (type(obj).__name__, obj.value)
    if isinstance(obj, dict):
        return sorted((repr(machine_state(k, _depth + 1)), machine_state(v, _depth + 1)) for k, v in obj.items())
    if isinstance(obj, (set, frozenset)):
        return sorted(repr(machine_state(v, _depth + 1)) for v in obj)
    if isinstance(obj, (list, tuple)):
        return [type(obj).__name__] + [machine_state(v, _depth + 1) for v in obj]
    fields = dict(getattr(obj, "__dict__", {}))
    for cls in type(obj).__mro__:
        for slot in getattr(cls, "__slots__", ()):
            if slot not in fields and hasattr(obj, slot):
                fields[slot] = getattr(obj, slot)
    if not fields:
        return (type(obj).__name__, repr(obj))
    return (type(obj).__name__, sorted((k, machine_state(v, _depth + 1)) for k, v in fields.items()
                                       if k not in NOT_STATE and (not callable(v) or isinstance(v, type))))


def name(seat):
    return m.seat_name(seat)


def board(number=3, deal=DEAL, dealer=Seat.SOUTH, vul=Vul.EW, room=""):
    return BoardRecord(board=number, deal=deal, dealer=dealer, vul=vul, room=room)


def lines_for(out, seat):
    return [o.line.rstrip("\r\n") for o in out if o.seat == seat]


def connect_all(table, versions=None):
    """Seat four clients (``versions``: the protocol each announces, 18 unless given)."""
    out = []
    for s in Seat:
        v = (versions or {}).get(s, 18)
        out += table.receive(s, f'Connecting "{TEAM[s]}" as {name(s)} using protocol version {v}')
    return out


def table_at(stage, boards=None, versions=None, **kw):
    """A TableMachine brought by real lines to ``stage``: 'seated', 'start' (Start of board sent), 'auction'."""
    t = TableMachine([board()] if boards is None else boards, **kw)
    out = connect_all(t, versions)
    if stage == "seated":
        return t, out
    for s in Seat:
        out = t.receive(s, f"{name(s)} ready for teams")
    for s in Seat:
        out = t.receive(s, f"{name(s)} ready to start")
    if stage == "start":
        return t, out
    for s in Seat:
        out = t.receive(s, f"{name(s)} ready for deal")
    for s in Seat:
        out = t.receive(s, f"{name(s)} ready for cards")
    assert stage == "auction"
    return t, out


def feed(table, script):
    """Feed ``[(seat, line), ...]``; return all outbound lines."""
    out = []
    for seat, line in script:
        out += table.receive(seat, line)
    return out


def client_at(stage, seat=Seat.SOUTH, deal=DEAL, dealer=Seat.SOUTH, vul=Vul.EW, teams_tail="", **kw):
    """A ClientMachine brought by real TM lines to ``stage``: 'seated', 'start', 'board', 'auction'
    (``teams_tail``: what follows the Teams line's names, e.g. protocol 19's ``. Playing IMP``)."""
    c = ClientMachine(TEAM[seat], seat, **kw)
    c.connect()
    c.receive_line(f'{name(seat)} ("{TEAM[seat]}") seated')
    if stage == "seated":
        return c
    c.receive_line('Teams : N/S : "RoboA" E/W : "RoboB"' + teams_tail)
    if stage == "start":
        return c
    c.receive_line("Start of board")
    c.receive_line(m.format(m.BoardInfo(board=3, dealer=dealer, vul=vul)))
    if stage == "board":
        return c
    c.receive_line(m.format(m.Cards(seat=seat, hand=deal[seat])))
    assert stage == "auction"
    return c


def drain(c):
    return [l.rstrip("\r\n") for l in c.lines_to_send()]

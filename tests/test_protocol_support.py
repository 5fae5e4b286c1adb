"""Shared helpers for the protocol tests (no tests here): machines brought to a point of a session by real lines."""

from __future__ import annotations

from squeeze.engine.record import BoardRecord
from squeeze.engine.cards import Deal, Seat, Vul
from squeeze.protocol import messages as m
from squeeze.protocol.client import ClientMachine
from squeeze.protocol.table import TableMachine

DEAL = Deal.parse("N:K852.AJ63.74.Q95 J97.85.K63.AKT87 AQ4.KQ92.AJ5.J64 T63.T74.QT982.32")
TEAM = {Seat.NORTH: "RoboA", Seat.SOUTH: "RoboA", Seat.EAST: "RoboB", Seat.WEST: "RoboB"}


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

"""Four ``ClientMachine``s and a ``TableMachine`` wired together in memory, no sockets (self-play, tests).

Lines travel through one FIFO per connection and direction, exactly as TCP would deliver them; which connection
delivers next is chosen by a ``random.Random`` (without one: the first connection with a line waiting), so every
interleaving the four sockets allow can occur (research note edge case 12: readies and the call reach the TM in any order).
"""

from __future__ import annotations

import random
from collections import deque
from typing import Callable, Optional, Union

from squeeze.engine.auction import Call
from squeeze.engine.record import BoardRecord
from squeeze.engine.cards import Card, Seat

from .errors import ProtocolError
from .client import CallRequested, CardRequested, ClientEvent, ClientMachine
from .table import TableMachine

__all__ = ["Loopback", "CallDecider", "CardDecider", "MAX_STEPS_PER_BOARD"]

#: Deliveries a board can need: a call or a card costs 7 (three readies and the action in, three relays out), so
#: the longest legal auction (319 calls) and a full play come to about 2,700 with the set-up lines. A run that
#: needs more than 4,000 per board is a livelock, i.e. a bug.
MAX_STEPS_PER_BOARD = 4000

CallDecider = Callable[[ClientMachine, CallRequested], Union[Call, tuple[Call, bool, str]]]
CardDecider = Callable[[ClientMachine, CardRequested], Card]


class Loopback:
    """Run ``table`` with ``clients`` (one per seat) until the session ends.

    ``decide_call(client, event)`` returns a ``Call`` or ``(call, alert, explanation)``; ``decide_card(client,
    event)`` returns a ``Card``. ``on_event(seat, event)`` sees every client event (optional). ``clock`` gives the
    table its ``now`` for each line (default: none, every thinking time is zero).
    """

    def __init__(
        self,
        table: TableMachine,
        clients: dict[Seat, ClientMachine],
        decide_call: CallDecider,
        decide_card: CardDecider,
        *,
        rng: Optional[random.Random] = None,
        on_event: Optional[Callable[[Seat, ClientEvent], None]] = None,
        record: bool = False,
        clock: Optional[Callable[[], float]] = None,
    ) -> None:
        self.clock = clock
        self.table = table
        self.clients = clients
        self.decide_call = decide_call
        self.decide_card = decide_card
        self.rng = rng
        self.on_event = on_event
        self.to_table: dict[Seat, deque[str]] = {s: deque() for s in clients}
        self.to_client: dict[Seat, deque[str]] = {s: deque() for s in clients}
        self._queues = [("t", s, q) for s, q in self.to_table.items()] + [("c", s, q) for s, q in self.to_client.items()]
        self.table_events: list = []
        #: protocol errors met on the way: ``("table" | "client", seat, line, exception)``
        self.errors: list[tuple[str, Seat, str, ProtocolError]] = []
        #: with ``record=True``: every delivered line as ``(seat, "->TM" | "TM->", line without CRLF)``
        self.log: Optional[list[tuple[Seat, str, str]]] = [] if record else None
        self.steps = 0

    def start(self) -> None:
        for seat, client in self.clients.items():
            client.connect()
            self.to_table[seat].extend(client.lines_to_send())

    def reconnect(self, seat: Seat) -> None:
        """Simulate a broken socket for ``seat``: lines in flight are lost, the table is told, and the client
        connects again (the table then restarts the board for everyone)."""
        self.to_table[seat].clear()
        self.to_client[seat].clear()
        self.table.disconnect(seat)
        self.table_events += self.table.events()
        client = self.clients[seat]
        client.lines_to_send()
        client.connect()
        self.to_table[seat].extend(client.lines_to_send())

    def _client_receive(self, seat: Seat, line: str) -> None:
        client = self.clients[seat]
        events = client.receive_line(line)
        while events:
            for ev in events:
                if self.on_event is not None:
                    self.on_event(seat, ev)
                if isinstance(ev, CallRequested):
                    d = self.decide_call(client, ev)
                    if isinstance(d, tuple):
                        client.send_call(d[0], alert=d[1], explanation=d[2])
                    else:
                        client.send_call(d)
                elif isinstance(ev, CardRequested):
                    client.send_card(self.decide_card(client, ev))
            events = client.take_events()  # what our call or card caused
        self.to_table[seat].extend(client.lines_to_send())

    def step(self) -> bool:
        """Deliver one line; ``False`` when nothing is left to deliver."""
        ready = [q for q in self._queues if q[2]]
        if not ready:
            return False
        direction, seat, _ = ready[self.rng.randrange(len(ready))] if self.rng else ready[0]
        self.steps += 1
        if direction == "t":
            line = self.to_table[seat].popleft()
            if self.log is not None:
                self.log.append((seat, "->TM", line.rstrip("\r\n")))
            try:
                now = 0.0 if self.clock is None else self.clock()
                for o in self.table.receive(seat, line, now=now):
                    self.to_client[o.seat].append(o.line)
            except ProtocolError as exc:
                # What a server does: answer the offender (if the table says so) and carry on.
                self.errors.append(("table", seat, line, exc))
                if exc.reply:
                    self.to_client[seat].append(exc.reply)
            self.table_events += self.table.events()
        else:
            line = self.to_client[seat].popleft()
            if self.log is not None:
                self.log.append((seat, "TM->", line.rstrip("\r\n")))
            try:
                self._client_receive(seat, line)
            except ProtocolError as exc:
                # What the agent does: log the line and carry on (the machine is unchanged).
                self.errors.append(("client", seat, line, exc))
        return True

    def run(self, max_steps: Optional[int] = None) -> list[BoardRecord]:
        """Start (if not started) and deliver until quiet; return the table's results.

        Raises:
            RuntimeError: more than ``max_steps`` deliveries (default: ``MAX_STEPS_PER_BOARD`` per queued board,
                at least one board's worth) - a livelock, i.e. a bug.
        """
        if self.steps == 0 and all(not q for q in self.to_table.values()):
            self.start()
        limit = max_steps if max_steps is not None else MAX_STEPS_PER_BOARD * (self.table.boards_left + 1)
        while self.step():
            if self.steps > limit:
                raise RuntimeError(f"no end after {self.steps} deliveries")
        return self.table.results

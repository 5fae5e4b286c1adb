"""One scripted random-legal seat in a process of its own: the "robot process" that the reliability runs kill with
SIGKILL and start again (``harness._Seat``). Usage: ``scripted_seat.py PORT TEAM SEAT SEED``.

Each finished board is printed at once as a JSON line (``board``, ``calls``, ``cards``) and flushed, so what the
seat saw survives its own SIGKILL; the last line is ``{"outcome": ...}`` (``ended``, ``closed``, ``refused``)."""

import asyncio
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # tests/: the scripted client

from squeeze.engine.cards import Seat  # noqa: E402
from tm_client import ScriptedClient  # noqa: E402


class _Reporting(ScriptedClient):
    async def _handle(self, events):
        outcome = await super()._handle(events)
        for board, _contract, _tricks, calls, cards in self.results:
            print(json.dumps({"board": board, "calls": calls, "cards": cards}), flush=True)
        self.results = []
        return outcome


async def main(port: int, team: str, seat: str, seed: int) -> None:
    client = _Reporting(port, team, Seat.parse(seat), seed=seed)
    outcome = await client.play()
    print(json.dumps({"outcome": outcome}), flush=True)


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1]), sys.argv[2], sys.argv[3], int(sys.argv[4])))

"""``squeeze play-web``: a person takes a seat against three robots, in a browser.

One command starts our table manager (``robot.tm``, in this process, one table, its results store in ``--out``),
three ``squeeze seat`` robots (processes; a preset or settings file for the person's partner and one for the
opponents) and a page on loopback. The person's seat is a ``robot.human_seat.HumanSeat``: a real Blue Chip
connection, so the same page sits a person at any protocol-18 table manager instead (``connect``: no manager or
robots of ours are started then).

The page (``play.html``, package data, sharing the card display of ``squeeze watch --web``: ``cards.css``,
``cards.js``) follows the seat by server-sent events, each the whole state (``PlayState.to_dict``), so a reload
resumes the board where it is. It shows the hand, the auction (every call's explanation on hover or tap: the one
the table relayed - our manager relays the robots' to a protocol-19 seat -, else the robots' system's reading of
it, marked so), dummy after the opening lead, the trick on the table, only the legal calls enabled; a card clicked
that may not be played is refused with the reason. After each board: every hand, the result and the running score,
and the review (``robot.review``: the play trick by trick against double dummy, par), saved as PBN with the robots'
notes (``--out``/reviewed.pbn; one board at ``/board/N.pbn``). The next board is dealt when the person says so.

HTTP (standard library asyncio, like ``robot.watch.WebServer``): ``GET /`` the page, ``/cards.css``, ``/cards.js``,
``/state`` (JSON), ``/events`` (the state at each change), ``/review/N`` (JSON), ``/board/N.pbn``; ``POST /call``,
``/card`` (``{"call": "1H"}``, ``{"card": "SA"}``: 409 with ``{"error": why}`` when refused), ``/next``.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Optional

import structlog

from squeeze.engine.cards import Seat
from squeeze.engine.record import BoardRecord

from .human_seat import HumanSeat, SeatRefusal, SeatSnapshot
from .review import board_pbn, hand_dict, outcome_text, review_board
from .pages import PageServer, package_page

__all__ = ["PlayOptions", "PlayState", "PlayServer", "run_play_web", "robot_argv", "PlayError"]

_log = structlog.get_logger("squeeze.play_web")


class PlayError(RuntimeError):
    """A session that cannot start (bad input, a port taken): the message says why."""


@dataclass(frozen=True)
class PlayOptions:
    seat: Seat = Seat.SOUTH
    boards: int = 4
    boards_file: Optional[str] = None
    board_range: Optional[str] = None
    seed: int = 1
    event: str = "Squeeze play-web"
    out: Path = Path("squeeze-play")
    partner: str = "default"  #: the person's partner: a preset or a TOML settings file
    opponents: str = "default"
    seconds_per_call: Optional[float] = None  #: the robots' budgets (None: their configuration's)
    seconds_per_card: Optional[float] = None
    connect: Optional[tuple[str, int]] = None  #: sit at this table manager instead of starting ours
    protocol_version: Optional[int] = None  #: None: 19 at ours (the robots' explanations relayed), 18 elsewhere
    team: str = "You"
    robots_team: str = "Robots"
    web_host: str = "127.0.0.1"
    web_port: int = 0
    system: str = "sayc"  #: how calls the table did not explain are read


# --- the page's state -------------------------------------------------------------------------------------------

def _trick_view(snap: SeatSnapshot) -> dict:
    k = len(snap.cards)
    if k == 0:
        return {"number": 0, "cards": [], "complete": False, "winner": None}
    if k % 4 == 0:  # a complete trick stays on the table until the next card
        leader, cards, winner = snap.tricks[-1]
        return {"number": k // 4, "complete": True, "winner": winner.letter,
                "cards": [{"seat": leader.next(i).letter, "card": str(c)} for i, c in enumerate(cards)]}
    start = k - k % 4
    return {"number": k // 4 + 1, "complete": False, "winner": None,
            "cards": [{"seat": snap.players[i].letter, "card": str(snap.cards[i])} for i in range(start, k)]}


def _remaining(hand, seat: Seat, snap: SeatSnapshot):
    gone = [c for c, s in zip(snap.cards, snap.players) if s == seat]
    for c in gone:
        if c in hand:
            hand = hand.remove(c)
    return hand


@dataclass
class PlayState:
    """What the page shows: the seat's snapshot, the session's boards and their reviews."""

    seat: HumanSeat
    reader: Optional[Callable] = None  #: a bidding system's reading of an auction (``Bidder.explain_calls``)
    reviews: dict[int, dict] = field(default_factory=dict)
    finished: list[BoardRecord] = field(default_factory=list)
    version: int = 0
    _readings: dict = field(default_factory=dict)

    def read(self, auction, vul) -> list:
        if self.reader is None or auction is None:
            return []
        key = (auction.dealer, tuple(str(c) for c in auction.calls), vul)
        if key not in self._readings:
            try:
                self._readings[key] = self.reader(auction, vul)
            except Exception as exc:  # a reading is a help: never let it stop the page
                _log.warning("play_web.reading_failed", error=str(exc))
                self._readings[key] = []
        return self._readings[key]

    def to_dict(self) -> dict:
        snap = self.seat.snapshot()
        me = snap.seat
        calls = []
        readings = self.read(snap.auction, snap.vul)
        for i, c in enumerate(snap.calls):
            text, source = (c.explanation, "table") if c.explanation else ("", "")
            if not text and i < len(readings):
                text, source = readings[i][2], "system"
            calls.append({"seat": c.seat.letter, "call": str(c.call), "alert": c.alert, "explanation": text,
                          "source": source, "yours": c.seat == me})
        contract = snap.contract
        hands: dict[str, Any] = {s.letter: None for s in Seat}
        last = snap.last
        if last is not None and self.finished and self.finished[-1].board == last.board:
            last = self.finished[-1]  # the manager's record: the whole deal even when the board was passed out
        if last is not None and last.deal.is_complete:  # the board is over: every hand as dealt
            hands = {s.letter: hand_dict(last.deal[s]) for s in Seat}
        else:
            if snap.hand is not None and me is not None:
                hands[me.letter] = hand_dict(_remaining(snap.hand, me, snap))
            if snap.dummy_hand is not None and contract is not None:
                dummy = contract.declarer.partner
                hands[dummy.letter] = hand_dict(_remaining(snap.dummy_hand, dummy, snap))
        ns = sum(1 for _, _, w in snap.tricks if w.is_ns)
        result = None
        if last is not None:
            score_ns = last.score_ns()
            result = {"contract": None if last.contract is None else last.contract.text, "tricks": last.result,
                      "outcome": outcome_text(last.contract, last.result), "score_ns": score_ns,
                      "score_you": score_ns if me is None or me.is_ns else -score_ns}
        session = []
        for r in self.finished:
            rv = self.reviews.get(r.board)
            s_ns = r.score_ns()
            you = s_ns if me is None or me.is_ns else -s_ns
            par_you = None
            if rv is not None and rv.get("par") is not None:
                par_you = rv["par"]["score_ns"] if me is None or me.is_ns else -rv["par"]["score_ns"]
            session.append({"board": r.board, "contract": None if r.contract is None else r.contract.text,
                            "outcome": outcome_text(r.contract, r.result), "score_you": you, "par_you": par_you})
        players = {s.letter: "you" if s == me else "partner" if me is not None and s == me.partner else
                   (snap.teams[0] if s.is_ns else snap.teams[1]) for s in Seat}
        return {
            "version": self.version, "seat": None if me is None else me.letter, "status": snap.status,
            "detail": snap.detail, "error": snap.error, "board": snap.board,
            "dealer": None if snap.dealer is None else snap.dealer.letter,
            "vul": None if snap.vul is None else snap.vul.pbn, "players": players, "hands": hands, "calls": calls,
            "turn": None if snap.turn is None else {"kind": snap.turn[0], "seat": snap.turn[1].letter},
            "legal_calls": [str(c) for c in snap.legal_calls], "legal_cards": [str(c) for c in snap.legal_cards],
            "contract": None if contract is None else contract.text,
            "declarer": None if contract is None else contract.declarer.letter,
            "dummy": None if contract is None else contract.declarer.partner.letter,
            "trick": _trick_view(snap),
            "tricks": [{"trick": i + 1, "leader": l.letter, "cards": [str(c) for c in cs], "winner": w.letter}
                       for i, (l, cs, w) in enumerate(snap.tricks)],
            "tricks_ns": ns, "tricks_ew": len(snap.tricks) - ns, "result": result, "holding": self.seat.holding,
            "session": session, "total_you": sum(b["score_you"] for b in session),
            "reviews": sorted(self.reviews),
        }


# --- HTTP -------------------------------------------------------------------------------------------------------

def page_html() -> bytes:
    return package_page("play.html")


class PlayServer(PageServer):
    """The page's HTTP server (module doc; ``robot.pages``): the seat's state, its review and PBN of each board,
    and the person's calls, cards and "next board" as ``POST``s."""

    METHODS = ("GET", "POST")

    def __init__(self, state: PlayState, host: str = "127.0.0.1", port: int = 0,
                 pbn_of: Optional[Callable[[int], Optional[str]]] = None) -> None:
        super().__init__(state, page_html, host, port)
        self.pbn_of = pbn_of or (lambda board: None)

    def changed(self) -> None:
        """The state moved: wake the event streams (callable from the loop's thread, without awaiting)."""
        self.state.version += 1
        asyncio.get_running_loop().create_task(self.notify())

    async def get(self, writer, target: str) -> bool:
        if target.startswith("/review/") and target[8:].isdigit():
            review = self.state.reviews.get(int(target[8:]))
            if review is None:
                await self.json(writer, 404, {"error": f"no review of board {target[8:]} (yet)"})
            else:
                await self.json(writer, 200, review)
        elif target.startswith("/board/") and target.endswith(".pbn") and target[7:-4].isdigit():
            text = self.pbn_of(int(target[7:-4]))
            if text is None:
                await self.reply(writer, 404, b"no such board (yet)\n", "text/plain")
            else:
                await self.reply(writer, 200, text.encode("utf-8"), "application/x-pbn; charset=utf-8",
                                 extra=f'Content-Disposition: attachment; filename="board-{target[7:-4]}.pbn"\r\n')
        else:
            return False
        return True

    async def post(self, writer, target: str, body: bytes) -> None:
        seat = self.state.seat
        try:
            data = json.loads(body or b"{}")
            if not isinstance(data, dict):
                raise ValueError("not an object")
        except ValueError:
            return await self.json(writer, 400, {"error": "the body must be a JSON object"})
        try:
            if target == "/call":
                await seat.call(str(data.get("call", "")))
            elif target == "/card":
                await seat.card(str(data.get("card", "")))
            elif target == "/next":
                await seat.next_board()
            else:
                return await self.json(writer, 404, {"error": "not found"})
        except SeatRefusal as exc:
            return await self.json(writer, 409, {"error": str(exc)})
        await self.json(writer, 200, {"ok": True})


# --- the session ------------------------------------------------------------------------------------------------

def robot_argv(config: str, host: str, port: int, seat: Seat, team: str, options: PlayOptions) -> list[str]:
    """``squeeze seat`` for one robot, explanations on (our manager passes each seat only what its protocol
    allows)."""
    where = ["--config", config] if config.endswith(".toml") else ["--preset", config]
    argv = [sys.executable, "-m", "squeeze.robot.cli", "seat", "--host", host, "--port", str(port), "--seat",
            seat.letter, "--team", team, "--explanations", *where]
    if options.seconds_per_call is not None:
        argv += ["--seconds-per-call", str(options.seconds_per_call)]
    if options.seconds_per_card is not None:
        argv += ["--seconds-per-card", str(options.seconds_per_card)]
    return argv


class _Reviewer:
    """Reviews boards on one thread of its own with one solver (the solver keeps its tables between boards)."""

    def __init__(self) -> None:
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="review")
        self._solver = None

    def _review(self, record: BoardRecord, reader, you: Seat) -> dict:
        if self._solver is None:
            from squeeze.engine.dds import Solver

            self._solver = Solver()
        return review_board(record, solver=self._solver, reader=reader, you=you)

    async def review(self, record: BoardRecord, reader, you: Seat) -> dict:
        return await asyncio.get_running_loop().run_in_executor(self._pool, self._review, record, reader, you)

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)


def _reader(system: str):
    """The system's reading of an auction (``None`` when the system cannot be loaded: no readings then)."""
    try:
        from squeeze.config.bidding import load_system
        from squeeze.engine.bidding import Bidder

        return Bidder.of(load_system(system), None).explain_calls
    except Exception as exc:  # (a missing system file: the table's explanations still show)
        _log.warning("play_web.no_system", system=system, error=str(exc))
        return None


async def run_play_web(options: PlayOptions, *, on_ready: Callable[[str], None] = print,
                       stop: Optional[asyncio.Event] = None) -> int:
    """Run the session (module doc) until ``stop`` is set; returns 0 (the session ended or was stopped cleanly).
    ``on_ready(url)`` is told the page's address once everything listens. ``PlayError``: refused before anything
    started."""
    stop = stop or asyncio.Event()
    out = Path(options.out)
    reader = _reader(options.system)
    tm = store = listener = None
    robots: list[asyncio.subprocess.Process] = []
    if options.connect is None:
        from squeeze.config.settings import TableManagerSettings
        from pydantic import ValidationError

        from .tm.plan import MatchSpec
        from .tm.run import RunError, prepare_run
        from .tm.server import Listener, TableManager

        try:
            # a person thinks as long as they like: the clocks only log (warn), the ready lines never expire
            settings = TableManagerSettings(
                host="127.0.0.1", port=0, results_dir=out, boards=options.boards, boards_file=options.boards_file,
                board_range=options.board_range, seed=options.seed, rooms=1, event=options.event,
                seconds_per_call=86400, seconds_per_card=86400, board_seconds=86400, ready_seconds=86400,
                hold_seconds=86400, time_fate="warn", end_pause_seconds=0.1, send_timing=False)
        except ValidationError as exc:
            raise PlayError(str(exc)) from None
        try:
            listener = await Listener.open(settings.host, 0)
        except OSError as exc:
            raise PlayError(f"cannot listen on loopback: {exc.strerror or exc}") from None
        you_ns = options.seat.is_ns
        teams = (options.team, options.robots_team) if you_ns else (options.robots_team, options.team)
        try:
            store, _ = prepare_run(settings, extra_plan={"play_web": {"seat": options.seat.letter,
                                                                      "teams": list(teams)}})
        except RunError as exc:
            listener.close()
            raise PlayError(str(exc)) from None
        tm = TableManager(settings, store, [MatchSpec("play", teams, 1)])
        port = await tm.start(listener)
        host = "127.0.0.1"
        (out / "logs").mkdir(exist_ok=True)
        env = {**os.environ, "SQUEEZE_LOG__FORMAT": "json"}
        for s in Seat:
            if s == options.seat:
                continue
            ours = s.is_ns == options.seat.is_ns
            argv = robot_argv(options.partner if ours else options.opponents, host, port, s,
                              options.team if ours else options.robots_team, options)
            with open(out / "logs" / f"robot-{s.letter}.log", "ab") as log:
                robots.append(await asyncio.create_subprocess_exec(*argv, stdin=asyncio.subprocess.DEVNULL,
                                                                   stdout=log, stderr=log, env=env,
                                                                   start_new_session=True))
        version = options.protocol_version or 19
    else:
        host, port = options.connect
        version = options.protocol_version or 18
        out.mkdir(parents=True, exist_ok=True)
    reviewer = _Reviewer()
    server: Optional[PlayServer] = None
    pbns: dict[int, str] = {}

    def stored_record(board: int, seen: BoardRecord) -> BoardRecord:
        """Our manager's record of the board (the robots' notes, the deal even when passed out), else the seat's."""
        if store is None:
            return seen
        for row in store.results():
            if row.board == board and row.match == "play":
                return row.record
        return seen

    async def on_board(seen: BoardRecord) -> None:
        record = stored_record(seen.board, seen)
        state.finished.append(record)
        server.changed()
        try:
            review = await reviewer.review(record, reader, options.seat)
        except Exception as exc:  # the review is a help: the session goes on without it
            _log.error("play_web.review_failed", board=record.board, error=str(exc))
            return
        state.reviews[record.board] = review
        pbns[record.board] = board_pbn(record, review)
        try:
            with open(out / "reviewed.pbn", "a", encoding="utf-8") as f:
                f.write(pbns[record.board] + "\n")
        except OSError as exc:
            _log.error("play_web.pbn_not_written", error=str(exc))
        server.changed()

    tasks: set[asyncio.Task] = set()

    def board_done(record: BoardRecord) -> None:
        t = asyncio.get_running_loop().create_task(on_board(record))
        tasks.add(t)
        t.add_done_callback(tasks.discard)

    seat = HumanSeat(host, port, options.seat, team=options.team, protocol_version=version,
                     on_change=lambda: server.changed() if server is not None else None, on_board=board_done)
    state = PlayState(seat, reader)
    server = PlayServer(state, options.web_host, options.web_port, pbn_of=pbns.get)
    try:
        try:
            await server.start()
        except OSError as exc:
            raise PlayError(f"cannot serve the page on {options.web_host}:{options.web_port}: "
                            f"{exc.strerror or exc}") from None
        url = f"http://{options.web_host}:{server.port}/"
        on_ready(url)
        play = asyncio.create_task(seat.run())
        stopping = asyncio.create_task(stop.wait())
        await asyncio.wait({play, stopping}, return_when=asyncio.FIRST_COMPLETED)
        if play.done():
            _log.info("play_web.session_over", outcome=play.result())
            await stopping  # the page stays up for the reviews until stopped
        play.cancel()
        stopping.cancel()
        return 0
    finally:
        for t in list(tasks):
            t.cancel()
        await server.close()
        reviewer.close()
        if tm is not None:
            await tm.close()
        elif listener is not None:
            listener.close()
        for p in robots:
            if p.returncode is None:
                p.terminate()
        for p in robots:
            try:
                await asyncio.wait_for(p.wait(), 5)
            except asyncio.TimeoutError:
                p.kill()
                await p.wait()
        if store is not None:
            try:
                from .tm.export import write_outputs

                write_outputs(store, out, seed=None if options.boards_file else options.seed)
            except OSError as exc:
                _log.error("play_web.outputs_not_written", error=str(exc))
            store.close()

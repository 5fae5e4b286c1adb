"""The ``squeeze`` command line (typer + rich). Each sub-command is a thin shell over engine/protocol/robot APIs.

Commands that run the engine take ``--config FILE``, ``--preset NAME`` and engine flags (``--worlds``, ``--selector``,
...) that default to "from settings": a flag given on the command line is the highest layer of
``squeeze.config.settings.load_settings``, and the engine is built from ``engine_params`` of the result, so no
option here holds a default of its own. Logs (structlog, ``squeeze.robot.logs``) go to standard error only.
"""

from __future__ import annotations

import functools
import inspect
import json
import sys
from typing import Annotated, Any, Callable, Optional

import typer
from pydantic import ValidationError

from squeeze.config.settings import (
    LogSettings, MqttSettings, Settings, SettingsError, available_presets, load_settings,
)
from squeeze.engine.cards import BridgeError, Deal, Seat, dealer_for_board, vul_for_board
from squeeze.robot.logs import configure_logging

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    help="Squeeze: a contract-bridge robot for Blue Chip table managers, with its own double-dummy solver.",
)


@app.callback()
def _root() -> None:
    """Squeeze: a contract-bridge robot for Blue Chip table managers, with its own double-dummy solver."""
    try:  # the [log] settings of the environment (SQUEEZE_LOG__*, SQUEEZE_CONFIG); a command's --config re-applies
        log = load_settings().log
    except (OSError, ValueError):  # a bad SQUEEZE_CONFIG is reported by the command that reads settings
        log = LogSettings()
    configure_logging(log.level, log.format)


def fail(message: str, code: int = 2) -> None:
    """Print a clear error for bad input and exit (no traceback for a user's typo)."""
    typer.secho(f"error: {message}", err=True, fg=typer.colors.RED)
    raise typer.Exit(code)


# Options shared by the commands that run the engine. Each engine flag is named after its [engine] settings field
# and defaults to None: "not given, take the value from settings".
_SETTINGS_OPTIONS: dict[str, Any] = {
    "config": Annotated[Optional[str], typer.Option(
        "--config", metavar="FILE", help="TOML settings file (default: $SQUEEZE_CONFIG; see config/squeeze.toml).")],
    "preset": Annotated[Optional[str], typer.Option(
        "--preset", help=f"Engine preset: {', '.join(available_presets())} (default: $SQUEEZE_PRESET).")],
}
_ENGINE_FLAGS: dict[str, Any] = {
    "system": Annotated[Optional[str], typer.Option(
        "--system", help="Our bidding system (config/systems/<name>.toml).")],
    "opponents_system": Annotated[Optional[str], typer.Option(
        "--opponents", help="The opponents' system (default: ours).")],
    "declarer_selector": Annotated[Optional[str], typer.Option(
        "--selector", "--declarer", help="Declaring side's card selector: alphamu or pimc.")],
    "worlds": Annotated[Optional[int], typer.Option("--worlds", help="Worlds sampled per card decision.")],
    "alphamu_depth": Annotated[Optional[int], typer.Option(
        "--max-m", "--alphamu-depth", help="Deepest αμ iteration M (declarer).")],
    "seconds_per_card": Annotated[Optional[float], typer.Option(
        "--seconds-per-card", "--budget", help="Seconds per declarer card for αμ beyond M=1.")],
    "seconds_per_call": Annotated[Optional[float], typer.Option(
        "--seconds-per-call", help="Seconds per call decision.")],
    "inference": Annotated[Optional[bool], typer.Option(
        "--inference/--no-inference", help="Weight worlds by the cards seen.", show_default=False)],
    "solver_memory_mib": Annotated[Optional[int], typer.Option(
        "--solver-memory", metavar="MIB", help="Transposition-table memory of the solver, MiB.")],
    "seed": Annotated[Optional[int], typer.Option(
        "--seed", "-s", help="Random seed (same seed, same deal and play, unless a budget cuts an αμ search short).")],
    "borel": Annotated[Optional[bool], typer.Option(
        "--simulate/--no-simulate", help="Borel simulation at close calls (rules + double-dummy worlds).",
        show_default=False)],
}
# [robot] flags of ``squeeze seat``, likewise defaulting to "from settings".
_ROBOT_FLAGS: dict[str, Any] = {
    "host": Annotated[Optional[str], typer.Option("--host", help="Table manager's host.")],
    "port": Annotated[Optional[int], typer.Option("--port", help="Table manager's port.")],
    "seat": Annotated[Optional[str], typer.Option("--seat", help="N, E, S, W, or ANY (connect as ANYPL).")],
    "team": Annotated[Optional[str], typer.Option("--team", help="Our team name.")],
    "pacing_ms": Annotated[Optional[float], typer.Option(
        "--pacing-ms", help="Wait before each line we send (managers that mishandle lines glued together).")],
    "dummy_card_style": Annotated[Optional[str], typer.Option(
        "--dummy-card-style", help="Ready line for dummy's card: dummy (\"dummy's card\") or seat.")],
    "alerts": Annotated[Optional[bool], typer.Option("--alerts/--no-alerts", help="Mark alerted calls.",
                                                     show_default=False)],
    "explanations": Annotated[Optional[bool], typer.Option(
        "--explanations/--no-explanations", help="Send every call's explanation, Infos. included (on), or none "
        "(off). Default: auto, as the manager's protocol allows (18: alerted bids only).", show_default=False)],
    "silence_timeout_seconds": Annotated[Optional[float], typer.Option(
        "--silence-timeout", help="Seconds of silence from the manager before giving up.")],
    "max_reconnects": Annotated[Optional[int], typer.Option("--max-reconnects", help="Dropped connections reopened.")],
}
# [tm] flags of ``squeeze tm``, likewise defaulting to "from settings"; keys carry a ``tm_`` prefix (dropped for the
# settings field) so that ``--host``, ``--port`` and ``--seed`` can mean the table manager's own.
def _tm_flag(kind: type, opts: tuple[str, ...], text: str, metavar: Optional[str] = None) -> Any:
    extra = {"show_default": False} if kind is bool else {}
    return Annotated[Optional[kind], typer.Option(*opts, metavar=metavar, help=text, **extra)]


_TM_FLAGS: dict[str, Any] = {f"tm_{field}": _tm_flag(*spec) for field, spec in {
    "host": (str, ("--host",), "Address to listen on (127.0.0.1: this machine)."),
    "port": (int, ("--port",), "Port to listen on (0: any free port)."),
    "boards_file": (str, ("--boards",), "PBN file of the boards (dealer and vulnerability from the file).", "FILE"),
    "boards": (int, ("--random-boards",), "Without --boards: deal boards 1..N at random.", "N"),
    "board_range": (str, ("--board-range",), "Play only these board numbers, e.g. 1-16.", "FIRST-LAST"),
    "seed": (int, ("--seed",), "Seed of the random deals."),
    "rooms": (int, ("--rooms",), "1: one table per match; 2: open and closed room, same boards, seats swapped."),
    "match_file": (str, ("--match",), "TOML file naming the matches and their teams.", "FILE"),
    "event": (str, ("--event",), "Event name written in the results."),
    "results_dir": (str, ("--out",), "Folder of the results store, PBN and LIN files.", "DIR"),
    "board_seconds": (float, ("--board-seconds",), "Thinking time per side per board (WCBC: 120)."),
    "seconds_per_call": (float, ("--seconds-per-call",), "Limit per call."),
    "seconds_per_card": (float, ("--seconds-per-card",), "Limit per card."),
    "time_fate": (str, ("--time-fate",), "A seat over its time: warn, force (pass / lowest card) or void (replay)."),
    "grace_seconds": (float, ("--grace-seconds",), "Between the time warning and its fate."),
    "hold_seconds": (float, ("--hold-seconds",), "How long a dropped seat is held before its board is voided."),
    "send_timing": (bool, ("--timing/--no-timing",), "Send the Timing line after each board."),
    "strict": (bool, ("--strict/--no-strict",), "Write a compliance report per connection."),
}.items()}
_MATCH_FLAGS: dict[str, Any] = {f"match_{field}": _tm_flag(*spec) for field, spec in {
    "boards": (int, ("--boards",), "Boards in the match (each played in both rooms)."),
    "a": (str, ("--a",), "Team A: a preset (fast, default, strong) or a TOML settings file.", "CONFIG"),
    "b": (str, ("--b",), "Team B: a preset or a TOML settings file.", "CONFIG"),
    "seed": (int, ("--seed",), "Seed of the random deals."),
    "out": (str, ("--out",), "Folder for the results store, boards.pbn, LIN and summary.json.", "DIR"),
    "max_restarts": (int, ("--max-restarts",), "Times a robot process that dies is started again."),
    "stall_seconds": (float, ("--stall-seconds",), "Stop a match with no board finished for this long."),
}.items()}
_PLAY_FLAGS = ("declarer_selector", "worlds", "alphamu_depth", "seconds_per_card", "inference", "solver_memory_mib",
               "borel",
               "seed")
# [selfplay] flags of ``squeeze selfplay``, likewise defaulting to "from settings"; keys carry an ``sp_`` prefix.
_SELFPLAY_FLAGS: dict[str, Any] = {f"sp_{field}": _tm_flag(*spec) for field, spec in {
    "a": (str, ("--a", "-a"), "Team A: a preset (fast, default, strong) or a TOML settings file.", "CONFIG"),
    "b": (str, ("--b", "-b"), "Team B: a preset or a TOML settings file.", "CONFIG"),
    "boards": (int, ("--boards", "-n"), "Boards 1..N (board k is always the same deal for a seed).", "N"),
    "seed": (int, ("--seed",), "Seed of the deals and of every robot's random choices."),
    "workers": (int, ("--workers", "-j"), "Engines playing at once (default: one per core)."),
    "executor": (str, ("--executor",), "process, dask-local, or dask://HOST:PORT (a running scheduler).", "WHERE"),
    "chunk_boards": (int, ("--chunk",), "Boards per task sent to a worker.", "N"),
    "out": (str, ("--out",), "Folder of the results store and files; the same command there resumes.", "DIR"),
    "decision_seconds": (float, ("--decision-seconds",), "Hard limit per call or card (past it: board voided)."),
    "strict": (bool, ("--strict/--no-strict",), "Stop at the first robot error instead of voiding its board."),
    "sprt": (str, ("--sprt",), "Stop when a sequential test decides between A gaining M0 and M1 IMPs/board.",
             "M0,M1"),
    "alpha": (float, ("--alpha",), "SPRT: chance of deciding M1 when M0 is true."),
    "beta": (float, ("--beta",), "SPRT: chance of deciding M0 when M1 is true."),
    "sprt_min_boards": (int, ("--sprt-min-boards",), "SPRT: no verdict before this many boards.", "N"),
}.items()}
#: Each flag group, the settings section it overrides and the prefix its names carry here (sections whose flag
#: names would clash with the engine's carry one).
_FLAG_GROUPS = (("engine", _ENGINE_FLAGS, ""), ("robot", _ROBOT_FLAGS, ""), ("tm", _TM_FLAGS, "tm_"),
                ("match", _MATCH_FLAGS, "match_"), ("selfplay", _SELFPLAY_FLAGS, "sp_"))


def _settings(config: str | None, preset: str | None, sections: dict[str, dict[str, Any]]) -> Settings:
    """Settings with ``sections`` (the flags given, by settings section) as the highest layer; exits with the reason
    on a bad layer. Applies the [log] settings, which ``config`` or ``preset`` may change."""
    try:
        settings = load_settings(config, preset=preset, **{k: v for k, v in sections.items() if v})
    except ValidationError as exc:
        fail("; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors()))
    except (OSError, SettingsError) as exc:
        fail(str(exc))
    configure_logging(settings.log.level, settings.log.format)
    return settings


def engine_command(*flags: str) -> Callable[[Callable], Callable]:
    """Give a command ``--config``, ``--preset`` and the flags ``flags`` (keys of the ``_FLAG_GROUPS``' dicts); the
    command receives ``settings``, the loaded ``Settings``, in their place. A command with a parameter ``layers``
    also receives what built them, ``{"config": FILE, "preset": NAME, "engine": {the engine flags given}}``
    (self-play builds each team from them)."""

    def wrap(fn: Callable) -> Callable:
        own = [p for p in inspect.signature(fn, eval_str=True).parameters.values()
               if p.name not in ("settings", "layers")]
        wants_layers = "layers" in inspect.signature(fn).parameters
        added = [inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=None,
                                   annotation=_SETTINGS_OPTIONS.get(name) or next(
                                       group[name] for _, group, _ in _FLAG_GROUPS if name in group))
                 for name in (*_SETTINGS_OPTIONS, *flags)]

        @functools.wraps(fn)
        def command(**kwargs: Any) -> Any:
            config, preset = kwargs.pop("config"), kwargs.pop("preset")
            given = {name: value for name in flags if (value := kwargs.pop(name)) is not None}
            sections = {section: {k.removeprefix(prefix): v for k, v in given.items() if k in group}
                        for section, group, prefix in _FLAG_GROUPS}
            if wants_layers:
                kwargs["layers"] = {"config": config, "preset": preset, "engine": sections["engine"]}
            return fn(settings=_settings(config, preset, sections), **kwargs)

        command.__signature__ = inspect.Signature(own + added)  # type: ignore[attr-defined]
        command.__annotations__ = {p.name: p.annotation for p in own + added}
        return command

    return wrap


@app.command()
@engine_command("system", *_PLAY_FLAGS)
def deal(
    settings: Settings,
    board: int = typer.Option(1, "--board", "-b", min=1, help="Board number: sets dealer and vulnerability."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of a diagram."),
    bid: bool = typer.Option(False, "--bid", help="Also bid the board with four copies of the robot's bidder."),
    play: bool = typer.Option(False, "--play", help="Bid the board, play it out with four robot players, score it."),
    pbn_out: Optional[str] = typer.Option(None, "--pbn", help="Write the board (auction, play, score) as PBN here."),
) -> None:
    """Deal a random board: dealer, vulnerability, a hand diagram and the PBN deal string (and its auction and play).

    With --play, one whole board at a table of four robots, each seeing only its own seat: bidding with every call
    explained, αμ declarer play and PIMC defence with the reason for every card, and the duplicate score.
    """
    import dataclasses
    import os
    import random

    from squeeze.engine.record import BoardRecord

    if pbn_out is not None:  # refuse a path that cannot be written before spending time on the board
        folder = os.path.dirname(os.path.abspath(pbn_out))
        if os.path.isdir(pbn_out) or not os.path.isdir(folder) or not os.access(folder, os.W_OK):
            fail(f"cannot write {pbn_out}: {'a directory' if os.path.isdir(pbn_out) else 'no writable folder'}")
    seed = settings.engine.seed
    rng = random.Random(seed)
    d = Deal.random(rng)
    dealer, vul = dealer_for_board(board), vul_for_board(board)
    pbn = d.to_pbn(dealer)
    bid = bid or play
    record = BoardRecord(board=board, deal=d, dealer=dealer, vul=vul)
    board_play = None  # the Play, when the board was played out
    if bid:
        from squeeze.engine.bidding import BiddingSystemError
        from squeeze.engine.play.oracle import SolverUnavailable
        from squeeze.engine.player import Player
        from squeeze.robot.selfplay import play_board

        # four robots, each told only what its seat may know (engine.Player, the object a seat at a table asks)
        params = _engine_params(settings)
        params = dataclasses.replace(params, seed=seed if seed is not None else rng.getrandbits(31))
        try:
            record, board_play = play_board(board, d, {s: Player(params) for s in Seat}, play=play)
        except (BiddingSystemError, SolverUnavailable) as exc:
            fail(str(exc))
    contract = record.contract
    if pbn_out is not None:
        _write_pbn(pbn_out, record)
    # the transcript leaves out the seconds each decision took, so that the same seed prints the same text
    auction = record.auction
    calls = [{"seat": auction.seat_of(i).letter, "call": str(call), "alert": note.alert,
              "explanation": note.explanation} for i, (call, note) in enumerate(zip(auction.calls, record.call_notes))
             ] if auction is not None else []
    cards = [{"seat": seat.letter, "card": str(card), "reason": note.reason}
             for seat, card, note in zip(_card_seats(board_play), record.play, record.card_notes)] if board_play else []
    if as_json:
        out: dict = {"board": board, "dealer": dealer.letter, "vul": vul.pbn, "deal": pbn}
        if bid:
            out["auction"] = calls
            out["contract"] = None if contract is None else str(contract)
        if play:
            out["play"] = cards
            out["tricks"] = record.result
            out["score_ns"] = record.score_ns()
        typer.echo(json.dumps(out))
        return
    typer.echo(f"Board {board}   Dealer {dealer.name.title()}   Vulnerable {vul.pbn}")
    typer.echo(d.diagram())
    typer.echo(f'[Deal "{pbn}"]')
    if bid:
        typer.echo("")
        for c in calls:
            typer.echo(f"  {c['seat']}  {c['call'] + ('!' if c['alert'] else ''):<4} {c['explanation']}")
        typer.echo(f"Contract: {'passed out' if contract is None else str(contract)}")
    if board_play is not None:
        typer.echo("")
        _echo_tricks(board_play, cards)
        typer.echo(_result_line(board_play, vul))
    elif play:
        typer.echo("Score: 0 (passed out)")


def _card_seats(play) -> list[Seat]:
    """The hand each card of a complete ``Play`` came from, in play order."""
    return [leader.next(k) for leader, _trick, _winner in play.tricks for k in range(4)]


def _write_pbn(path: str, record) -> None:
    from squeeze.engine.pbn import PbnGame, encode_pbn, format_game

    try:
        with open(path, "wb") as f:
            f.write(encode_pbn(format_game(PbnGame.from_record(record), score=True)))
    except OSError as e:
        fail(f"cannot write {path}: {e.strerror}")


def _engine_params(settings: Settings):
    """The engine's ``PlayerParams`` for ``settings`` (exits with a clear error on a value the engine refuses)."""
    from squeeze.config.settings import engine_params

    try:
        return engine_params(settings)
    except BridgeError as exc:
        fail(str(exc))


def _echo_tricks(play, cards: list[dict]) -> None:
    """Trick by trick: who led, who won, each card with the reason its player gave."""
    for i, (leader, trick, winner) in enumerate(play.tricks):
        typer.echo(f"Trick {i + 1:2d}  ({leader.letter} leads, {winner.letter} wins)")
        for k, card in enumerate(trick):
            entry = cards[4 * i + k]
            typer.echo(f"    {entry['seat']} {card}   {entry['reason']}")


def _result_line(play, vul=None) -> str:
    c = play.contract
    tricks = play.declarer_tricks
    over = tricks - c.tricks_needed
    line = f"{c.pbn} by {c.declarer.name.title()}: {tricks} tricks ({'=' if over == 0 else f'{over:+d}'})"
    if vul is not None:
        from squeeze.engine.scoring import score as _score

        points = _score(c, tricks, vul.is_vulnerable(c.declarer))
        line += f", {points:+d} for {c.declarer.side_name}"
    return line


@app.command()
def score(
    contract: str = typer.Argument(..., help="Contract like 4H, 3N, 6SXX (a declarer suffix such as 3NS is allowed)."),
    declarer: Optional[str] = typer.Argument(None, help="Declarer seat N/E/S/W (if not in the contract)."),
    tricks: Optional[int] = typer.Argument(None, help="Tricks taken by declarer, 0..13."),
    vul: str = typer.Option("None", "--vul", help="None, NS, EW or Both."),
    as_json: bool = typer.Option(False, "--json", help='Print {"score": n}.'),
) -> None:
    """Duplicate score of declarer's side (negative when the contract goes down)."""
    from squeeze.engine.auction import Contract
    from squeeze.engine.cards import Vul
    from squeeze.engine.scoring import score as _score

    try:
        c = Contract.parse(contract)
        if tricks is None and declarer is not None and c.declarer is not None:
            declarer, tricks = None, int(declarer)  # "squeeze score 3NS 9"
        if declarer is not None:
            seat = Seat.parse(declarer)
            if c.declarer is not None and c.declarer != seat:
                fail(f"contract {contract} names declarer {c.declarer.letter} but {seat.letter} was given")
            c = c.with_declarer(seat)
        if c.declarer is None:
            fail("give the declarer: squeeze score 4H S 10 (or 4HS 10)")
        if tricks is None:
            fail("give the tricks taken by declarer (0..13)")
        v = Vul.parse(vul)
        points = _score(c, tricks, v.is_vulnerable(c.declarer))
    except (BridgeError, ValueError) as exc:
        fail(str(exc))
    if as_json:
        typer.echo(json.dumps({"score": points}))
    else:
        made = tricks - c.tricks_needed
        outcome = "=" if made == 0 else f"{made:+d}"
        typer.echo(f"{c}{outcome} ({tricks} tricks), {v.pbn} vulnerable: {points:+d} for {c.declarer.side_name}")


@app.command()
@engine_command("system", "opponents_system", "borel", "seconds_per_call")
def bid(
    settings: Settings,
    hand: Optional[str] = typer.Argument(None, help="Hand S.H.D.C, e.g. AK94.T82.K73.QJ5 (omit with --batch)."),
    auction: str = typer.Argument("", help="Calls so far from the dealer, blank-separated: '1N P'."),
    dealer: str = typer.Option("N", "--dealer", "-d", help="Dealer seat N/E/S/W."),
    vul: str = typer.Option("None", "--vul", "-v", help="Vulnerability None, N-S, E-W or Both."),
    batch: bool = typer.Option(False, "--batch", help='Read JSON lines {"id","hand","auction","dealer","vul"}.'),
    explain: bool = typer.Option(False, "--explain", help="Also print what every earlier call shows and denies."),
) -> None:
    """Choose a call for one hand and auction and say why; or answer JSON lines with --batch."""
    from squeeze.engine.bidding import Bidder, BiddingSystemError
    from squeeze.engine.bidding.requests import answer_record, parse_request

    params = _engine_params(settings)
    try:
        bidder = Bidder(params.system, params.opponents_system)
    except BiddingSystemError as e:
        fail(str(e))
    player = None
    if params.borel.enabled:  # --simulate: the robot's own bid (rules + Borel simulation), as at a table
        from squeeze.engine.player import Player

        player = Player(params)
    if batch:
        out = sys.stdout
        for n, line in enumerate(sys.stdin, 1):
            if not line.strip():
                continue
            try:
                rec = json.loads(line)
                res = answer_record(bidder, rec, player)
            except json.JSONDecodeError as e:
                res = {"id": None, "call": None, "explanation": f"error: line {n} is not JSON ({e.msg})"}
            except BridgeError as e:
                res = {"id": rec.get("id") if isinstance(rec, dict) else None, "call": None,
                       "explanation": f"error: line {n}: {e}"}
            out.write(json.dumps(res) + "\n")
        return
    if hand is None:
        fail("give a hand (S.H.D.C) or use --batch")
    try:
        h, a, v = parse_request(hand, auction, dealer, vul)
    except BridgeError as e:
        fail(str(e))
    if explain:
        for i, (seat, call, text, alert) in enumerate(bidder.explain_calls(a, v)):
            shows = bidder.meaning_of(a, i, v, viewpoint=a.next_seat)
            typer.echo(f"{seat.letter} {call}{'!' if alert else ''}   {text}")
            typer.echo(f"      shows: {shows.describe()}")
    if player is not None:
        from squeeze.engine.view import SeatView

        ch = player.bid(SeatView(a.next_seat, h, a, v))
    else:
        ch = bidder.choose(h, a, v)
    typer.echo(f"{ch.call}   {ch.describe()}   (rule {ch.rule_id})")
    for call, rule_id, text in ch.alternatives:
        typer.echo(f"  also possible: {call}   {text}   (rule {rule_id})")


@app.command("pbn")
def pbn_cmd(
    path: str = typer.Argument(..., help="PBN file to read ('-' for standard input)."),
    export: Optional[str] = typer.Option(None, "--export", help="Write the good games as PBN 2.1 export format."),
    lin: Optional[str] = typer.Option(None, "--lin", help="Write the good games as BBO LIN (one board a line)."),
    vugraph: Optional[str] = typer.Option(None, "--vugraph", help="Write a team match as a BBO vugraph LIN file "
                                          "(Room tags Open/Closed pair the tables)."),
    score: bool = typer.Option(False, "--score", help="Add a Score tag to the PBN export."),
    strict: bool = typer.Option(False, "--strict", help="Stop at the first error."),
) -> None:
    """Check a PBN file (deal, auction and play legality, with game and line of every problem); convert it."""
    from squeeze.engine.lin import write_lin, write_lin_match
    from squeeze.engine.pbn import PbnError, encode_pbn, read_pbn, write_pbn

    try:
        if path == "-":
            data = sys.stdin.buffer.read()
        else:
            with open(path, "rb") as f:
                data = f.read()
    except OSError as e:
        fail(f"cannot read {path}: {e.strerror}")
    try:
        result = read_pbn(data, strict=strict)
    except PbnError as e:
        fail(str(e), code=1)
    for w in result.warnings:
        typer.echo(f"warning: {w}", err=True)
    for e in result.errors:
        typer.echo(f"error: {e}", err=True)
    typer.echo(f"{len(result.games)} games read, {len(result.errors)} with errors, {len(result.warnings)} warnings")
    try:
        if export:
            with open(export, "wb") as f:
                f.write(encode_pbn(write_pbn(result.games, score=score)))
        if lin:
            with open(lin, "w", encoding="utf-8", newline="\n") as f:
                f.write(write_lin(result.games))
        if vugraph and result.games:
            event = result.games[0].record.event
            with open(vugraph, "w", encoding="utf-8", newline="\n") as f:
                f.write(write_lin_match(result.games, event=event))
    except BridgeError as e:
        fail(str(e))
    except OSError as e:
        fail(f"cannot write: {e}")
    if result.errors:
        raise typer.Exit(1)


@app.command("play")
@engine_command(*_PLAY_FLAGS)
def play_cmd(
    settings: Settings,
    deal_text: str = typer.Argument(..., metavar="DEAL", help='PBN deal, e.g. "N:AK94.T82.K73.QJ5 ... ... ...".'),
    contract: str = typer.Option(..., "--contract", "-c", help="Contract with its declarer, e.g. 3NS or 4HXE."),
    lead: Optional[str] = typer.Option(None, "--lead", help="Opening lead, e.g. SQ (default: the robot leads)."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON (cards, reasons, result)."),
) -> None:
    """Play a deal out with four robot players (αμ declarer, PIMC defenders) and print it trick by trick."""
    from squeeze.engine.auction import Contract
    from squeeze.engine.board import IllegalCardError, Play
    from squeeze.engine.cards import Card
    from squeeze.engine.play.oracle import SolverUnavailable
    from squeeze.engine.play.card_player import CardPlayer, play_out

    try:
        d = Deal.parse(deal_text)
        c = Contract.parse(contract)
        if c.declarer is None:
            fail(f"contract {contract!r} has no declarer: add N, E, S or W (e.g. 3NS)")
        p = Play(d, c)
        if lead is not None:
            p = p.then(Card.parse(lead))
    except IllegalCardError as exc:
        fail(f"opening lead: {exc}")
    except BridgeError as exc:
        fail(str(exc))
    params = _engine_params(settings)
    try:
        player = CardPlayer(params.play)
    except SolverUnavailable as exc:
        fail(str(exc))
    log: list[dict] = []
    if lead is not None:
        log.append({"seat": c.declarer.lho.letter, "card": str(p.cards[0]), "reason": "given"})
    for p, dec in play_out(p, player, params.seed):
        log.append({"seat": dec.seat.letter, "card": str(dec.card), "reason": dec.reason})
    tricks = p.declarer_tricks
    if as_json:
        typer.echo(json.dumps({"contract": str(c), "declarer": c.declarer.letter, "tricks": tricks,
                               "made": tricks >= c.tricks_needed, "cards": log}))
        return
    typer.echo(d.diagram())
    _echo_tricks(p, log)
    typer.echo(_result_line(p))


@app.command("protocol-lines")
def protocol_lines_cmd(
    path: Optional[str] = typer.Argument(None, help="File of protocol lines (a log); default: standard input."),
    as_json: bool = typer.Option(False, "--json", help="One JSON object per line instead of text."),
) -> None:
    """Parse Blue Chip protocol lines as our robot and table manager would: print each line's message type and
    canonical form, or why it is rejected. Exit code 1 if any line is rejected."""
    from squeeze.protocol.errors import ProtocolError
    from squeeze.protocol.messages import format as format_message, parse as parse_message

    try:
        data = sys.stdin.buffer.read() if path is None else open(path, "rb").read()
    except OSError as exc:
        fail(f"cannot read {path}: {exc.strerror}")
    bad = 0
    for number, raw in enumerate(data.splitlines(), 1):
        if not raw.strip():
            continue
        try:
            msg = parse_message(raw)
        except ProtocolError as exc:
            bad += 1
            out = {"line": number, "ok": False, "error": str(exc)}
            typer.echo(json.dumps(out) if as_json else f"{number}: REJECTED {exc}")
            continue
        canonical = format_message(msg).rstrip("\r\n")
        out = {"line": number, "ok": True, "type": type(msg).__name__, "canonical": canonical}
        typer.echo(json.dumps(out) if as_json else f"{number}: {type(msg).__name__:14s} {canonical}")
    if bad:
        raise typer.Exit(1)


@app.command("seat")
@engine_command(*_ROBOT_FLAGS, "system", *_PLAY_FLAGS, "seconds_per_call")
def seat_cmd(
    settings: Settings,
    transcript: Optional[str] = typer.Option(None, "--transcript", metavar="FILE",
                                             help="Append the raw session (time, direction, line) to FILE."),
) -> None:
    """Take a seat at a Blue Chip table manager and play until it ends the session.

    Connects (retrying while the manager starts), answers every line, decides each call and card in a worker
    process within the time budget, reconnects after a drop. Exit code 0 after 'End of session'; 2 refused;
    3 unreachable; 4 the manager went silent; 5 the connection kept dropping.
    """
    import asyncio
    from pathlib import Path

    from squeeze.config.settings import engine_params
    from squeeze.robot.agent import SeatAgent, options_from_settings

    options = options_from_settings(settings, transcript=None if transcript is None else Path(transcript))
    code = asyncio.run(SeatAgent(options, engine_params(settings)).run())
    raise typer.Exit(code)


def _mqtt_settings(settings: Settings, url: Optional[str], *, embedded_ok: bool) -> MqttSettings:
    """``[mqtt]`` with ``--mqtt URL`` applied (``mqtt://HOST:PORT`` or ``embedded``); exits with the reason on a bad
    address."""
    from squeeze.robot.events import EventError, parse_mqtt_url

    if url is None:
        return settings.mqtt
    try:
        target = parse_mqtt_url(url)
    except EventError as exc:
        fail(str(exc))
    if target == "embedded":
        if not embedded_ok:
            fail("squeeze watch reads from a broker: give --mqtt mqtt://HOST:PORT (the one squeeze tm publishes to)")
        update: dict[str, Any] = {"enabled": True, "embedded": True}
    else:
        update = {"enabled": True, "embedded": False, "host": target[0], "port": target[1]}
    try:
        return MqttSettings(**{**settings.mqtt.model_dump(), **update})
    except ValidationError as exc:
        fail("; ".join(f"mqtt.{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors()))


_MQTT_HELP = ("Publish live events: mqtt://HOST:PORT (a broker), or 'embedded' (start one in this process, on the "
              "mqtt settings' host and port). Default: the mqtt settings (off).")


@app.command("tm")
@engine_command(*_TM_FLAGS)
def tm_cmd(
    settings: Settings,
    resume: bool = typer.Option(False, "--resume", help="Continue the run in --out at each table's first "
                                                        "unfinished board (give the same boards options)."),
    mqtt: Optional[str] = typer.Option(None, "--mqtt", metavar="URL", help=_MQTT_HELP),
) -> None:
    """Run a Blue Chip table manager: one port, many tables, clocks, every finished board stored before the table
    moves on; PBN, LIN and summary.json under --out; live events over MQTT with --mqtt (follow them with squeeze
    watch). Exit code 0 when every match is over, 1 when stopped by a signal (continue with --resume), 2 on bad
    input (a read-only results folder too), 3 when a result could not be written (disk full, folder made
    read-only): it stops at once, nothing unsaved counted; continue with --resume."""
    from squeeze.robot.tm.run import RunError, run_tm

    mqtt_settings = _mqtt_settings(settings, mqtt, embedded_ok=True)
    try:
        code = run_tm(settings.tm, resume=resume, mqtt=mqtt_settings)
    except RunError as exc:
        fail(str(exc))
    raise typer.Exit(code)


@app.command("match")
@engine_command(*_MATCH_FLAGS)
def match_cmd(
    settings: Settings,
    a_name: Optional[str] = typer.Option(None, "--a-name", help="Team A's name (default: its configuration's)."),
    b_name: Optional[str] = typer.Option(None, "--b-name", help="Team B's name (default: its configuration's)."),
    b_cmd: Optional[str] = typer.Option(None, "--b-cmd", metavar="COMMAND",
                                        help='Team B is another program, launched per seat: "prog {host} {port} '
                                             '{seat}" ({team} is its team name).'),
    b_external: bool = typer.Option(False, "--b-external", help="Team B's four robots connect by themselves."),
    resume: bool = typer.Option(False, "--resume", help="Continue the match in --out."),
    mqtt: Optional[str] = typer.Option(None, "--mqtt", metavar="URL", help="Publish live events: mqtt://HOST:PORT "
                                       "or 'embedded' (follow with squeeze watch). Default: the mqtt settings."),
) -> None:
    """A team match between two robot configurations: our table manager and eight robots on this machine (real
    TCP), two rooms, the same boards with the seats swapped, IMPs per board. Writes boards.pbn, the LIN file and
    summary.json (IMPs per board with its standard error and 95% interval, VPs, think times) to --out."""
    import asyncio
    from pathlib import Path

    from squeeze.robot.match import TeamSpec, run_match
    from squeeze.robot.match_view import MatchView
    from squeeze.robot.tm.run import RunError

    mt = settings.match
    names = (a_name or _team_name(mt.a), b_name or _team_name(mt.b) if not (b_cmd or b_external) else b_name or "Guests")
    if names[0] == names[1]:
        names = (names[0] + "-A", names[1] + "-B")
    team_a = TeamSpec(names[0], mt.a)
    team_b = TeamSpec(names[1], None if (b_cmd or b_external) else mt.b, command=b_cmd, external=b_external)
    view = MatchView(mt.boards, names)
    # The table manager inside logs every line: to a file beside the results, not over the live view.
    Path(mt.out).mkdir(parents=True, exist_ok=True)
    log_file = open(Path(mt.out) / "match.log", "a", encoding="utf-8")
    configure_logging(settings.log.level, "json", stream=log_file)
    try:
        with view.live():
            tm = {k: getattr(settings.tm, k) for k in settings.tm.model_fields_set}
            result = asyncio.run(run_match(mt.boards, team_a, team_b, Path(mt.out), seed=mt.seed, resume=resume,
                                           tm_settings=tm, max_restarts=mt.max_restarts, stall_seconds=mt.stall_seconds,
                                           mqtt=_mqtt_settings(settings, mqtt, embedded_ok=True),
                                           on_progress=view.update))
    except (RunError, ValueError) as exc:
        fail(str(exc))
    view.print_summary(result.summary, Path(mt.out))
    raise typer.Exit(0 if result.finished else 1)


def _team_name(config: str) -> str:
    """A team name from a configuration: the preset's name, or the TOML file's stem."""
    from pathlib import Path

    return Path(config).stem if config.endswith(".toml") else config


@app.command("watch")
@engine_command()
def watch_cmd(
    settings: Settings,
    mqtt: Optional[str] = typer.Option(None, "--mqtt", metavar="URL",
                                       help="The broker: mqtt://HOST:PORT (default: host and port of the mqtt settings)."),
    table: Optional[str] = typer.Option(None, "--table", help="Only this table (as in the topics: match.Room)."),
    event: Optional[str] = typer.Option(None, "--event", help="Only this event's tables."),
    web: Optional[int] = typer.Option(None, "--web", metavar="PORT",
                                      help="Serve a live page on this port (0: any free port) instead of the "
                                           "terminal view."),
    web_host: str = typer.Option("127.0.0.1", "--web-host", help="Address the page is served on."),
) -> None:
    """Follow live tables: a terminal view of every table (or --table), or with --web a page for a browser: hand
    diagram, auction with explanations, cards and tricks, score. Runs until interrupted (Ctrl-C)."""
    import asyncio

    from squeeze.robot.events import topic_segment
    from squeeze.robot.watch import run_watch

    m = _mqtt_settings(settings, mqtt, embedded_ok=False)
    if web is not None and not 0 <= web <= 65535:
        fail(f"--web takes a port 0..65535, got {web}")
    if m.port == 0:
        fail("the broker's port is 0: give --mqtt mqtt://HOST:PORT")
    topic = "/".join([m.topic_prefix, "+" if event is None else topic_segment(event),
                      "+" if table is None else topic_segment(table), "+"])
    try:
        asyncio.run(run_watch(m, topic, table=table, event=event, web=web, web_host=web_host))
    except KeyboardInterrupt:
        pass
    except OSError as exc:  # the page's port is taken
        fail(f"cannot serve the page on {web_host}:{web}: {exc.strerror or exc}")


@app.command("tm-transcript")
def tm_transcript_cmd(
    path: Optional[str] = typer.Argument(None, help="A squeeze tm log (JSON lines); default: standard input."),
    table: Optional[str] = typer.Option(None, "--table", help="Only this match (or match/room)."),
) -> None:
    """Print the lines a table manager exchanged, from its JSON log: time, table, seat, direction, line."""
    from squeeze.robot.tm.transcript import format_transcript, read_transcript

    try:
        text = sys.stdin.read() if path is None else open(path, encoding="utf-8", errors="replace").read()
    except OSError as exc:
        fail(f"cannot read {path}: {exc.strerror}")
    typer.echo(format_transcript(read_transcript(text.splitlines(), table)), nl=False)


_SELFPLAY_ENGINE_FLAGS = ("declarer_selector", "worlds", "alphamu_depth", "seconds_per_card", "inference",
                          "solver_memory_mib", "borel")


@app.command("selfplay")
@engine_command(*_SELFPLAY_FLAGS, *_SELFPLAY_ENGINE_FLAGS)
def selfplay_cmd(settings: Settings, layers: dict) -> None:
    """Play configuration A against B on the same boards in two rooms (A N/S in the open room, E/W in the closed
    room), in-process, on a local process pool or Dask; IMPs/board with its 95 % interval, LOS, flat boards,
    bidding/play split and par-adjusted figures; boards.pbn, summary.json and imps.png under --out.

    Each team is a preset name or a TOML settings file (a preset is read over --config, a file over --preset);
    engine flags given here (--worlds, ...) apply to both. Every board is stored as it finishes: the same command
    resumes a stopped run, another configuration in the same --out is refused. Exit code 0 when done or decided
    by --sprt, 1 when interrupted (run it again to continue) or stopped by --strict, 2 on bad input.
    """
    import signal

    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from squeeze.robot.selfplay.run import ExecutorError, SelfPlayError, StrictStop, load_team, run_selfplay

    sp = settings.selfplay
    try:
        teams = tuple(load_team(spec, seed=sp.seed, config_file=layers["config"], preset=layers["preset"],
                                engine=layers["engine"]) for spec in (sp.a, sp.b))
    except SelfPlayError as exc:
        fail(str(exc))
    # SIGTERM stops the run as Ctrl-C does: the store keeps what finished, the files are written from it
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    columns = (TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
               TextColumn("{task.fields[imps]}"),
               TimeElapsedColumn(), TextColumn("left {task.fields[eta]}"))
    with Progress(*columns, console=None, transient=False, disable=not sys.stderr.isatty()) as bar:
        task = bar.add_task(f"{teams[0].name} v {teams[1].name}", total=sp.boards, imps="", eta="?")

        def show(p) -> None:
            s = p.summary
            imps = "" if s.boards == 0 else f"{s.mean:+.2f} IMPs/board" + (
                "" if s.boards < 2 else f" ± {s.high - s.mean:.2f}")
            eta = p.eta_seconds
            left = "?" if eta != eta else f"{int(eta) // 3600}:{int(eta) % 3600 // 60:02d}:{int(eta) % 60:02d}"
            bar.update(task, completed=p.done, imps=imps, eta=left)

        try:
            report = run_selfplay(sp, teams, progress=show)  # type: ignore[arg-type]
        except (SelfPlayError, ExecutorError) as exc:
            bar.stop()
            fail(str(exc), code=1 if isinstance(exc, StrictStop) else 2)
    s = report.summary
    line = f"{s['boards']} boards compared, {s['voided']['count']} voided"
    if s["imps_per_board"] is not None:
        lo, hi = s["interval95"]
        line += f"; A ({s['teams']['a']}) v B ({s['teams']['b']}): {s['imps_per_board']:+.3f} IMPs/board"
        if lo is not None:
            line += f", 95% [{lo:+.3f}, {hi:+.3f}], LOS {s['los']:.1%}"
        pa = s["par_adjusted"]
        line += f"; par-adjusted {pa['imps_per_board']:+.3f}; flat {s['flat']}"
    if s["sprt"] is not None:
        line += f"; SPRT {s['sprt']['verdict']} after {s['sprt']['boards']} boards (LLR {s['sprt']['llr']:.2f})"
    typer.echo(line)
    typer.echo(f"results in {report.out}" + (" (interrupted: run the same command to continue)"
                                             if report.stopped == "interrupted" else ""))
    raise typer.Exit(1 if report.stopped == "interrupted" else 0)


# --- squeeze tournament -------------------------------------------------------------------------------------------
# [tournament] flags, defaulting to "from settings" like every group of _FLAG_GROUPS (keys carry a ``tn_`` prefix).
_TOURNAMENT_FLAGS: dict[str, Any] = {f"tn_{field}": _tm_flag(*spec) for field, spec in {
    "entrants": (list[str], ("--entrant", "-e"), "An entrant: NAME=PRESET, NAME=FILE.toml or NAME=cmd:COMMAND (an "
                 "external robot, launched per seat: \"prog {host} {port} {seat}\"); repeat it. A gauntlet's first "
                 "entrant plays each of the others.", "NAME=SPEC"),
    "format": (str, ("--format",), "round-robin (every pair) or gauntlet (the first against each other)."),
    "boards": (int, ("--boards", "-n"), "Boards per pairing: 1..N dealt from the seed, or the first N of "
               "--boards-file.", "N"),
    "boards_file": (str, ("--boards-file",), "PBN file of the boards (deals; dealer and vulnerability where "
                    "given).", "FILE"),
    "sprt": (str, ("--sprt",), "Gauntlet: stop a pairing when a sequential test decides between the first entrant "
             "gaining M0 and M1 IMPs/board.", "M0,M1"),
}.items()} | {  # the flags of the settings self-play and tournaments share ([selfplay]'s, same names and help)
    f"tn_{field}": _SELFPLAY_FLAGS[f"sp_{field}"] for field in (
        "seed", "workers", "executor", "chunk_boards", "out", "decision_seconds", "strict", "alpha", "beta",
        "sprt_min_boards")}
_FLAG_GROUPS += (("tournament", _TOURNAMENT_FLAGS, "tn_"),)  # (added here: this command's flags in one block)


def _tournament_tables(standings: Any) -> Any:
    """The standings as rich tables: the entrants ranked, and the pairings."""
    from rich.console import Group
    from rich.table import Table

    def num(x: Optional[float], fmt: str = "+.2f") -> str:
        return "-" if x is None else format(x, fmt)

    ranking = Table(title="standings: IMPs/board against the field", title_justify="left")
    for col in ("#", "entrant", "IMPs/board", "95 % interval", "LOS", "VP", "boards"):
        ranking.add_column(col, justify="left" if col == "entrant" else "right", no_wrap=True)
    for e in standings.entrants:
        lo, hi = e.interval95
        ranking.add_row(str(e.rank), e.name, num(e.imps_per_board),
                        "-" if lo is None else f"[{lo:+.2f}, {hi:+.2f}]", num(e.los, ".0%"), num(e.vp, ".2f"),
                        str(e.boards))
    pairs = Table(title="pairings: IMPs/board for the first", title_justify="left")
    for col in ("pairing", "boards", "IMPs/board", "95 % interval", "LOS", "VP", "state"):
        pairs.add_column(col, justify="left" if col in ("pairing", "state") else "right", no_wrap=True)
    for p in standings.pairings:
        lo, hi = p.interval95
        sprt = "" if p.sprt is None or p.state != "decided" else f" (SPRT {p.sprt.verdict})"
        pairs.add_row(p.match, f"{p.boards + p.voided}/{p.planned}", num(p.imps_per_board),
                      "-" if lo is None else f"[{lo:+.2f}, {hi:+.2f}]", num(p.los, ".0%"),
                      "-" if p.vp is None else f"{p.vp.a:.2f}-{p.vp.b:.2f}", p.state + sprt)
    return Group(ranking, pairs)


def _clock_text(seconds: float) -> str:
    if seconds != seconds:  # NaN: no pace yet
        return "?"
    return f"{int(seconds) // 3600}:{int(seconds) % 3600 // 60:02d}:{int(seconds) % 60:02d}"


@app.command("tournament")
@engine_command(*_TOURNAMENT_FLAGS, *_SELFPLAY_ENGINE_FLAGS)
def tournament_cmd(settings: Settings, layers: dict) -> None:
    """A tournament of N entrants (presets, TOML settings files, external robots): a round robin or a gauntlet,
    every pairing on the same boards in two rooms; standings with IMPs/board against the field and its 95 %
    interval, a pairing matrix (IMPs/board, LOS), VPs; standings.json, standings.png, boards.pbn and summary.json
    under --out.

    Entrants play in-process on a local pool or Dask; a pairing with an external robot (cmd:COMMAND) is played
    through our table manager after them. Every board is stored as it finishes: the same command resumes a stopped
    tournament, another configuration in the same --out is refused. A live table on a terminal, one line per
    finished chunk otherwise. Exit code 0 when every pairing is finished (or decided by --sprt), 1 when interrupted
    (run it again to continue), stopped by --strict or left incomplete by an external robot, 2 on bad input.
    """
    import signal
    import time as _time

    from rich.console import Console, Group
    from rich.live import Live
    from rich.text import Text

    from squeeze.robot.match import MATCH_OWNS
    from squeeze.robot.selfplay.run import ExecutorError, SelfPlayError, StrictStop
    from squeeze.robot.selfplay.tournament import load_entrants, run_tournament

    tn = settings.tournament
    try:
        entrants = load_entrants(tn.entrants, seed=tn.seed, config_file=layers["config"], preset=layers["preset"],
                                 engine=layers["engine"])
    except SelfPlayError as exc:
        fail(str(exc))
    signal.signal(signal.SIGTERM, signal.default_int_handler)  # as Ctrl-C: files written from the store
    terminal = sys.stderr.isatty()
    console = Console(stderr=True)
    last = [-1, 0.0]

    def headline(p) -> str:
        leader = p.standings.leader
        lead = "no board yet" if leader is None else (
            f"leader {leader.name} {leader.imps_per_board:+.2f} IMPs/board"
            + ("" if leader.interval95[0] is None else
               f" [{leader.interval95[0]:+.2f}, {leader.interval95[1]:+.2f}]") + f" over {leader.boards} boards")
        playing = ", ".join(p.playing) or "none"
        return (f"{p.done}/{p.planned} boards | {lead} | playing: {playing} | "
                f"left {_clock_text(p.eta_seconds)}")

    live = Live(console=console, auto_refresh=False, transient=True) if terminal else None  # (the final tables follow)

    def show(p) -> None:
        if live is not None:
            if p.done != last[0] or _time.monotonic() - last[1] > 1.0:
                last[0], last[1] = p.done, _time.monotonic()
                live.update(Group(Text(headline(p)), _tournament_tables(p.standings)), refresh=True)
        elif p.done != last[0]:  # off a terminal: one line per round of finished boards
            last[0] = p.done
            typer.echo(f"{_time.strftime('%H:%M:%S')} {headline(p)}")

    tm = {k: getattr(settings.tm, k) for k in settings.tm.model_fields_set if k not in MATCH_OWNS}
    try:
        if live is not None:
            live.start()
        report = run_tournament(tn, entrants, progress=show, tm_settings=tm,
                                max_restarts=settings.match.max_restarts, stall_seconds=settings.match.stall_seconds)
    except (SelfPlayError, ExecutorError) as exc:
        if live is not None:
            live.stop()
        fail(str(exc), code=1 if isinstance(exc, StrictStop) else 2)
    if live is not None:
        live.stop()
    Console(width=max(100, Console().width)).print(_tournament_tables(report.standings))
    for problem in report.problems:
        typer.secho(f"problem: {problem}", err=True, fg=typer.colors.YELLOW)
    note = {"interrupted": " (interrupted: run the same command to continue)",
            "incomplete": " (incomplete: run the same command to continue)"}.get(report.stopped or "", "")
    typer.echo(f"results in {report.out}{note}")
    raise typer.Exit(0 if report.stopped is None else 1)


@app.command("solve")
@engine_command("solver_memory_mib")
def solve_cmd(
    settings: Settings,
    deal_text: str = typer.Argument(..., metavar="DEAL", help='PBN deal, e.g. "N:AK94.T82.K73.QJ5 ... ... ..."'),
    leader: Optional[str] = typer.Option(None, "--leader", "-l", help="Score every opening lead of this seat."),
    trump: Optional[str] = typer.Option(None, "--trump", "-t", help="Strain for --leader: C, D, H, S or NT."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """Double-dummy table of DEAL (tricks for each declarer in each strain), or with --leader/--trump the
    double-dummy score of every opening lead (tricks for the leader's side)."""
    from squeeze.engine.cards import Strain
    from squeeze.engine.dds import Position, Solver

    try:
        d = Deal.parse(deal_text)
    except BridgeError as exc:
        fail(f"bad deal: {exc}")
    if (leader is None) != (trump is None):
        fail("--leader and --trump go together (e.g. --leader W --trump H)")
    solver = Solver(_engine_params(settings).play.solver_tt_mib)
    if leader is not None:
        try:
            seat, strain = Seat.parse(leader), Strain.parse(trump)  # type: ignore[arg-type]
        except BridgeError as exc:
            fail(str(exc))
        scores = solver.solve_cards(Position.from_deal(d, seat), strain)
        if as_json:
            typer.echo(json.dumps({"deal": d.to_pbn(), "leader": seat.letter,
                                   "trump": "NT" if strain == Strain.NOTRUMP else strain.letter,
                                   "scores": {str(c): v for c, v in scores.items()}}))
            return
        typer.echo(f"{seat.name.title()} leads, {'notrump' if strain == Strain.NOTRUMP else strain.name.lower()}: "
                   f"tricks for {seat.side_name}")
        for c, v in scores.items():
            typer.echo(f"  {c}  {v}")
        return
    table = solver.solve_table(d)
    if as_json:
        typer.echo(json.dumps({"deal": d.to_pbn(), "tricks": table.to_dict()}))
        return
    typer.echo(d.diagram())
    typer.echo("Tricks for declarer:")
    typer.echo(str(table))


def main() -> None:  # pragma: no cover - console entry for `python -m robot.cli`
    app()


if __name__ == "__main__":  # pragma: no cover
    main()

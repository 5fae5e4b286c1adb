"""The ``squeeze`` command line (typer + rich). Each sub-command is a thin shell over engine/protocol/robot APIs.

Commands that run the engine take ``--config FILE``, ``--preset NAME`` and engine flags (``--worlds``, ``--selector``,
...) that default to "from settings": a flag given on the command line is the highest layer of
``squeeze.config.settings.load_settings``, and the engine is built from ``engine_params`` of the result, so no
option here holds a default of its own (its help shows the settings' default). Logs (structlog,
``squeeze.robot.logs``) go to standard error only.

Start-up: this module imports typer and the standard library only. A command imports what it needs when it runs,
the settings flags' help (which shows each default, from the settings models) is built only for the command being
run, and ``app()`` builds only that command (the others are listed by name and summary): ``squeeze score --help``
does not load the engine.
"""

from __future__ import annotations

import inspect
import json
import sys
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Annotated, Any, Callable, Optional

import typer

if TYPE_CHECKING:
    from squeeze.config.settings import MqttSettings, Settings


class _Squeeze(typer.Typer):
    """The app, building only the command being run: every other command becomes a stand-in with its name and
    summary (enough for ``squeeze --help`` and for a misspelt command's suggestions), so that its options' help,
    which reads the settings' defaults, is never built. ``typer.main.get_command(app)`` builds them all."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        argv = kwargs.get("args", args[0] if args else None)
        argv = sys.argv[1:] if argv is None else list(argv)
        wanted = next((a for a in argv if not a.startswith("-")), None)
        every = list(self.registered_commands)
        self.registered_commands = [c if _command_name(c) == wanted else _stand_in(c) for c in every]
        try:
            return super().__call__(*args, **kwargs)
        except KeyboardInterrupt:  # Ctrl-C while a command starts up (a running command answers it itself)
            typer.echo("squeeze: interrupted", err=True)
            sys.exit(130)
        finally:
            self.registered_commands = every


def _command_name(info: Any) -> str:
    return info.name or info.callback.__name__.replace("_", "-")


def _stand_in(info: Any) -> Any:
    from typer.models import CommandInfo

    def stand_in() -> None:  # pragma: no cover - never invoked: the command run is always the real one
        pass

    return CommandInfo(_command_name(info), callback=stand_in, help=inspect.getdoc(info.callback) or "",
                       short_help=info.short_help, hidden=info.hidden)


app = _Squeeze(
    add_completion=False,
    no_args_is_help=True,
    help="Squeeze: a contract-bridge robot for Blue Chip table managers, with its own double-dummy solver.",
)


def _version(value: bool) -> None:
    if value:
        from importlib.metadata import PackageNotFoundError, version

        try:
            typer.echo(f"squeeze {version('squeeze-bridge')}")
        except PackageNotFoundError:  # pragma: no cover - run from a source tree that was never installed
            typer.echo("squeeze (not installed)")
        raise typer.Exit(0)


@app.callback()
def _root(
    version: bool = typer.Option(False, "--version", is_eager=True, callback=_version,
                                 help="Print the version and exit."),
) -> None:
    """Squeeze: a contract-bridge robot for Blue Chip table managers, with its own double-dummy solver."""


def _logs() -> None:
    """structlog set up from the [log] settings of the environment (SQUEEZE_LOG__*, SQUEEZE_CONFIG), for a command
    that reads no settings of its own (one that does applies its own, ``_settings``)."""
    from squeeze.config.settings import LogSettings, load_settings
    from squeeze.robot.logs import configure_logging

    try:
        log = load_settings().log
    except (OSError, ValueError):  # a bad SQUEEZE_CONFIG is reported by the commands that read settings
        log = LogSettings()
    configure_logging(log.level, log.format)


def _default(text: str) -> str:
    """The ``[default: ...]`` of an option whose value has no default of its own (``None``: "not given"), in the
    style typer gives the others (escaped: the help is rich markup)."""
    return f"\\[default: {text}]"


def fail(message: str, code: int = 2) -> None:
    """Print a clear error for bad input and exit (no traceback for a user's typo)."""
    typer.secho(f"error: {message}", err=True, fg=typer.colors.RED)
    raise typer.Exit(code)


@dataclass(frozen=True)
class _Flag:
    """A command-line flag for one settings key: its type and option names. Its help is the settings field's
    description (``_described``), ``help`` only for a flag that is no settings key (``--config``, ``--preset``); the
    default shown is the settings' (``unset`` says what an unset key means); the flag itself defaults to None, "not
    given"."""

    kind: type
    opts: tuple[str, ...]
    metavar: Optional[str] = None
    unset: str = "unset"
    help: Optional[str] = None
    extra: dict = field(default_factory=dict)


def _flag(kind: type, opts: tuple[str, ...] | str, metavar: Optional[str] = None, *, unset: str = "unset",
          help: Optional[str] = None, **extra: Any) -> _Flag:
    return _Flag(kind, (opts,) if isinstance(opts, str) else opts, metavar, unset, help, extra)


def _described(model: Any, name: str) -> str:
    """The description of the settings field ``model.name``: the one text of that key's help, for its flag too."""
    text = model.model_fields[name].description
    if not text:
        raise LookupError(f"{model.__name__}.{name} has no description (its flag's help is that text)")
    return text


# Options shared by the commands that run the engine.
_SETTINGS_OPTIONS: dict[str, Any] = {
    "config": _flag(str, "--config", "FILE", unset="$SQUEEZE_CONFIG, else none",
                    help="TOML settings file (see config/squeeze.toml: every key with its default)."),
    "preset": _flag(str, "--preset", "NAME", unset="$SQUEEZE_PRESET, else none", help="Engine preset: {presets}."),
}
# The settings flags: each dict maps a settings field (of the section _FLAG_GROUPS names) to its flag, whose help is
# that field's description. Each engine flag is named after its [engine] settings field.
_ENGINE_FLAGS: dict[str, Any] = {
    "system": _flag(str, "--system"),
    "opponents_system": _flag(str, "--opponents", unset="ours"),
    "declarer_selector": _flag(str, ("--selector", "--declarer")),
    "worlds": _flag(int, "--worlds"),
    "alphamu_depth": _flag(int, ("--max-m", "--alphamu-depth")),
    "seconds_per_card": _flag(float, ("--seconds-per-card", "--budget")),
    "seconds_per_call": _flag(float, "--seconds-per-call"),
    "seconds_per_lead": _flag(float, "--seconds-per-lead"),
    "inference": _flag(bool, "--inference/--no-inference"),
    "solver_memory_mib": _flag(int, "--solver-memory", "MIB"),
    "seed": _flag(int, ("--seed", "-s"), unset="a fresh one each run"),
    "borel": _flag(bool, "--simulate/--no-simulate"),
}
# [robot] flags of ``squeeze seat``.
_ROBOT_FLAGS: dict[str, Any] = {
    "host": _flag(str, "--host"),
    "port": _flag(int, "--port"),
    "seat": _flag(str, "--seat"),
    "team": _flag(str, "--team"),
    "pacing_ms": _flag(float, "--pacing-ms"),
    "dummy_card_style": _flag(str, "--dummy-card-style"),
    "alerts": _flag(bool, "--alerts/--no-alerts"),
    "explanations": _flag(bool, "--explanations/--no-explanations", unset="auto"),
    "silence_timeout_seconds": _flag(float, "--silence-timeout"),
    "max_reconnects": _flag(int, "--max-reconnects"),
}
# [tm] flags of ``squeeze tm``; keys carry a ``tm_`` prefix (dropped for the settings field) so that ``--host``,
# ``--port`` and ``--seed`` can mean the table manager's own.
_TM_FLAGS: dict[str, Any] = {f"tm_{k}": v for k, v in {
    "host": _flag(str, "--host"),
    "port": _flag(int, "--port"),
    "boards": _flag(int, "--boards", "N", parser="boards_count"),
    "boards_file": _flag(str, "--boards-file", "FILE", unset="none: random deals"),
    "board_range": _flag(str, "--board-range", "FIRST-LAST", unset="every board"),
    "seed": _flag(int, ("--seed", "-s")),
    "rooms": _flag(int, "--rooms"),
    "match_file": _flag(str, "--match", "FILE", unset="none: the first team to connect opens a match"),
    "event": _flag(str, "--event"),
    "results_dir": _flag(str, "--out", "DIR"),
    "board_seconds": _flag(float, "--board-seconds"),
    # (not --seconds-per-call/card: those are the robot's own budgets, in the commands that run the engine)
    "seconds_per_call": _flag(float, "--call-limit"),
    "seconds_per_card": _flag(float, "--card-limit"),
    "time_fate": _flag(str, "--time-fate"),
    "grace_seconds": _flag(float, "--grace-seconds"),
    "hold_seconds": _flag(float, "--hold-seconds"),
    "send_timing": _flag(bool, "--timing/--no-timing"),
    "compliance_report": _flag(bool, "--compliance-report/--no-compliance-report"),
}.items()}
_MATCH_FLAGS: dict[str, Any] = {f"match_{k}": v for k, v in {
    "boards": _flag(int, "--boards", "N"),
    "a": _flag(str, ("--a", "-a"), "CONFIG"),
    "b": _flag(str, ("--b", "-b"), "CONFIG"),
    "seed": _flag(int, ("--seed", "-s")),
    "out": _flag(str, "--out", "DIR"),
    "max_restarts": _flag(int, "--max-restarts"),
    "stall_seconds": _flag(float, "--stall-seconds"),
}.items()}
_PLAY_FLAGS = ("declarer_selector", "worlds", "alphamu_depth", "seconds_per_card", "inference", "solver_memory_mib",
               "borel",
               "seed")
# [selfplay] flags of ``squeeze selfplay``; keys carry an ``sp_`` prefix.
_SELFPLAY_FLAGS: dict[str, Any] = {f"sp_{k}": v for k, v in {
    "a": _flag(str, ("--a", "-a"), "CONFIG"),
    "b": _flag(str, ("--b", "-b"), "CONFIG"),
    "boards": _flag(int, ("--boards", "-n"), "N"),
    "seed": _flag(int, ("--seed", "-s")),
    "workers": _flag(int, ("--workers", "-j"), unset="one per core"),
    "executor": _flag(str, "--executor", "WHERE"),
    "chunk_boards": _flag(int, "--chunk", "N"),
    "out": _flag(str, "--out", "DIR"),
    "decision_seconds": _flag(float, "--decision-seconds"),
    "strict": _flag(bool, "--strict/--no-strict"),
    "sprt": _flag(str, "--sprt", "M0,M1", unset="none: play every board"),
    "alpha": _flag(float, "--alpha"),
    "beta": _flag(float, "--beta"),
    "sprt_min_boards": _flag(int, "--sprt-min-boards", "N"),
}.items()}
#: Each flag group, the settings section it overrides and the prefix its names carry here (sections whose flag
#: names would clash with the engine's carry one).
_FLAG_GROUPS = (("engine", _ENGINE_FLAGS, ""), ("robot", _ROBOT_FLAGS, ""), ("tm", _TM_FLAGS, "tm_"),
                ("match", _MATCH_FLAGS, "match_"), ("selfplay", _SELFPLAY_FLAGS, "sp_"))


def _default_text(value: Any, flag: _Flag) -> str:
    """How a settings default reads in a flag's help."""
    from pathlib import Path

    if value is None:
        return flag.unset
    if isinstance(value, bool):  # the flag's own spelling of that state: --inference / --no-inference
        on, _, off = flag.opts[0].partition("/")
        return on if value else off
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, Path):
        return str(value)
    return str(value) if value != "" else "none"


def _boards_count(text: str) -> int:
    """``--boards N`` (a count, as in every command); a file name given there is told where it goes now."""
    try:
        return int(text)
    except ValueError:
        raise typer.BadParameter(f"{text!r} is not a number of boards (a PBN file of boards is --boards-file "
                                 "FILE)") from None


def _option(name: str, flag: _Flag) -> Any:
    """The typer annotation of the flag ``name`` (a key of ``_SETTINGS_OPTIONS`` or of a ``_FLAG_GROUPS`` dict):
    its help is its settings field's description and shows the settings' default."""
    from squeeze.config.settings import Settings, available_presets

    section = next(((sec, prefix) for sec, group, prefix in _FLAG_GROUPS if name in group), None)
    if section is None:  # --config, --preset
        shown = flag.unset
        text = (flag.help or "").format(presets=", ".join(available_presets()))
    else:
        model = Settings.model_fields[section[0]].annotation
        key = name.removeprefix(section[1])
        shown = _default_text(model.model_fields[key].default, flag)
        text = _described(model, key)
    extra = dict(flag.extra)
    if extra.pop("parser", None) == "boards_count":
        extra["parser"] = _boards_count
    return Annotated[Optional[flag.kind], typer.Option(  # type: ignore[name-defined]
        *flag.opts, metavar=flag.metavar, help=f"{text} {_default(shown)}", show_default=False, **extra)]


def _settings(config: str | None, preset: str | None, sections: dict[str, dict[str, Any]]) -> "Settings":
    """Settings with ``sections`` (the flags given, by settings section) as the highest layer; exits with the reason
    on a bad layer. Applies the [log] settings, which ``config`` or ``preset`` may change."""
    from squeeze.config.settings import SettingsError, load_settings
    from squeeze.robot.logs import configure_logging

    try:
        settings = load_settings(config, preset=preset, **{k: v for k, v in sections.items() if v})
    except (OSError, SettingsError) as exc:
        fail(str(exc))
    configure_logging(settings.log.level, settings.log.format)
    return settings


class _SettingsCommand:
    """A command that takes ``--config``, ``--preset`` and settings flags (``engine_command``). Its signature, the
    one typer reads, is built when typer asks for it (only for the command being run: ``_Squeeze``)."""

    def __init__(self, fn: Callable, flags: tuple[str, ...]) -> None:
        self._fn, self._flags = fn, flags
        self.__name__, self.__qualname__, self.__module__ = fn.__name__, fn.__qualname__, fn.__module__
        self.__doc__ = fn.__doc__
        self._signature: Optional[inspect.Signature] = None

    @property
    def __signature__(self) -> inspect.Signature:
        if self._signature is None:
            own = []
            for p in inspect.signature(self._fn).parameters.values():
                if p.name in ("settings", "layers"):
                    continue
                annotation = p.annotation
                if isinstance(annotation, str):  # (this module's annotations are strings: from __future__)
                    annotation = eval(annotation, self._fn.__globals__)  # noqa: S307 - our own source text
                own.append(p.replace(annotation=annotation))
            specs = {**_SETTINGS_OPTIONS, **{k: v for _, group, _ in _FLAG_GROUPS for k, v in group.items()}}
            added = [inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=None,
                                       annotation=_option(name, specs[name]))
                     for name in (*_SETTINGS_OPTIONS, *self._flags)]
            self._signature = inspect.Signature(own + added)
        return self._signature

    @property
    def __annotations__(self) -> dict[str, Any]:  # type: ignore[override]
        return {p.name: p.annotation for p in self.__signature__.parameters.values()}

    def __call__(self, **kwargs: Any) -> Any:
        config, preset = kwargs.pop("config"), kwargs.pop("preset")
        flags = self._flags
        given = {name: value for name in flags if (value := kwargs.pop(name)) is not None}
        sections = {section: {k.removeprefix(prefix): v for k, v in given.items() if k in group}
                    for section, group, prefix in _FLAG_GROUPS}
        if "layers" in inspect.signature(self._fn).parameters:
            kwargs["layers"] = {"config": config, "preset": preset, "engine": sections["engine"]}
        return self._fn(settings=_settings(config, preset, sections), **kwargs)


def engine_command(*flags: str) -> Callable[[Callable], Callable]:
    """Give a command ``--config``, ``--preset`` and the flags ``flags`` (keys of the ``_FLAG_GROUPS``' dicts); the
    command receives ``settings``, the loaded ``Settings``, in their place. A command with a parameter ``layers``
    also receives what built them, ``{"config": FILE, "preset": NAME, "engine": {the engine flags given}}``
    (self-play builds each team from them)."""

    def wrap(fn: Callable) -> Callable:
        return _SettingsCommand(fn, flags)  # type: ignore[return-value]

    return wrap


@app.command()
@engine_command("system", *_PLAY_FLAGS)
def deal(
    settings: Settings,
    board: int = typer.Option(1, "--board", min=1, help="Board number: sets dealer and vulnerability."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of a diagram."),
    bid: bool = typer.Option(False, "--bid", help="Also bid the board with four copies of the robot's bidder."),
    play: bool = typer.Option(False, "--play", help="Bid the board, play it out with four robot players, score it."),
    pbn_out: Optional[str] = typer.Option(None, "--pbn", help="Write the board (auction, play, score) as PBN here. "
                                                           + _default("none")),
) -> None:
    """Deal a random board: dealer, vulnerability, a hand diagram and the PBN deal string (and its auction and play).

    With --play, one whole board at a table of four robots, each seeing only its own seat: bidding with every call
    explained, PIMC card play (αμ at declarer with --selector alphamu) with the reason for every card, and the
    duplicate score.
    """
    import dataclasses
    import random

    from squeeze.engine.cards import Deal, Seat, dealer_for_board, vul_for_board
    from squeeze.engine.record import BoardRecord

    if pbn_out is not None:  # refuse a path that cannot be written before spending time on the board
        _check_writable(pbn_out)
    seed = settings.engine.seed
    rng = random.Random(seed)
    d = Deal.random(rng)
    dealer, vul = dealer_for_board(board), vul_for_board(board)
    pbn = d.to_pbn(dealer)
    bid = bid or play
    record = BoardRecord(board=board, deal=d, dealer=dealer, vul=vul)
    board_play = None  # the Play, when the board was played out
    if bid:
        from squeeze.config.bidding import BiddingSystemError, load_system
        from squeeze.engine.play.oracle import SolverUnavailable
        from squeeze.engine.player import Player
        from squeeze.robot.selfplay import play_board

        # four robots, each told only what its seat may know (engine.Player, the object a seat at a table asks)
        params = _engine_params(settings)
        params = dataclasses.replace(params, seed=seed if seed is not None else rng.getrandbits(31))
        try:
            record, board_play = play_board(board, d, {s: Player(params, systems=load_system) for s in Seat},
                                            play=play)
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
    typer.echo(f"Board {board}   Dealer {dealer.title}   Vulnerable {vul.pbn}")
    typer.echo(d.diagram())
    typer.echo(f'[Deal "{pbn}"]')
    if bid:
        typer.echo("")
        for c in calls:
            typer.echo(f"  {c['seat']}  {c['call'] + ('!' if c['alert'] else ''):<4} {c['explanation']}")
        typer.echo(f"Contract: {'passed out' if contract is None else contract.text}")
    if board_play is not None:
        typer.echo("")
        _echo_tricks(board_play, cards)
        typer.echo(_result_line(board_play, vul))
    elif play:
        typer.echo("Score: 0 (passed out)")


def _card_seats(play) -> list:
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
    from squeeze.engine.cards import BridgeError

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
    line = f"{c.text}: {tricks} tricks ({'=' if over == 0 else f'{over:+d}'})"
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
    vul: str = typer.Option("None", "--vul", "-v", help="Vulnerability: None, NS, EW or All."),
    as_json: bool = typer.Option(False, "--json", help='Print {"score": n}.'),
) -> None:
    """Duplicate score of declarer's side (negative when the contract goes down)."""
    from squeeze.engine.auction import Contract
    from squeeze.engine.cards import BridgeError, Seat, Vul
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
        typer.echo(f"{c.text}: {tricks} tricks ({outcome}), vulnerable {v.pbn}: {points:+d} for {c.declarer.side_name}")


@app.command()
@engine_command("system", "opponents_system", "borel", "seconds_per_call")
def bid(
    settings: Settings,
    hand: Optional[str] = typer.Argument(None, help="Hand S.H.D.C, e.g. AK94.T82.K73.QJ5 (omit with --batch)."),
    auction: str = typer.Argument("", help="Calls so far from the dealer, blank-separated: '1N P'."),
    dealer: str = typer.Option("N", "--dealer", "-d", help="Dealer seat N/E/S/W."),
    vul: str = typer.Option("None", "--vul", "-v", help="Vulnerability: None, NS, EW or All."),
    batch: bool = typer.Option(False, "--batch", help='Read JSON lines {"id","hand","auction","dealer","vul"}.'),
    explain: bool = typer.Option(False, "--explain", help="Also print what every earlier call shows and denies."),
) -> None:
    """Choose a call for one hand and auction and say why; or answer JSON lines with --batch."""
    from squeeze.config.bidding import BiddingSystemError, load_system
    from squeeze.engine.bidding import Bidder
    from squeeze.engine.bidding.requests import answer_record, parse_request
    from squeeze.engine.cards import BridgeError
    from squeeze.robot.logs import log_decision

    params = _engine_params(settings)
    try:
        opponents = params.opponents_system
        bidder = Bidder.of(load_system(params.system), load_system(opponents) if opponents is not None else None)
    except BiddingSystemError as e:
        fail(str(e))
    player = None
    if params.borel.enabled:  # --simulate: the robot's own bid (rules + Borel simulation), as at a table
        from squeeze.engine.player import Player

        player = Player(params, systems=load_system)
    if batch:
        out = sys.stdout
        for n, line in enumerate(sys.stdin, 1):
            if not line.strip():
                continue
            try:
                rec = json.loads(line)
                res = answer_record(bidder, rec, None if player is None else
                                    lambda view: log_decision(player.bid(view)))
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

        ch = log_decision(player.bid(SeatView(a.next_seat, h, a, v)))
    else:
        ch = bidder.choose(h, a, v)
    typer.echo(f"{ch.call}   {ch.describe()}   (rule {ch.rule_id})")
    for call, rule_id, text in ch.alternatives:
        typer.echo(f"  also possible: {call}   {text}   (rule {rule_id})")


@app.command("pbn")
def pbn_cmd(
    path: str = typer.Argument(..., help="PBN file to read ('-' for standard input)."),
    export: Optional[str] = typer.Option(None, "--export", help="Write the good games as PBN 2.1 export format. "
                                                              + _default("none")),
    lin: Optional[str] = typer.Option(None, "--lin", help="Write the good games as BBO LIN (one board a line). "
                                                         + _default("none")),
    vugraph: Optional[str] = typer.Option(None, "--vugraph", help="Write a team match as a BBO vugraph LIN file "
                                          "(Room tags Open/Closed pair the tables). " + _default("none")),
    score: bool = typer.Option(False, "--score", help="Add a Score tag to the PBN export."),
    strict: bool = typer.Option(False, "--strict", help="Stop at the first error."),
) -> None:
    """Check a PBN file (deal, auction and play legality, with game and line of every problem); convert it.

    Exit code 0 when every game is good; 1 when a game has errors (the good ones are still converted) or the file
    holds no game at all (empty, truncated before its first game ends, not PBN: nothing is written); 2 on bad
    arguments."""
    from squeeze.engine.cards import BridgeError
    from squeeze.engine.lin import write_lin, write_lin_match
    from squeeze.engine.pbn import PbnError, encode_pbn, read_pbn, write_pbn

    _logs()

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
    name = "standard input" if path == "-" else path
    if not result.games:  # nothing to convert: no empty file is written, and this is not a success
        fail(f"{name}: no game could be read (the error{'s' if len(result.errors) > 1 else ''} above); nothing written"
             if result.errors else f"{name}: no PBN game in it (a game is a block of tags such as [Board \"1\"] "
                                   "[Deal \"N:...\"]); nothing written", code=1)
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
    lead: Optional[str] = typer.Option(None, "--lead", help="Opening lead, e.g. SQ. "
                                                                  + _default("the robot leads")),
    as_json: bool = typer.Option(False, "--json", help="Print JSON (cards, reasons, result)."),
) -> None:
    """Play a deal out with four robot players (PIMC; αμ at declarer with --selector alphamu or the strong preset)
    and print it trick by trick."""
    from squeeze.engine.auction import Contract
    from squeeze.engine.board import IllegalCardError, Play
    from squeeze.engine.cards import BridgeError, Card, Deal
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
    from squeeze.robot.logs import log_decision

    final = p  # the position after the last card played out (the start when there is nothing to play)
    for position, dec in play_out(p, player, params.seed):
        final = position
        log_decision(dec)
        log.append({"seat": dec.seat.letter, "card": str(dec.card), "reason": dec.reason})
    p = final
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

    _logs()

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
@engine_command(*_ROBOT_FLAGS, "system", *_PLAY_FLAGS, "seconds_per_call", "seconds_per_lead")
def seat_cmd(
    settings: Settings,
    transcript: Optional[str] = typer.Option(None, "--transcript", metavar="FILE",
                                             help="Append the raw session (time, direction, line) to FILE. "
                                                  + _default("none")),
) -> None:
    """Take a seat at a Blue Chip table manager and play until it ends the session.

    Connects (retrying while the manager starts), answers every line, decides each call and card in a worker
    process within the time budget, reconnects after a drop. Exit code 0 after 'End of session'; 2 refused (or
    bad input); 3 unreachable; 4 the manager went silent; 5 the connection kept dropping; 130 interrupted
    (Ctrl-C).
    """
    import asyncio
    from pathlib import Path

    from squeeze.robot.agent import SeatAgent, options_from_settings

    if transcript is not None:  # before connecting: a path that cannot be written is the user's typo
        try:
            with open(transcript, "a", encoding="utf-8"):
                pass
        except OSError as exc:
            fail(f"cannot write the transcript {transcript}: {exc.strerror or exc}")
    options = options_from_settings(settings, transcript=None if transcript is None else Path(transcript))
    params = _engine_params(settings)
    try:
        code = asyncio.run(SeatAgent(options, params).run())
    except KeyboardInterrupt:
        typer.echo("squeeze seat: interrupted", err=True)
        raise typer.Exit(130) from None
    raise typer.Exit(code)


def _mqtt_settings(settings: Settings, url: Optional[str], *, embedded_ok: bool) -> MqttSettings:
    """``[mqtt]`` with ``--mqtt URL`` applied (``mqtt://HOST:PORT`` or ``embedded``); exits with the reason on a bad
    address."""
    from pydantic import ValidationError

    from squeeze.config.settings import MqttSettings, describe_errors
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
        fail(describe_errors(exc, MqttSettings, "mqtt"))


_MQTT_HELP = ("Publish live events: mqtt://HOST:PORT (a broker), or 'embedded' (start one in this process, on the "
              "mqtt settings' host and port). " + _default("the mqtt settings: off"))


@app.command("tm")
@engine_command(*_TM_FLAGS)
def tm_cmd(
    settings: Settings,
    resume: bool = typer.Option(False, "--resume", help="Only continue a run: refuse a --out that holds none "
                                                        "(without it, a run there is continued too)."),
    mqtt: Optional[str] = typer.Option(None, "--mqtt", metavar="URL", help=_MQTT_HELP),
    random_boards: Optional[int] = typer.Option(None, "--random-boards", hidden=True,
                                                help="Deprecated spelling of --boards N."),
) -> None:
    """Run a Blue Chip table manager: one port, many tables, clocks, every finished board stored before the table
    moves on; PBN, LIN and summary.json under --out; live events over MQTT with --mqtt (follow them with squeeze
    watch). The same command again continues a run in --out (another run there is refused, naming what differs).
    Exit code 0 when every match is over, 1 when stopped by a signal (the same command continues), 2 on bad input
    (a port taken, a read-only results folder, another run in --out), 3 when a result could not be written (disk
    full, folder made read-only): it stops at once, nothing unsaved counted; the same command continues."""
    from squeeze.robot.tm.run import RunError, run_tm

    if random_boards is not None:
        typer.secho("warning: --random-boards is deprecated and goes in the next version: say --boards "
                    f"{random_boards}", err=True, fg=typer.colors.YELLOW)
        if "boards" not in settings.tm.model_fields_set or settings.tm.boards == random_boards:
            settings = settings.model_copy(update={"tm": settings.tm.model_copy(update={"boards": random_boards})})
    mqtt_settings = _mqtt_settings(settings, mqtt, embedded_ok=True)
    try:
        code = run_tm(settings.tm, resume=resume or None, mqtt=mqtt_settings)
    except RunError as exc:
        fail(str(exc))
    raise typer.Exit(code)


@app.command("match")
@engine_command(*_MATCH_FLAGS)
def match_cmd(
    settings: Settings,
    a_name: Optional[str] = typer.Option(None, "--a-name", help="Team A's name. "
                                                                      + _default("its configuration's")),
    b_name: Optional[str] = typer.Option(None, "--b-name", help="Team B's name. "
                                                                      + _default("its configuration's, or Guests")),
    b_cmd: Optional[str] = typer.Option(None, "--b-cmd", metavar="COMMAND",
                                        help='Team B is another program, launched per seat: "prog {host} {port} '
                                             '{seat}" ({team} is its team name). ' + _default("none: our robot")),
    b_external: bool = typer.Option(False, "--b-external", help="Team B's four robots connect by themselves."),
    resume: bool = typer.Option(False, "--resume", help="Only continue a match: refuse a --out that holds none "
                                                        "(without it, a match there is continued too)."),
    mqtt: Optional[str] = typer.Option(None, "--mqtt", metavar="URL", help=_MQTT_HELP),
    recap: Optional[str] = typer.Option(None, "--recap", metavar="FILE",
                                        help="Also write the board-by-board recap to FILE. " + _default("none")),
) -> None:
    """A team match between two robot configurations: our table manager and eight robots on this machine (real
    TCP), two rooms, the same boards with the seats swapped, IMPs per board. Writes boards.pbn, the LIN file and
    summary.json (IMPs per board with its standard error and 95% interval, VPs, think times) to --out, and prints
    a recap of every board (both rooms' contracts and results, the swing, par). The same command again continues
    a match in --out (another run there is refused, naming what differs). Exit code 0 when
    every board of both rooms finished, 1 when stopped before (Ctrl-C, a robot that kept failing, a stall: the
    same command continues), 2 on bad input."""
    import asyncio
    import shutil
    from pathlib import Path

    from squeeze.robot.logs import configure_logging
    from squeeze.robot.match import MATCH_NAME, TeamSpec, check_match, run_match
    from squeeze.robot.match_view import MatchView
    from squeeze.robot.tm.run import RunError

    mt = settings.match
    names = (a_name or _team_name(mt.a), b_name or _team_name(mt.b) if not (b_cmd or b_external) else b_name or "Guests")
    if names[0] == names[1]:
        names = (names[0] + "-A", names[1] + "-B")
    team_a = TeamSpec(names[0], mt.a)
    team_b = TeamSpec(names[1], None if (b_cmd or b_external) else mt.b, command=b_cmd, external=b_external)
    tm = {k: getattr(settings.tm, k) for k in settings.tm.model_fields_set}
    mqtt_settings = _mqtt_settings(settings, mqtt, embedded_ok=True)
    out = Path(mt.out)
    try:  # every team, before anything starts or any file is made
        check_match(team_a, team_b, tm)
    except RunError as exc:
        fail(str(exc))
    if recap is not None:
        _check_writable(recap)
    view = MatchView(mt.boards, names)
    # The table manager inside logs every line: to a file beside the results, not over the live view.
    fresh = not out.exists()
    try:
        out.mkdir(parents=True, exist_ok=True)
        log_file = open(out / "match.log", "a", encoding="utf-8")
    except OSError as exc:
        fail(f"cannot write to {out}: {exc.strerror or exc}")
    configure_logging(settings.log.level, "json", stream=log_file)
    try:
        with view.live():
            result = asyncio.run(run_match(mt.boards, team_a, team_b, out, seed=mt.seed, resume=resume or None,
                                           tm_settings=tm, max_restarts=mt.max_restarts, stall_seconds=mt.stall_seconds,
                                           mqtt=mqtt_settings, on_progress=view.update))
    except (RunError, ValueError) as exc:
        log_file.close()
        if fresh and [p.name for p in out.iterdir()] == ["match.log"]:  # refused before it began: leave nothing
            shutil.rmtree(out, ignore_errors=True)
        fail(str(exc))
    except KeyboardInterrupt:  # the match stopped its robots and wrote its files from the store
        summary = _read_summary(out)
        if summary is not None:
            _print_recap(out, MATCH_NAME, recap, solve_seconds=0)
            view.print_summary(summary, out)
        typer.echo(f"interrupted: every finished board is stored in {out}; run the same command to continue",
                   err=True)
        raise typer.Exit(1) from None
    _print_recap(out, MATCH_NAME, recap)
    view.print_summary(result.summary, out)
    if not result.finished:
        typer.echo(f"stopped before the end: every finished board is stored in {out}; run the same command to "
                   "continue", err=True)
    raise typer.Exit(0 if result.finished else 1)


def _read_summary(out) -> Optional[dict]:
    """``out/summary.json`` as written (``None`` if it is not there or not readable)."""
    try:
        return json.loads((out / "summary.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _team_name(config: str) -> str:
    """A team name from a configuration: the preset's name, or the TOML file's stem."""
    from pathlib import Path

    return Path(config).stem if config.endswith(".toml") else config


@app.command("watch")
@engine_command()
def watch_cmd(
    settings: Settings,
    mqtt: Optional[str] = typer.Option(None, "--mqtt", metavar="URL",
                                       help="The broker: mqtt://HOST:PORT. "
                                            + _default("host and port of the mqtt settings")),
    table: Optional[str] = typer.Option(None, "--table", help="Only this table (as in the topics: match.Room). "
                                        + _default("every table")),
    event: Optional[str] = typer.Option(None, "--event", help="Only this event's tables. " + _default("every event")),
    web: Optional[int] = typer.Option(None, "--web", metavar="PORT",
                                      help="Serve a live page on this port (0: any free port) instead of the "
                                           "terminal view. " + _default("none: the terminal view")),
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


@app.command("play-web")
def play_web_cmd(
    seat: str = typer.Option("S", "--seat", help="Your seat: N, E, S or W."),
    boards: int = typer.Option(4, "--boards", metavar="N", help="Random boards 1..N (board k is the same deal for "
                                                                 "a seed); dealer and vulnerability by number."),
    boards_file: Optional[str] = typer.Option(None, "--boards-file", metavar="FILE",
                                              help="Play the boards of a PBN file (its dealer and vulnerability). "
                                                   + _default("none: random deals")),
    board_range: Optional[str] = typer.Option(None, "--board-range", metavar="FIRST-LAST",
                                              help="Play only these board numbers, e.g. 1-16. " + _default("every board")),
    seed: Optional[int] = typer.Option(None, "--seed", "-s", help="Seed of the random deals. " + _default("1")),
    out: str = typer.Option("squeeze-play", "--out", metavar="DIR",
                            help="Folder of the results store, boards.pbn and reviewed.pbn (the boards with the robots' "
                                 "notes and the review); the same command there continues its run."),
    partner: str = typer.Option("default", "--partner", metavar="CONFIG",
                                help="Your partner: a preset (fast, default, strong) or a TOML settings file."),
    opponents: str = typer.Option("default", "--opponent-robots", metavar="CONFIG",
                                  help="The opponents: a preset or a TOML settings file."),
    seconds_per_call: Optional[float] = typer.Option(None, "--seconds-per-call", metavar="S",
                                                     help="The robots' budget per call. " + _default("their configuration's")),
    seconds_per_card: Optional[float] = typer.Option(None, "--seconds-per-card", "--budget", metavar="S",
                                                     help="The robots' budget per card. " + _default("their configuration's")),
    connect: Optional[str] = typer.Option(None, "--connect", metavar="HOST:PORT",
                                          help="Sit at this Blue Chip table manager instead of starting ours and "
                                               "three robots. " + _default("none: ours")),
    protocol: Optional[int] = typer.Option(None, "--protocol", metavar="18|19",
                                           help="Protocol version your seat announces. " +
                                                _default("19 at ours (the robots' explanations), 18 with --connect")),
    team: str = typer.Option("You", "--team", help="Your side's team name."),
    web: int = typer.Option(0, "--web", metavar="PORT", help="The page's port (0: any free port)."),
    web_host: str = typer.Option("127.0.0.1", "--web-host", help="Address the page is served on."),
) -> None:
    """Sit at the table yourself: our table manager, three robots and a page in your browser where you take the
    fourth seat (a real Blue Chip connection: with --connect, at any protocol-18 table manager). Every robot call
    explained on hover or tap, only legal calls and cards, dummy after the lead, the result and running score, and
    after each board a review: all hands, the play against double dummy card by card, par; saved as PBN. Runs
    until interrupted (Ctrl-C)."""
    import asyncio
    import signal
    from pathlib import Path

    from squeeze.engine.cards import BridgeError, Seat
    from squeeze.robot.logs import configure_logging
    from squeeze.robot.play_web import PlayError, PlayOptions, run_play_web

    try:
        you = Seat.parse(seat)
    except BridgeError:
        fail(f"--seat takes N, E, S or W, got {seat!r}")
    if protocol not in (None, 18, 19):
        fail(f"--protocol takes 18 or 19, got {protocol}")
    if not 0 <= web <= 65535:
        fail(f"--web takes a port 0..65535, got {web}")
    if boards < 1:
        fail(f"--boards takes a count of 1 or more, got {boards}")
    target = None
    if connect is not None:
        host, _, port = connect.rpartition(":")
        if not host or not port.isdigit() or not 0 < int(port) < 65536:
            fail(f"--connect takes HOST:PORT, got {connect!r}")
        target = (host, int(port))
    else:
        from squeeze.robot.match import TeamSpec
        from squeeze.robot.tm.run import RunError

        for name, config in (("partner", partner), ("opponent-robots", opponents)):
            try:
                TeamSpec(name, config).check()
            except RunError as exc:
                fail(f"--{name}: {exc}")
    options = PlayOptions(seat=you, boards=boards, boards_file=boards_file, board_range=board_range,
                          seed=1 if seed is None else seed,
                          out=Path(out), partner=partner, opponents=opponents, seconds_per_call=seconds_per_call,
                          seconds_per_card=seconds_per_card, connect=target, protocol_version=protocol, team=team,
                          web_host=web_host, web_port=web)
    # the table manager and the seat log every line: to a file beside the results, not over the terminal
    try:
        Path(out).mkdir(parents=True, exist_ok=True)
        log_file = open(Path(out) / "play-web.log", "a", encoding="utf-8")
    except OSError as exc:
        fail(f"cannot write to {out}: {exc.strerror or exc}")
    configure_logging("info", "json", stream=log_file)

    async def main() -> int:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)

        def ready(url: str) -> None:
            where = f"{target[0]}:{target[1]}" if target else "our table manager, three robots"
            typer.echo(f"squeeze play-web: open {url} to play ({where}; Ctrl-C to stop)")

        return await run_play_web(options, on_ready=ready, stop=stop)

    try:
        code = asyncio.run(main())
    except PlayError as exc:
        fail(str(exc))
    finally:
        log_file.close()
    typer.echo(f"squeeze play-web: stopped; results in {out}")
    raise typer.Exit(code)


@app.command("tm-transcript")
def tm_transcript_cmd(
    path: Optional[str] = typer.Argument(None, help="A squeeze tm log (JSON lines); default: standard input."),
    table: Optional[str] = typer.Option(None, "--table", help="Only this match (or match/room). "
                                        + _default("every table")),
) -> None:
    """Print the lines a table manager exchanged, from its JSON log: time, table, seat, direction, line."""
    from squeeze.robot.tm.transcript import format_transcript, read_transcript

    _logs()

    try:
        text = sys.stdin.read() if path is None else open(path, encoding="utf-8", errors="replace").read()
    except OSError as exc:
        fail(f"cannot read {path}: {exc.strerror}")
    typer.echo(format_transcript(read_transcript(text.splitlines(), table)), nl=False)


_SELFPLAY_ENGINE_FLAGS = ("declarer_selector", "worlds", "alphamu_depth", "seconds_per_card", "inference",
                          "solver_memory_mib", "borel")


@app.command("selfplay")
@engine_command(*_SELFPLAY_FLAGS, *_SELFPLAY_ENGINE_FLAGS)
def selfplay_cmd(
    settings: Settings,
    layers: dict,
    mqtt: Optional[str] = typer.Option(None, "--mqtt", metavar="URL", help=_MQTT_HELP.replace(
        "Publish live events", "Publish every finished board's live events (the table manager's)")),
    recap: Optional[str] = typer.Option(None, "--recap", metavar="FILE",
                                        help="Also write the board-by-board recap to FILE. " + _default("none")),
) -> None:
    """Play configuration A against B on the same boards in two rooms (A N/S in the open room, E/W in the closed
    room), in-process, on a local process pool or Dask; IMPs/board with its 95 % interval, LOS, flat boards,
    bidding/play split and par-adjusted figures; boards.pbn, summary.json and imps.png under --out; at the end a
    recap of every board (both rooms' contracts and results, the swing, par).

    Each team is a preset name or a TOML settings file (a preset is read over --config, a file over --preset);
    engine flags given here (--worlds, ...) apply to both. Every board is stored as it finishes (a line per board
    when not on a terminal): the same command continues a stopped run, another configuration in the same --out is
    refused. With --mqtt, every finished board is published as the table manager publishes its tables' (tables
    selfplay.Open and selfplay.Closed; follow with squeeze watch). Exit code 0 when done or decided by --sprt, 1
    when interrupted (run it again to continue) or stopped by --strict, 2 on bad input.
    """
    import signal

    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from squeeze.robot.selfplay.run import ExecutorError, SelfPlayError, StrictStop, load_team, run_selfplay

    sp = settings.selfplay
    mqtt_settings = _mqtt_settings(settings, mqtt, embedded_ok=True)
    if recap is not None:
        _check_writable(recap)
    try:
        teams = tuple(load_team(spec, seed=sp.seed, config_file=layers["config"], preset=layers["preset"],
                                engine=layers["engine"]) for spec in (sp.a, sp.b))
    except SelfPlayError as exc:
        fail(str(exc))
    if teams[0].params == teams[1].params:
        typer.secho(f"warning: team A and team B are the same configuration ({sp.a} and {sp.b}): both rooms play "
                    "alike, most boards will be flat, and the run measures nothing but noise", err=True,
                    fg=typer.colors.YELLOW)
    events = _start_events(mqtt_settings)
    # SIGTERM stops the run as Ctrl-C does: the store keeps what finished, the files are written from it
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    columns = (TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
               TextColumn("{task.fields[imps]}"),
               TimeElapsedColumn(), TextColumn("left {task.fields[eta]}"))
    terminal = sys.stderr.isatty()
    with Progress(*columns, console=None, transient=False, disable=not terminal) as bar:
        task = bar.add_task(f"{teams[0].name} v {teams[1].name}", total=sp.boards, imps="", eta="?")
        counted = {"done": 0, "swings": []}

        def show(p) -> None:
            s = p.summary
            imps = "" if s.boards == 0 else f"{s.mean:+.2f} IMPs/board" + (
                "" if s.boards < 2 else f" ± {s.high - s.mean:.2f}")
            eta = p.eta_seconds
            left = "?" if eta != eta else f"{int(eta) // 3600}:{int(eta) % 3600 // 60:02d}:{int(eta) % 60:02d}"
            bar.update(task, completed=p.done, imps=imps, eta=left)

        def board_line(f) -> None:  # off a terminal: a line per board as it is stored (the bar shows it on one)
            from squeeze.robot.recap import result_text

            counted["done"] += 1
            if terminal:
                return
            if f.error is not None:
                what = f"voided ({f.error.splitlines()[0]})"
            else:
                counted["swings"].append(f.comparison.swing)
                n = len(counted["swings"])
                what = (f"open {result_text(f.open)}, closed {result_text(f.closed)}: {f.comparison.swing or 0:+d} "
                        f"IMPs to A; A {sum(counted['swings']) / n:+.2f} IMPs/board over {n} boards")
            typer.echo(f"squeeze selfplay: board {f.board}: {what} ({counted['done']} this session)", err=True)

        try:
            report = run_selfplay(sp, teams, progress=show, on_board=board_line,  # type: ignore[arg-type]
                                  events=events)
        except (SelfPlayError, ExecutorError) as exc:
            bar.stop()
            _close_events(events)
            fail(str(exc), code=1 if isinstance(exc, StrictStop) else 2)
    _close_events(events)
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
        verdict = "undecided" if s["sprt"]["verdict"] == "continue" else s["sprt"]["verdict"]
        line += f"; SPRT {verdict} after {s['sprt']['boards']} boards (LLR {s['sprt']['llr']:.2f})"
    _print_recap(report.out, "selfplay", recap)
    typer.echo(line)
    typer.echo(f"results in {report.out}" + (" (interrupted: run the same command to continue)"
                                             if report.stopped == "interrupted" else ""))
    raise typer.Exit(1 if report.stopped == "interrupted" else 0)


def _check_writable(path: str) -> None:
    """Exit with a clear error now if ``path`` cannot be written (before a run spends its time)."""
    import os

    folder = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(path) or not os.path.isdir(folder) or not os.access(folder, os.W_OK):
        fail(f"cannot write {path}: {'a directory' if os.path.isdir(path) else 'no writable folder'}")


def _print_recap(out, match: str, recap_file: Optional[str], solve_seconds: float = 10.0) -> None:
    """The board-by-board recap of ``match`` in the store under ``out``: printed, and written to ``recap_file``."""
    import os

    from squeeze.robot.recap import format_recap, recap_from_store

    try:
        rows, teams = recap_from_store(out, match, solve_seconds=solve_seconds, threads=os.cpu_count() or 1)
    except Exception as exc:  # (the verdict stands without its recap: say why, do not fail the run)
        typer.echo(f"warning: no recap: {exc}", err=True)
        return
    if not rows:
        return
    text = format_recap(rows, teams)
    typer.echo(text, nl=False)
    if recap_file is not None:
        try:
            with open(recap_file, "w", encoding="utf-8") as f:
                f.write(text)
        except OSError as exc:
            typer.echo(f"warning: cannot write the recap to {recap_file}: {exc.strerror or exc}", err=True)


def _start_events(mqtt: MqttSettings):
    """A started ``BackgroundPublisher`` of ``[mqtt]`` (``None`` when off); exits with the reason if its broker
    cannot be reached or started."""
    if not mqtt.enabled:
        return None
    from squeeze.robot.events import BackgroundPublisher

    try:
        events = BackgroundPublisher(mqtt)
        events.start()
    except (OSError, ValueError) as exc:
        fail(str(exc))
    where = "the embedded broker at " if mqtt.embedded else ""
    typer.echo(f"squeeze: publishing events to {where}{events.url}", err=True)
    return events


def _close_events(events) -> None:
    if events is not None:
        stats = events.close()
        typer.echo(f"squeeze: events: {stats.published} published, {stats.dropped} dropped", err=True)


# --- squeeze tournament -------------------------------------------------------------------------------------------
# [tournament] flags, defaulting to "from settings" like every group of _FLAG_GROUPS (keys carry a ``tn_`` prefix).
_TOURNAMENT_FLAGS: dict[str, Any] = {f"tn_{field}": flag for field, flag in {
    "entrants": _flag(list[str], ("--entrant", "-e"), "NAME=SPEC"),
    "format": _flag(str, "--format"),
    "boards": _flag(int, ("--boards", "-n"), "N"),
    "boards_file": _flag(str, "--boards-file", "FILE"),
    "sprt": _flag(str, "--sprt", "M0,M1"),
}.items()} | {  # the flags of the settings self-play and tournaments share ([selfplay]'s names; help: [tournament]'s)
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
    leader: Optional[str] = typer.Option(None, "--leader", "-l", help="Score every opening lead of this seat. "
                                         + _default("none: the whole table")),
    trump: Optional[str] = typer.Option(None, "--trump", "-t", help="Strain for --leader: C, D, H, S or NT. "
                                        + _default("none")),
    vul: str = typer.Option("None", "--vul", "-v", help="Vulnerability for the par: None, NS, EW or All."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """Double-dummy table of DEAL (tricks for each declarer in each strain) and its par (the contract neither side
    gains by bidding past, double dummy, at --vul); or with --leader/--trump the double-dummy score of every
    opening lead (tricks for the leader's side)."""
    from squeeze.engine.cards import BridgeError, Deal, Seat, Strain, Vul
    from squeeze.engine.dds import Position, Solver
    from squeeze.engine.scoring import par

    try:
        d = Deal.parse(deal_text)
        v = Vul.parse(vul)
    except BridgeError as exc:
        fail(f"bad deal: {exc}" if "vulnerab" not in str(exc) else str(exc))
    if (leader is None) != (trump is None):
        fail("--leader and --trump go together (e.g. --leader W --trump H)")
    from squeeze.engine.dds import _solver

    play_settings = _engine_params(settings).play
    solver = Solver(play_settings.solver_tt_mib)
    _solver.set_core_variant(play_settings.solver_core)
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
        typer.echo(f"{seat.title} leads, {'notrump' if strain == Strain.NOTRUMP else strain.name.lower()}: "
                   f"tricks for {seat.side_name}")
        for c, v in scores.items():
            typer.echo(f"  {c}  {v}")
        return
    table = solver.solve_table(d)
    par_ns, par_contract = par(table, v)
    if as_json:
        typer.echo(json.dumps({"deal": d.to_pbn(), "tricks": table.to_dict(),
                               "par": {"vul": v.pbn, "score_ns": par_ns,
                                       "contract": None if par_contract is None else str(par_contract)}}))
        return
    typer.echo(d.diagram())
    typer.echo("Tricks for declarer:")
    typer.echo(str(table))
    typer.echo(f"Par, vulnerable {v.pbn}: " + ("passed out, 0" if par_contract is None else
                                               f"{par_contract.text}, {par_ns:+d} for NS"))


def main() -> None:  # pragma: no cover - console entry for `python -m robot.cli`
    app()


if __name__ == "__main__":  # pragma: no cover
    main()

"""The ``squeeze`` command line (typer + rich). Each sub-command is a thin shell over engine/protocol/robot APIs."""

from __future__ import annotations

import json
import sys
from typing import Optional

import typer

from squeeze.engine.cards import BridgeError, Deal, Seat, dealer_for_board, vul_for_board

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    help="Squeeze: a contract-bridge robot for Blue Chip table managers, with its own double-dummy solver.",
)


@app.callback()
def _root() -> None:
    """Squeeze: a contract-bridge robot for Blue Chip table managers, with its own double-dummy solver."""


def fail(message: str, code: int = 2) -> None:
    """Print a clear error for bad input and exit (no traceback for a user's typo)."""
    typer.secho(f"error: {message}", err=True, fg=typer.colors.RED)
    raise typer.Exit(code)


@app.command()
def deal(
    board: int = typer.Option(1, "--board", "-b", min=1, help="Board number: sets dealer and vulnerability."),
    seed: Optional[int] = typer.Option(None, "--seed", "-s", help="Random seed (same seed, same deal)."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of a diagram."),
    bid: bool = typer.Option(False, "--bid", help="Also bid the board with four copies of the robot's bidder."),
    system: str = typer.Option("sayc", "--system", help="Bidding system for --bid (config/systems/<name>.toml)."),
    play: bool = typer.Option(False, "--play", help="Bid the board, play it out with four robot players, score it."),
    worlds: int = typer.Option(20, "--worlds", min=1, max=256, help="Worlds sampled per card (--play)."),
    budget: float = typer.Option(2.0, "--budget", min=0.0, help="Seconds per declarer card for αμ beyond M=1."),
    pbn_out: Optional[str] = typer.Option(None, "--pbn", help="Write the board (auction, play, score) as PBN here."),
) -> None:
    """Deal a random board: dealer, vulnerability, a hand diagram and the PBN deal string (and its auction and play).

    With --play, one whole board at a table of four robots, each seeing only its own seat: bidding with every call
    explained, αμ declarer play and PIMC defence with the reason for every card, and the duplicate score.
    """
    import os
    import random

    from squeeze.engine.record import BoardRecord

    if pbn_out is not None:  # refuse a path that cannot be written before spending time on the board
        folder = os.path.dirname(os.path.abspath(pbn_out))
        if os.path.isdir(pbn_out) or not os.path.isdir(folder) or not os.access(folder, os.W_OK):
            fail(f"cannot write {pbn_out}: {'a directory' if os.path.isdir(pbn_out) else 'no writable folder'}")
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
        settings = _play_settings(worlds=worlds, max_m=3, budget=budget)
        robot_seed = seed if seed is not None else rng.getrandbits(31)
        try:
            record, board_play = play_board(board, d, {s: Player(system, settings, seed=robot_seed) for s in Seat},
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


def _play_settings(*, worlds: int, max_m: int, budget: float, declarer_selector: str = "alphamu",
                   inference: bool = True):
    """The card player's settings from the command line (exits with a clear error on a bad value)."""
    from squeeze.engine.play.card_player import PlaySettings

    try:
        return PlaySettings(declarer_selector=declarer_selector, worlds_declarer=worlds,  # type: ignore[arg-type]
                            worlds_defender=worlds, max_m=max_m, declarer_budget_s=budget, inference=inference)
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
def bid(
    hand: Optional[str] = typer.Argument(None, help="Hand S.H.D.C, e.g. AK94.T82.K73.QJ5 (omit with --batch)."),
    auction: str = typer.Argument("", help="Calls so far from the dealer, blank-separated: '1N P'."),
    dealer: str = typer.Option("N", "--dealer", "-d", help="Dealer seat N/E/S/W."),
    vul: str = typer.Option("None", "--vul", "-v", help="Vulnerability None, N-S, E-W or Both."),
    system: str = typer.Option("sayc", "--system", help="Our bidding system (config/systems/<name>.toml)."),
    opponents: Optional[str] = typer.Option(None, "--opponents", help="The opponents' system (default: ours)."),
    batch: bool = typer.Option(False, "--batch", help='Read JSON lines {"id","hand","auction","dealer","vul"}.'),
    explain: bool = typer.Option(False, "--explain", help="Also print what every earlier call shows and denies."),
) -> None:
    """Choose a call for one hand and auction and say why; or answer JSON lines with --batch."""
    from squeeze.engine.bidding import Bidder, BiddingSystemError
    from squeeze.engine.bidding.requests import answer_record, parse_request

    try:
        bidder = Bidder(system, opponents)
    except BiddingSystemError as e:
        fail(str(e))
    if batch:
        out = sys.stdout
        for n, line in enumerate(sys.stdin, 1):
            if not line.strip():
                continue
            try:
                rec = json.loads(line)
                res = answer_record(bidder, rec)
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
def play_cmd(
    deal_text: str = typer.Argument(..., metavar="DEAL", help='PBN deal, e.g. "N:AK94.T82.K73.QJ5 ... ... ...".'),
    contract: str = typer.Option(..., "--contract", "-c", help="Contract with its declarer, e.g. 3NS or 4HXE."),
    lead: Optional[str] = typer.Option(None, "--lead", help="Opening lead, e.g. SQ (default: the robot leads)."),
    worlds: int = typer.Option(20, "--worlds", min=1, max=256, help="Worlds sampled per decision."),
    max_m: int = typer.Option(3, "--max-m", min=1, max=8, help="Deepest αμ iteration (declarer)."),
    budget: float = typer.Option(2.0, "--budget", min=0.0, help="Seconds per declarer card for αμ beyond M=1."),
    declarer_selector: str = typer.Option("alphamu", "--declarer", help="Declarer's selector: alphamu or pimc."),
    inference: bool = typer.Option(True, "--inference/--no-inference", help="Weight worlds by the cards seen."),
    seed: int = typer.Option(0, "--seed", "-s",
                             help="Random seed (same seed, same play, unless the budget cuts an αμ search short)."),
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
    settings = _play_settings(worlds=worlds, max_m=max_m, budget=budget, declarer_selector=declarer_selector,
                              inference=inference)
    try:
        player = CardPlayer(settings)
    except SolverUnavailable as exc:
        fail(str(exc))
    log: list[dict] = []
    if lead is not None:
        log.append({"seat": c.declarer.lho.letter, "card": str(p.cards[0]), "reason": "given"})
    for p, dec in play_out(p, player, seed):
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


@app.command("solve")
def solve_cmd(
    deal_text: str = typer.Argument(..., metavar="DEAL", help='PBN deal, e.g. "N:AK94.T82.K73.QJ5 ... ... ..."'),
    leader: Optional[str] = typer.Option(None, "--leader", "-l", help="Score every opening lead of this seat."),
    trump: Optional[str] = typer.Option(None, "--trump", "-t", help="Strain for --leader: C, D, H, S or NT."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """Double-dummy table of DEAL (tricks for each declarer in each strain), or with --leader/--trump the
    double-dummy score of every opening lead (tricks for the leader's side)."""
    from squeeze.engine.cards import Strain
    from squeeze.engine.dds import Position, solve_cards, solve_table

    try:
        d = Deal.parse(deal_text)
    except BridgeError as exc:
        fail(f"bad deal: {exc}")
    if (leader is None) != (trump is None):
        fail("--leader and --trump go together (e.g. --leader W --trump H)")
    if leader is not None:
        try:
            seat, strain = Seat.parse(leader), Strain.parse(trump)  # type: ignore[arg-type]
        except BridgeError as exc:
            fail(str(exc))
        scores = solve_cards(Position.from_deal(d, seat), strain)
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
    table = solve_table(d)
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

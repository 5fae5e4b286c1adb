"""The ``squeeze`` command line (typer + rich). Each sub-command is a thin shell over engine/protocol/robot APIs."""

from __future__ import annotations

import json
import sys
from typing import Optional

import typer

from engine.cards import BridgeError, Deal, Seat, dealer_for_board, vul_for_board

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
) -> None:
    """Deal a random board: dealer, vulnerability, a hand diagram and the PBN deal string."""
    import random

    rng = random.Random(seed)
    d = Deal.random(rng)
    dealer, vul = dealer_for_board(board), vul_for_board(board)
    pbn = d.to_pbn(dealer)
    if as_json:
        typer.echo(json.dumps({"board": board, "dealer": dealer.letter, "vul": vul.pbn, "deal": pbn}))
        return
    typer.echo(f"Board {board}   Dealer {dealer.name.title()}   Vulnerable {vul.pbn}")
    typer.echo(d.diagram())
    typer.echo(f'[Deal "{pbn}"]')


@app.command()
def score(
    contract: str = typer.Argument(..., help="Contract like 4H, 3N, 6SXX (a declarer suffix such as 3NS is allowed)."),
    declarer: Optional[str] = typer.Argument(None, help="Declarer seat N/E/S/W (if not in the contract)."),
    tricks: Optional[int] = typer.Argument(None, help="Tricks taken by declarer, 0..13."),
    vul: str = typer.Option("None", "--vul", help="None, NS, EW or Both."),
    as_json: bool = typer.Option(False, "--json", help='Print {"score": n}.'),
) -> None:
    """Duplicate score of declarer's side (negative when the contract goes down)."""
    from engine.auction import Contract
    from engine.cards import Vul
    from engine.scoring import score as _score

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


def main() -> None:  # pragma: no cover - console entry for `python -m robot.cli`
    app()


if __name__ == "__main__":  # pragma: no cover
    main()

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


def main() -> None:  # pragma: no cover - console entry for `python -m robot.cli`
    app()


if __name__ == "__main__":  # pragma: no cover
    main()

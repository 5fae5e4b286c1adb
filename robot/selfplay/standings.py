"""``standings.json``: a tournament's standings (``squeeze tournament``), one versioned schema with a parser that
checks every field, as ``robot.summary`` is for a match.

Every figure is computed by ``engine.stats`` over swings that ``engine.teams`` computed; this module only gathers
them. A pairing is one two-room match (its first entrant, ``a``, sits N/S in the open room and E/W in the closed
room); its swings are IMPs to ``a``.

=================== =========================================================================================
``schema``          ``STANDINGS_SCHEMA`` (a reader refuses any other)
``format``          ``round-robin`` or ``gauntlet``
``seed``            the seed of the deals and of the robots
``boards``          boards planned per pairing (every pairing plays the same boards: board k is one deal)
``boards_file``     the PBN file the boards came from (null: seeded deals)
``finished``        every pairing is finished or decided
``entrants``        ranked, best first: ``rank``, ``name``, ``config`` (a preset, a TOML file or ``cmd:COMMAND``),
                    ``pairings`` (its matches), ``boards`` (boards scored over all its pairings), IMPs per board
                    against the field with ``stderr``, ``interval95`` and ``los`` (the chance that it is better than
                    the field's average), ``imps`` (net) and ``vp`` (its VPs added over its pairings, each on the
                    WBF 20-VP scale for that pairing's boards; null before its first board). The standard error
                    is clustered by deal (``engine.stats.clustered_mean_se``): an entrant's swings on one deal
                    against several opponents share the deal's luck. Ranked by IMPs per board (an entrant without
                    a board last), then VPs, then name.
``pairings``        each match: ``match`` (its name in the results store), ``a``, ``b``, ``via`` (``in-process``
                    or ``table-manager``: an external robot's), ``planned``, ``boards`` scored, ``voided``,
                    IMPs per board for ``a`` with ``stderr``, ``interval95``, ``los``, ``imps`` ``{"a", "b"}``,
                    ``imps_a`` (net), ``vp`` ``{"a", "b"}`` (null before a board), ``flat``, ``sprt`` (a gauntlet
                    with ``--sprt``: ``robot.summary.SprtFigures``; else null) and ``state``: ``playing``,
                    ``finished`` (every planned board scored or voided) or ``decided`` (by its SPRT)
``matrix``          ``{row: {column: {"imps_per_board", "los", "boards"}}}``: the row entrant's figures against the
                    column entrant, for each pair that meets (both ways round)
=================== =========================================================================================

Numbers are rounded to six decimals, NaN (unknown) is null. Nothing in the file depends on time or on the order in
which boards finished: the same boards give the same bytes (``to_json``). ``build_standings`` is pure;
``parse_standings`` reads a file back and checks each field and that the parts agree (the matrix and each entrant's
totals with its pairings), raising ``StandingsError``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Literal, Mapping, Optional, Sequence

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from squeeze.engine.stats import imp_summary, victory_points
from squeeze.engine.teams import gross_imps

from ..summary import Figure, ImpFigures, Pair, SprtFigures, figure, imp_figures
from ..versioned import field_errors, load_versioned

__all__ = ["STANDINGS_SCHEMA", "StandingsError", "EntrantStanding", "PairingStanding", "MatrixCell", "Standings",
           "PairingResult", "build_standings", "parse_standings"]

STANDINGS_SCHEMA = 1
#: How far two figures rounded apart may differ (a LOS and its complement, a sum of rounded VPs).
_TOLERANCE = 1e-5


class StandingsError(ValueError):
    """A ``standings.json`` that is not one of this schema; the message says which field is wrong and why."""


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


class EntrantStanding(ImpFigures):
    rank: int = Field(ge=1)
    name: str = Field(min_length=1)
    config: str
    pairings: int = Field(ge=0)
    boards: int = Field(ge=0)
    imps: int
    vp: Figure


class PairingStanding(ImpFigures):
    match: str = Field(min_length=1)
    a: str
    b: str
    via: Literal["in-process", "table-manager"]
    planned: int = Field(ge=1)
    boards: int = Field(ge=0)
    voided: int = Field(ge=0)
    imps: Pair[int]
    imps_a: int
    vp: Optional[Pair[Figure]]
    flat: int = Field(ge=0)
    sprt: Optional[SprtFigures]
    state: Literal["playing", "finished", "decided"]

    @model_validator(mode="after")
    def _consistent(self) -> "PairingStanding":
        if self.a == self.b:
            raise ValueError(f"a pairing of {self.a!r} against itself")
        if self.boards + self.voided > self.planned:
            raise ValueError(f"{self.boards} boards scored and {self.voided} voided of {self.planned} planned")
        if self.imps_a != self.imps.a - self.imps.b:
            raise ValueError(f"imps_a is {self.imps_a} but imps are {self.imps.a}-{self.imps.b}")
        if self.flat > self.boards:
            raise ValueError(f"{self.flat} flat boards of {self.boards}")
        if (self.vp is None) != (self.boards == 0):
            raise ValueError("vp is null exactly when no board is scored")
        decided = self.sprt is not None and self.sprt.verdict != "continue"
        complete = self.boards + self.voided == self.planned
        wanted = "decided" if decided else "finished" if complete else "playing"
        if self.state != wanted:
            raise ValueError(f"state is {self.state!r} but the boards and the SPRT say {wanted!r}")
        return self


class MatrixCell(_Model):
    imps_per_board: Figure
    los: Optional[float] = Field(ge=0, le=1)
    boards: int = Field(ge=0)


class Standings(_Model):
    """The whole ``standings.json`` (module doc)."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True, populate_by_name=True)

    schema_version: Literal[1] = Field(STANDINGS_SCHEMA, alias="schema")
    format: Literal["round-robin", "gauntlet"]
    seed: int
    boards: int = Field(ge=1)
    boards_file: Optional[str]
    finished: bool
    entrants: list[EntrantStanding]
    pairings: list[PairingStanding]
    matrix: dict[str, dict[str, MatrixCell]]

    @model_validator(mode="after")
    def _consistent(self) -> "Standings":
        names = [e.name for e in self.entrants]
        if len(set(names)) != len(names):
            raise ValueError("entrant names repeat")
        if [e.rank for e in self.entrants] != list(range(1, len(names) + 1)):
            raise ValueError("entrants are listed by rank, 1 to n")
        if len({p.match for p in self.pairings}) != len(self.pairings):
            raise ValueError("match names repeat")
        pairs = [frozenset((p.a, p.b)) for p in self.pairings]
        if len(set(pairs)) != len(pairs):
            raise ValueError("two pairings of the same entrants")
        cells: dict[tuple[str, str], MatrixCell] = {}
        for p in self.pairings:
            for who in (p.a, p.b):
                if who not in names:
                    raise ValueError(f"pairing {p.match!r}: {who!r} is not an entrant")
            if p.planned != self.boards:
                raise ValueError(f"pairing {p.match!r} plans {p.planned} boards, the tournament {self.boards}")
            cells[(p.a, p.b)] = MatrixCell(imps_per_board=p.imps_per_board, los=p.los, boards=p.boards)
        listed = {(row, col): cell for row, cols in self.matrix.items() for col, cell in cols.items()}
        if set(listed) != set(cells) | {(b, a) for a, b in cells}:
            raise ValueError("the matrix has a cell for each pair that meets, both ways round, and no other")
        for (a, b), cell in cells.items():
            mine, theirs = listed[(a, b)], listed[(b, a)]
            if mine != cell:
                raise ValueError(f"matrix {a} v {b} disagrees with the pairing's figures")
            mirrored = (theirs.boards == cell.boards
                        and theirs.imps_per_board == (None if cell.imps_per_board is None else -cell.imps_per_board)
                        and (theirs.los is None) == (cell.los is None)
                        and (cell.los is None or abs(theirs.los - (1 - cell.los)) <= _TOLERANCE))  # type: ignore
            if not mirrored:
                raise ValueError(f"matrix {b} v {a} is not the mirror of {a} v {b}")
        for e in self.entrants:
            mine = [p for p in self.pairings if e.name in (p.a, p.b)]
            played = [p for p in mine if p.boards]
            if e.pairings != len(mine) or e.boards != sum(p.boards for p in mine):
                raise ValueError(f"entrant {e.name!r}: its pairings and boards do not add up to its pairings'")
            if e.imps != sum(p.imps_a if p.a == e.name else -p.imps_a for p in mine):
                raise ValueError(f"entrant {e.name!r}: its IMPs do not add up to its pairings'")
            vps = [p.vp.a if p.a == e.name else p.vp.b for p in played]  # type: ignore[union-attr]
            if (e.vp is None) != (not played) or (e.vp is not None and any(v is None for v in vps)) or (
                    e.vp is not None and abs(e.vp - sum(vps)) > _TOLERANCE * len(vps)):  # type: ignore[arg-type]
                raise ValueError(f"entrant {e.name!r}: its VPs do not add up to its pairings'")
        if self.finished != all(p.state != "playing" for p in self.pairings):
            raise ValueError("finished says otherwise than the pairings' states")
        return self

    def to_dict(self) -> dict:
        return self.model_dump(mode="json", by_alias=True)

    def to_json(self) -> str:
        """The file's text (keys sorted, one space indents, a final newline)."""
        return json.dumps(self.to_dict(), indent=1, sort_keys=True) + "\n"

    @property
    def leader(self) -> Optional[EntrantStanding]:
        """The entrant ranked first, once it has a board."""
        return self.entrants[0] if self.entrants and self.entrants[0].boards else None


def parse_standings(text: str | bytes) -> Standings:
    """The standings a ``standings.json`` holds, every field checked.

    Raises:
        StandingsError: not JSON, another schema, a field missing, unknown, of the wrong type or out of range, or
            parts that disagree.
    """
    load_versioned(text, STANDINGS_SCHEMA, "a standings file", StandingsError)
    try:
        return Standings.model_validate_json(text)
    except ValidationError as exc:
        raise StandingsError(f"bad standings: {field_errors(exc, top='standings')}") from None


# --- building -----------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PairingResult:
    """What the standings need of one pairing: its entrants, how it is played, its swings (board -> IMPs to ``a``),
    its boards voided and its SPRT's state (``None``: no SPRT)."""

    match: str
    a: str
    b: str
    via: str
    planned: int
    swings: Mapping[int, int]
    voided: int
    sprt: Optional[SprtFigures] = None


def _pairing(p: PairingResult) -> PairingStanding:
    swings = [s for _, s in sorted(p.swings.items())]
    a, b = gross_imps(swings)
    vp = victory_points(a - b, len(swings)) if swings else None
    decided = p.sprt is not None and p.sprt.verdict != "continue"
    state = "decided" if decided else "finished" if len(swings) + p.voided == p.planned else "playing"
    return PairingStanding(match=p.match, a=p.a, b=p.b, via=p.via, planned=p.planned,  # type: ignore[arg-type]
                           boards=len(swings), voided=p.voided, **imp_figures(imp_summary(swings)),
                           imps=Pair[int](a=a, b=b), imps_a=a - b,
                           vp=None if vp is None else Pair[Figure](a=figure(vp[0]), b=figure(vp[1])),
                           flat=swings.count(0), sprt=p.sprt, state=state)  # type: ignore[arg-type]


def _entrant(name: str, config: str, pairings: Sequence[PairingResult], figures: Sequence[PairingStanding]) -> dict:
    values: list[int] = []
    deals: list[int] = []
    vp: list[float] = []
    mine = 0
    for p, f in zip(pairings, figures):
        if name not in (p.a, p.b):
            continue
        mine += 1
        sign = 1 if name == p.a else -1
        for board, swing in sorted(p.swings.items()):
            values.append(sign * swing)
            deals.append(board)
        if f.vp is not None:
            vp.append(f.vp.a if name == p.a else f.vp.b)  # type: ignore[arg-type]
    return {"name": name, "config": config, "pairings": mine, "boards": len(values), "imps": sum(values),
            "vp": figure(sum(vp)) if vp else None, **imp_figures(imp_summary(values, deals=deals))}


def build_standings(*, format: str, seed: int, boards: int, boards_file: Optional[str],
                    entrants: Sequence[tuple[str, str]], pairings: Sequence[PairingResult]) -> Standings:
    """The standings of ``entrants`` (``(name, config)``, in the tournament's order) after ``pairings``."""
    figures = [_pairing(p) for p in pairings]
    rows = [_entrant(name, config, pairings, figures) for name, config in entrants]
    rows.sort(key=lambda e: (e["imps_per_board"] is None, -(e["imps_per_board"] or 0.0), -(e["vp"] or 0.0),
                             e["name"]))
    matrix: dict[str, dict[str, MatrixCell]] = {}
    for p, f in zip(pairings, figures):
        matrix.setdefault(p.a, {})[p.b] = MatrixCell(imps_per_board=f.imps_per_board, los=f.los, boards=f.boards)
        back = imp_summary([-s for _, s in sorted(p.swings.items())])
        matrix.setdefault(p.b, {})[p.a] = MatrixCell(imps_per_board=figure(back.mean), los=figure(back.los),
                                                     boards=f.boards)
    return Standings(format=format, seed=seed, boards=boards, boards_file=boards_file,  # type: ignore[arg-type]
                     finished=all(f.state != "playing" for f in figures),
                     entrants=[EntrantStanding(rank=i, **row) for i, row in enumerate(rows, 1)],
                     pairings=figures, matrix=matrix)

"""``summary.json``: one schema for the figures of every run that plays boards - the table manager (``squeeze tm``),
a team match (``squeeze match``), self-play (``squeeze selfplay``) and a tournament (``squeeze tournament``: a
match per pairing; its standings are ``robot.selfplay.standings``).

``MatchSummary`` is the file. Its top level is the run's match (the only one; a table manager hosting several
names none there and lists them under ``matches`` only), and ``matches`` holds each match of the run by name, as a
``MatchFigures``. Figures are from team A's side (A sits N/S in the open room and E/W in the closed room,
``engine.teams``); the keys ``a`` and ``b`` name the two teams wherever a figure is per team (``teams`` gives their
names, which may be the same: self-play of a configuration against itself).

A match's figures (``MatchFigures``, and the top level):

=================== =========================================================================================
``teams``           ``{"a": name, "b": name}`` (null: that team never connected)
``rooms``           1 or 2
``played``          boards finished in each room (``Open``, ``Closed``; ``table`` for a single table)
``boards``          boards scored: both rooms finished (two rooms), finished (one room)
``imps_per_board``, ``stderr``, ``interval95`` ``[low, high]``, ``los``: team A's IMPs per board, its standard
                    error, 95 % interval and likelihood of superiority (null: one room, no board, or one board
                    for the spread)
``imps``            ``{"a", "b"}``: the IMPs each team won; ``imps_a``: team A's net IMPs
``vp``              ``{"a", "b"}`` on the WBF 20-VP scale (null before a board is compared)
``flat``            boards with no swing; ``flat_fraction`` the share of ``boards``
``swings``          ``{"board": IMPs to team A}``
``bidding``/``play`` ``{"imps_per_board", "stderr"}``: the swing split into the contracts' double-dummy values and
                    the rest; ``par_adjusted``: the swings against the deal's par, with interval and LOS. Only
                    where the deals' double-dummy tables are known (self-play), else null
``voided``          ``{"count", "boards": [{"board", "error"}]}``: boards voided for good (no result)
``incidents``       ``{kind: count}`` of the results store's incidents (``void``: an attempt voided and replayed,
                    ``clock``, ``forced``, ``restart``; ``error``: a board voided for good); ``incident_log``: each
                    of them, ``[{"room", "board", "kind", "detail"}]`` in the order they happened (what the
                    director reads: a clock overrun names the seat and its time)
=================== =========================================================================================

The run's own fields, null where the writer does not know them: ``schema`` (``SUMMARY_SCHEMA``; a reader
refuses any other), ``source`` (``tm``, ``match``, ``selfplay`` or ``tournament``), ``match`` (the name of the match
at the top level), ``planned`` (boards in the plan), ``seed``; self-play's ``sprt``; the match's ``think_seconds``
(per team: ``decisions``, ``mean``, ``p95``, ``max``), ``finished``, ``robot_restarts``, ``problems`` and
``configs``.

Numbers are rounded to six decimals, and NaN (an unknown figure) is null: JSON has no NaN. ``parse_summary`` reads
a file back, checking every field and that the top level agrees with its match, and raises ``SummaryError``
naming what is wrong. Building is pure (records in, a model out); ``robot.tm.export`` reads the store and writes.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from typing import Generic, Iterable, Literal, Mapping, Optional, Sequence, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from squeeze.engine.board import PublicPlay
from squeeze.engine.record import BoardRecord
from squeeze.engine.stats import ImpSummary, Sprt, SprtResult, imp_summary, mean_se, victory_points
from squeeze.engine.teams import CLOSED, OPEN, BoardComparison, compare_rooms, gross_imps, side_of

from .versioned import field_errors, load_versioned

__all__ = ["SUMMARY_SCHEMA", "SOURCES", "SummaryError", "Pair", "PartFigures", "ImpFigures", "Voided", "Think",
           "SprtFigures", "MatchFigures", "MatchSummary", "parse_summary", "match_figures", "think_seconds",
           "sprt_figures", "figure", "imp_figures"]

SUMMARY_SCHEMA = 1
SOURCES = ("tm", "match", "selfplay", "tournament")
_ROOM_KEYS = (OPEN, CLOSED, "table")

T = TypeVar("T")
#: A figure: null when unknown (no board, or one board for a standard error).
Figure = Optional[float]


class SummaryError(ValueError):
    """A ``summary.json`` that is not one of this schema; the message says which field is wrong and why."""


def figure(x: Optional[float]) -> Optional[float]:
    """A number as the file holds it: rounded to six decimals, null for an unknown one (NaN)."""
    return None if x is None or math.isnan(x) else round(x, 6)


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


class Pair(_Model, Generic[T]):
    """Team A's and team B's."""

    a: T
    b: T


class PartFigures(_Model):
    imps_per_board: Figure
    stderr: Optional[float] = Field(ge=0)


class ImpFigures(PartFigures):
    interval95: tuple[Figure, Figure]
    los: Optional[float] = Field(ge=0, le=1)

    @model_validator(mode="after")
    def _ordered(self) -> "ImpFigures":
        low, high = self.interval95
        if low is not None and high is not None and low > high:
            raise ValueError(f"interval95 runs from {low} down to {high}")
        return self


class VoidedBoard(_Model):
    board: int = Field(ge=1)
    error: str


class Voided(_Model):
    count: int = Field(ge=0)
    boards: list[VoidedBoard]

    @model_validator(mode="after")
    def _counted(self) -> "Voided":
        if self.count != len(self.boards):
            raise ValueError(f"count is {self.count} but {len(self.boards)} boards are listed")
        numbers = [b.board for b in self.boards]
        if numbers != sorted(set(numbers)):
            raise ValueError("the boards are listed once each, in board order")
        return self


class Incident(_Model):
    """One incident, as the director reads it: where, which board, what kind and what happened."""

    room: str
    board: Optional[int] = Field(None, ge=1)
    kind: str = Field(min_length=1)
    detail: str


class Think(_Model):
    decisions: int = Field(ge=0)
    mean: Optional[float] = Field(ge=0)
    p95: Optional[float] = Field(ge=0)
    max: Optional[float] = Field(ge=0)


class SprtFigures(_Model):
    m0: float
    m1: float
    alpha: float = Field(gt=0, lt=0.5)
    beta: float = Field(gt=0, lt=0.5)
    verdict: Literal["H0", "H1", "continue"]
    boards: int = Field(ge=0)
    llr: Figure
    bounds: tuple[Figure, Figure]


class _Figures(ImpFigures):
    """What a match's figures and the file's top level share; ``MatchFigures`` requires what may be null at the top
    level of a run of several matches."""

    teams: Optional[Pair[Optional[str]]] = None
    rooms: Optional[Literal[1, 2]] = None
    played: Optional[dict[str, int]] = None
    boards: int = Field(ge=0)
    imps: Optional[Pair[int]] = None
    imps_a: Optional[int] = None
    vp: Optional[Pair[Figure]] = None
    flat: Optional[int] = Field(None, ge=0)
    flat_fraction: Optional[float] = Field(None, ge=0, le=1)
    swings: Optional[dict[str, int]] = None
    bidding: Optional[PartFigures] = None
    play: Optional[PartFigures] = None
    par_adjusted: Optional[ImpFigures] = None
    voided: Optional[Voided] = None
    incidents: Optional[dict[str, int]] = None
    incident_log: Optional[list[Incident]] = None

    @field_validator("played")
    @classmethod
    def _rooms_named(cls, v: Optional[dict[str, int]]) -> Optional[dict[str, int]]:
        for room, n in (v or {}).items():
            if room not in _ROOM_KEYS:
                raise ValueError(f"unknown room {room!r} (rooms: {', '.join(_ROOM_KEYS)})")
            if n < 0:
                raise ValueError(f"{room}: a count of boards is at least 0, got {n}")
        return v

    @field_validator("swings")
    @classmethod
    def _boards_numbered(cls, v: Optional[dict[str, int]]) -> Optional[dict[str, int]]:
        for board in v or {}:
            if not board.isdigit() or int(board) < 1 or str(int(board)) != board:
                raise ValueError(f"a swing is keyed by its board number, got {board!r}")
        return v

    @field_validator("incidents")
    @classmethod
    def _counts(cls, v: Optional[dict[str, int]]) -> Optional[dict[str, int]]:
        for kind, n in (v or {}).items():
            if n < 1:
                raise ValueError(f"{kind}: an incident kind is listed when it happened, got a count of {n}")
        return v

    @model_validator(mode="after")
    def _consistent(self) -> "_Figures":
        if self.swings is not None and self.rooms == 2:
            if len(self.swings) != self.boards:
                raise ValueError(f"{self.boards} boards scored but {len(self.swings)} swings listed")
            values = list(self.swings.values())
            if self.imps_a is not None and self.imps_a != sum(values):
                raise ValueError(f"imps_a is {self.imps_a} but the swings add up to {sum(values)}")
            if self.imps is not None and (self.imps.a, self.imps.b) != gross_imps(values):
                raise ValueError(f"imps are {self.imps.a}-{self.imps.b} but the swings give "
                                 "{0}-{1}".format(*gross_imps(values)))
            if self.flat is not None and self.flat != values.count(0):
                raise ValueError(f"flat is {self.flat} but {values.count(0)} swings are 0")
        if self.incident_log is not None and self.incidents is not None and \
                dict(Counter(i.kind for i in self.incident_log)) != self.incidents:
            raise ValueError("incidents do not count the incident log's kinds")
        if self.flat is not None and self.flat > self.boards:
            raise ValueError(f"{self.flat} flat boards of {self.boards}")
        return self


class MatchFigures(_Figures):
    """One match of a run (the module doc's table)."""

    teams: Pair[Optional[str]]
    rooms: Literal[1, 2]
    played: dict[str, int]
    swings: dict[str, int]
    voided: Voided
    incidents: dict[str, int]
    incident_log: list[Incident]


_FIGURE_FIELDS = tuple(_Figures.model_fields)


class MatchSummary(_Figures):
    """The whole ``summary.json`` (module doc)."""

    model_config = ConfigDict(populate_by_name=True)

    schema_version: Literal[1] = Field(SUMMARY_SCHEMA, alias="schema")
    source: Literal["tm", "match", "selfplay", "tournament"]
    match: Optional[str] = None
    matches: dict[str, MatchFigures]
    planned: Optional[int] = Field(None, ge=0)
    seed: Optional[int] = None
    sprt: Optional[SprtFigures] = None
    think_seconds: Optional[Pair[Think]] = None
    finished: Optional[bool] = None
    robot_restarts: Optional[int] = Field(None, ge=0)
    problems: Optional[list[str]] = None
    configs: Optional[Pair[Optional[str]]] = None

    @model_validator(mode="after")
    def _top_is_the_match(self) -> "MatchSummary":
        if self.match is not None:
            if self.match not in self.matches:
                raise ValueError(f"match {self.match!r} is not among the matches ({', '.join(self.matches)})")
            one = self.matches[self.match]
            for name in _FIGURE_FIELDS:
                if getattr(self, name) != getattr(one, name):
                    raise ValueError(f"{name} at the top level differs from match {self.match!r}'s")
        else:
            if len(self.matches) == 1:
                raise ValueError("a run of one match names it (match)")
            given = [n for n in _FIGURE_FIELDS if n != "boards" and getattr(self, n) not in (None, (None, None))]
            if given:
                raise ValueError(f"a run of {len(self.matches)} matches has its figures under matches only, "
                                 f"not at the top level: {', '.join(given)}")
            total = sum(m.boards for m in self.matches.values())
            if self.boards != total:
                raise ValueError(f"boards is {self.boards} but the matches scored {total}")
        return self

    @classmethod
    def of(cls, source: str, matches: Mapping[str, MatchFigures], **run) -> "MatchSummary":
        """The file of a run whose matches are ``matches``: the top level is the only match's figures (or, with
        several, their boards only); ``run``: the run's own fields (``planned``, ``seed``, ``sprt``, ...)."""
        if len(matches) == 1:
            ((name, one),) = matches.items()
            top = {"match": name, **{n: getattr(one, n) for n in _FIGURE_FIELDS}}
        else:
            top = {"match": None, "boards": sum(m.boards for m in matches.values()),
                   "interval95": (None, None), "imps_per_board": None, "stderr": None, "los": None}
        return cls(source=source, matches=dict(matches), **top, **run)

    def to_dict(self) -> dict:
        """The file's JSON object."""
        return self.model_dump(mode="json", by_alias=True)

    def to_json(self) -> str:
        """The file's text (keys sorted, one space indents, a final newline)."""
        return json.dumps(self.to_dict(), indent=1, sort_keys=True) + "\n"


def parse_summary(text: str | bytes) -> MatchSummary:
    """The summary a ``summary.json`` holds, every field checked.

    Raises:
        SummaryError: not JSON, another schema, or a field that is missing, unknown, of the wrong type or out of
            range, or a top level that disagrees with its match.
    """
    load_versioned(text, SUMMARY_SCHEMA, "a summary", SummaryError)
    try:
        return MatchSummary.model_validate_json(text)
    except ValidationError as exc:
        raise SummaryError(f"bad summary: {field_errors(exc, top='summary')}") from None


# --- building -----------------------------------------------------------------------------------------------------


def imp_figures(s: ImpSummary) -> dict:
    """An ``ImpFigures``' fields from an ``engine.stats.ImpSummary``, as the files hold them."""
    return {"imps_per_board": figure(s.mean), "stderr": figure(s.se),
            "interval95": (figure(s.low), figure(s.high)), "los": figure(s.los)}


def _part(values: Sequence[int]) -> PartFigures:
    mean, se = mean_se(values)
    return PartFigures(imps_per_board=figure(mean), stderr=figure(se))


def match_figures(records: Iterable[BoardRecord], *, teams: tuple[Optional[str], Optional[str]], rooms: int,
                  dd: Optional[Mapping[int, Sequence[Sequence[int]]]] = None,
                  voided: Optional[Mapping[int, str]] = None,
                  incidents: Iterable[tuple[str, Optional[int], str, str]] = ()) -> MatchFigures:
    """A match's figures from its finished records (both rooms, any order). ``dd``: the deals' double-dummy
    tables by board, when the run keeps them (then every compared board needs one, and the bidding/play split and
    the par-adjusted figures are given); ``voided``: boards voided for good, with their errors; ``incidents``: each
    incident the store holds for the match, ``(room, board, kind, detail)``."""
    records = list(records)
    played = Counter(r.room or "table" for r in records)
    voided = voided or {}
    common = {"teams": Pair[Optional[str]](a=teams[0], b=teams[1]), "rooms": rooms, "played": dict(played),
              "voided": Voided(count=len(voided), boards=[VoidedBoard(board=b, error=e)
                                                           for b, e in sorted(voided.items())]),
              "incidents": dict(Counter(kind for _r, _b, kind, _d in incidents)),
              "incident_log": [Incident(room=r, board=b, kind=k, detail=d) for r, b, k, d in incidents]}
    if rooms == 1:
        return MatchFigures(**common, boards=len(records), swings={}, interval95=(None, None), imps_per_board=None,
                            stderr=None, los=None)
    comparisons: list[BoardComparison] = compare_rooms(records, dd)
    swings = [c.swing for c in comparisons]
    flat = swings.count(0)
    a, b = gross_imps(swings)
    vp = victory_points(a - b, len(swings)) if swings else None
    parts: dict = {}
    if dd is not None:
        missing = [c.board for c in comparisons if c.bidding is None]
        if missing:
            raise ValueError(f"no double-dummy table for boards {missing}")
        parts = {"bidding": _part([c.bidding for c in comparisons]),  # type: ignore[misc]
                 "play": _part([c.play for c in comparisons]),  # type: ignore[misc]
                 "par_adjusted": ImpFigures(**imp_figures(imp_summary([c.par_swing for c in comparisons])))}
    return MatchFigures(**common, **imp_figures(imp_summary(swings)), **parts, boards=len(swings),
                        swings={str(c.board): c.swing for c in comparisons}, imps=Pair[int](a=a, b=b),
                        imps_a=sum(swings), vp=None if vp is None else Pair[Figure](a=figure(vp[0]), b=figure(vp[1])),
                        flat=flat, flat_fraction=figure(flat / len(swings)) if swings else None)


def _quantile(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))] if xs else math.nan


def think_seconds(records: Iterable[BoardRecord]) -> Pair[Think]:
    """Each team's thinking time per decision (call or card) over the records' notes: count, mean, 95th
    percentile, maximum."""
    think: dict[str, list[float]] = {"a": [], "b": []}
    for r in records:
        if r.auction is not None:
            for i, note in enumerate(r.call_notes):
                if note.seconds is not None:
                    think[side_of(r.room, r.auction.seat_of(i))].append(note.seconds)
        if r.card_notes and r.contract is not None:
            for seat, note in zip(PublicPlay(r.contract, r.play).players, r.card_notes):
                if note.seconds is not None:
                    think[side_of(r.room, seat)].append(note.seconds)

    def one(xs: list[float]) -> Think:
        return Think(decisions=len(xs), mean=figure(sum(xs) / len(xs) if xs else math.nan),
                     p95=figure(_quantile(xs, 0.95)), max=figure(max(xs) if xs else math.nan))

    return Pair[Think](a=one(think["a"]), b=one(think["b"]))


def sprt_figures(test: Sprt, state: SprtResult) -> SprtFigures:
    """The SPRT's parameters and its state after the boards it has read."""
    return SprtFigures(m0=test.m0, m1=test.m1, alpha=test.alpha, beta=test.beta,
                       verdict=state.verdict,  # type: ignore[arg-type]
                       boards=state.boards, llr=figure(state.llr), bounds=(figure(state.lower), figure(state.upper)))

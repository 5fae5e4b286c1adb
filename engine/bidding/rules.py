"""The rule language: a system file (TOML) validated by pydantic, compiled once into fast matchers.

A system file has a ``[system]`` table, optional named ``[contexts]`` and a list of ``[[rule]]`` tables::

    [[rule]]
    id = "nt.stayman"
    context = "1N P"            # pattern over the whole auction so far, ending at the seat to act
    call = "2C"
    when = "hcp >= 8 and max_len(H, S) >= 4"   # hand features + auction state (Python expression subset)
    priority = 60               # higher is tried first; ties keep file order
    force = "forcing"           # none | invitational | signoff | forcing | game_forcing
    alert = true
    artificial = true           # the call does not show its strain
    explain = "Stayman: asks for a four-card major"

**Patterns.** Space-separated tokens, matched against the whole auction (leading passes are implicit unless the
pattern starts with ``^``), so positions are implied: ``1N P`` means partner opened 1N and RHO passed.

* ``P`` ``X`` ``XX`` literal calls; ``-`` any one call; ``B`` any bid; ``Y`` any non-pass; ``Z`` pass or double;
  ``a|b`` either; a token followed by ``*`` (zero or more) or ``?`` (optional); ``*`` alone any calls.
* bids ``<level><strain>``: level ``1``-``7`` or ``.``; strain ``C D H S N`` literal, ``x`` any suit, ``.`` anything,
  or a **suit variable**: ``M O`` (majors), ``m n`` (minors), ``s t u v w`` (any suit). A variable binds at its
  first occurrence; distinct variables always name distinct suits, so ``1M P 2O`` is "the other major".

**Calls.** ``P`` ``X`` ``XX`` or ``<level><strain>`` with level ``1``-``7``, ``c`` (cheapest legal), ``j`` (one jump)
or ``jj`` (two); strain a literal or a variable. A variable not bound by the pattern is *free*: the rule stands
for one instance per suit (distinct from the bound variables), tried from spades down.

**Conditions.** ``require`` (auction state only) filters rules when the auction is read; ``when`` (hand + state)
decides for a hand. Both are restricted Python expressions, checked at load against the known names (hand features:
``features.FEATURE_NAMES`` / ``FUNCTION_NAMES``; auction state: ``STATE_NAMES``). Top-level ``and`` terms of
``when`` that name no hand feature are moved to ``require`` at load, so a call is never read as an instance no hand
could make. ``[macros]`` holds named sub-expressions; ``shows`` (an expression) names the suit an artificial call
shows; ``simulate`` marks calls a simulation bidder may weigh against the other matching candidates; ``fallback``
marks a last resort ("nothing better to bid"), never offered as an alternative to another rule's call; ``defends``
marks a pass or double that chooses to defend their contract (the escape guard does not run from it).

The engine reads no file: ``parse_system(text, name, origin)`` compiles a system's TOML text. Finding the packaged
systems and reading files is the configuration's job (``squeeze.config.bidding.load_system``).
"""

from __future__ import annotations

import ast
import hashlib
import re
import threading
import tomllib
from dataclasses import dataclass, field
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from ..cards import BridgeError

from .features import FEATURE_NAMES, FUNCTION_NAMES

__all__ = ["BiddingSystemError", "RuleSpec", "SystemSpec", "CompiledRule", "CompiledSystem", "parse_system",
           "encode", "hcp_sufficient"]

MAJOR_VARS = "MO"
MINOR_VARS = "mn"
ANY_VARS = "stuvw"
VARIABLES = MAJOR_VARS + MINOR_VARS + ANY_VARS
SUIT_LETTERS = "CDHS"

#: Auction-state names a rule may use (see ``interpreter.AuctionState``).
STATE_NAMES = (
    "vul", "ovul", "seatpos", "passed", "forced", "gf", "psuit", "pfirst", "psuits", "mysuit", "myfirst", "mysuits",
    "osuits", "lhosuit", "rhosuit", "bidsuits", "nbids", "level", "strain", "pnt", "mynt",
    "unbid", "fit", "plo", "phi", "doubled", "redoubled", "pforce", "mybids", "pbids", "obids", "contested",
    "prule", "myrule", "ourlevel", "plast", "below_game", "ppassed", "balancing", "pexp", "plen",
    "mylo", "myhi", "stuck", "trapped", "pbal",
)
CONSTANTS = {"C": 0, "D": 1, "H": 2, "S": 3, "NONE": -1, "True": True, "False": False}
_HELPERS = ("min", "max", "abs", "len", "all", "any", "range", "sum")

FORCES = ("none", "invitational", "signoff", "forcing", "game_forcing")


class BiddingSystemError(BridgeError):
    """A system file that does not load: bad TOML, a bad pattern, an unknown name in an expression."""


def encode(call_text: str) -> str:
    """Two characters per call, the alphabet patterns are compiled against: ``1C``..``7N``, ``P-``, ``X-``, ``XX``."""
    if call_text == "P":
        return "P-"
    if call_text == "X":
        return "X-"
    return call_text


class RuleSpec(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    id: str
    context: str | list[str]
    call: str
    when: str = "True"
    require: str = "True"
    priority: float = 0
    force: Literal["none", "invitational", "signoff", "forcing", "game_forcing"] = "none"
    alert: bool = False
    artificial: bool = False
    shows: str | None = None  # expression for the suit an artificial call shows, e.g. "t + 1" for a transfer
    explain: str
    group: str = ""
    # Open to simulation: a Borel bidder may weigh this call against the other matching candidates instead of
    # taking the first (GIB's "close" alternatives). The rule interpreter alone ignores it.
    simulate: bool = False
    # A last resort ("nothing better to bid"): the call is made only because no rule before it fits, so its
    # explanation is false for a hand that another rule fits, and it is never offered as an alternative.
    fallback: bool = False
    # A pass or double that chooses to defend their contract (a penalty pass of their redouble): the escape guard
    # never takes partner out of it, since our side offered to defend.
    defends: bool = False

    @field_validator("call")
    @classmethod
    def _call(cls, v: str) -> str:
        v = v.strip()
        if v in ("P", "X", "XX"):
            return v
        if not re.fullmatch(r"([1-7]|c|j|jj)([CDHSN]|[%s])" % VARIABLES, v):
            raise ValueError(f"call {v!r}: expected P, X, XX or <level><strain> (level 1-7, c, j, jj)")
        return v


class SystemSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")

    system: dict[str, str] = Field(default_factory=dict)
    macros: dict[str, str] = Field(default_factory=dict)
    contexts: dict[str, str | list[str]] = Field(default_factory=dict)
    rule: list[RuleSpec]


# --- patterns -----------------------------------------------------------------------------------------------------

_BID_STRAIN = {"C": "C", "D": "D", "H": "H", "S": "S", "N": "N", "x": "[CDHS]", ".": "[CDHSN]"}


class _PatternCompiler:
    def __init__(self, text: str, rule_id: str) -> None:
        self.text = text
        self.rule_id = rule_id
        self.bound: list[str] = []

    def _err(self, msg: str) -> BiddingSystemError:
        return BiddingSystemError(f"rule {self.rule_id}: pattern {self.text!r}: {msg}")

    def _var(self, v: str) -> str:
        if v in self.bound:
            return f"(?P={v})"
        cls = "[HS]" if v in MAJOR_VARS else "[CD]" if v in MINOR_VARS else "[CDHS]"
        distinct = "".join(f"(?!(?P={b}))" for b in self.bound)
        self.bound.append(v)
        return f"{distinct}(?P<{v}>{cls})"

    def _atom(self, tok: str) -> str:
        if "|" in tok:
            return "(?:" + "|".join(self._atom(t) for t in tok.split("|")) + ")"
        if tok == "P":
            return "P-"
        if tok == "X":
            return "X-"
        if tok == "XX":
            return "XX"
        if tok == "-":
            return ".."
        if tok == "B":
            return "[1-7][CDHSN]"
        if tok == "Y":
            return "(?:[1-7][CDHSN]|X-|XX)"
        if tok == "Z":
            return "(?:P-|X-)"
        if len(tok) == 2 and (tok[0] in "1234567."):
            lvl = "[1-7]" if tok[0] == "." else tok[0]
            st = tok[1]
            if st in _BID_STRAIN:
                return lvl + _BID_STRAIN[st]
            if st in VARIABLES:
                return lvl + self._var(st)
        raise self._err(f"bad token {tok!r}")

    def compile(self) -> tuple[re.Pattern, tuple[str, ...]]:
        t = self.text.strip()
        anchored = t.startswith("^")
        if anchored:
            t = t[1:].strip()
        out = [] if anchored else ["(?:P-)*"]
        fixed = True
        toks = t.split()
        for tok in toks:
            if tok == "*":
                out.append("(?:..)*?")
                fixed = False
                continue
            q = ""
            if len(tok) > 1 and tok[-1] in "*?":
                tok, q = tok[:-1], tok[-1]
                fixed = False
            atom = self._atom(tok)
            out.append(f"(?:{atom}){q}" if q else atom)
        # Number of calls after the leading passes, when the pattern fixes it: lets the interpreter skip patterns
        # that cannot match an auction of a given length without running their regex.
        self.core_len = (len(toks), anchored) if fixed else None
        try:
            return re.compile("".join(out)), tuple(self.bound)
        except re.error as e:  # pragma: no cover - the compiler builds only valid regexes
            raise self._err(str(e)) from None


# --- expressions --------------------------------------------------------------------------------------------------

#: CPython 3.11 keeps the AST converter's recursion counter per interpreter, not per thread: two threads turning
#: source into AST objects (``ast.parse``) or AST objects into code (``compile``) at once can corrupt it, and the
#: parse fails with "SystemError: AST constructor recursion depth mismatch" (seen when Dask worker threads loaded a
#: system together). Every parse and compile of an expression here holds this lock.
_AST_LOCK = threading.Lock()


def _parse_expr(text: str) -> ast.Expression:
    with _AST_LOCK:
        return ast.parse(text, mode="eval")


def _compile_expr(tree: ast.Expression, filename: str):
    with _AST_LOCK:
        return compile(tree, filename, "eval")


_ALLOWED_NODES = (
    ast.Expression, ast.BoolOp, ast.And, ast.Or, ast.UnaryOp, ast.Not, ast.USub, ast.BinOp, ast.Add, ast.Sub,
    ast.Mult, ast.Compare, ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.In, ast.NotIn, ast.Call,
    ast.Name, ast.Load, ast.Constant, ast.Tuple, ast.IfExp, ast.GeneratorExp, ast.comprehension, ast.Store,
    ast.List, ast.Div, ast.FloorDiv, ast.Mod, ast.Subscript,
)


def _check_expr(text: str, rule_id: str, names: set[str], what: str) -> tuple[ast.Expression, object]:
    try:
        tree = _parse_expr(text)
    except SyntaxError as e:
        raise BiddingSystemError(f"rule {rule_id}: {what} {text!r}: {e.msg}") from None
    comp_targets = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    for node in ast.walk(tree):
        if not isinstance(node, _ALLOWED_NODES):
            raise BiddingSystemError(f"rule {rule_id}: {what} {text!r}: {type(node).__name__} is not allowed")
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            if node.id not in names and node.id not in comp_targets:
                raise BiddingSystemError(f"rule {rule_id}: {what} {text!r}: unknown name {node.id!r}")
    return tree, _compile_expr(tree, f"<{rule_id}:{what}>")


def _const_suit(node: ast.AST, env: dict) -> int | None:
    if isinstance(node, ast.Name) and node.id in env:
        return env[node.id]
    return None


_FLIP = {ast.GtE: ast.LtE, ast.LtE: ast.GtE, ast.Gt: ast.Lt, ast.Lt: ast.Gt, ast.Eq: ast.Eq}


def _constant_comparisons(node: ast.Compare):
    """``(side, op, k)`` for each link of the chain ``node`` that compares a side with an integer constant ``k``,
    the constant moved to the right (``12 <= hcp`` gives ``(hcp, GtE, 12)``)."""
    items = [node.left] + list(node.comparators)
    for a, op, b in zip(items, node.ops, items[1:]):
        if type(op) not in _FLIP:
            continue
        if isinstance(b, ast.Constant) and isinstance(b.value, int):
            yield a, op, b.value
        elif isinstance(a, ast.Constant) and isinstance(a.value, int):
            yield b, _FLIP[type(op)](), a.value


def _int_bounds(node: ast.AST, env: dict) -> tuple[int, int] | None:
    """The least and greatest value an integer expression can take, or None when unknown: constants and bound suit
    variables are exact, a truth value (a comparison of auction facts, ``level >= 3``) is 0 or 1 unless every name
    in it is bound, and sums, differences and products combine their parts (``3 + (level >= 3)`` is 3 to 4)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, int):
        return int(node.value), int(node.value)
    if isinstance(node, ast.Name) and isinstance(env.get(node.id), int):
        return int(env[node.id]), int(env[node.id])
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)):
        a, b = _int_bounds(node.left, env), _int_bounds(node.right, env)
        if a is None or b is None:
            return None
        return (a[0] + b[0], a[1] + b[1]) if isinstance(node.op, ast.Add) else (a[0] - b[1], a[1] - b[0])
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
        # a weighted truth value (``3 + 2 * (s < H)``: five cards in a minor, three in a major)
        a, b = _int_bounds(node.left, env), _int_bounds(node.right, env)
        if a is None or b is None:
            return None
        corners = [x * y for x in a for y in b]
        return min(corners), max(corners)
    if isinstance(node, (ast.Compare, ast.BoolOp)) or (isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not)):
        names = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
        if names <= env.keys() and not any(isinstance(n, ast.Call) for n in ast.walk(node)):
            v = int(bool(eval(compile(ast.Expression(body=node), "<bound>", "eval"), {"__builtins__": {}}, dict(env))))
            return v, v
        return 0, 1
    return None


def _bounded_comparisons(node: ast.Compare, env: dict):
    """``(side, op, k)`` for each link of the chain ``node`` that bounds a side by an expression of known bounds,
    moved to the right with the bound that keeps the hull a superset: the least value under a lower bound
    (``ln(t) >= 3 + (level >= 3)`` shows three), the greatest under an upper bound, an equality only when exact."""
    items = [node.left] + list(node.comparators)
    for a, op, b in zip(items, node.ops, items[1:]):
        if type(op) not in _FLIP:
            continue
        for side, op_, other in ((a, op, b), (b, _FLIP[type(op)](), a)):
            rng = _int_bounds(other, env)
            if rng is None:
                continue
            if isinstance(op_, (ast.GtE, ast.Gt)):
                yield side, op_, rng[0]
            elif isinstance(op_, (ast.LtE, ast.Lt)):
                yield side, op_, rng[1]
            elif rng[0] == rng[1]:
                yield side, op_, rng[0]


def extract_ranges(tree: ast.Expression, bindings: dict[str, int]) -> tuple[tuple[int, int], list[tuple[int, int]]]:
    """Interval hull of a ``when`` expression's top-level conjunction: (hcp range, four length ranges).

    Only terms that compare ``hcp`` / a suit length with an expression of known bounds are used (a constant, a bound
    suit variable, ``3 + (level >= 3)``: see ``_bounded_comparisons``); everything else is left to the exact
    predicate. The hull is therefore always a superset of the expression's hands.
    """
    hcp = [0, 37]
    lens = [[0, 13] for _ in range(4)]
    env = dict(CONSTANTS)
    env.update(bindings)
    names = {"clubs": 0, "diamonds": 1, "hearts": 2, "spades": 3}

    def target(node):
        if isinstance(node, ast.Name) and node.id == "hcp":
            return ("hcp", None)
        if isinstance(node, ast.Name) and node.id in names:
            return ("len", names[node.id])
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "ln"
                and len(node.args) == 1):
            s = _const_suit(node.args[0], env)
            if s is not None and 0 <= s <= 3:
                return ("len", s)
        return None

    def bound(tg, op, k):
        rng = hcp if tg[0] == "hcp" else lens[tg[1]]
        if isinstance(op, ast.GtE):
            rng[0] = max(rng[0], k)
        elif isinstance(op, ast.Gt):
            rng[0] = max(rng[0], k + 1)
        elif isinstance(op, ast.LtE):
            rng[1] = min(rng[1], k)
        elif isinstance(op, ast.Lt):
            rng[1] = min(rng[1], k - 1)
        elif isinstance(op, ast.Eq):
            rng[0], rng[1] = max(rng[0], k), min(rng[1], k)

    def term(node):
        if isinstance(node, ast.BoolOp) and isinstance(node.op, ast.And):
            for v in node.values:
                term(v)
            return
        if isinstance(node, ast.BoolOp) and isinstance(node.op, ast.Or):
            # an alternative holds: the union hull of the branches' own hulls
            hulls = [extract_ranges(ast.Expression(body=v), bindings) for v in node.values]
            lo = min(h[0][0] for h in hulls)
            hi = max(h[0][1] for h in hulls)
            hcp[0], hcp[1] = max(hcp[0], lo), min(hcp[1], hi)
            for s in range(4):
                a = min(h[1][s][0] for h in hulls)
                b = max(h[1][s][1] for h in hulls)
                lens[s][0], lens[s][1] = max(lens[s][0], a), min(lens[s][1], b)
            return
        if isinstance(node, ast.Name) and node.id == "balanced":
            for r in lens:
                r[0], r[1] = max(r[0], 2), min(r[1], 5)
            return
        if not isinstance(node, ast.Compare):
            return
        for side, op, k in _bounded_comparisons(node, env):
            t = target(side)
            if t:
                bound(t, op, k)

    term(tree.body)
    return (hcp[0], hcp[1]), [(lo, hi) for lo, hi in lens]


HCP_ALL = (1 << 38) - 1  #: every HCP count, 0..37, as a bitmask


def hcp_sufficient(tree: ast.Expression) -> int:
    """The HCP counts (a bitmask over 0..37) for which a ``when`` expression holds whatever else the hand and the
    auction are: what the rule takes on strength alone (``hcp >= 22 or (...)`` takes 22 and up). Only ``and``,
    ``or``, the constant ``True`` and comparisons of ``hcp`` with integer constants count; anything else claims
    nothing, so the result is always a subset of the hands the expression accepts."""
    def claim(node) -> int:
        if isinstance(node, ast.BoolOp):
            parts = [claim(v) for v in node.values]
            out = 0 if isinstance(node.op, ast.Or) else HCP_ALL
            for p in parts:
                out = out | p if isinstance(node.op, ast.Or) else out & p
            return out
        if isinstance(node, ast.Constant) and node.value is True:
            return HCP_ALL
        if isinstance(node, ast.Name) and node.id == "True":
            return HCP_ALL
        if isinstance(node, ast.Compare):
            links = list(_constant_comparisons(node))
            if len(links) != len(node.ops):
                return 0  # a link between two hand features: not decided by strength alone
            out = HCP_ALL
            for side, op, k in links:
                if not (isinstance(side, ast.Name) and side.id == "hcp"):
                    return 0
                ok = {ast.GtE: lambda h, k=k: h >= k, ast.Gt: lambda h, k=k: h > k, ast.LtE: lambda h, k=k: h <= k,
                      ast.Lt: lambda h, k=k: h < k, ast.Eq: lambda h, k=k: h == k}[type(op)]
                out &= sum(1 << h for h in range(38) if ok(h))
            return out
        return 0

    return claim(tree.body)


_UNKNOWN = object()  # a value that depends on the hand (or anything else not known yet)
_COMPARE = {ast.Eq: lambda a, b: a == b, ast.NotEq: lambda a, b: a != b, ast.Lt: lambda a, b: a < b,
            ast.LtE: lambda a, b: a <= b, ast.Gt: lambda a, b: a > b, ast.GtE: lambda a, b: a >= b,
            ast.In: lambda a, b: a in b, ast.NotIn: lambda a, b: a not in b}


def _decided(node: ast.AST, env: dict):
    """The value of ``node`` when it follows from ``env`` alone, else ``_UNKNOWN`` (three-valued: a conjunction
    with one false term is false even when the others depend on the hand)."""
    if isinstance(node, ast.Expression):
        return _decided(node.body, env)
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        return env.get(node.id, _UNKNOWN)
    if isinstance(node, ast.BoolOp):
        vals = [_decided(v, env) for v in node.values]
        stop = isinstance(node.op, ast.Or)  # the value that settles it: True for or, False for and
        known = [bool(v) for v in vals if v is not _UNKNOWN]
        if stop in known:
            return stop
        return _UNKNOWN if len(known) < len(vals) else (not stop)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        v = _decided(node.operand, env)
        return _UNKNOWN if v is _UNKNOWN else not v
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)):
        a, b = _decided(node.left, env), _decided(node.right, env)
        if a is _UNKNOWN or b is _UNKNOWN:
            return _UNKNOWN
        return a + b if isinstance(node.op, ast.Add) else a - b
    if isinstance(node, (ast.Tuple, ast.List)):
        vals = [_decided(v, env) for v in node.elts]
        return _UNKNOWN if any(v is _UNKNOWN for v in vals) else tuple(vals)
    if isinstance(node, ast.Compare):
        items = [_decided(x, env) for x in [node.left, *node.comparators]]
        result = True
        for a, op, b in zip(items, node.ops, items[1:]):
            f = _COMPARE.get(type(op))
            if f is None or a is _UNKNOWN or b is _UNKNOWN:
                result = _UNKNOWN
                continue
            try:
                if not f(a, b):
                    return False  # one false link makes the whole chain false
            except TypeError:
                result = _UNKNOWN
        return result
    return _UNKNOWN


def possible_with(tree: ast.Expression, bindings: dict[str, int]) -> bool:
    """False when a ``when`` expression is false for every hand once its suit variables are bound (``t == D and
    ...`` with ``t`` bound to spades): such an instance can neither be chosen nor explain a call."""
    env = dict(CONSTANTS)
    env.update(bindings)
    return _decided(tree, env) is not False


def _auction_only_code(node: ast.AST):
    """``node`` compiled, when it names auction facts only (no hand feature, no call but the safe helpers), else
    ``None``."""
    loads = {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    calls = any(isinstance(n, ast.Call) and not (isinstance(n.func, ast.Name) and n.func.id in _HELPERS)
                for n in ast.walk(node))
    known = set(STATE_NAMES) | set(CONSTANTS) | set(_HELPERS) | set(VARIABLES)
    if loads and not calls and loads <= known and (loads & set(STATE_NAMES)):
        return _compile_expr(ast.Expression(body=node), "<state>")
    return None


def _points(node: ast.AST) -> bool:
    return (isinstance(node, ast.Name) and node.id in ("hcp", "tp")) or (
        isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("sp", "dp"))


def strength_program(node: ast.AST) -> tuple:
    """What ``strength_range`` needs of a ``when`` expression, worked out once when the rule is compiled (so that
    reading an auction neither walks the tree nor compiles anything): ``("and", parts)``, ``("or", ((codes,
    part), ...))`` with the compiled auction-only terms of each branch, ``("cmp", ((exact, op, k), ...))`` for the
    comparisons of points with constants (``exact``: the side is ``hcp`` itself), or ``("none",)``."""
    if isinstance(node, ast.Expression):
        return strength_program(node.body)
    if isinstance(node, ast.BoolOp) and isinstance(node.op, ast.And):
        return ("and", tuple(strength_program(v) for v in node.values))
    if isinstance(node, ast.BoolOp) and isinstance(node.op, ast.Or):
        branches = []
        for v in node.values:
            terms = v.values if isinstance(v, ast.BoolOp) and isinstance(v.op, ast.And) else [v]
            codes = tuple(c for c in (_auction_only_code(t) for t in terms) if c is not None)
            branches.append((codes, strength_program(v)))
        return ("or", tuple(branches))
    if isinstance(node, ast.Compare):
        return ("cmp", tuple((isinstance(side, ast.Name) and side.id == "hcp", op, k)
                             for side, op, k in _constant_comparisons(node) if _points(side)))
    return ("none",)


def strength_range(program: tuple, env: dict) -> tuple[int, int]:
    """Partner's working HCP range from a rule's ``when`` *in the auction it was made in* (``program``: the rule's
    ``strength_program``; ``env``: the auction state then, with the suit bindings): the HCP hull of
    ``extract_ranges``, plus two estimates that only feed the auction state (``plo``/``phi``, never the sampler):
    branches of an ``or`` whose auction facts are false here are dropped (a first-seat opening is not a fourth-seat
    one), and total/support points bound HCP (``tp <= 18`` caps HCP at 18; ``tp >= 16`` counts as 14+ HCP)."""
    lo_hi = [0, 37]

    def live(codes) -> bool:
        for code in codes:
            try:
                if not eval(code, env):  # noqa: S307 - names checked at load
                    return False
            except Exception:  # noqa: BLE001 - an estimate: keep the branch
                pass
        return True

    def bound(rng, exact, op, k):
        if isinstance(op, (ast.GtE, ast.Gt, ast.Eq)):
            k2 = k + isinstance(op, ast.Gt)
            rng[0] = max(rng[0], k2 if exact else k2 - 2)
        if isinstance(op, (ast.LtE, ast.Lt, ast.Eq)):
            rng[1] = min(rng[1], k - isinstance(op, ast.Lt))

    def walk(p, rng):
        kind = p[0]
        if kind == "and":
            for part in p[1]:
                walk(part, rng)
        elif kind == "or":
            subs = []
            for codes, part in p[1]:
                if live(codes):
                    r = [0, 37]
                    walk(part, r)
                    subs.append(r)
            if subs:
                rng[0] = max(rng[0], min(r[0] for r in subs))
                rng[1] = min(rng[1], max(r[1] for r in subs))
        elif kind == "cmp":
            for exact, op, k in p[1]:
                bound(rng, exact, op, k)

    walk(program, lo_hi)
    return max(0, lo_hi[0]), lo_hi[1]


# --- compiled rules -----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CompiledRule:
    spec: RuleSpec
    order: int  # position in the file: the tie-break for equal priorities
    patterns: tuple[tuple[re.Pattern, tuple[str, ...]], ...]
    when_tree: ast.Expression
    when_code: object
    require_code: object
    level: str  # "1".."7", "c", "j", "jj" or "" for P/X/XX
    strain: str  # literal letter, variable or "" for P/X/XX
    free_var: str | None
    trivial_when: bool = field(default=False)
    shows_code: object = None
    trivial_require: bool = False
    pattern_lens: tuple = ()  # per pattern: (calls after leading passes, anchored) or None when variable
    strength: tuple = ("none",)  # strength_program(when_tree): how partner reads the strength this rule shows
    # What the interpreter works out about this rule and keeps (its instances per binding and last bid, its range
    # hulls per binding): owned by the rule, so it goes with it; bounded by the interpreter.
    memo: dict = field(default_factory=dict, compare=False, repr=False)

    @property
    def id(self) -> str:
        return self.spec.id


@dataclass(eq=False)
class CompiledSystem:
    """A bidding system ready to bid: its rules compiled, in the order a hand tries them. ``source`` is the TOML
    text it was compiled from (a system pickles as that text) and ``digest`` the first 16 hex digits of its
    SHA-256 (what a stored run records of the rules it bid with). Two systems are equal when their name, origin
    and text are."""

    name: str
    description: str
    rules: list[CompiledRule]
    path: str  # where the text came from (a file's path, or a label): for messages and for telling systems apart
    source: str = field(default="", repr=False)
    digest: str = ""

    def __post_init__(self) -> None:
        # The Bidders made of this system, one per opponents' system (``interpreter.Bidder.of`` fills it): kept with
        # the system so that every player of a process bidding it shares their caches of auctions read.
        self.bidders: dict[CompiledSystem, object] = {}
        self.bidders_lock = threading.Lock()
        self._by_shape: dict[tuple[int, int], list[tuple[CompiledRule, tuple]]] = {}
        # Index of (rank, rule, pattern) by the pattern's fixed length (None: variable length), built once.
        self._fixed: dict[int, list] = {}
        self._anchored: dict[int, list] = {}
        self._variable: list = []
        for rank, rule in enumerate(self.rules):
            for j, ((pat, names), ln) in enumerate(zip(rule.patterns, rule.pattern_lens)):
                item = (rank, j, rule, (pat, names))
                if ln is None:
                    self._variable.append(item)
                elif ln[1]:
                    self._anchored.setdefault(ln[0], []).append(item)
                else:
                    self._fixed.setdefault(ln[0], []).append(item)

    def applicable(self, n: int, leading_passes: int) -> list[tuple[CompiledRule, tuple]]:
        """Rules (in priority order) with the patterns that could match an auction of ``n`` calls, the first
        ``leading_passes`` of them passes. Cached: there are few distinct shapes."""
        key = (n, leading_passes)
        r = self._by_shape.get(key)
        if r is None:
            items = list(self._variable) + list(self._anchored.get(n, ()))
            for k in range(n - leading_passes, n + 1):
                items.extend(self._fixed.get(k, ()))
            items.sort(key=lambda it: (it[0], it[1]))
            r = []
            for _rank, _j, rule, pat in items:
                if r and r[-1][0] is rule:
                    r[-1] = (rule, r[-1][1] + (pat,))
                else:
                    r.append((rule, (pat,)))
            self._by_shape[key] = r
        return r

    def rule(self, rule_id: str) -> CompiledRule:
        for r in self.rules:
            if r.id == rule_id:
                return r
        raise KeyError(rule_id)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, CompiledSystem):
            return NotImplemented
        return (self.name, self.path, self.digest) == (other.name, other.path, other.digest)

    def __hash__(self) -> int:
        return hash((self.name, self.path, self.digest))

    def __reduce__(self):
        return parse_system, (self.source, self.name, self.path)


def _split_auction_terms(when: str, require: str, auction_names: set[str]) -> tuple[str, str]:
    """Split the top-level ``and`` terms of ``when`` into (hand terms, require + auction-only terms)."""
    tree = _parse_expr(when).body
    terms = tree.values if isinstance(tree, ast.BoolOp) and isinstance(tree.op, ast.And) else [tree]
    hand, auction = [], []
    for t in terms:
        loads = {n.id for n in ast.walk(t) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
        stores = {n.id for n in ast.walk(t) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        has_call = any(isinstance(n, ast.Call) and not (isinstance(n.func, ast.Name) and n.func.id in _HELPERS)
                       for n in ast.walk(t))
        if not has_call and (loads - stores) <= auction_names and not isinstance(t, ast.Constant):
            auction.append(ast.unparse(t))
        else:
            hand.append(ast.unparse(t))
    if not auction:
        return when, require
    new_when = " and ".join(f"({h})" for h in hand) if hand else "True"
    parts = ([f"({require})"] if require.strip() != "True" else []) + [f"({a})" for a in auction]
    return new_when, " and ".join(parts)


def _macro_expander(macros: dict[str, str]):
    """Named sub-expressions (``[macros]``), expanded textually (and recursively) before an expression is parsed."""
    if not macros:
        return lambda t: t
    rx = re.compile(r"\b(" + "|".join(re.escape(k) for k in sorted(macros, key=len, reverse=True)) + r")\b")

    def expand(text: str, depth: int = 0) -> str:
        if depth > 10:
            raise BiddingSystemError(f"macros nest too deep (a cycle?) in {text!r}")
        out = rx.sub(lambda m: "(" + macros[m.group(1)] + ")", text)
        return out if out == text else expand(out, depth + 1)

    return expand


def compile_system(spec: SystemSpec, name: str, path: str, source: str = "") -> CompiledSystem:
    names = set(FEATURE_NAMES) | set(FUNCTION_NAMES) | set(STATE_NAMES) | set(CONSTANTS) | set(_HELPERS)
    state_names = set(STATE_NAMES) | set(CONSTANTS) | set(_HELPERS)
    seen: set[str] = set()
    rules = []
    macros = _macro_expander(spec.macros)
    for order, rs in enumerate(spec.rule):
        if rs.id in seen:
            raise BiddingSystemError(f"rule id {rs.id!r} is used twice")
        seen.add(rs.id)
        ctxs = rs.context if isinstance(rs.context, list) else [rs.context]
        texts = []
        for c in ctxs:
            if c.startswith("@"):
                if c[1:] not in spec.contexts:
                    raise BiddingSystemError(f"rule {rs.id}: unknown named context {c!r}")
                named = spec.contexts[c[1:]]
                texts.extend(named if isinstance(named, list) else [named])
            else:
                texts.append(c)
        compilers = [_PatternCompiler(t, rs.id) for t in texts]
        pats = tuple(pc.compile() for pc in compilers)
        lens = tuple(pc.core_len for pc in compilers)
        bound_sets = {b for _, b in pats}
        bound_all = set().union(*[set(b) for b in bound_sets]) if bound_sets else set()
        # Variables used by the call or expressions must be bound by every alternative pattern (or be free).
        if rs.call in ("P", "X", "XX"):
            level, strain = "", ""
        else:
            level, strain = (rs.call[:2], rs.call[2]) if rs.call.startswith("jj") else (rs.call[0], rs.call[1])
        free = None
        if strain in VARIABLES:
            if any(strain not in b for _, b in pats):
                if strain in bound_all:
                    raise BiddingSystemError(f"rule {rs.id}: variable {strain} is bound by only some of its patterns")
                free = strain
        var_names = set(VARIABLES)
        when_tree, when_code = _check_expr(macros(rs.when), rs.id, names | var_names, "when")
        _, req_code = _check_expr(macros(rs.require), rs.id, state_names | var_names, "require")
        for v in {n.id for n in ast.walk(when_tree) if isinstance(n, ast.Name)} & var_names:
            if v != free and any(v not in b for _, b in pats):
                raise BiddingSystemError(f"rule {rs.id}: 'when' uses variable {v} that its pattern does not bind")
        # Conjuncts of ``when`` that name no hand feature are facts about the auction: move them to ``require``,
        # so that reading a past call never picks a rule instance that no hand could have satisfied (e.g. the
        # "reverse" instance of a new suit that is not higher than opener's first suit).
        when_text, req_text = _split_auction_terms(macros(rs.when), macros(rs.require), state_names | var_names)
        if when_text != macros(rs.when):
            when_tree, when_code = _check_expr(when_text, rs.id, names | var_names, "when")
            _, req_code = _check_expr(req_text, rs.id, state_names | var_names, "require")
        if rs.force not in FORCES:  # pragma: no cover - pydantic already checked
            raise BiddingSystemError(f"rule {rs.id}: bad force {rs.force!r}")
        shows_code = None
        if rs.shows is not None:
            _, shows_code = _check_expr(rs.shows, rs.id, set(CONSTANTS) | var_names, "shows")
        rules.append(
            CompiledRule(rs, order, pats, when_tree, when_code, req_code, level, strain, free,
                         when_text.strip() == "True", shows_code, req_text.strip() == "True", lens,
                         strength_program(when_tree))
        )
    rules.sort(key=lambda r: (-r.spec.priority, r.order))
    digest = hashlib.sha256(source.encode("utf-8")).hexdigest()[:16]
    return CompiledSystem(spec.system.get("name", name), spec.system.get("description", ""), rules, path, source,
                          digest)


def parse_system(text: str, name: str = "system", origin: str = "<text>") -> CompiledSystem:
    """Compile a system from its TOML ``text``. ``name`` is its name when the text's ``[system]`` table gives none;
    ``origin`` says where the text came from (a file's path), in every error and in ``CompiledSystem.path``.
    Raises ``BiddingSystemError`` naming the problem (bad TOML, a bad pattern, an unknown name in an expression)."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise BiddingSystemError(f"{origin}: {e}") from None
    try:
        spec = SystemSpec.model_validate(data)
    except ValidationError as e:
        raise BiddingSystemError(f"{origin}: {e}") from None
    return compile_system(spec, name, origin, text)

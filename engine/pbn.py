"""PBN 2.1 (Portable Bridge Notation): lenient import, strict export.

``read_pbn(text)`` reads the *import format* — anything a person or another program may have written: tags in any
order, LF/CRLF/CR line ends, ``{...}`` and ``;`` comments, ``%`` escape lines, notes (``=1=`` + ``[Note "1:..."]``),
NAGs (``$3``) and suffixes (``!``, ``?!`` ...), ``AP``, ``-``, ``*``, ``+``, the Play section (columns in fixed seat
order from the opening leader, *not* in play order), tag-value inheritance (``"#"``, ``"##text"``), ``"?"`` values and
``Result`` forms such as ``"NS 9"``. Every game is checked against its deal: the auction must be legal, the play
must follow the laws (``engine.auction.Auction`` and ``engine.board.Play`` do the checking). A bad game yields a
``PbnError`` naming the game and the line ("game 3, line 41: Deal: card SA appears twice"); the good games of the
same file are still returned. ``strict=True`` raises the first error instead.

``write_pbn(games)`` writes the *export format*: ``% PBN 2.1`` / ``% EXPORT``, the 15 mandatory tags in their order,
the other tags alphabetically, the auction (with notes), the play, the supplemental tables, CRLF line ends;
``encode_pbn`` turns it into Latin-1 bytes as the standard requires. ``write_pbn`` followed by ``read_pbn`` gives
back equal ``PbnGame`` values (the tests check this with hypothesis).

Objects: ``PbnGame`` = an ``engine.record.BoardRecord`` plus what PBN carries beyond it (other tags, call and card
annotations, supplemental tables, comments and their positions).

Leniency beyond the standard, each for files met in the wild (warnings go to ``PbnReadResult.warnings``): UTF-8
files (tried before Latin-1), a missing empty line between games (a second ``Event``/``Board`` starts a new game),
text between games (dealer-program statistics), a header block of ``"##"`` tags only, suit letters inside the deal
string, tag names in any case, notes placed after the play instead of the auction, an empty Auction section.

Not kept: irregularity marks (``^I`` ...; the calls and cards are kept), the original note numbers (export renumbers
them from 1), a comment's position among annotation tokens (it stays after the same call or card), line breaks
inside the auction and play sections (export writes four calls and one trick a line).
"""

from __future__ import annotations

import codecs
import re
import unicodedata
from dataclasses import dataclass, field, replace
from typing import Iterable, Iterator

from .auction import Auction, Call, Contract, IllegalCallError, PASS
from .board import IllegalCardError, Play, PublicPlay
from .cards import BridgeError, Card, Deal, InvalidDealError, ParseError, Seat, Vul
from .record import BoardRecord

__all__ = [
    "MANDATORY_TAGS",
    "Annotation",
    "PbnTable",
    "PbnGame",
    "PbnError",
    "PbnReadResult",
    "read_pbn",
    "write_pbn",
    "format_game",
    "PBN_HEADER",
    "encode_pbn",
    "decode_pbn",
]

#: The Mandatory Tag Set in export order (PBN 2.1 §3.1).
MANDATORY_TAGS: tuple[str, ...] = (
    "Event", "Site", "Date", "Board", "West", "North", "East", "South",
    "Dealer", "Vulnerable", "Deal", "Scoring", "Declarer", "Contract", "Result",
)
#: Tags whose values live in ``BoardRecord`` / ``PbnGame`` fields rather than in ``PbnGame.tags``.
_ABSORBED = frozenset(
    ("Event", "Board", "West", "North", "East", "South", "Dealer", "Vulnerable", "Deal", "Declarer", "Contract",
     "Result", "Room", "Auction", "Play", "Note")
)
#: PBN §4.8 forbids inheritance ("#", "##text") for these tags: each game must state them itself.
_NO_INHERITANCE = frozenset(("Dealer", "Vulnerable", "Deal", "Declarer", "Contract", "Auction", "Play", "Note"))
#: Canonical spelling of every tag we interpret, so ``[deal "..."]`` from a careless writer is still understood.
_KNOWN_TAGS = {t.lower(): t for t in (*MANDATORY_TAGS, "Room", "Auction", "Play", "Note", "Score")}
#: Mandatory tags kept in ``PbnGame.tags``; "?" (unknown) there means "absent" and is what export writes back.
_MTS_IN_TAGS = ("Site", "Date", "Scoring")
#: A repeat of one of these inside a game means a new game started without the separating empty line.
_GAME_STARTERS = frozenset(("event", "board"))
_SEAT_TAGS = {"West": Seat.WEST, "North": Seat.NORTH, "East": Seat.EAST, "South": Seat.SOUTH}

#: Suffix annotations and their NAG numbers: calls use $1..$6, cards $7..$12 (PBN 2.1 §3.8 / §3.9).
_SUFFIXES = ("!!", "??", "!?", "?!", "!", "?")
_CALL_SUFFIX_NAG = {"!": 1, "?": 2, "!!": 3, "??": 4, "!?": 5, "?!": 6}
_CARD_SUFFIX_NAG = {"!": 7, "?": 8, "!!": 9, "??": 10, "!?": 11, "?!": 12}
#: Fast path for the usual card spelling (``SA``, ``h7``); anything else goes through ``Card.parse``.
_CARD_BY_TEXT = {k: Card.from_index(i) for i in range(52) for k in (str(Card.from_index(i)),
                                                                    str(Card.from_index(i)).lower())}
_NOTE_REF = re.compile(r"^=(\d+)=$")
_NAG = re.compile(r"^\$(\d+)$")
_TAG_NAME = re.compile(r"^[A-Za-z0-9_]+$")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def _is_table_tag(name: str) -> bool:
    """Supplemental sections (``OptimumResultTable``, ``ScoreTable`` ...) carry data lines; ``Table`` is a number."""
    return name.endswith("Table") and name != "Table"


# --------------------------------------------------------------------------------------------------------------
# Value types
# --------------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Annotation:
    """What PBN can attach to one call or card: an explanation (a PBN note; for calls this is the alert text) and
    NAGs (numeric annotation glyphs, kept ascending; suffixes such as ``!`` are stored as their NAG)."""

    note: str | None = None
    nags: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        if self.note is not None:
            note = self.note.strip()
            if _CONTROL.search(note):
                raise BridgeError(f"a note cannot contain line breaks or control characters: {self.note!r}")
            object.__setattr__(self, "note", note)
        nags = tuple(sorted(int(n) for n in self.nags))
        if any(n < 1 for n in nags):
            raise BridgeError(f"NAG numbers start at 1, got {nags}")
        object.__setattr__(self, "nags", nags)

    def __bool__(self) -> bool:
        return self.note is not None or bool(self.nags)


@dataclass(frozen=True)
class PbnTable:
    """A supplemental section (PBN §5): the tag value is the column header list, each row a tuple of cells.

    Cells are kept as written (a quoted cell keeps its quotes) so the table is exported unchanged.
    """

    header: str
    rows: tuple[tuple[str, ...], ...] = ()


@dataclass(frozen=True)
class PbnGame:
    """One PBN game: a ``BoardRecord`` plus what PBN holds beyond it.

    - ``tags``: identification tags not represented in the record, by canonical name (``Site``, ``Date``, ``Scoring``,
      ``Generator``, ``OptimumScore`` ...). An unknown ``Site``/``Date``/``Scoring`` (``"?"``) is simply absent.
    - ``call_annotations`` / ``card_annotations``: by index into ``record.auction.calls`` / ``record.play``
      (cards in *play order*).
    - ``tables``: supplemental sections by tag name.
    - ``comments``: ``(anchor, text)`` in export order; the anchor is the tag (or section: ``Auction``, ``Play``, a
      table name) the comment follows, ``""`` for comments before the first tag, ``Auction:i`` / ``Play:k`` for a
      comment right after call ``i`` / card ``k`` (play order; ``-1`` = before the first), so converters keep the
      position a comment has among the calls and cards (PBN attaches a comment to the preceding token).
    - ``passed_out``: the board was passed out (also true when the ``Contract`` tag says ``Pass`` and no auction was
      recorded).
    """

    record: BoardRecord
    tags: dict[str, str] = field(default_factory=dict)
    call_annotations: dict[int, Annotation] = field(default_factory=dict)
    card_annotations: dict[int, Annotation] = field(default_factory=dict)
    tables: dict[str, PbnTable] = field(default_factory=dict)
    comments: tuple[tuple[str, str], ...] = ()
    passed_out: bool = False

    def __post_init__(self) -> None:
        r = self.record  # (the record itself checks its auction against its dealer and contract)
        if r.is_passed_out:
            object.__setattr__(self, "passed_out", True)
        if self.passed_out and r.contract is not None:
            raise BridgeError(f"board {r.board}: passed out but has contract {r.contract}")
        n_calls = len(r.auction.calls) if r.auction is not None else 0
        for i in self.call_annotations:
            if not 0 <= i < n_calls:
                raise BridgeError(f"board {r.board}: call annotation for call {i}, but the auction has {n_calls} calls")
        for i in self.card_annotations:
            if not 0 <= i < len(r.play):
                raise BridgeError(f"board {r.board}: card annotation for card {i}, but {len(r.play)} cards were played")
        for name, value in self.tags.items():
            if not _TAG_NAME.match(name) or name in _ABSORBED or name.lower() in ("note",) or _is_table_tag(name):
                raise BridgeError(f"board {r.board}: {name!r} cannot be an extra tag "
                                  "(it has its own field or is not a tag name)")
            if _CONTROL.search(value):
                raise BridgeError(f"board {r.board}: tag {name} contains a line break or control character")
            if value.startswith("#"):
                raise BridgeError(f"board {r.board}: tag {name} value {value!r} would read as PBN inheritance ('#')")
        for name in self.tables:
            if not _TAG_NAME.match(name) or not _is_table_tag(name):
                raise BridgeError(f"board {r.board}: table name {name!r} must end in 'Table'")
        comments = []
        order = {a: i for i, a in enumerate(self.anchors())}
        # "after the section" is only distinguishable from "after its last call/card" when Note tags sit between
        # them; without notes the two are the same place, spelled the second way.
        ends = {}
        if r.auction is not None and not any(a.note is not None for a in self.call_annotations.values()):
            ends["Auction"] = f"Auction:{len(r.auction.calls) - 1}"
        if r.play and not any(a.note is not None for a in self.card_annotations.values()):
            ends["Play"] = f"Play:{len(r.play) - 1}"
        for anchor, text in self.comments:
            anchor = ends.get(anchor, anchor)
            t = text.strip()
            if "\x00" in t:
                raise BridgeError(f"board {r.board}: a comment cannot contain a NUL character")
            if "}" in t and "\n" in t:
                raise BridgeError(f"board {r.board}: a comment cannot contain both '}}' and a line break: {text!r}")
            if anchor not in order:
                raise BridgeError(f"board {r.board}: comment anchor {anchor!r} is not a tag or section of this game")
            comments.append((anchor, t))
        # Canonical order = export order, so a game equals itself after export and re-import.
        comments.sort(key=lambda c: order[c[0]])
        object.__setattr__(self, "comments", tuple(comments))

    @classmethod
    def from_record(cls, record: BoardRecord, *, reasons: bool = False) -> "PbnGame":
        """The PBN game of a record that carries a robot table's notes.

        An alerted call's explanation becomes that call's note: PBN writes an alert and its explanation as a note,
        and ``lin_board`` reads a note on a call as an alert. The explanations of calls not alerted are left out
        (a note would make them alerts), and so is PBN's ``!`` suffix, which means NAG $1 "good call", not an
        alert. ``reasons=True`` also writes each card's reason as a comment after the card (as comments, not notes:
        PBN numbers notes 1..32, too few for a whole play). The record's ``table`` goes in the ``Table`` tag; the
        seconds have no place in PBN. Line breaks and control characters in a note become blanks (a note is one tag
        value). The game's record is what ``read_pbn`` gives back: without notes, seconds and table.
        """
        calls = {i: Annotation(_CONTROL.sub(" ", n.explanation)) for i, n in enumerate(record.call_notes) if n.alert}
        comments = tuple((f"Play:{i}", n.reason) for i, n in enumerate(record.card_notes) if reasons and n.reason)
        bare = replace(record, table="", call_notes=(), card_notes=(), seconds_ns=None, seconds_ew=None)
        return cls(bare, tags={"Table": record.table} if record.table else {}, call_annotations=calls,
                   comments=comments)

    def anchors(self) -> list[str]:
        """Places a comment can follow, in export order: "" (before the first tag), the tags, the sections."""
        r = self.record
        others = sorted({*(k for k in self.tags if k not in _MTS_IN_TAGS), *(["Room"] if r.room else [])})
        sections: list[str] = []
        if r.auction is not None:
            sections += [f"Auction:{i}" for i in range(-1, len(r.auction.calls))] + ["Auction"]
        if r.play:
            sections += [f"Play:{k}" for k in range(-1, len(r.play))] + ["Play"]
        return ["", *MANDATORY_TAGS, *others, *sections, *sorted(self.tables)]


class PbnError(ParseError):
    """One problem in a PBN file: ``game`` (1-based, 0 = outside any game), ``line`` (1-based) and what is wrong."""

    def __init__(self, game: int, line: int, message: str) -> None:
        self.game = game
        self.line = line
        self.message = message
        where = f"game {game}, line {line}" if game else f"line {line}"
        super().__init__(f"{where}: {message}")

    def __reduce__(self):
        return (PbnError, (self.game, self.line, self.message))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, PbnError) and (other.game, other.line, other.message) == (
            self.game, self.line, self.message)

    def __hash__(self) -> int:
        return hash((self.game, self.line, self.message))


@dataclass
class PbnReadResult:
    """Result of ``read_pbn``: the good games, one error per bad game, warnings for text that was skipped."""

    games: list[PbnGame]
    errors: list[PbnError] = field(default_factory=list)
    warnings: list[PbnError] = field(default_factory=list)
    version: str | None = None
    export: bool = False

    @property
    def ok(self) -> bool:
        return not self.errors


# --------------------------------------------------------------------------------------------------------------
# Lexer: text -> tokens with line numbers
# --------------------------------------------------------------------------------------------------------------

_BLANK, _ESCAPE, _TAG, _WORD, _STRING, _COMMENT, _ERROR = range(7)
_TAG_RE = re.compile(r'\[[ \t]*([A-Za-z0-9_]+)[ \t]*"((?:[^"\\\n]|\\.)*)"[ \t]*\]')
_WORD_RE = re.compile(r'[^\s\[\]{};"]+')
_STRING_RE = re.compile(r'"((?:[^"\\\n]|\\.)*)"')


@dataclass(frozen=True)
class _Tok:
    kind: int
    line: int
    text: str = ""
    value: str = ""


def _unescape(s: str) -> str:
    """PBN strings escape a quote as ``\\"`` and a backslash as ``\\\\``; any other backslash is kept literally
    (Bridge Composer's table headers use ``\\2R``)."""
    if "\\" not in s:
        return s
    out, i = [], 0
    while i < len(s):
        c = s[i]
        if c == "\\" and i + 1 < len(s) and s[i + 1] in '"\\':
            out.append(s[i + 1])
            i += 2
        else:
            out.append(c)
            i += 1
    return "".join(out)


def _escape(s: str) -> str:
    """Inverse of ``_unescape``: double a backslash only where a reader would otherwise take it as an escape."""
    out = []
    for i, c in enumerate(s):
        if c == '"':
            out.append('\\"')
        elif c == "\\" and (i + 1 == len(s) or s[i + 1] in '"\\'):
            out.append("\\\\")
        else:
            out.append(c)
    return "".join(out)


def _lex(text: str) -> Iterator[_Tok]:
    n = len(text)
    pos = 0
    line = 1
    line_start = True
    while pos < n:
        if line_start:
            eol = text.find("\n", pos)
            if eol < 0:
                eol = n
            content = text[pos:eol]
            stripped = content.strip()
            if not stripped:
                yield _Tok(_BLANK, line)
                pos, line = eol + 1, line + 1
                continue
            if stripped.startswith("%"):
                yield _Tok(_ESCAPE, line, stripped)
                pos, line = eol + 1, line + 1
                continue
            line_start = False
        c = text[pos]
        if c == "\n":
            pos += 1
            line += 1
            line_start = True
        elif c in " \t\r\f\v":
            pos += 1
        elif c == "{":
            end = text.find("}", pos + 1)
            if end < 0:
                yield _Tok(_ERROR, line, "comment '{' is never closed")
                return
            body = text[pos + 1 : end]
            yield _Tok(_COMMENT, line, body.replace("\x00", ""))
            line += body.count("\n")
            pos = end + 1
        elif c == ";":
            eol = text.find("\n", pos)
            if eol < 0:
                eol = n
            yield _Tok(_COMMENT, line, text[pos + 1 : eol].replace("\x00", ""))
            pos = eol
        elif c == "[":
            m = _TAG_RE.match(text, pos)
            if m is None:
                eol = text.find("\n", pos)
                if eol < 0:
                    eol = n
                snippet = text[pos:eol].strip()
                yield _Tok(_ERROR, line, f"malformed tag {snippet[:60]!r} (expected [Name \"value\"])")
                pos = eol
            else:
                yield _Tok(_TAG, line, m.group(1), _unescape(m.group(2)))
                pos = m.end()
        elif c == '"':
            m = _STRING_RE.match(text, pos)
            if m is None:
                yield _Tok(_ERROR, line, "string '\"' is not closed on its line")
                eol = text.find("\n", pos)
                pos = n if eol < 0 else eol
            else:
                yield _Tok(_STRING, line, m.group(0))
                pos = m.end()
        else:
            m = _WORD_RE.match(text, pos)
            if m is None:  # a stray ']' or '}'
                yield _Tok(_WORD, line, c)
                pos += 1
            else:
                yield _Tok(_WORD, line, m.group(0))
                pos = m.end()


# --------------------------------------------------------------------------------------------------------------
# Reading
# --------------------------------------------------------------------------------------------------------------


class _GameError(Exception):
    def __init__(self, line: int, message: str) -> None:
        super().__init__(message)
        self.line = line
        self.message = message


_CHARSET = re.compile(rb"^%[^\n]*charset\s*=\s*([A-Za-z0-9_.:-]+)", re.IGNORECASE | re.MULTILINE)


def decode_pbn(data: bytes, encoding: str | None = None) -> str:
    """Bytes of a PBN file to text. ``encoding`` if given; else the charset an escape line declares (Bridge Composer
    writes ``%Content-type: text/x-pbn; charset=ISO-8859-1``); else UTF-8 when the bytes are valid UTF-8 (common
    in the wild; Latin-1 text that is also valid UTF-8 is practically limited to mojibake such as ``Ã©``), else
    Latin-1, the standard's character set (every byte sequence is valid Latin-1)."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
        encoding = encoding or "utf-8"
    if encoding is None:
        m = _CHARSET.search(data[:4096])
        if m:
            try:
                return data.decode(m.group(1).decode("ascii"))
            except (LookupError, UnicodeDecodeError):
                pass  # a wrong declaration: fall back to guessing
    if encoding is not None:
        return data.decode(encoding, errors="replace")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def read_pbn(text: str | bytes, *, strict: bool = False, encoding: str | None = None) -> PbnReadResult:
    """Read every game of a PBN file (import format). See the module docstring.

    ``text`` may be bytes: they are decoded with ``encoding``, or as ``decode_pbn`` guesses. Raises ``PbnError``
    only when ``strict`` is true (the first problem found); otherwise problems are collected in ``result.errors``
    (one per bad game, which is left out of ``result.games``) and ``result.warnings``.
    """
    if isinstance(text, (bytes, bytearray)):
        text = decode_pbn(bytes(text), encoding)
    text = text.lstrip("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    result = PbnReadResult(games=[])
    blocks: list[list[_Tok]] = [[]]
    names_in_block: set[str] = set()
    seen_game = False
    for tok in _lex(text):
        if tok.kind == _BLANK:
            if blocks[-1]:
                blocks.append([])
                names_in_block = set()
        elif tok.kind == _ESCAPE:
            if not seen_game:
                m = re.match(r"%\s*PBN\s+(\d+\.\d+)", tok.text, re.IGNORECASE)
                if m:
                    result.version = m.group(1)
                elif re.match(r"%\s*EXPORT\s*$", tok.text, re.IGNORECASE):
                    result.export = True
        else:
            if tok.kind == _TAG:
                seen_game = True
                name = tok.text.lower()
                if name in _GAME_STARTERS and name in names_in_block:
                    # Some generators forget the empty line between games: a second Event/Board starts a new game.
                    result.warnings.append(PbnError(0, tok.line, f"no empty line before this [{tok.text}] tag; "
                                                                 "read as the start of a new game"))
                    blocks.append([])
                    names_in_block = set()
                names_in_block.add(name)
            blocks[-1].append(tok)
    reader = _Reader()
    game_no = 0
    for block in blocks:
        if not any(t.kind == _TAG for t in block):
            for t in block:
                if t.kind in (_WORD, _STRING):
                    w = PbnError(0, t.line, f"ignored text outside any game: {t.text[:40]!r}")
                    result.warnings.append(w)
                    break
                if t.kind == _ERROR:
                    err = PbnError(0, t.line, t.text)
                    if strict:
                        raise err
                    result.errors.append(err)
                    break
            continue
        tag_toks = [t for t in block if t.kind == _TAG]
        if all(t.value.startswith("##") for t in tag_toks) and not any(t.kind in (_WORD, _STRING, _ERROR)
                                                                         for t in block):
            # A block of "##" values only is a file header (PBN §4.8), not a game: it sets defaults.
            for t in tag_toks:
                name = _KNOWN_TAGS.get(t.text.lower(), t.text)
                if name in _NO_INHERITANCE:
                    err = PbnError(0, t.line, f"{name}: tag value inheritance ('##') is not allowed for {name}")
                    if strict:
                        raise err
                    result.errors.append(err)
                    continue
                reader.defaults[name] = t.value[2:]
            continue
        game_no += 1
        try:
            game = reader.game(block, result.warnings, game_no)
        except _GameError as exc:
            err = PbnError(game_no, exc.line, exc.message)
            if strict:
                raise err from None
            result.errors.append(err)
        else:
            result.games.append(game)
    return result


_PASS_TOKENS = {"PASS", "P"}


def _split_suffix(tok: str) -> tuple[str, str | None]:
    if tok[-1] not in "!?":
        return tok, None
    for s in _SUFFIXES:
        if len(tok) > len(s) and tok.endswith(s):
            return tok[: -len(s)], s
    return tok, None


def _parse_deal(value: str) -> Deal:
    """PBN deal string; tolerates suit letters inside hands (``S:SA7.H864.DK2.CQ9...``)."""
    t = " ".join(value.strip().split())
    head, rest = "", t
    if len(t) >= 2 and t[1] == ":":
        head, rest = t[:2], t[2:].strip()
    hands = []
    for h in rest.split(" ") if rest else []:
        parts = h.split(".")
        if len(parts) == 4 and all(p[:1].upper() == s for p, s in zip(parts, "SHDC")):
            h = ".".join(p[1:] for p in parts)
        hands.append(h)
    text = head + " ".join(hands)
    try:
        return Deal.parse(text)
    except InvalidDealError:
        # An end position (all four hands the same length, under 13) is a valid PBN deal.
        d = Deal.parse(text, complete=False)
        lengths = {len(h) for h in d.hands}
        if len(lengths) == 1 and 0 < lengths.pop() < 13:
            return d
        raise


class _Reader:
    """Turns one game's tokens into a ``PbnGame``; keeps the inheritance state across games."""

    def __init__(self) -> None:
        self.previous: dict[str, str] = {}  # tag -> value in the nearest previous game that had it
        self.defaults: dict[str, str] = {}  # tag -> "##text" value, in force for the following games

    # --- collect -------------------------------------------------------------------------------------------
    def game(self, block: list[_Tok], warnings: list[PbnError], game_no: int) -> PbnGame:
        tags: dict[str, tuple[str, int]] = {}
        data: dict[str, list[_Tok]] = {}
        notes: dict[str, dict[int, tuple[str, int]]] = {"Auction": {}, "Play": {}}
        comments: list[tuple[str, str]] = []
        section: str | None = None  # data section the next words belong to
        last_data_section = ""  # Auction or Play: where a following Note tag belongs
        anchor = ""
        first_line = block[0].line
        for tok in block:
            if tok.kind == _ERROR:
                raise _GameError(tok.line, tok.text)
            if tok.kind == _COMMENT:
                if section in ("Auction", "Play"):  # position among the section's tokens, resolved later
                    comments.append((f"{section}@{len(data[section])}", tok.text))
                else:
                    comments.append((anchor, tok.text))
            elif tok.kind == _TAG:
                name = _KNOWN_TAGS.get(tok.text.lower(), tok.text)
                if name == "Note":
                    sec = "Play" if last_data_section == "Play" else "Auction"
                    m = re.match(r"^\s*(\d+)\s*:(.*)$", tok.value, re.S)
                    if not m:
                        raise _GameError(tok.line, f"Note: {tok.value!r} is not 'number:text'")
                    notes[sec][int(m.group(1))] = (m.group(2).strip(), tok.line)
                    section = None
                    anchor = sec
                    continue
                if name in tags:
                    if name in ("Auction", "Play") or _is_table_tag(name):
                        raise _GameError(tok.line, f"{name}: the tag appears twice in this game")
                    # Seen in the wild (Bridge Bidding Analyser writes [Room "Open"] then [Room "IMP"]): keep the
                    # first value, as other readers do, and say so.
                    warnings.append(PbnError(game_no, tok.line, f"{name}: the tag appears again "
                                                                f"({tok.value!r}); the first value is kept"))
                    section = None
                    anchor = name
                    continue
                tags[name] = (tok.value, tok.line)
                anchor = name
                if name in ("Auction", "Play") or _is_table_tag(name):
                    section = name
                    data[name] = []
                    if name in ("Auction", "Play"):
                        last_data_section = name
                else:
                    section = None
            else:  # word or string
                if section is None:
                    if not tags:
                        warnings.append(PbnError(game_no, tok.line,
                                                 f"ignored text before the first tag: {tok.text[:40]!r}"))
                        continue
                    raise _GameError(tok.line, f"unexpected {tok.text[:40]!r} after the {anchor} tag")
                data[section].append(tok)
        self._inherit(tags, first_line)
        return self._build(tags, data, notes, comments, warnings, game_no)

    def _inherit(self, tags: dict[str, tuple[str, int]], first_line: int) -> None:
        """PBN §4.8: "#" = the nearest previous game's value; "##text" = text here and in later games."""
        for name, (value, line) in list(tags.items()):
            if not value.startswith("#"):
                continue
            if name in _NO_INHERITANCE:
                raise _GameError(line, f"{name}: tag value inheritance ({value[:2]!r}) is not allowed for {name}")
            if value == "#":
                if name not in self.previous:
                    raise _GameError(line, f"{name}: '#' refers to a previous game, but none has this tag")
                tags[name] = (self.previous[name], line)
            elif value.startswith("##"):
                self.defaults[name] = value[2:]
                tags[name] = (value[2:], line)
        for name, value in self.defaults.items():
            if name not in tags:
                tags[name] = (value, first_line)
        for name, (value, _line) in tags.items():
            self.previous[name] = value

    # --- interpret -----------------------------------------------------------------------------------------
    def _build(self, tags, data, notes, comments, warnings, game_no) -> PbnGame:
        def val(name: str) -> str | None:
            return tags[name][0] if name in tags else None

        def line_of(name: str) -> int:
            return tags[name][1] if name in tags else 0

        def fail(name: str, msg: str, line: int | None = None) -> _GameError:
            return _GameError(line if line is not None else (line_of(name) or first), f"{name}: {msg}")

        # Board
        first = min((ln for _v, ln in tags.values() if ln), default=1)
        if "Board" not in tags:
            # The import format has no mandatory tags (PBN §2): number the game by its place in the file.
            warnings.append(PbnError(game_no, first, f"Board: no Board tag; numbered {game_no} by its place in "
                                                     "the file"))
            board = game_no
        else:
            bv = val("Board").strip()  # type: ignore[union-attr]
            if not bv.isdigit() or int(bv) < 1:
                raise fail("Board", f"{bv!r} is not a board number (a positive integer)")
            board = int(bv)

        # Deal
        if "Deal" not in tags:
            raise _GameError(line_of("Board") or first, "Deal: the Deal tag is missing")
        try:
            deal = _parse_deal(val("Deal"))  # type: ignore[arg-type]
        except BridgeError as exc:
            raise fail("Deal", str(exc)) from None

        dealer = self._seat_or_none(val("Dealer"), "Dealer", line_of("Dealer"))
        vul = None
        vv = val("Vulnerable")
        if vv is not None and vv.strip() not in ("?", ""):
            try:
                vul = Vul.parse(vv)
            except BridgeError as exc:
                raise fail("Vulnerable", str(exc)) from None

        # Auction
        auction = None
        call_anns: dict[int, Annotation] = {}
        calls_after: list[int] = []  # number of calls made after each token of the Auction section
        if "Auction" in tags and data["Auction"]:
            auction, call_anns, dealer, calls_after = self._auction(
                val("Auction"), line_of("Auction"), data["Auction"], dealer, notes, warnings, game_no)
        elif "Auction" in tags and dealer is None:
            # An Auction tag without calls records no auction, but still names the dealer.
            dealer = self._seat_or_none(val("Auction"), "Auction", line_of("Auction"))

        # Contract and declarer
        passed_out = False
        tag_contract = None
        cv = (val("Contract") or "").strip()
        if cv.upper() == "PASS":
            passed_out = True
        elif cv not in ("", "?"):
            try:
                tag_contract = Contract.parse(cv)
            except BridgeError as exc:
                raise fail("Contract", str(exc)) from None
        dv = (val("Declarer") or "").strip().lstrip("^")
        tag_declarer = self._seat_or_none(dv, "Declarer", line_of("Declarer"))
        if tag_contract is not None and tag_contract.declarer is not None:
            tag_declarer = tag_declarer if tag_declarer is not None else tag_contract.declarer
        contract: Contract | None
        if auction is not None and auction.is_complete:
            contract = auction.contract
            if contract is None:
                if tag_contract is not None:
                    raise fail("Contract", f"the tag says {tag_contract.pbn} but the auction is passed out")
                passed_out = True
            else:
                if passed_out:
                    raise fail("Contract", f"the tag says Pass but the auction ends in {contract.pbn}")
                if tag_contract is not None and (tag_contract.level, tag_contract.strain, tag_contract.doubled) != (
                        contract.level, contract.strain, contract.doubled):
                    raise fail("Contract", f"the tag says {tag_contract.pbn} but the auction ends in {contract.pbn}")
                if tag_declarer is not None and tag_declarer != contract.declarer:
                    raise fail("Declarer", f"the tag says {tag_declarer.letter} but the auction makes "
                                           f"{contract.declarer.title} declarer")  # type: ignore[union-attr]
        else:
            contract = None
            if tag_contract is not None:
                contract = Contract(tag_contract.level, tag_contract.strain, tag_contract.doubled, tag_declarer)

        # Play
        cards: tuple[Card, ...] = ()
        card_anns: dict[int, Annotation] = {}
        play_state = None
        if "Play" in tags:
            contract, cards, card_anns, play_state = self._play(
                val("Play"), line_of("Play"), data["Play"], deal, contract, passed_out, notes, warnings, game_no)

        # Result (checked against the play once the play itself is known to be legal, below)
        result = None
        rv = (val("Result") or "").strip().lstrip("^").strip()
        if rv not in ("", "?") and not passed_out:
            result = self._result(rv, contract, line_of("Result"))

        players = {}
        for name, seat in _SEAT_TAGS.items():
            v = val(name)
            if v is not None and v != "?":
                players[seat] = v
        event = val("Event") or ""
        if event == "?":
            event = ""
        extra: dict[str, str] = {}
        tables: dict[str, PbnTable] = {}
        for name, (value, _line) in tags.items():
            if name in _ABSORBED:
                continue
            if _is_table_tag(name):
                tables[name] = PbnTable(value, self._table_rows(data[name]))
            elif name in _MTS_IN_TAGS and value == "?":
                continue
            else:
                extra[name] = value
        def resolve(anchor: str) -> str:
            sec, _, pos = anchor.partition("@")
            if not pos:
                return anchor
            n = int(pos)
            if sec == "Auction":
                return f"Auction:{(calls_after[n - 1] if n > 0 and calls_after else 0) - 1}"
            ci = play_state[3] if play_state is not None else []
            return f"Play:{ci[n - 1] if n > 0 and ci else -1}"

        comments = [(resolve(a), t) for a, t in comments]
        # A comment after a section that export does not write (an empty Play section, a Note without an
        # Auction) moves to the nearest earlier place that exists.
        valid = {"", *MANDATORY_TAGS, *extra, *tables, *(["Room"] if val("Room") else []),
                 *(["Auction"] if auction is not None else []), *(["Play"] if cards else [])}
        if auction is not None:
            valid.update(f"Auction:{i}" for i in range(-1, len(auction.calls)))
        if cards:
            valid.update(f"Play:{k}" for k in range(-1, len(cards)))
        comments = [(a if a in valid else ("Auction" if a.startswith("Play") and auction is not None else "Result"), t)
                    for a, t in comments]
        try:
            try:
                record = BoardRecord(
                    board=board, deal=deal, dealer=dealer, vul=vul, auction=auction, play=cards, result=result,
                    contract=contract, players=players, event=event, room=val("Room") or "",
                )
            except IllegalCardError:
                play_state[2]()  # type: ignore[index]  # raises the error with its trick and line
                raise
            if play_state is not None and result is not None:
                done, n_tricks, _diagnose, _ci = play_state
                left = min(len(h) for h in deal.hands) - n_tricks
                if result < done:
                    raise fail("Result", f"{result} tricks, but the play already gives declarer {done}")
                if result > done + left:
                    raise fail("Result", f"{result} tricks, but declarer can take at most {done + left} with this play")
            return PbnGame(
                record=record, tags=extra, call_annotations=call_anns, card_annotations=card_anns, tables=tables,
                comments=tuple(comments), passed_out=passed_out,
            )
        except BridgeError as exc:  # anything the checks above missed still names the game
            raise _GameError(line_of("Board") or first, str(exc)) from None

    @staticmethod
    def _seat_or_none(value: str | None, name: str, line: int) -> Seat | None:
        if value is None or value.strip() in ("", "?"):
            return None
        try:
            return Seat.parse(value)
        except BridgeError as exc:
            raise _GameError(line, f"{name}: {exc}") from None

    @staticmethod
    def _annotate(anns: dict[int, list], index: int, tok: str, suffix_map: dict[str, int], notes: dict,
                  other_notes: dict, line: int, section: str, warnings, game_no) -> None:
        slot = anns.setdefault(index, [None, []])
        m = _NOTE_REF.match(tok)
        if m:
            n = int(m.group(1))
            if n in notes:
                slot[0] = notes[n][0]
            elif n in other_notes:  # notes placed in the wrong section (seen in the wild)
                slot[0] = other_notes[n][0]
            else:
                warnings.append(PbnError(game_no, line, f"{section}: note {n} is referenced but never given"))
            return
        m = _NAG.match(tok)
        if m:
            slot[1].append(int(m.group(1)))
            return
        slot[1].append(suffix_map[tok])

    def _auction(self, value, line, toks, dealer, notes, warnings, game_no):
        def err(ln: int, msg: str) -> _GameError:
            return _GameError(ln, f"Auction: {msg}")

        try:
            first = Seat.parse(value)
        except BridgeError:
            raise err(line, f"{value!r} is not a seat (the Auction tag names the first column's seat)") from None
        seat = first
        auction: Auction | None = None
        anns: dict[int, list] = {}
        end_mark = None
        calls_after: list[int] = []
        for n, tok in enumerate(toks):
            if n:  # calls made after the previous token (a comment there follows the last of them)
                calls_after.append(len(auction.calls) if auction is not None else 0)
            t = tok.text
            if end_mark is not None and not (_NOTE_REF.match(t) or _NAG.match(t) or t in _SUFFIXES):
                raise err(tok.line, f"{t!r} after the end mark {end_mark!r}")
            if t == "-":
                if auction is not None:
                    raise err(tok.line, "'-' (no call) is only allowed before the dealer's first call")
                seat = seat.next()
                continue
            if t in ("*", "+"):
                end_mark = t
                continue
            if t.startswith("^"):  # irregularity marks (^I ^S ^R ^L): the calls themselves are what we keep
                continue
            if _NOTE_REF.match(t) or _NAG.match(t) or t in _SUFFIXES:
                if auction is None or not auction.calls:
                    raise err(tok.line, f"annotation {t!r} before any call")
                self._annotate(anns, len(auction.calls) - 1, t, _CALL_SUFFIX_NAG, notes["Auction"], notes["Play"],
                               tok.line, "Auction", warnings, game_no)
                continue
            if auction is None:
                if dealer is not None and dealer != seat:
                    raise err(tok.line, f"the first call is made by {seat.title} but the dealer is "
                                        f"{dealer.title}")
                dealer = seat
                auction = Auction(seat)
            if t.upper() == "AP":
                while not auction.is_complete:
                    auction = auction.then(PASS)
                end_mark = "AP"
                continue
            body, suffix = _split_suffix(t)
            try:
                call = Call.parse(body)
            except ParseError:
                raise err(tok.line, f"{t!r} is not a call") from None
            try:
                auction = auction.then(call)
            except IllegalCallError as exc:
                raise err(tok.line, str(exc)) from None
            if suffix:
                self._annotate(anns, len(auction.calls) - 1, suffix, _CALL_SUFFIX_NAG, {}, {}, tok.line, "Auction",
                               warnings, game_no)
        if toks:
            calls_after.append(len(auction.calls) if auction is not None else 0)
        if auction is None:
            if dealer is not None and dealer != seat and end_mark is None:
                raise err(line, f"the auction starts with {seat.title} but the dealer is {dealer.title}")
            if dealer is None:
                dealer = seat
            auction = Auction(dealer)
        if not auction.is_complete and end_mark is None:
            last = toks[-1].line if toks else line
            raise err(last, f"the auction stops after {len(auction.calls)} calls without ending "
                            "(three passes) or an end mark '*'")
        out = {i: Annotation(note, tuple(nags)) for i, (note, nags) in anns.items() if note is not None or nags}
        return auction, out, dealer, calls_after

    def _play(self, value, line, toks, deal, contract, passed_out, notes, warnings, game_no):
        def err(ln: int, msg: str) -> _GameError:
            return _GameError(ln, f"Play: {msg}")

        leader = None
        if value.strip() not in ("", "?"):
            try:
                leader = Seat.parse(value)
            except BridgeError:
                raise err(line, f"{value!r} is not a seat (the Play tag names the opening leader)") from None
        # Slots: cards and '-' in the order written, four per trick, columns leader, LHO, partner, RHO.
        slots: list[tuple[Card | None, int, list[str]]] = []
        slots_after: list[int] = []  # number of slots after each token (for comment positions)
        end_mark = None
        for n, tok in enumerate(toks):
            if n:
                slots_after.append(len(slots))
            t = tok.text
            if _NOTE_REF.match(t) or _NAG.match(t) or t in _SUFFIXES:
                if not slots or slots[-1][0] is None:
                    raise err(tok.line, f"annotation {t!r} does not follow a card")
                slots[-1][2].append(t)
                continue
            if end_mark is not None:
                raise err(tok.line, f"{t!r} after the end mark {end_mark!r}")
            if t in ("*", "+"):
                end_mark = t
                continue
            if t.startswith("^"):
                continue
            if t == "-":
                slots.append((None, tok.line, []))
                continue
            body, suffix = _split_suffix(t)
            card = _CARD_BY_TEXT.get(body)
            if card is None:
                try:
                    card = Card.parse(body)
                except ParseError:
                    raise err(tok.line, f"{t!r} is not a card") from None
            slots.append((card, tok.line, [suffix] if suffix else []))
        if toks:
            slots_after.append(len(slots))
        if not any(c is not None for c, _l, _a in slots):
            if contract is not None and contract.declarer is None and leader is not None:
                contract = contract.with_declarer(leader.rho)
            return contract, (), {}, None
        if contract is None:
            raise err(line, "cards are given but the board " + ("was passed out" if passed_out else "has no contract"))
        if contract.declarer is None:
            if leader is None:
                raise err(line, "neither the Declarer tag nor the Play tag says who declares")
            contract = contract.with_declarer(leader.rho)
        opening = contract.declarer.lho  # type: ignore[union-attr]
        if leader is not None and leader != opening:
            decl = contract.declarer.title  # type: ignore[union-attr]
            raise err(line, f"the opening leader is {leader.title} but declarer {decl}'s left-hand opponent "
                            f"is {opening.title}")
        # Play order from the seat columns: each trick starts with the previous trick's winner. Legality is
        # checked once, when the BoardRecord is built (engine.board.Play); ``diagnose`` replays card by card only
        # when that fails, to name the trick and line.
        anns: dict[int, list] = {}
        seq: list[tuple[Card, int, int]] = []  # card, line, trick number
        play_index: dict[int, int] = {}  # slot number -> index of its card in play order
        stopped_at = None  # line where an unknown card ('-') stopped the play
        public = PublicPlay(contract)  # who led each trick; legality is checked later (see above)
        for t in range((len(slots) + 3) // 4):
            row = slots[4 * t : 4 * t + 4]
            trick_leader = public.leader
            for k in range(4):
                col = (trick_leader + k - opening) % 4  # this seat's column: columns start at the opening leader
                slot = row[col] if col < len(row) else None
                card = slot[0] if slot is not None else None
                if card is None:
                    if stopped_at is None:
                        stopped_at = slot[1] if slot is not None else (row[-1][1] if row else line)
                    continue
                if stopped_at is not None:
                    raise err(slot[1],  # type: ignore[index]
                              f"trick {t + 1}: {card} is given after an unknown or missing card")
                play_index[4 * t + col] = len(seq)
                seq.append((card, slot[1], t + 1))  # type: ignore[index]
                try:
                    public = public.then(card, trusted=True)
                except IllegalCardError as exc:  # more cards than the deal holds
                    raise err(slot[1], f"trick {t + 1}: {exc}") from None  # type: ignore[index]
                for a in slot[2]:  # type: ignore[index]
                    self._annotate(anns, len(seq) - 1, a, _CARD_SUFFIX_NAG, notes["Play"], notes["Auction"],
                                   slot[1], "Play", warnings, game_no)  # type: ignore[index]

        def diagnose() -> None:
            play = Play(deal, contract)
            for card, ln, t in seq:
                try:
                    play = play.then(card)
                except IllegalCardError as exc:
                    raise err(ln, f"trick {t}: {exc}") from None

        out = {i: Annotation(note, tuple(nags)) for i, (note, nags) in anns.items() if note is not None or nags}
        # a comment after token n follows the last card written before it (in column order)
        comment_index = []
        for n_slots in slots_after:
            j = n_slots - 1
            while j >= 0 and j not in play_index:
                j -= 1
            comment_index.append(play_index[j] if j >= 0 else -1)
        return (contract, tuple(c for c, _l, _t in seq), out,
                (public.declarer_tricks, len(public.tricks), diagnose, comment_index))

    @staticmethod
    def _result(rv: str, contract: Contract | None, line: int) -> int:
        def err(msg: str) -> _GameError:
            return _GameError(line, f"Result: {msg}")

        if rv.isdigit():
            n = int(rv)
        else:
            m = re.match(r"^(NS|EW)\s+(\d+)(?:\s+(NS|EW)\s+(\d+))?$", rv.upper())
            if not m:
                raise err(f"{rv!r} is not a number of tricks (like 9 or 'NS 9')")
            if m.group(3) == m.group(1):
                raise err(f"{rv!r} names {m.group(1)} twice")
            if contract is None or contract.declarer is None:
                raise err(f"{rv!r} cannot be turned into declarer's tricks without a declarer")
            side = contract.declarer.side_name
            if m.group(1) == side:
                n = int(m.group(2))
            elif m.group(3) == side:
                n = int(m.group(4))
            else:
                n = 13 - int(m.group(2))
        if not 0 <= n <= 13:
            raise err(f"{n} is not a number of tricks (0..13)")
        return n

    @staticmethod
    def _table_rows(toks: list[_Tok]) -> tuple[tuple[str, ...], ...]:
        rows: list[list[str]] = []
        last_line = None
        for t in toks:
            if t.line != last_line:
                rows.append([])
                last_line = t.line
            rows[-1].append(t.text)
        return tuple(tuple(r) for r in rows)


# --------------------------------------------------------------------------------------------------------------
# Writing
# --------------------------------------------------------------------------------------------------------------


def _tag(name: str, value: str) -> str:
    return f'[{name} "{_escape(value)}"]'


#: Internal marker (never written: stripped below) after a ';' comment placed inside a row.
_LINE_COMMENT_END = "\x00"


def _comment(text: str) -> str:
    """``{text}`` (CRLF inside, like every export line end); a text holding '}' is a ``;`` comment instead (it
    cannot hold a line break too: ``PbnGame`` refuses that)."""
    return "{" + text.replace("\n", "\r\n") + "}" if "}" not in text else "; " + text


def _score_value(game: PbnGame) -> str:
    r = game.record
    if game.passed_out:
        return "NS 0"
    if r.contract is None or r.contract.declarer is None or r.result is None:
        return "?"
    from .scoring import score  # lazy: scoring is only needed when a Score tag is asked for

    decl = r.contract.declarer
    return f"{decl.side_name} {score(r.contract, r.result, r.vul.is_vulnerable(decl))}"  # type: ignore[union-attr]


def _annotation_tokens(ann: Annotation | None, note_no: int | None) -> list[str]:
    out = []
    if ann is None:
        return out
    if note_no is not None:
        out.append(f"={note_no}=")
    out.extend(f"${n}" for n in ann.nags)
    return out


def _game_lines(game: PbnGame, score: bool) -> list[str]:
    r = game.record
    dealer: Seat = r.dealer  # type: ignore[assignment]
    tags = dict(game.tags)
    if score:
        tags["Score"] = _score_value(game)
    by_anchor: dict[str, list[str]] = {}
    for anchor, text in game.comments:
        by_anchor.setdefault(anchor, []).append(text)
    lines: list[str] = []

    def comments(anchor: str) -> None:
        for text in by_anchor.pop(anchor, ()):
            lines.append(_comment(text))

    def tag(name: str, value: str) -> None:
        lines.append(_tag(name, value))
        comments(name)

    def inline(anchor: str) -> list[str]:
        """Comments written on the same line right after a call or card."""
        out = [_comment(text) for text in by_anchor.pop(anchor, ())]
        # a ';' comment must end its line; the marker tells the row builders to break the line after it
        return [c + _LINE_COMMENT_END if c.startswith(";") else c for c in out]

    comments("")
    c = r.contract
    if game.passed_out:
        declarer, contract, result = "", "Pass", ""
    else:
        declarer = c.declarer.letter if c is not None and c.declarer is not None else "?"
        contract = c.pbn if c is not None else "?"
        result = str(r.result) if r.result is not None else "?"
    mts = {
        "Event": r.event or "?",
        "Site": tags.get("Site", "?"),
        "Date": tags.get("Date", "?"),
        "Board": str(r.board),
        **{name: r.players.get(seat, "?") for name, seat in _SEAT_TAGS.items()},
        "Dealer": dealer.letter,
        "Vulnerable": r.vul.pbn,  # type: ignore[union-attr]
        "Deal": r.deal.to_pbn(dealer),
        "Scoring": tags.get("Scoring", "?"),
        "Declarer": declarer,
        "Contract": contract,
        "Result": result,
    }
    for name in MANDATORY_TAGS:
        tag(name, mts[name])
    others = {k: v for k, v in tags.items() if k not in _MTS_IN_TAGS}
    if r.room:
        others["Room"] = r.room
    for name in sorted(others):
        tag(name, others[name])

    notes: list[str] = []
    if r.auction is not None:
        lines.append(_tag("Auction", r.auction.dealer.letter))
        comments("Auction:-1")
        row: list[str] = []
        for i, call in enumerate(r.auction.calls):
            ann = game.call_annotations.get(i)
            note_no = None
            if ann is not None and ann.note is not None:
                notes.append(ann.note)
                note_no = len(notes)
            row.append(" ".join([call.pbn, *_annotation_tokens(ann, note_no), *inline(f"Auction:{i}")]))
            if len(row) == 4 or row[-1].endswith(_LINE_COMMENT_END):
                lines.append(" ".join(row))
                row = []
        if row:
            lines.append(" ".join(row))
        if not r.auction.is_complete:
            lines.append("*")
        for k, text in enumerate(notes, start=1):
            lines.append(_tag("Note", f"{k}:{text}"))
        comments("Auction")

    if r.play:
        assert c is not None and c.declarer is not None
        opening = c.declarer.lho
        lines.append(_tag("Play", opening.letter))
        comments("Play:-1")
        first_play_note = len(notes)
        play_notes: list[str] = []
        index = 0
        public = PublicPlay(c, r.play)
        tricks = [(leader, cards) for leader, cards, _ in public.tricks]
        if public.current_trick:
            tricks.append((public.leader, public.current_trick))
        for leader, cards in tricks:
            cols = ["-"] * 4
            for k, card in enumerate(cards):
                ann = game.card_annotations.get(index)
                note_no = None
                if ann is not None and ann.note is not None:
                    play_notes.append(ann.note)
                    note_no = first_play_note + len(play_notes)  # unique per game: some readers share numbers
                cols[(leader.next(k) - opening) % 4] = " ".join(
                    [str(card), *_annotation_tokens(ann, note_no), *inline(f"Play:{index}")])
                index += 1
            # a ';' comment runs to the end of its line: the rest of the trick goes on the next line
            row = []
            for col in cols:
                row.append(col)
                if col.endswith(_LINE_COMMENT_END):
                    lines.append(" ".join(row))
                    row = []
            if row:
                lines.append(" ".join(row))
        if r.result is not None and len(r.play) < 4 * min(len(h) for h in r.deal.hands):
            lines.append("*")
        for k, text in enumerate(play_notes, start=first_play_note + 1):
            lines.append(_tag("Note", f"{k}:{text}"))
        comments("Play")

    for name in sorted(game.tables):
        t = game.tables[name]
        lines.append(_tag(name, t.header))
        lines.extend(" ".join(row) for row in t.rows)
        comments(name)
    for anchor in list(by_anchor):  # anchors that name nothing exported: keep the text at the end of the game
        comments(anchor)
    return lines


#: The start of every exported file; a file is ``PBN_HEADER`` followed by ``format_game`` of each game.
PBN_HEADER = "% PBN 2.1\r\n% EXPORT\r\n"


def format_game(game: PbnGame | BoardRecord, *, score: bool = False) -> str:
    """One game in export format, CRLF line ends, followed by the empty line that separates games. Appending
    these to ``PBN_HEADER`` one at a time (e.g. as each board finishes) gives the same file as ``write_pbn``."""
    g = game if isinstance(game, PbnGame) else PbnGame(game)
    return "\r\n".join(_game_lines(g, score)).replace(_LINE_COMMENT_END, "") + "\r\n\r\n"


def write_pbn(games: Iterable[PbnGame | BoardRecord], *, score: bool = False) -> str:
    """PBN 2.1 export format text (CRLF line ends). ``score=True`` adds a ``Score`` tag computed by
    ``engine.scoring`` (``"NS 620"``, declarer side's view; ``"NS 0"`` when passed out)."""
    return PBN_HEADER + "".join(format_game(g, score=score) for g in games)


def _latin1_fallback(exc: UnicodeEncodeError) -> tuple[str, int]:
    """For a character outside Latin-1: its base letter when it has one (``ő`` -> ``o``), else ``?``."""
    out = []
    for ch in exc.object[exc.start : exc.end]:
        base = "".join(c for c in unicodedata.normalize("NFKD", ch) if not unicodedata.combining(c))
        out.append(base if base and all(ord(c) < 256 for c in base) else "?")
    return "".join(out), exc.end


codecs.register_error("pbn-latin1", _latin1_fallback)


def encode_pbn(text: str) -> bytes:
    """Latin-1 bytes, as PBN requires. A character outside Latin-1 becomes its base letter when it has one
    (``ő`` -> ``o``, ``ﬁ`` -> ``fi``), else ``?`` (emoji in a player's name)."""
    return text.encode("latin-1", errors="pbn-latin1")

"""Hypothesis strategies for the domain model, shared by every test that wants random bridge values.

``deals()``, ``calls()``, ``auctions()`` (random *legal* auctions, complete or not), ``contracts()``, ``plays()``
(random legal card play for a deal and contract), ``board_records()`` (with ``notes=True``: call and card notes,
table and seconds too) and ``pbn_games()`` (a BoardRecord with everything PBN can carry besides: tags, notes, NAGs,
tables, comments).
"""

from __future__ import annotations

from hypothesis import strategies as st

from squeeze.engine.auction import ALL_CALLS, PASS, Auction, Contract
from squeeze.engine.board import Play
from squeeze.engine.cards import Card, Deal, Hand, Rank, Seat, Strain, Suit, Vul
from squeeze.engine.record import BoardRecord, CallNote, CardNote

__all__ = [
    "seats", "suits", "strains", "vuls", "cards", "hands", "deals", "calls", "auctions", "contracts", "plays",
    "board_records", "pbn_games", "pbn_text", "annotations", "seconds",
]

seats = lambda: st.sampled_from(list(Seat))  # noqa: E731
suits = lambda: st.sampled_from(list(Suit))  # noqa: E731
strains = lambda: st.sampled_from(list(Strain))  # noqa: E731
vuls = lambda: st.sampled_from(list(Vul))  # noqa: E731
cards = lambda: st.builds(Card, suits(), st.sampled_from(list(Rank)))  # noqa: E731
calls = lambda: st.sampled_from(ALL_CALLS)  # noqa: E731


def hands(max_size: int = 13) -> st.SearchStrategy[Hand]:
    return st.sets(st.integers(0, 51), max_size=max_size).map(lambda s: Hand(sum(1 << i for i in s)))


@st.composite
def deals(draw) -> Deal:
    """A uniformly shuffled complete deal (shrinks towards the sorted deal)."""
    perm = draw(st.permutations(range(52)))
    return Deal(Hand(sum(1 << c for c in perm[13 * s : 13 * s + 13])) for s in range(4))


@st.composite
def auctions(draw, dealer: Seat | None = None, complete: bool | None = None, max_bids: int = 12) -> Auction:
    """A random legal auction. Low bids are preferred (each bid picks among the next few legal bids) so auctions
    look like bridge and end; after ``max_bids`` bids everyone passes."""
    d = draw(seats()) if dealer is None else dealer
    want_complete = draw(st.booleans()) if complete is None else complete
    a = Auction(d)
    bids = 0
    while not a.is_complete:
        if not want_complete and draw(st.integers(0, 6)) == 0:
            break
        legal = a.legal_calls()
        if bids >= max_bids or draw(st.integers(0, 2)) == 0:
            call = PASS
        else:
            call = legal[draw(st.integers(0, min(len(legal) - 1, 7)))]
        bids += call.is_bid
        a = a.then(call)
    return a


@st.composite
def contracts(draw, declarer: bool | None = None) -> Contract:
    has_decl = draw(st.booleans()) if declarer is None else declarer
    return Contract(
        draw(st.integers(1, 7)), draw(strains()), draw(st.integers(0, 2)), draw(seats()) if has_decl else None
    )


@st.composite
def plays(draw, deal: Deal, contract: Contract, min_cards: int = 0, max_cards: int = 52) -> Play:
    """A random legal play of between ``min_cards`` and ``max_cards`` cards (``contract`` needs a declarer)."""
    n = draw(st.integers(min_cards, max_cards))
    p = Play(deal, contract)
    for _ in range(n):
        legal = p.legal_cards()
        if not legal:
            break
        p = p.then(legal[draw(st.integers(0, len(legal) - 1))])
    return p


#: Latin-1 printable text (PBN's character set) including quotes and backslashes, which export must escape.
_LATIN1 = st.characters(min_codepoint=32, max_codepoint=255, blacklist_categories=("Cc",))


def pbn_text(max_size: int = 16, *, safe: bool = False) -> st.SearchStrategy[str]:
    """Tag-value text. ``"?"`` (unknown) and values starting with ``#`` (inheritance) cannot be written as
    themselves in PBN, so they are excluded. ``safe`` keeps to letters, digits and a few signs (for oracles whose
    readers do not handle escapes)."""
    alphabet = st.sampled_from("abcXYZ019 .,-:;()") if safe else _LATIN1
    return st.text(alphabet, max_size=max_size).filter(lambda s: s != "?" and not s.startswith("#"))


def seconds() -> st.SearchStrategy[float | None]:
    """A decision's or a side's time: not measured, or finite and non-negative (a whole number now and then)."""
    return st.none() | st.floats(0, 1e5, allow_nan=False, allow_infinity=False) | st.integers(0, 600).map(float)


@st.composite
def board_records(draw, *, safe_text: bool = False, allow_no_auction: bool = True, notes: bool = False,
                  note_text: st.SearchStrategy[str] | None = None) -> BoardRecord:
    """A random consistent record. ``notes``: also a note per call and per card (each list present or not), a
    table name and the seconds of each side; their texts come from ``note_text`` (default ``pbn_text``)."""
    deal = draw(deals())
    board = draw(st.integers(1, 64))
    dealer = draw(seats())
    vul = draw(vuls())
    kind = draw(st.sampled_from(["complete", "complete", "complete", "incomplete", "none"]
                                if allow_no_auction else ["complete", "complete", "incomplete"]))
    auction = None
    contract = None
    if kind == "complete":
        auction = draw(auctions(dealer=dealer, complete=True))
        contract = auction.contract
    elif kind == "incomplete":
        auction = draw(auctions(dealer=dealer, complete=False))
        if auction.is_complete:  # the random stop never came
            contract = auction.contract
        elif draw(st.booleans()):
            contract = draw(contracts(declarer=True))
    else:
        if draw(st.booleans()):
            contract = draw(contracts(declarer=True))
    play: tuple[Card, ...] = ()
    result = None
    if contract is not None and contract.declarer is not None:
        p = draw(plays(deal, contract, max_cards=draw(st.sampled_from([0, 8, 52]))))
        play = p.cards
        if not p.is_complete and draw(st.booleans()):
            left = 13 - len(p.tricks)
            result = p.declarer_tricks + draw(st.integers(0, left))  # a claim
        elif p.is_complete:
            result = p.declarer_tricks
    text = pbn_text(safe=safe_text)
    players = draw(st.dictionaries(seats(), text, max_size=4))
    extra: dict = {}
    if notes:
        words = pbn_text(safe=safe_text) if note_text is None else note_text
        n_calls = len(auction.calls) if auction is not None else 0
        if n_calls and draw(st.booleans()):
            extra["call_notes"] = draw(st.lists(st.builds(CallNote, st.booleans(), words, seconds()),
                                                min_size=n_calls, max_size=n_calls))
        if play and draw(st.booleans()):
            extra["card_notes"] = draw(st.lists(st.builds(CardNote, words, seconds()),
                                                min_size=len(play), max_size=len(play)))
        extra.update(table=draw(text), seconds_ns=draw(seconds()), seconds_ew=draw(seconds()))
    return BoardRecord(
        board=board, deal=deal, dealer=dealer, vul=vul, auction=auction, play=play, result=result,
        contract=contract, players=players, event=draw(text), room=draw(st.sampled_from(["", "Open", "Closed"])),
        **extra,
    )


def annotations(safe_text: bool = False, nag_range: tuple[int, int] | None = (1, 255)):
    """A non-empty ``engine.pbn.Annotation``; ``nag_range=None`` gives notes only."""
    from squeeze.engine.pbn import Annotation

    note = st.none() | pbn_text(safe=safe_text).map(str.strip)
    if nag_range is None:
        return st.builds(Annotation, pbn_text(safe=safe_text).map(str.strip))
    return st.builds(Annotation, note, st.lists(st.integers(*nag_range), max_size=2).map(tuple)).filter(bool)


_EXTRA_TAGS = ["Site", "Date", "Scoring", "Generator", "OptimumScore", "Annotator", "Competition", "Table", "Round",
               "TimeCall", "Score", "DealId"]
_TABLES = ["OptimumResultTable", "ScoreTable", "TotalScoreTable"]
_CELL = st.text(st.sampled_from("abNSEW0123456789+-"), min_size=1, max_size=5)


@st.composite
def pbn_games(draw, *, safe_text: bool = False, extras: bool = True, nags: bool = True):
    """A ``PbnGame``: a random board record plus, unless ``extras`` is false, tags, annotations (alerts and, unless
    ``nags`` is false, NAGs), supplemental tables and comments at random valid places (``safe_text``: no tables or
    comments, plain tag text — what simpler readers such as endplay's handle)."""
    from squeeze.engine.pbn import PbnGame, PbnTable

    record = draw(board_records(safe_text=safe_text))
    # a board known to be passed out although its auction was not recorded (Contract "Pass", no Auction section)
    passed_out = record.auction is None and record.contract is None and draw(st.booleans())
    if not extras:
        return PbnGame(record, passed_out=passed_out)
    text = pbn_text(safe=safe_text)
    tags = draw(st.dictionaries(st.sampled_from(_EXTRA_TAGS), text, max_size=4))
    n_calls = len(record.auction.calls) if record.auction is not None else 0
    call_anns = {}
    card_anns = {}
    if n_calls:
        call_anns = draw(st.dictionaries(st.integers(0, n_calls - 1),
                                         annotations(safe_text, (1, 6) if nags else None), max_size=3))
    if record.play:
        card_anns = draw(st.dictionaries(st.integers(0, len(record.play) - 1),
                                         annotations(safe_text, (7, 14) if nags else None),
                                         max_size=3))
    tables = {}
    if not safe_text:
        tables = draw(st.dictionaries(
            st.sampled_from(_TABLES),
            st.builds(PbnTable, pbn_text(safe=True),
                      st.lists(st.lists(_CELL, min_size=1, max_size=4).map(tuple), max_size=3).map(tuple)),
            max_size=2))
    game = PbnGame(record, tags=tags, call_annotations=call_anns, card_annotations=card_anns, tables=tables,
                   passed_out=passed_out)
    comments = ()
    if not safe_text:
        # a comment may hold '}' (then it is written as a ';' comment) or line breaks, not both
        comment_text = st.text(st.characters(min_codepoint=32, max_codepoint=255, blacklist_categories=("Cc",),
                                             blacklist_characters="}") | st.just("\n"), max_size=20) | st.text(
            _LATIN1, max_size=20)
        comments = tuple(draw(st.lists(st.tuples(st.sampled_from(game.anchors()), comment_text), max_size=3)))
    return PbnGame(record, tags=tags, call_annotations=call_anns, card_annotations=card_anns, tables=tables,
                   comments=comments, passed_out=passed_out)

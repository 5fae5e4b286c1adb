"""PBN 2.1 import (lenient) and export (strict): the research example, variants seen in the wild, the export rules,
and the hypothesis round trip export -> import."""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings

from squeeze.engine.auction import Auction, Contract
from squeeze.engine.record import BoardRecord
from squeeze.engine.cards import Card, Deal, Seat, Vul
from squeeze.engine.pbn import (MANDATORY_TAGS, Annotation, PbnError, PbnGame, PbnTable, encode_pbn, read_pbn,
                        write_pbn)

from strategies import pbn_games

# The example of ecosystem.md §1.1, verbatim (there with CRLF line ends).
EXAMPLE = """% PBN 2.1
% EXPORT
[Event "Self-play run 42"]
[Site "localhost"]
[Date "2026.11.30"]
[Board "5"]
[West "botB 0.3.1"]
[North "botA 0.4.0"]
[East "botB 0.3.1"]
[South "botA 0.4.0"]
[Dealer "N"]
[Vulnerable "NS"]
[Deal "N:AK94.T82.K73.QJ5 Q76.AJ5.T862.T92 JT3.KQ973.AQ4.84 852.64.J95.AK763"]
[Scoring "IMP"]
[Declarer "S"]
[Contract "4H"]
[Result "9"]
[Generator "botA selfplay seed=42:5"]
[OptimumScore "NS 620"]
[Room "Open"]
[Score "NS -100"]
[Auction "N"]
1C =1= Pass 1H Pass
1S Pass 4H Pass
Pass Pass
[Note "1:could be 3 cards"]
[Play "W"]
CA C5 C2 C4
CK CJ C9 C8
*
"""
DEAL = "N:AK94.T82.K73.QJ5 Q76.AJ5.T862.T92 JT3.KQ973.AQ4.84 852.64.J95.AK763"


def one(text: str | bytes) -> PbnGame:
    r = read_pbn(text)
    assert r.errors == [], r.errors
    assert len(r.games) == 1
    return r.games[0]


def game_text(*lines: str) -> str:
    return "\n".join(lines) + "\n"


BASE_TAGS = [
    '[Event "e"]', '[Board "5"]', '[Dealer "N"]', '[Vulnerable "NS"]', f'[Deal "{DEAL}"]',
]


# --- the research example ------------------------------------------------------------------------------------


def test_example_imports_with_every_field():
    r = read_pbn(EXAMPLE)
    assert r.errors == [] and r.warnings == []
    assert r.version == "2.1" and r.export
    g = r.games[0]
    rec = g.record
    assert rec.board == 5 and rec.dealer == Seat.NORTH and rec.vul == Vul.NS
    assert rec.deal == Deal.parse(DEAL)
    assert rec.auction == Auction.parse("1C P 1H P 1S P 4H P P P", "N")
    assert rec.contract == Contract.parse("4HS")
    assert rec.result == 9
    assert [str(c) for c in rec.play] == ["CA", "C5", "C2", "C4", "CK", "CJ", "C9", "C8"]
    assert rec.players == {Seat.WEST: "botB 0.3.1", Seat.NORTH: "botA 0.4.0", Seat.EAST: "botB 0.3.1",
                           Seat.SOUTH: "botA 0.4.0"}
    assert rec.event == "Self-play run 42" and rec.room == "Open"
    assert g.call_annotations == {0: Annotation(note="could be 3 cards")}
    assert g.tags == {"Site": "localhost", "Date": "2026.11.30", "Scoring": "IMP",
                      "Generator": "botA selfplay seed=42:5", "OptimumScore": "NS 620", "Score": "NS -100"}


def test_example_exports_byte_for_byte():
    games = read_pbn(EXAMPLE).games
    assert write_pbn(games) == EXAMPLE.replace("\n", "\r\n") + "\r\n"


def test_score_tag_comes_from_engine_scoring():
    game = read_pbn(EXAMPLE).games[0]
    plain = PbnGame(game.record, tags={k: v for k, v in game.tags.items() if k != "Score"},
                    call_annotations=game.call_annotations)
    out = write_pbn([plain], score=True)
    assert '[Score "NS -100"]' in out  # 4H by South down one, vulnerable
    assert game.record.score_ns() == -100


def test_line_ends_lf_crlf_cr_all_read_the_same():
    lf = read_pbn(EXAMPLE).games
    assert read_pbn(EXAMPLE.replace("\n", "\r\n")).games == lf
    assert read_pbn(EXAMPLE.replace("\n", "\r")).games == lf
    assert read_pbn(encode_pbn(EXAMPLE.replace("\n", "\r\n"))).games == lf


# --- import variants ---------------------------------------------------------------------------------------------


def test_comments_of_every_kind_and_escape_lines():
    text = game_text(
        "% Content-type: text/x-pbn; charset=ISO-8859-1",
        "{ a comment before the first tag }",
        '[Event "e"] ; trailing comment',
        '[Board "5"] {same-line brace comment}',
        "; a comment-only line",
        "{PAR of the deal: 3H = played by North: 140 points}",
        "%BCOptions Float Justify",
        '[Dealer "N"]',
        '[Vulnerable "NS"]',
        "{a comment",
        "",
        "spanning an empty line}",
        f'[Deal "{DEAL}"]',
        '[Auction "N"]',
        "1C Pass {inside the auction} 1H Pass",
        "1S Pass 4H AP",
    )
    g = one(text)
    assert g.record.contract == Contract.parse("4HS")
    assert [a for a, _ in g.comments] == ["", "Event", "Board", "Board", "Board", "Vulnerable", "Auction:1"]
    texts = [t for _, t in g.comments]
    assert "PAR of the deal: 3H = played by North: 140 points" in texts
    assert "a comment\n\nspanning an empty line" in texts
    # comments survive export and re-import at the same places
    assert one(write_pbn([g])) == g


@pytest.mark.parametrize("value", ["?", ""])
def test_unknown_declarer_contract_result(value):
    g = one(game_text(*BASE_TAGS, f'[Declarer "{value}"]', f'[Contract "{value}"]', f'[Result "{value}"]'))
    assert g.record.contract is None and g.record.result is None and not g.passed_out
    # with an auction the contract still comes from the auction
    g = one(game_text(*BASE_TAGS, '[Declarer "?"]', '[Contract "?"]', '[Result "?"]', '[Auction "N"]',
                      "1N Pass 3N AP"))
    assert g.record.contract == Contract.parse("3NN") and g.record.result is None


def test_ben_style_file_tags_after_auction_and_inheritance():
    games = []
    for board, (deal, dealer) in enumerate([(DEAL, "N"), (Deal.random(7).to_pbn(Seat.EAST), "E")], start=1):
        games.append(game_text(
            '[Event "##pav_first120"]' if board == 1 else "",
            f'[Board "{board}"]', f'[Dealer "{dealer}"]', '[Vulnerable "None"]', f'[Deal "{deal}"]',
            f'[Auction "{dealer}"]', "Pass Pass Pass Pass",
            '[Scoring "IMP"]', '[Declarer ""]', '[Contract "Pass"]', '[Result ""]',
        ).lstrip("\n"))
    r = read_pbn("% PBN 2.1\n% EXPORT\n" + "\n".join(games))
    assert r.errors == []
    assert [g.record.event for g in r.games] == ["pav_first120", "pav_first120"]
    assert all(g.passed_out and g.record.contract is None for g in r.games)
    assert all(g.tags["Scoring"] == "IMP" for g in r.games)


def test_hash_inheritance_and_redefinition():
    def g(board, extra):
        return game_text(*extra, f'[Board "{board}"]', f'[Deal "{DEAL}"]')

    text = "\n".join([
        g(1, ['[Site "##Utrecht"]', '[Event "First"]']),
        g(2, ['[Event "#"]']),
        g(3, ['[Site "Paris"]', '[Event "Other"]']),
        g(4, ['[Event "#"]']),
        g(5, ['[Site "##Oslo"]']),
        g(6, []),
    ])
    r = read_pbn(text)
    assert r.errors == []
    assert [x.tags.get("Site") for x in r.games] == ["Utrecht", "Utrecht", "Paris", "Utrecht", "Oslo", "Oslo"]
    assert [x.record.event for x in r.games] == ["First", "First", "Other", "Other", "", ""]


def test_notes_nags_suffixes_and_misplaced_notes():
    g = one(game_text(
        *BASE_TAGS, '[Auction "N"]', "1C! =1= $5 Pass 1H? Pass", "2N =2= Pass 3N AP",
        '[Play "E"]', "D2 =3= D4 D5 DK", '[Note "1:could be 3 cards"]', '[Note "2: 18-19 balanced "]',
        '[Note "3:fourth best"]',  # a play note; the auction notes are in the right place here
    ))
    assert g.call_annotations == {
        0: Annotation("could be 3 cards", (1, 5)), 2: Annotation(None, (2,)), 4: Annotation("18-19 balanced")}
    assert g.card_annotations == {0: Annotation("fourth best")}
    assert one(write_pbn([g])) == g
    # notes after the Play section that the auction refers to (seen in the wild) are still found
    g2 = one(game_text(*BASE_TAGS, '[Auction "N"]', "1C =1= Pass 1H Pass", "1N AP", '[Play "E"]', "D2 D4 D5 DK",
                       '[Note "1:could be 3 cards"]'))
    assert g2.call_annotations == {0: Annotation("could be 3 cards")}


def test_missing_note_is_a_warning_not_an_error():
    r = read_pbn(game_text(*BASE_TAGS, '[Auction "N"]', "1C =4= AP"))
    assert r.errors == [] and len(r.games) == 1
    assert [str(w) for w in r.warnings] == ["game 1, line 7: Auction: note 4 is referenced but never given"]


def test_auction_padding_and_end_marks():
    # the table starts with West's column although East deals: '-' pads the columns before the dealer
    g = one(game_text('[Board "2"]', '[Dealer "E"]', f'[Deal "{DEAL}"]', '[Auction "W"]', "- - 1S Pass",
                      "2S AP"))
    assert g.record.auction == Auction.parse("1S P 2S P P P", "E")
    # '*' = unfinished auction, the contract comes from the tags
    g = one(game_text(*BASE_TAGS, '[Declarer "S"]', '[Contract "4HX"]', '[Auction "N"]', "1C Pass 1H *"))
    assert len(g.record.auction.calls) == 3 and not g.record.auction.is_complete
    assert g.record.contract == Contract.parse("4HXS")
    assert one(write_pbn([g])) == g
    g = one(game_text(*BASE_TAGS, '[Auction "N"]', "1C Pass +"))
    assert len(g.record.auction.calls) == 2
    # the dealer can come from the Auction tag
    g = one(game_text('[Board "1"]', f'[Deal "{DEAL}"]', '[Auction "W"]', "AP"))
    assert g.record.dealer == Seat.WEST and g.passed_out


PLAY_LINES = [
    '[Declarer "S"]', '[Contract "4H"]', '[Result "9"]', '[Auction "N"]', "1C Pass 1H Pass", "1S Pass 4H AP",
    '[Play "W"]',
    "CA C5 C2 C4",  # W wins
    "CK CJ C9 C8",  # W wins
    "S2 SA S6 S3",  # N wins
    "H4 H2 HA H3",  # N led H2, E's HA wins
    "S5 SK SQ SJ",  # E led SQ, N's SK wins
    "*",
]


def test_play_columns_are_seats_not_play_order():
    g = one(game_text(*BASE_TAGS, *PLAY_LINES))
    assert " ".join(str(c) for c in g.record.play) == (
        "CA C5 C2 C4 CK CJ C9 C8 S2 SA S6 S3 H2 HA H3 H4 SQ SJ S5 SK")
    assert g.record.result == 9
    out = write_pbn([g])
    assert "\r\nH4 H2 HA H3\r\nS5 SK SQ SJ\r\n*\r\n" in out
    assert one(out) == g


def test_partial_last_trick_is_padded_and_read_back():
    g = one(game_text(*BASE_TAGS, *PLAY_LINES[:-2], "- - SQ SJ", "*"))
    assert [str(c) for c in g.record.play[-2:]] == ["SQ", "SJ"]
    assert "\r\n- - SQ SJ\r\n*\r\n" in write_pbn([g])


@pytest.mark.parametrize("result,expected", [("NS 9", 9), ("EW 4", 9), ("NS 9 EW 4", 9), ("^9", 9), ("9", 9)])
def test_result_forms(result, expected):
    lines = [x if not x.startswith("[Result") else f'[Result "{result}"]' for x in PLAY_LINES]
    assert one(game_text(*BASE_TAGS, *lines)).record.result == expected


def test_lenient_tag_names_deal_forms_and_tables():
    deal = Deal.parse(DEAL)
    south_first = deal.to_pbn(Seat.SOUTH)
    with_letters = "S:" + " ".join(
        ".".join(s + part for s, part in zip("SHDC", str(deal[Seat.SOUTH.next(i)]).split("."))) for i in range(4))
    for value in (south_first, with_letters, DEAL.rsplit(" ", 1)[0] + " -"):
        g = one(game_text('[board "5"]', f'[DEAL "{value}"]'))
        assert g.record.deal == deal
    g = one(game_text('[Board "5"]', f'[Deal "{DEAL}"]',
                      '[OptimumResultTable "Declarer;Denomination\\2R;Result\\2R"]', "N NT 5", "N S 6"))
    assert g.tables == {"OptimumResultTable": PbnTable("Declarer;Denomination\\2R;Result\\2R",
                                                       (("N", "NT", "5"), ("N", "S", "6")))}
    out = write_pbn([g])
    assert '[OptimumResultTable "Declarer;Denomination\\2R;Result\\2R"]\r\nN NT 5\r\nN S 6\r\n' in out
    assert one(out) == g


def test_quotes_backslashes_and_latin1():
    rec = BoardRecord(board=1, deal=Deal.parse(DEAL), players={Seat.NORTH: 'Zoë "the \\ robot"'}, event="Café")
    out = write_pbn([rec])
    assert '[North "Zoë \\"the \\ robot\\""]' in out
    data = encode_pbn(out)
    assert "Zoë".encode("latin-1") in data
    assert one(data).record == rec
    assert one(out.encode("utf-8")).record == rec  # UTF-8 files are common in practice


def test_junk_between_games_is_a_warning():
    text = EXAMPLE + "\nGenerated 2 deals in 0.01 s\n\n" + EXAMPLE.split("\n", 2)[2]
    r = read_pbn(text)
    assert r.errors == [] and len(r.games) == 2
    assert [str(w) for w in r.warnings] == ["line 32: ignored text outside any game: 'Generated'"]


# --- bad input: one error per bad game, with game and line; the good games survive ----------------------------


def lines_with(*replace: tuple[str, str], extra: tuple[str, ...] = ()) -> list[str]:
    lines = EXAMPLE.splitlines()
    for old, new in replace:
        i = next(k for k, x in enumerate(lines) if x.startswith(old))
        lines[i] = new
    return lines + list(extra)


def error_of(lines: list[str]) -> str:
    r = read_pbn("\n".join(lines) + "\n")
    assert r.games == [] and len(r.errors) == 1, r.errors
    return str(r.errors[0])


BAD = [
    ("duplicate card", lines_with(('[Deal "', '[Deal "N:AK94.T82.K73.QJ5 Q76.AJ5.T862.T92 JT3.KQ973.AQ4.84 '
                                             'A52.64.J95.AK763"]')), "game 1, line 13: Deal: card SA appears twice"),
    ("14 cards", lines_with(('[Deal "', '[Deal "N:AK942.T82.K73.QJ5 Q76.AJ5.T862.T92 JT3.KQ973.AQ4.84 '
                                      '85.64.J95.AK763"]')), "game 1, line 13: Deal: deal has 14 cards in North"),
    ("bad rank", lines_with(('[Deal "', '[Deal "N:AK9X.T82.K73.QJ5 - - -"]')),
     "game 1, line 13: Deal: North: hand 'AK9X.T82.K73.QJ5': 'X' is not a rank (expected AKQJT98765432)"),
    ("insufficient bid", lines_with(("1S Pass 4H Pass", "1S Pass 1H Pass")),
     "game 1, line 24: Auction: 1H is insufficient after 1S"),
    ("double own side", lines_with(("1S Pass 4H Pass", "1S Pass X Pass")),
     "game 1, line 24: Auction: X is illegal: 1S was bid by South's own side"),
    ("not a call", lines_with(("1S Pass 4H Pass", "1S Pass 4Z Pass")), "game 1, line 24: Auction: '4Z' is not a call"),
    ("call after end", lines_with(("Pass Pass", "Pass Pass Pass")),
     "game 1, line 25: Auction: the auction is over; P cannot be made"),
    ("truncated auction", EXAMPLE.splitlines()[:24],
     "game 1, line 24: Auction: the auction stops after 8 calls without ending (three passes) or an end mark '*'"),
    ("truncated tag", EXAMPLE.splitlines()[:12] + ['[Deal "N:AK94.T82.K73.QJ5 Q76.AJ5'],
     "game 1, line 13: malformed tag '[Deal \"N:AK94.T82.K73.QJ5 Q76.AJ5' (expected [Name \"value\"])"),
    ("unclosed comment", EXAMPLE.splitlines()[:12] + ["{ par: 4H by N"], "game 1, line 13: comment '{' is never closed"),
    ("revoke", lines_with(("CK CJ C9 C8", "CK CJ C9 H3")),
     "game 1, line 29: Play: trick 2: H3 is a revoke: South must follow clubs"),
    ("card not held", lines_with(("CK CJ C9 C8", "CK CJ C9 CQ")),
     "game 1, line 29: Play: trick 2: CQ is not in South's hand"),
    ("card twice", lines_with(("CK CJ C9 C8", "CA CJ C9 C8")),
     "game 1, line 29: Play: trick 2: CA has already been played"),
    ("wrong leader", lines_with(('[Play "W"]', '[Play "N"]')),
     "game 1, line 27: Play: the opening leader is North but declarer South's left-hand opponent is West"),
    ("contract mismatch", lines_with(('[Contract "4H"]', '[Contract "4S"]')),
     "game 1, line 16: Contract: the tag says 4S but the auction ends in 4H"),
    ("declarer mismatch", lines_with(('[Declarer "S"]', '[Declarer "N"]')),
     "game 1, line 15: Declarer: the tag says N but the auction makes South declarer"),
    ("result above play", lines_with(('[Result "9"]', '[Result "12"]')),
     "game 1, line 17: Result: 12 tricks, but declarer can take at most 11 with this play"),
    ("result not a number", lines_with(('[Result "9"]', '[Result "nine"]')),
     "game 1, line 17: Result: 'nine' is not a number of tricks (like 9 or 'NS 9')"),
    ("result too big", lines_with(('[Result "9"]', '[Result "14"]')),
     "game 1, line 17: Result: 14 is not a number of tricks (0..13)"),
    ("dealer vs auction", lines_with(('[Dealer "N"]', '[Dealer "E"]')),
     "game 1, line 23: Auction: the first call is made by North but the dealer is East"),
    ("bad board", lines_with(("[Board", '[Board "5a"]')),
     "game 1, line 6: Board: '5a' is not a board number (a positive integer)"),
    ("missing deal", [x for x in EXAMPLE.splitlines() if not x.startswith("[Deal")],
     "game 1, line 6: Deal: the Deal tag is missing"),
    ("duplicate section", lines_with(extra=('[Play "W"]',)), "game 1, line 31: Play: the tag appears twice in this game"),
    ("deal inheritance", lines_with(('[Deal "', '[Deal "#"]')),
     "game 1, line 13: Deal: tag value inheritance ('#') is not allowed for Deal"),
    ("hash without previous", lines_with(("[Site", '[Site "#"]')),
     "game 1, line 4: Site: '#' refers to a previous game, but none has this tag"),
    ("bad note", lines_with(("[Note", '[Note "could be 3 cards"]')),
     "game 1, line 26: Note: 'could be 3 cards' is not 'number:text'"),
    ("words after a plain tag", lines_with(("[Room", '[Room "Open"] Closed')),
     "game 1, line 20: unexpected 'Closed' after the Room tag"),
    ("bad vulnerability", lines_with(("[Vulnerable", '[Vulnerable "Maybe"]')),
     "game 1, line 12: Vulnerable: not a vulnerability: 'Maybe' (expected None, NS, EW or All)"),
]


@pytest.mark.parametrize("name,lines,message", BAD, ids=[b[0] for b in BAD])
def test_bad_input_messages(name, lines, message):
    assert error_of(lines) == message


def test_result_below_what_the_play_gives():
    lines = [x if not x.startswith("[Result") else '[Result "1"]' for x in PLAY_LINES]
    r = read_pbn(game_text(*BASE_TAGS, *lines))
    assert [str(e) for e in r.errors] == ["game 1, line 8: Result: 1 tricks, but the play already gives declarer 2"]


def test_play_without_contract_or_declarer():
    lines = [x for x in EXAMPLE.splitlines()
             if not x.startswith(("[Auction", "1C", "1S", "Pass", "[Note", "[Declarer", "[Contract"))]
    assert error_of(lines) == "game 1, line 20: Play: cards are given but the board has no contract"
    # with a contract but no Declarer tag, the Play tag's opening leader tells who declares
    g = one("\n".join(x for x in EXAMPLE.splitlines() if not x.startswith(("[Auction", "1C", "1S", "Pass", "[Note",
                                                                            "[Declarer"))))
    assert g.record.contract == Contract.parse("4HS")


def test_bad_game_does_not_hide_good_ones_and_strict_raises():
    bad = EXAMPLE.split("\n", 2)[2].replace("CK CJ C9 C8", "CK CJ C9 H3")
    good2 = EXAMPLE.split("\n", 2)[2].replace('[Board "5"]', '[Board "6"]')
    text = EXAMPLE + "\n" + bad + "\n" + good2
    r = read_pbn(text)
    assert [g.record.board for g in r.games] == [5, 6]
    assert [(e.game, e.line) for e in r.errors] == [(2, 58)]
    assert str(r.errors[0]) == "game 2, line 58: Play: trick 2: H3 is a revoke: South must follow clubs"
    with pytest.raises(PbnError, match=r"^game 2, line 58: Play: trick 2: H3 is a revoke"):
        read_pbn(text, strict=True)


# --- export format ----------------------------------------------------------------------------------------------


def check_export_format(text: str) -> None:
    assert text.startswith("% PBN 2.1\r\n% EXPORT\r\n")
    assert text.endswith("\r\n\r\n")
    body = text.split("\r\n")
    assert all("\n" not in x and "\r" not in x and "\t" not in x for x in body)
    games = "\r\n".join(body[2:]).split("\r\n\r\n")
    for g in games:
        if not g.strip():
            continue
        names = [m.group(1) for m in re.finditer(r'^\[(\w+) "', g, re.M)]
        assert tuple(names[:15]) == MANDATORY_TAGS
        ident = []
        for n in names[15:]:
            if n in ("Auction", "Play", "Note") or n.endswith("Table"):
                break
            ident.append(n)
        assert ident == sorted(ident)


@settings(max_examples=120, deadline=None, suppress_health_check=list(HealthCheck))
@given(pbn_games())
def test_export_reimports_identically(game):
    text = write_pbn([game])
    check_export_format(text)
    r = read_pbn(text)
    assert r.errors == [] and r.warnings == []
    assert r.games == [game]
    assert read_pbn(encode_pbn(text), encoding="latin-1").games == [game]


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(pbn_games(extras=False), pbn_games())
def test_multi_game_files_round_trip(a, b):
    text = write_pbn([a, b, a])
    check_export_format(text)
    assert read_pbn(text).games == [a, b, a]


def test_export_rejects_values_pbn_cannot_hold():
    rec = BoardRecord(board=1, deal=Deal.parse(DEAL))
    with pytest.raises(ValueError, match="inheritance"):
        PbnGame(rec, tags={"Site": "#1"})
    with pytest.raises(ValueError, match="line break"):
        PbnGame(rec, tags={"Site": "a\nb"})
    with pytest.raises(ValueError, match="own field"):
        PbnGame(rec, tags={"Deal": "x"})
    with pytest.raises(ValueError, match="call annotation"):
        PbnGame(rec, call_annotations={0: Annotation("x")})
    with pytest.raises(ValueError, match="anchor"):
        PbnGame(rec, comments=(("Auction", "no auction here"),))
    with pytest.raises(ValueError, match="dealer"):
        PbnGame(BoardRecord(board=1, deal=Deal.parse(DEAL), dealer=Seat.NORTH, auction=Auction(Seat.EAST)))


def test_passed_out_exports_empty_declarer_and_result():
    rec = BoardRecord(board=3, deal=Deal.parse(DEAL), auction=Auction.parse("P P P P", "S"))
    out = write_pbn([rec], score=True)
    for tag in ('[Declarer ""]', '[Contract "Pass"]', '[Result ""]', '[Score "NS 0"]', "Pass Pass Pass Pass"):
        assert tag in out
    assert one(out).passed_out


def test_card_parse_matches_column_cards():
    # Card suffixes in play become NAGs $7..$12
    g = one(game_text(*BASE_TAGS, *PLAY_LINES[:7], "CA! C5 C2?! C4", "*"))
    assert g.card_annotations == {0: Annotation(None, (7,)), 2: Annotation(None, (12,))}
    assert g.record.play[0] == Card.parse("CA")


def test_games_without_separating_empty_line():
    second = EXAMPLE.split("\n", 2)[2].replace('[Board "5"]', '[Board "6"]')
    r = read_pbn(EXAMPLE + second)
    assert r.errors == []
    assert [g.record.board for g in r.games] == [5, 6]
    assert [str(w) for w in r.warnings] == [
        "line 31: no empty line before this [Event] tag; read as the start of a new game"]


def test_cli_checks_and_converts(tmp_path):
    from typer.testing import CliRunner

    from squeeze.robot.cli import app

    src = tmp_path / "in.pbn"
    bad = EXAMPLE.split("\n", 2)[2].replace('[Board "5"]', '[Board "6"]').replace("CK CJ C9 C8", "CK CJ C9 H3")
    src.write_bytes(encode_pbn(EXAMPLE + "\n" + bad))
    out_pbn, out_lin = tmp_path / "out.pbn", tmp_path / "out.lin"
    res = CliRunner().invoke(app, ["pbn", str(src), "--export", str(out_pbn), "--lin", str(out_lin)])
    assert res.exit_code == 1
    assert "error: game 2, line 58: Play: trick 2: H3 is a revoke: South must follow clubs" in res.output
    assert "1 games read, 1 with errors, 0 warnings" in res.output
    assert out_pbn.read_bytes() == encode_pbn(write_pbn(read_pbn(EXAMPLE).games))
    assert out_lin.read_text().count("\n") == 1
    vg = tmp_path / "match.lin"
    res = CliRunner().invoke(app, ["pbn", str(src), "--vugraph", str(vg)])
    assert vg.read_text().startswith("vg|Self-play run 42,,I,5,5,,0,,0|\nrs|4HS-1,|\n")
    res = CliRunner().invoke(app, ["pbn", str(tmp_path / "missing.pbn")])
    assert res.exit_code == 2 and "cannot read" in res.output


def test_empty_auction_section_records_no_auction():
    g = one(game_text('[Board "1"]', f'[Deal "{DEAL}"]', '[Auction "E"]', '[Declarer "S"]', '[Contract "3NT"]',
                      '[Result "10"]'))
    assert g.record.auction is None and g.record.dealer == Seat.EAST
    assert g.record.contract == Contract.parse("3NS") and g.record.result == 10


def test_play_end_marks_unknown_cards_and_irregularities():
    head = [*BASE_TAGS, *PLAY_LINES[:7]]
    # '+' = the next card would be played here: the play so far is kept, no claim
    g = one(game_text(*head, "CA C5 C2 C4", "+"))
    assert len(g.record.play) == 4 and g.record.result == 9
    # the Play tag may be "?" when the tags say who declares
    g = one(game_text(*[x if x != '[Play "W"]' else '[Play "?"]' for x in head], "CA C5 C2 C4", "*"))
    assert len(g.record.play) == 4
    # a card after an unknown one cannot be placed in play order
    r = read_pbn(game_text(*head, "CA - C2 C4", "*"))
    assert [str(e) for e in r.errors] == ["game 1, line 13: Play: trick 1: C2 is given after an unknown or missing card"]
    # cards after the end mark
    r = read_pbn(game_text(*head, "CA C5 C2 C4", "*", "CK"))
    assert [str(e) for e in r.errors] == ["game 1, line 15: Play: 'CK' after the end mark '*'"]
    # irregularity marks in the auction are accepted (the calls are what we keep)
    g = one(game_text(*BASE_TAGS, '[Auction "N"]', "1C ^I Pass 1H Pass", "1S Pass 4H AP"))
    assert g.record.contract == Contract.parse("4HS")


def test_annotation_before_any_call_or_card():
    r = read_pbn(game_text(*BASE_TAGS, '[Auction "N"]', "=1= 1C AP"))
    assert [str(e) for e in r.errors] == ["game 1, line 7: Auction: annotation '=1=' before any call"]
    r = read_pbn(game_text(*BASE_TAGS, *PLAY_LINES[:7], "$7 CA C5 C2 C4"))
    assert [str(e) for e in r.errors] == ["game 1, line 13: Play: annotation '$7' does not follow a card"]


def test_header_block_of_double_hash_tags_is_not_a_game():
    text = '[Event "##Club night"]\n[Site "##Delft"]\n\n' + game_text('[Board "1"]', f'[Deal "{DEAL}"]')
    r = read_pbn(text)
    assert r.errors == [] and len(r.games) == 1
    assert r.games[0].record.event == "Club night" and r.games[0].tags == {"Site": "Delft"}


def test_games_can_be_appended_one_at_a_time():
    from squeeze.engine.pbn import PBN_HEADER, format_game

    games = read_pbn(EXAMPLE).games * 2
    assert PBN_HEADER + "".join(format_game(g) for g in games) == write_pbn(games)
    assert write_pbn([]) == PBN_HEADER and read_pbn(PBN_HEADER).games == []


def test_comments_keep_their_place_among_calls_and_cards():
    text = game_text(*BASE_TAGS, *PLAY_LINES[:3], '[Auction "N"]', "{before} 1C {short club} Pass 1H Pass",
                     "1S Pass 4H AP", "; after the auction", '[Play "W"]', "CA C5 {count} C2 C4", "CK CJ C9 C8 {end}",
                     "S2 SA ; ducked", "S6 S3", "*")
    g = one(text)
    assert dict((t, a) for a, t in g.comments) == {
        "before": "Auction:-1", "short club": "Auction:0", "after the auction": "Auction:9", "count": "Play:1",
        "end": "Play:7", "ducked": "Play:9"}
    out = write_pbn([g])
    assert "{before}\r\n1C {short club} Pass 1H Pass\r\n" in out
    assert "S2 SA {ducked} S6 S3\r\n" in out
    assert one(out) == g
    # a comment holding '}' can only be a ';' comment: the rest of the trick moves to the next line
    g2 = PbnGame(g.record, comments=(("Play:9", "a } b"),))
    out2 = write_pbn([g2])
    assert "S2 SA ; a } b\r\nS6 S3\r\n" in out2
    assert one(out2) == g2


def test_repeated_plain_tag_keeps_the_first_value_with_a_warning():
    # Bridge Bidding Analyser writes [Room "Open"] and then [Room "IMP"] in every game
    r = read_pbn(EXAMPLE.replace('[Room "Open"]', '[Room "Open"]\n[Room "IMP"]'))
    assert r.errors == [] and r.games[0].record.room == "Open"
    assert [str(w) for w in r.warnings] == ["game 1, line 21: Room: the tag appears again ('IMP'); the first value is kept"]


def test_bytes_decoding_declared_guessed_or_given():
    rec = BoardRecord(board=1, deal=Deal.parse(DEAL), event="Ã©t\xe9")  # Latin-1 text that looks like UTF-8
    latin1 = encode_pbn(write_pbn([rec]))
    assert one(latin1).record.event == "Ã©t\xe9"  # not valid UTF-8 as a whole: read as Latin-1
    declared = b"%Content-type: text/x-pbn; charset=ISO-8859-1\r\n" + latin1
    assert one(declared).record.event == "Ã©t\xe9"
    ambiguous = encode_pbn(write_pbn([BoardRecord(board=1, deal=Deal.parse(DEAL), event="Ã©")]))
    assert one(ambiguous).record.event == "\xe9"  # guessed as UTF-8 ...
    assert read_pbn(ambiguous, encoding="latin-1").games[0].record.event == "Ã©"  # ... unless told


def test_shapes_written_by_bbo_and_bba():
    # BBO pads calls and cards into columns with trailing blanks; BBA writes [Play "W"] with only '*' and puts
    # a hash in a % line in the middle of the tags
    g = one(game_text(
        '[Event "Random]"]', '[Board "5"]', "% B4AA84C265736BE97F2CFA064AF0", '[Dealer "N"]', '[Vulnerable "NS"]',
        f'[Deal "{DEAL}"]', '[Declarer "S"]', '[Contract "4H"]', '[Result "10"]', '[Auction "N"]',
        "1C        Pass      1H        Pass      ", "1S        Pass      4H        Pass      ",
        "Pass      Pass      ", '[Play "W"]', "*", '[BidSystemNS "SAYC"]'))
    assert g.record.event == "Random]" and g.record.play == () and g.record.result == 10
    assert g.record.contract == Contract.parse("4HS") and g.tags["BidSystemNS"] == "SAYC"


def test_encode_outside_latin1():
    assert encode_pbn("Erdős \u20ac Zoë \U0001f600 ﬁ") == "Erdos ? Zoë ? fi".encode("latin-1")


def test_missing_board_is_numbered_by_position():
    text = game_text(f'[Deal "{DEAL}"]') + "\n" + game_text(f'[Deal "{DEAL}"]')
    r = read_pbn(text)
    assert r.errors == [] and [g.record.board for g in r.games] == [1, 2]
    assert [str(w) for w in r.warnings] == [
        "game 1, line 1: Board: no Board tag; numbered 1 by its place in the file",
        "game 2, line 3: Board: no Board tag; numbered 2 by its place in the file"]

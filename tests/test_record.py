"""``engine.record``: the board record with its call and card notes, its JSON codec, and its PBN form."""

from __future__ import annotations

import json
import math
import pickle

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from squeeze.engine.auction import Auction, Contract
from squeeze.engine.board import Play
from squeeze.engine.cards import BridgeError, Deal, Seat, Vul
from squeeze.engine.lin import lin_board
from squeeze.engine.pbn import PbnGame, read_pbn, write_pbn
from squeeze.engine.record import RECORD_SCHEMA, BoardRecord, CallNote, CardNote, RecordError

from strategies import board_records

DEAL = Deal.parse("N:AK94.T82.K73.QJ5 Q76.AJ5.T862.T92 JT3.KQ973.AQ4.84 852.64.J95.AK763")
AUCTION = Auction.parse("1N P 2C P 2S P 4S P P P", "N")  # 4S by North; East leads


def played_record(cards: int = 4, **fields) -> BoardRecord:
    play = Play(DEAL, AUCTION.contract)
    while len(play.cards) < cards:
        play = play.then(play.legal_cards()[0])
    calls = tuple(CallNote(str(call) == "2C", f"call {i}", 0.5 * i) for i, call in enumerate(AUCTION))
    return BoardRecord.from_play(1, play, auction=AUCTION, call_notes=calls,
                                 card_notes=tuple(CardNote(f"card {i}", 0.25) for i in range(cards)), **fields)


# --- the record ------------------------------------------------------------------------------------------------


def test_notes_are_one_per_call_and_one_per_card():
    rec = played_record(table="Table 3", seconds_ns=3.5, seconds_ew=2)
    assert len(rec.call_notes) == len(AUCTION.calls) and rec.call_notes[2].alert  # 2C, Stayman
    assert rec.seconds_ew == 2.0 and isinstance(rec.seconds_ew, float) and rec.table == "Table 3"
    with pytest.raises(BridgeError, match="9 call notes for an auction of 10 calls"):
        BoardRecord(1, DEAL, auction=AUCTION, call_notes=rec.call_notes[:9])
    with pytest.raises(BridgeError, match="1 call notes for an auction of 0 calls"):
        BoardRecord(1, DEAL, call_notes=(CallNote(),))
    with pytest.raises(BridgeError, match="3 card notes for a play of 4 cards"):
        BoardRecord(1, DEAL, auction=AUCTION, play=rec.play, card_notes=rec.card_notes[:3])
    with pytest.raises(BridgeError, match="3 card notes for a play of 4 cards"):
        BoardRecord.from_play(1, Play(DEAL, AUCTION.contract, rec.play), card_notes=rec.card_notes[:3])
    with pytest.raises(BridgeError, match="expected a CardNote"):
        BoardRecord(1, DEAL, auction=AUCTION, play=rec.play, card_notes=("why",) * 4)


def test_notes_without_them_and_the_records_of_before_are_unchanged():
    plain = BoardRecord(1, DEAL, auction=AUCTION, play=played_record().play)
    assert (plain.call_notes, plain.card_notes, plain.table, plain.seconds_ns) == ((), (), "", None)
    assert plain.contract == AUCTION.contract and plain.result is None and plain.dealer == Seat.NORTH


@pytest.mark.parametrize("make, message", [
    (lambda: CallNote(alert="yes"), "alert must be True or False"),
    (lambda: CallNote(explanation=None), "explanation must be text"),
    (lambda: CallNote(seconds=-1), "seconds >= 0"),
    (lambda: CardNote(seconds=math.nan), "seconds >= 0"),
    (lambda: CardNote(seconds=True), "seconds >= 0"),
    (lambda: CardNote(seconds=10 ** 400), "seconds >= 0"),
    (lambda: CardNote(reason=3), "reason must be text"),
    (lambda: BoardRecord(1, DEAL, seconds_ns=math.inf), "seconds_ns"),
    (lambda: BoardRecord(1, DEAL, table=None), "table must be text"),
    (lambda: BoardRecord(1, DEAL, players={0: "Ann"}), "players are named by Seat, got 0"),
    (lambda: BoardRecord(1, DEAL, players={Seat.WEST: None}), "West's name must be text"),
    (lambda: BoardRecord(0, DEAL), "board numbers start at 1"),
    (lambda: BoardRecord(1, DEAL, play=("SA",)), "cards are played but there is no contract"),
    (lambda: BoardRecord(1, DEAL, dealer=Seat.EAST, auction=AUCTION),
     "auction starts with North but the dealer is East"),
    (lambda: BoardRecord(1, DEAL, auction=AUCTION, contract=Contract.parse("4HN")), "does not match the auction's"),
])
def test_what_cannot_be_one_board_is_refused(make, message):
    with pytest.raises(BridgeError, match=message):
        make()


def test_dealer_defaults_to_the_auctions_then_to_the_board_numbers():
    assert BoardRecord(2, DEAL, auction=AUCTION).dealer == Seat.NORTH  # board 2 alone would say East
    assert BoardRecord(2, DEAL).dealer == Seat.EAST and BoardRecord(2, DEAL).vul == Vul.NS


def test_from_play_takes_the_deal_contract_and_cards_from_the_play():
    play = Play(DEAL, AUCTION.contract, played_record().play)
    with pytest.raises(TypeError, match="contract"):
        BoardRecord.from_play(1, play, contract=AUCTION.contract)
    with pytest.raises(TypeError, match="colour"):
        BoardRecord.from_play(1, play, colour="red")


def test_a_record_is_immutable_and_pickles():
    rec = played_record(seconds_ns=1.5)
    with pytest.raises(AttributeError):
        rec.result = 3  # type: ignore[misc]
    with pytest.raises(AttributeError):
        rec.call_notes[0].alert = True  # type: ignore[misc]
    assert pickle.loads(pickle.dumps(rec)) == rec
    names = {Seat.NORTH: "Ann"}
    named = BoardRecord(1, DEAL, players=names)
    names[Seat.NORTH] = "Bob"
    assert named.players == {Seat.NORTH: "Ann"}


# --- JSON ------------------------------------------------------------------------------------------------------

ANY_TEXT = st.text(max_size=12)  # any code point, lone surrogates and control characters included


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(board_records(notes=True, note_text=ANY_TEXT))
def test_json_round_trip_is_exact_and_the_text_stable(rec):
    text = rec.to_json()
    back = BoardRecord.from_json(text)
    assert back == rec
    assert back.to_json() == text  # encoding again gives the same text
    data = json.loads(text)
    assert text == json.dumps(data, sort_keys=True, separators=(",", ":")) and "\n" not in text
    assert data["schema"] == RECORD_SCHEMA
    assert BoardRecord.from_json(data) == rec == BoardRecord.from_json(text.encode())


def test_json_layout_uses_the_projects_text_forms():
    data = json.loads(played_record(players={Seat.SOUTH: "Zoë"}, seconds_ns=1.25).to_json())
    assert data["deal"] == DEAL.to_pbn() and (data["dealer"], data["vul"]) == ("N", "None")
    assert data["auction"] == ["1N", "P", "2C", "P", "2S", "P", "4S", "P", "P", "P"] and data["contract"] == "4SN"
    assert data["play"] == [str(c) for c in played_record().play] and data["result"] is None
    assert data["call_notes"][2] == {"alert": True, "explanation": "call 2", "seconds": 1.0}
    assert data["card_notes"][0] == {"reason": "card 0", "seconds": 0.25}
    assert data["players"] == {"S": "Zoë"} and (data["seconds_ns"], data["seconds_ew"]) == (1.25, None)
    assert json.loads(BoardRecord(4, DEAL).to_json())["vul"] == "All"  # Vul's own spelling (PBN's)


def corrupt(change) -> dict:
    data = json.loads(played_record(players={Seat.NORTH: "N1"}).to_json())
    change(data)
    return data


def put(key, value):
    return lambda d: d.__setitem__(key, value)


def put_at(key, index, value):
    return lambda d: d[key].__setitem__(index, value)


@pytest.mark.parametrize("change, message", [
    (put("schema", 2), r"record field 'schema': version 2 is not supported \(this reader reads 1\)"),
    (put("schema", True), r"'schema': version true"),
    (lambda d: d.pop("schema"), r"'schema': version null"),
    (lambda d: d.pop("deal"), r"record field 'deal' is missing"),
    (lambda d: (d.pop("deal"), d.pop("vul")), r"record field 'deal' is missing \(and 'vul'\)"),
    (put("colour", "red"), r"record field 'colour' is unknown"),
    (put("board", "1"), r"record field 'board': expected a whole number, got \"1\""),
    (put("board", 0), r"record field 'board': board numbers start at 1"),
    (put("board", 1.0), r"record field 'board': expected a whole number"),
    (put("deal", "N:AK94.T82.K73.QJ5"), r"record field 'deal': .*four hands"),
    (put("deal", DEAL.to_pbn().replace("QJ5", "QJ")), r"record field 'deal': .*12/13/13/13"),
    (put("deal", DEAL.to_pbn().replace("Q76", "A76")), r"record field 'deal': card SA appears twice"),
    (put("deal", 7), r"record field 'deal': expected text"),
    (put("dealer", "Q"), r"record field 'dealer': not a seat"),
    (put("dealer", "E"), r"record field 'contract': 4SN is not the auction's contract, 4SE"),
    (put("vul", "Sometimes"), r"record field 'vul': not a vulnerability"),
    (put("auction", "1N P"), r"record field 'auction': expected a list"),
    (put_at("auction", 2, "1C"), r"record field 'auction': call 3 \(\"1C\"\): 1C is insufficient after 1N"),
    (put_at("auction", 2, "2Z"), r"record field 'auction': call 3 \(\"2Z\"\): not a call"),
    (put_at("auction", 2, None), r"record field 'auction': call 3 \(null\): expected text"),
    (put("contract", "4HN"), r"record field 'contract': 4HN is not the auction's contract, 4SN"),
    (put("contract", "9H"), r"record field 'contract': not a contract: '9H'"),
    (put_at("play", 1, "SZ"), r"record field 'play': card 2 \(\"SZ\"\): not a card"),
    (put_at("play", 1, "SA"), r"record field 'play': card 2 \(\"SA\"\): SA is not in South's hand"),
    (put_at("play", 0, "CA"), r"record field 'play': card 1 \(\"CA\"\): CA is not in East's hand"),
    (lambda d: (d.__setitem__("auction", None), d.__setitem__("contract", None), d.__setitem__("call_notes", [])),
     r"record field 'play': cards are played but there is no contract"),
    (put("result", 14), r"record field 'result': 14 is not 0..13 tricks"),
    (put("result", "9"), r"record field 'result': expected a whole number"),
    (put("players", {"X": "?"}), r"record field 'players': 'X': not a seat"),
    (put("players", {"N": 3}), r"record field 'players': 'N': expected text"),
    (put("players", ["N"]), r"record field 'players': expected an object"),
    (put("event", None), r"record field 'event': expected text, got null"),
    (put("table", 3), r"record field 'table': expected text"),
    (lambda d: d["call_notes"].pop(), r"record: board 1: 9 call notes for an auction of 10 calls"),
    (lambda d: d["card_notes"].append({"reason": "", "seconds": None}),
     r"record: board 1: 5 card notes for a play of 4 cards"),
    (lambda d: d["call_notes"][0].pop("seconds"), r"record field 'call_notes': note 1: expected an object with the "
                                                  r"keys alert, explanation, seconds"),
    (put_at("call_notes", 1, "alert"), r"record field 'call_notes': note 2: expected an object"),
    (lambda d: d["call_notes"][0].__setitem__("alert", 1), r"record field 'call_notes': note 1: alert must be"),
    (lambda d: d["card_notes"][3].__setitem__("seconds", -0.5), r"record field 'card_notes': note 4: .*seconds >= 0"),
    (lambda d: d["card_notes"][3].__setitem__("reason", ["x"]), r"record field 'card_notes': note 4: reason must be"),
    (put("card_notes", {}), r"record field 'card_notes': expected a list"),
    (put("seconds_ns", "fast"), r"record field 'seconds_ns': .*got \"fast\""),
    (put("seconds_ew", float("nan")), r"record field 'seconds_ew'"),
])
def test_each_kind_of_corruption_is_a_record_error_naming_the_field(change, message):
    data = corrupt(change)
    with pytest.raises(RecordError, match=message):
        BoardRecord.from_dict(data)
    with pytest.raises(RecordError, match=message):  # the same through the text (NaN is Python's JSON extension)
        BoardRecord.from_json(json.dumps(data))


def test_a_result_must_be_one_the_play_allows():
    rec = played_record(cards=52)
    assert rec.result == Play(DEAL, AUCTION.contract, rec.play).declarer_tricks
    data = json.loads(rec.to_json())
    data["result"] = rec.result - 1
    with pytest.raises(RecordError, match=rf"'result': {rec.result - 1} tricks, but the play gives declarer "
                                          rf"{rec.result}$"):
        BoardRecord.from_dict(data)
    claim = json.loads(played_record(cards=8).to_json())  # two tricks played: a claim may add 0..11
    done = Play(DEAL, AUCTION.contract, [c for c in claim["play"]]).declarer_tricks
    assert done > 0
    claim["result"] = done - 1
    with pytest.raises(RecordError, match=rf"'result': {done - 1} tricks, but the play gives declarer {done} to "
                                          rf"{11 + done}$"):
        BoardRecord.from_dict(claim)


@pytest.mark.parametrize("text, message", [
    ("{", "must be JSON text"),
    (b"\xff\xfe\x00", "must be JSON text"),
    ("[1, 2]", "a board record is a JSON object, got \\[1, 2\\]"),
    ("null", "got null"),
    (None, "must be JSON text"),
])
def test_what_is_not_a_json_object_is_a_record_error(text, message):
    with pytest.raises(RecordError, match=message):
        BoardRecord.from_json(text)


JSON_VALUES = st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
                           lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner,
                                                                                       max_size=3), max_leaves=6)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(board_records(notes=True), st.data())
def test_any_field_replaced_by_any_json_is_a_record_or_a_record_error(rec, data):
    d = json.loads(rec.to_json())
    key = data.draw(st.sampled_from(sorted(d)))
    value = d[key]
    if isinstance(value, list) and value and data.draw(st.booleans()):  # one call, card or note
        i = data.draw(st.integers(0, len(value) - 1))
        if isinstance(value[i], dict) and data.draw(st.booleans()):  # one value of a note
            value[i][data.draw(st.sampled_from(sorted(value[i])))] = data.draw(JSON_VALUES)
        else:
            value[i] = data.draw(JSON_VALUES)
    else:
        d[key] = data.draw(JSON_VALUES)
    try:
        back = BoardRecord.from_dict(d)
    except RecordError:
        return
    assert BoardRecord.from_json(back.to_json()) == back


# --- PBN -------------------------------------------------------------------------------------------------------


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(board_records(notes=True), st.booleans())
def test_pbn_game_from_a_record_round_trips_through_read_pbn(rec, reasons):
    game = PbnGame.from_record(rec, reasons=reasons)
    (back,) = read_pbn(write_pbn([game]), strict=True).games
    assert back == game
    # an alerted call's explanation is its note; nothing else is noted
    assert {i: a.note for i, a in back.call_annotations.items()} == {
        i: n.explanation.strip() for i, n in enumerate(rec.call_notes) if n.alert}
    assert back.tags.get("Table", "") == rec.table
    if reasons:
        assert [t for _a, t in back.comments] == [n.reason.strip() for n in rec.card_notes if n.reason]


def test_pbn_and_lin_show_alerts_with_their_explanations():
    rec = played_record(table="7")
    text = write_pbn([PbnGame.from_record(rec, reasons=True)])
    assert "2C =1=" in text and '[Note "1:call 2"]' in text and '[Table "7"]' in text
    assert "{card 0}" in text and "$1" not in text
    assert "mb|2C!|an|call 2|" in lin_board(PbnGame.from_record(rec))
    line_broken = BoardRecord(1, DEAL, auction=AUCTION,
                              call_notes=[CallNote(True, "two\nlines\tand a tab")] * len(AUCTION.calls))
    assert PbnGame.from_record(line_broken).call_annotations[0].note == "two lines and a tab"

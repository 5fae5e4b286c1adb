// The card display shared by the pages of squeeze watch --web and squeeze play-web (hands, cards, the trick on
// the table); styled by cards.css. A card is written as in the events: suit letter + rank ("HK", "ST"); a hand
// as {S: "AKT2", H: "", ...}.
"use strict";
function el(tag, text, cls) {
  const e = document.createElement(tag);
  if (text !== undefined && text !== null) e.textContent = text;
  if (cls) e.className = cls;
  return e;
}

const SUIT_SYMBOL = {S: "\u2660", H: "\u2665", D: "\u2666", C: "\u2663"};
const SUITS = "SHDC";
const ORDER = "WNES";  // the auction's columns

function signed(n) { return (n < 0 ? "-" : "+") + Math.abs(n); }  // a score as the terminal writes it: +420, -50

/** The auction's cells (one per call, blanks before the dealer's first) into ``body``, four to a row. */
function appendAuctionRows(body, cells) {
  for (let i = 0; i < cells.length; i += 4) {
    const tr = el("tr");
    cells.slice(i, i + 4).forEach(td => tr.append(td));
    body.append(tr);
  }
}

function suitSpan(suit) { return el("span", SUIT_SYMBOL[suit], "sym suit-" + suit); }

/** A card as a small tile: rank over suit symbol; data-card keeps its code. */
function cardTile(card) {
  const tile = el("span", null, "card suit-" + card[0]);
  tile.dataset.card = card;
  tile.append(el("span", card.slice(1), "crank"), el("span", SUIT_SYMBOL[card[0]], "csym"));
  return tile;
}

/** A card inline in text: suit symbol then rank, coloured ("♥K"). */
function cardInline(card) {
  const span = el("span", SUIT_SYMBOL[card[0]] + card.slice(1), "suit-" + card[0]);
  span.dataset.card = card;
  return span;
}

/** A contract or call with its strain as a symbol: "4HX by E" -> 4♥X by E, "1N" and "1NT" -> 1NT. */
function strainText(text) {
  const out = document.createDocumentFragment();
  const m = /^([1-7])(NT|[SHDCN])(.*)$/.exec(text);
  if (!m) { out.append(text); return out; }
  out.append(m[1]);
  if (m[2][0] === "N") out.append("NT"); else out.append(el("span", SUIT_SYMBOL[m[2]], "suit-" + m[2]));
  out.append(m[3]);
  return out;
}

/** One hand in its box: who sits there (name, declarer/dummy), then a row per suit; hand null: not shown. */
function fillHand(box, seat, hand, {name = "", role = "", hiddenText = ""} = {}) {
  box.replaceChildren();
  const who = el("div", seat, "who");
  if (role) who.append(el("span", role, "role " + role));
  if (name) who.append(" ", el("span", name, "name"));
  box.append(who);
  if (!hand) {
    if (hiddenText) box.append(el("div", hiddenText, "hidden"));
    return;
  }
  for (const suit of SUITS) {
    const row = el("div", null, "row");
    row.append(suitSpan(suit));
    const ranks = hand[suit] || "";
    if (!ranks) row.append(el("span", "—", "void"));
    for (const rank of ranks) {
      const r = el("span", rank, "rank");
      r.dataset.card = suit + rank;
      row.append(r);
    }
    box.append(row);
  }
}

/** The trick on the table: each card at its player's side; the winner's card ringed once the trick is complete. */
function fillTrick(box, trick, caption) {
  box.replaceChildren();
  for (const c of trick.cards) {
    const tile = cardTile(c.card);
    tile.classList.add("at-" + c.seat);
    tile.dataset.seat = c.seat;
    if (trick.complete && trick.winner === c.seat) tile.classList.add("won");
    if (c.reason) tile.title = c.reason;
    box.append(tile);
  }
  if (caption) box.append(el("div", caption, "caption"));
}

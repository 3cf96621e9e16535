// The sticker capture: while this page is open the reader's taps come here (the companion
// keeps the last one); each opens what its sticker is bound to, and saves the form first.
import { t } from "../i18n.js";
import { anc, saveAnc } from "./ancestor.js";
import { api, problems } from "./api.js";
import { card, clearCard, holdTyping, loadCard, missingOfCard, rewindTyping, saveCard, typeHeld, typing } from "./cards.js";
import { clearIt, it, loadIt, missingOfIt, saveIt } from "./itineraries.js";
import { $, ROMAN, say, session, untitled } from "./shared.js";
import { currentTab, showTab } from "./tabs.js";

let polling = null; // the poll on its way: one tap handled at a time (a tap may save the form first)
/** Asks for the reader's last tap, and handles it if it is new; the poll already on its way
 * if there is one. The keypad's keys wait meanwhile (`holdTyping`). */
export function pollTag() {
  if (!session.name) return Promise.resolve();
  if (!polling) polling = poll().finally(() => { polling = null; });
  return polling;
}
// The server's clock on this page's, NTP's way: a poll's reading, (sent + received) / 2 - the
// server's now, is good to half its round trip; the quickest of the last minute's is kept. A tap
// is dated at the latest it can have been made (by that reading, or by the answer that brought
// it): a key typed before the tap is never the next card's, one typed after it is.
const readings = [];
function serverClock(sent, received, serverNow) {
  if (typeof serverNow !== "number") return null;
  readings.push({ at: received, rtt: received - sent, offset: (sent + received) / 2 - serverNow });
  while (readings.length && received - readings[0].at > 60000) readings.shift();
  return readings.reduce((best, r) => (r.rtt < best.rtt ? r : best));
}
/** The latest moment the tap can have been made, on this page's clock (`performance.now`). */
function tapAt(got, best, received) {
  const age = typeof got.age_ms === "number" ? got.age_ms : 0;
  const byAnswer = received - age;
  return best ? Math.min(byAnswer, got.now_ms - age + best.offset + best.rtt / 2) : byAnswer;
}
async function poll() {
  holdTyping();
  try {
    const sent = performance.now();
    let got; try { got = await api("GET", "/api/library/transcribe/tag"); } catch (e) { return; }
    const received = performance.now();
    const best = serverClock(sent, received, got.now_ms);
    if (session.seq === -1) { session.seq = got.seq; return; }
    if (got.seq === session.seq || !got.tag) return;
    session.seq = got.seq;
    // keys typed after the tap are the next card's: the tap dated on this page's clock
    if (currentTab() === "cards") rewindTyping(tapAt(got, best, received));
    await onTag(got.tag, got.bound_to);
  } finally { typeHeld(); }
}
// A sticker opens what it is bound to (a card, an itinerary, the Ancestor), or a new
// one of the kind on screen; Save binds it. The next sticker is a Save too: the card or
// itinerary being entered on screen is saved (and bound) first when it is complete, and
// kept, with what it lacks said, when it is not; nothing typed is ever dropped by a tap.
async function onTag(tag, bound) {
  const ed = session.ed;
  const knownCard = bound && (ed.cards || []).find((c) => c.id === bound);
  const knownIt = bound && (ed.itineraries || []).find((x) => x.id === bound);
  const target = bound === "ancestor" || (!knownCard && !knownIt && currentTab() === "anc") ? "anc" : knownIt || (!knownCard && currentTab() === "its") ? "its" : "cards";
  const note = await saveBeforeNext(tag, target); // the form this tap would replace
  if (note === null) return;
  const elsewhere = bound ? t("ed_bound_elsewhere", { bound }) : "";
  if (target === "anc") {
    showTab("anc"); anc.tag = bound === "ancestor" ? null : tag; anc.last = tag;
    say("anc-msg", note + (bound === "ancestor" ? t("ed_tag_is_the_ancestor", { tag }) : t("ed_tag_save_binds_it", { tag, elsewhere })), bound ? "warn" : "");
    return;
  }
  if (target === "its") {
    showTab("its");
    if (knownIt) { loadIt(knownIt); say("it-msg", note + t("ed_tag_is_edit_it", { tag, id: knownIt.id }), "warn"); }
    else { clearIt(); say("it-msg", note + t("ed_tag_a_new_itinerary", { tag, elsewhere }), bound ? "warn" : ""); }
    it.tag = tag;
    return;
  }
  showTab("cards");
  const st = $("tag-status");
  if (knownCard) { loadCard(knownCard); card.tag = tag; st.textContent = untitled(knownCard) ? t("ed_tag_is_untitled_card", { tag, id: knownCard.id }) : t("ed_tag_is_card", { tag, id: knownCard.id, title: knownCard.title }); st.className = "status bound"; return; }
  clearCard(true); card.tag = tag;
  if (bound) { st.textContent = t("ed_tag_is_bound_to", { tag, bound }); st.className = "status bound"; }
  else { st.textContent = t("ed_tag_a_new_day", { tag, day: ROMAN[card.day] }); st.className = "status"; }
}
// The form a tap would replace, saved first: "" or the words to keep before the tap's
// own, or null when the tap goes no further (the form lacks something, or was its own sticker).
async function saveBeforeNext(tag, target) {
  if (target === "cards" && card.dirty) {
    showTab("cards");
    const missing = missingOfCard();
    if (missing) {
      say("card-msg", t("ed_not_saved_yet_finish", { missing, tag }), "err");
      // The top line is where eyes go after a tap; the message below says what to do.
      $("tag-status").textContent = (card.tag ? t("ed_tag", { tag: card.tag }) : "") + t("ed_this_card_still_needs", { missing });
      $("tag-status").className = "status bound"; return null;
    }
    const own = card.tag === tag; // its own sticker again: saved, and nothing else to open
    if (!(await saveCard())) {
      say("card-msg", $("card-msg").textContent + t("ed_not_saved_fix_it", { tag }), "err");
      $("tag-status").textContent = t("ed_this_card_was_not"); $("tag-status").className = "status bound"; return null;
    }
    return own ? null : ""; // the saved message stays in its own line
  }
  // The box has an Ancestor card per copy (12), each with its sticker: the next one
  // tapped saves the Ancestor and binds the one before, so the copies cost a tap each.
  if (target === "anc" && anc.tag && currentTab() === "anc") {
    const own = anc.tag === tag;
    if (!(await saveAnc())) { say("anc-msg", $("anc-msg").textContent + t("ed_not_saved_tap_again", { tag }), "err"); return null; }
    return own ? null : $("anc-msg").textContent + " ";
  }
  if (target === "its" && it.dirty) {
    showTab("its");
    const missing = missingOfIt();
    if (missing) { say("it-msg", t("ed_itinerary_not_saved_yet", { missing, tag }), "err"); $("it-msg").scrollIntoView({ block: "nearest" }); return null; }
    const own = it.tag === tag;
    if (!(await saveIt())) { say("it-msg", $("it-msg").textContent + t("ed_not_saved_tap_again", { tag }), "err"); $("it-msg").scrollIntoView({ block: "nearest" }); return null; }
    // The itinerary tab has one message line: the new sticker's words follow the saved ones.
    return own ? null : $("it-msg").textContent.replace(t("ed_tap_the_next_itinerary"), "") + " ";
  }
  return "";
}
// The mock reader (a PC): a typed tag is tapped as the reader would.
$("mock-tap").addEventListener("click", async () => {
  const tag = $("mock-tag").value.trim(); if (!tag) return;
  holdTyping(); // from the tap on, as with a sticker on the reader: what is typed goes to the form it opens
  typing.here = performance.now();
  try {
    await api("POST", "/api/reader/tap", { tag }).catch((e) => say("card-msg", problems(e), "err"));
    $("mock-tag").value = "";
    await pollTag(); // a poll sent before the tap may miss it: one more after it
    await pollTag();
  } finally { typeHeld(); }
});
// Leaving the page gives the reader back to the table.
window.addEventListener("pagehide", () => {
  if (session.csrf) navigator.sendBeacon && fetch("/api/library/transcribe", { method: "POST", keepalive: true, headers: { "Content-Type": "application/json", "X-CSRF-Token": session.csrf }, body: JSON.stringify({ edition: null }) });
});

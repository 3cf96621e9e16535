// The Cards tab: a card's Day, year (the keypad, or a laptop's keyboard), hours and benefits,
// saved with the sticker tapped for it.
import { t } from "../i18n.js";
import { api, here, problems, removeItem, unbindTag } from "./api.js";
import { $, BENEFITS, ROMAN, SHORT, btn, say, session, showYear, untitled } from "./shared.js";
import { boundWords, checkWords, showProgress } from "./words.js";

// `dirty`: the form holds something typed since it was opened, cleared or saved: the next
// sticker saves it (when complete) rather than dropping it.
export const card = { id: null, day: 1, digits: "", bce: false, hours: null, gains: [], tag: null, dirty: false };

// Every tap on the form goes through `key` ("0"-"9", "17"-"19", "⌫", "C", "BCE", "day:N",
// "hours:N", "gain:G", "gain:⌫"). While a sticker's tap may be on its way (`holds` counts the
// polls and saves under way), taps wait in `held` with when they were made, and are made on the
// form the tap leaves once it is handled (`typeHeld`): one made before the tap is the old card's.
// `here`: when this page's own virtual-reader button was pressed (the sticker's moment, exactly).
export const typing = { held: [], holds: 0, here: null };
// The taps made lately (when, which, the form before it): a sticker's tap reaches the page up
// to a poll later, and what was tapped after it is given to the card it opens (`rewindTyping`).
const typed = [];
const KEPT_MS = 5000;
function key(k, at = performance.now()) {
  if (typing.holds > 0) { typing.held.push({ k, at }); return; }
  make(k, at);
}
function make(k, at) {
  while (typed.length && typed[0].at < performance.now() - KEPT_MS) typed.shift();
  const { digits, bce, dirty, day, hours } = card;
  typed.push({ at, k, before: { digits, bce, dirty, day, hours, gains: [...card.gains] } });
  const [kind, value] = k.includes(":") ? k.split(":") : ["", k];
  if (kind === "day") { card.day = +value; if (!card.id) { drawCard(); return; } }  // a Day alone is no input yet
  else if (kind === "hours") card.hours = +value;
  else if (kind === "gain") { if (value === "⌫") card.gains.pop(); else card.gains.push(value); }
  else if (k === "⌫") card.digits = card.digits.slice(0, -1);
  else if (k === "C") card.digits = "";  // the digits only: BCE is its own switch
  else if (k === "BCE") card.bce = !card.bce;
  else if (card.digits.length + k.length <= 5) card.digits += k;
  card.dirty = true; drawCard();
}
for (const b of document.querySelectorAll("#day button")) b.addEventListener("click", () => key(`day:${b.dataset.day}`));
for (const id of ["title", "note"]) $(id).addEventListener("input", () => { card.dirty = true; });
// The last row types two digits at once: years are said that way ("nineteen sixty-nine")
// and most History cards' years are in the 1700s-1900s, so 1969 is 19, 6, 9: three taps.
for (const k of ["1", "2", "3", "4", "5", "6", "7", "8", "9", "⌫", "0", "C", "17", "18", "19"]) { const b = btn(k, () => key(k)); b.classList.toggle("pair", k.length === 2); $("keypad").append(b); }
// On a laptop the keyboard types the year too: digits, Backspace, b for BCE, Enter saves.
document.addEventListener("keydown", (ev) => {
  if ($("tab-cards").hidden || ev.target.closest("input, select, textarea") || ev.ctrlKey || ev.metaKey || ev.altKey) return;
  if (/^[0-9]$/.test(ev.key)) key(ev.key);
  else if (ev.key === "Backspace") key("⌫");
  else if (ev.key === "b" || ev.key === "-") key("BCE");
  else if (ev.key === "Enter") $("save-card").click();
  else return;
  ev.preventDefault();
});
$("bce").addEventListener("click", () => key("BCE"));
/** A tap made at ``tappedAt`` (this page's `performance.now` clock) has just reached the page:
 * what was tapped on the form since is taken back from the form on screen (as it was before)
 * and held for the form the tap opens. */
export function rewindTyping(tappedAt) {
  let since = tappedAt;
  if (typing.here !== null) since = Math.min(since, typing.here);
  const first = typed.findIndex((e) => e.at >= since);
  const moved = first >= 0 ? typed.slice(first).map(({ k, at }) => ({ k, at })) : [];
  if (first >= 0) Object.assign(card, typed[first].before);
  typed.length = 0;
  // taps held by a poll on its way but made before the sticker's tap: the old card's, made now
  const held = typing.held.splice(0);
  for (const e of held.filter((e) => e.at < since)) make(e.k, e.at);
  typing.held.push(...moved, ...held.filter((e) => e.at >= since));
  drawCard();
}
/** Holds the keypad's keys: a tap may be on its way. */
export function holdTyping() { typing.holds += 1; }
/** Ends a hold; the last one types the keys held, into the form on screen. */
export function typeHeld() {
  typing.holds = Math.max(0, typing.holds - 1);
  if (typing.holds > 0) return;
  typing.here = null;
  const keys = typing.held.splice(0);
  for (const e of keys) key(e.k, e.at);
}
for (let h = 1; h <= 12; h++) $("hours").append(btn(String(h), () => key(`hours:${h}`), String(h)));
for (const g of BENEFITS) $("tokens").append(btn(SHORT[g], () => key(`gain:${g}`), g));
$("tokens").append(btn("⌫", () => key("gain:⌫"), "back"));

function year() { return card.digits ? (card.bce ? -1 : 1) * parseInt(card.digits, 10) : null; }
export function drawCard() {
  const ed = session.ed;
  for (const b of document.querySelectorAll("#day button")) b.classList.toggle("on", +b.dataset.day === card.day);
  $("year-out").textContent = card.digits ? showYear(year()) : "—";
  $("bce").setAttribute("aria-pressed", String(card.bce));
  for (const b of $("hours").children) b.classList.toggle("on", +b.dataset.v === card.hours);
  $("gains-out").innerHTML = "";
  for (const g of card.gains) { const s = document.createElement("span"); s.textContent = SHORT[g]; $("gains-out").append(s); }
  $("save-card").textContent = card.id ? t("ed_save", { id: card.id }) : t("ed_save_new_card");
  const list = $("card-list"); list.textContent = "";
  for (const c of (ed && ed.cards || []).filter((c) => c.day === card.day)) {
    const li = document.createElement("li"); li.textContent = `${c.id} ${showYear(c.year)}${untitled(c) ? "" : " " + c.title} · ${c.hours} h ${c.gains.join(" ")}`;
    li.addEventListener("click", () => { loadCard(c); card.tag = null; }); list.append(li);
  }
}
export function loadCard(c) {
  typed.length = 0;
  Object.assign(card, { id: c.id, day: c.day, digits: String(Math.abs(c.year)), bce: c.year < 0, hours: c.hours, gains: [...c.gains], dirty: false });
  $("title").value = c.title === c.id ? "" : c.title; $("note").value = c.note || ""; drawCard();
}
export function clearCard(keepTag) {
  // the Day and BCE carry over: a Day I deck is mostly BCE, entered one card after another
  Object.assign(card, { id: null, digits: "", hours: null, gains: [], dirty: false });
  typed.length = 0;
  if (!keepTag) card.tag = null;
  $("title").value = ""; $("note").value = ""; drawCard();
}
$("clear-card").addEventListener("click", () => clearCard());
/** What a card on screen still lacks before it can be saved, in words ("" when nothing). */
export function missingOfCard() {
  const lack = [];
  if (year() === null) lack.push(t("ed_the_year"));
  if (card.hours === null) lack.push(t("ed_the_hours"));
  return lack.join(t("ed_and"));
}
$("save-card").addEventListener("click", () => saveCard());
/** Saves the card on screen (binding its sticker); true when it was saved. */
export async function saveCard() {
  if (missingOfCard()) { say("card-msg", t("ed_type_the_year_and"), "err"); return false; }
  const body = { id: card.id, day: ROMAN[card.day], year: year(), hours: card.hours, gains: card.gains, title: $("title").value, note: $("note").value };
  if (card.tag) body.tag = card.tag;
  try {
    const r = await api("PUT", here("/cards"), body);
    const cards = session.ed.cards, i = cards.findIndex((c) => c.id === r.card.id);
    if (i >= 0) cards[i] = r.card; else cards.push(r.card);
    showProgress(r.progress);
    const text = t("ed_saved", { id: r.card.id, year: showYear(r.card.year) }) + boundWords(r) + t("ed_tap_the_next_card");
    const checks = (r.checks || []).map(checkWords);
    say("card-msg", checks.length ? text + t("ed_check") + checks.join("; ") : text, checks.length ? "warn" : "ok");
    $("tag-status").textContent = t("ed_tap_next_card_status"); $("tag-status").className = "status";
    clearCard();
    return true;
  } catch (e) { say("card-msg", problems(e), "err"); return false; }
}
$("remove-card").addEventListener("click", () => removeItem("cards", card.id, t("ed_remove", { id: card.id }), "card-msg", () => {
  say("card-msg", t("ed_removed", { id: card.id }), "ok"); clearCard();
}));
$("unbind").addEventListener("click", () => unbindTag(card, "card-msg"));

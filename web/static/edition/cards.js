// The Cards tab: a card's Day, year (the keypad, or a laptop's keyboard), hours and benefits,
// saved with the sticker tapped for it.
import { t } from "../i18n.js";
import { api, here, problems, unbindTag } from "./api.js";
import { $, BENEFITS, ROMAN, SHORT, btn, say, session, showYear } from "./shared.js";
import { boundWords, checkWords, showProgress } from "./words.js";

// `dirty`: the form holds something typed since it was opened, cleared or saved: the next
// sticker saves it (when complete) rather than dropping it.
export const card = { id: null, day: 1, digits: "", bce: false, hours: null, gains: [], tag: null, dirty: false };

for (const b of document.querySelectorAll("#day button")) b.addEventListener("click", () => { card.day = +b.dataset.day; if (card.id) card.dirty = true; drawCard(); });
for (const id of ["title", "note"]) $(id).addEventListener("input", () => { card.dirty = true; });
function key(k) {
  if (k === "⌫") card.digits = card.digits.slice(0, -1);
  else if (k === "C") card.digits = "";  // the digits only: BCE is its own switch
  else if (card.digits.length + k.length <= 5) card.digits += k;
  card.dirty = true; drawCard();
}
// The last row types two digits at once: years are said that way ("nineteen sixty-nine")
// and most History cards' years are in the 1700s-1900s, so 1969 is 19, 6, 9: three taps.
for (const k of ["1", "2", "3", "4", "5", "6", "7", "8", "9", "⌫", "0", "C", "17", "18", "19"]) { const b = btn(k, () => key(k)); b.classList.toggle("pair", k.length === 2); $("keypad").append(b); }
// On a laptop the keyboard types the year too: digits, Backspace, b for BCE, Enter saves.
document.addEventListener("keydown", (ev) => {
  if ($("tab-cards").hidden || ev.target.closest("input, select, textarea") || ev.ctrlKey || ev.metaKey || ev.altKey) return;
  if (/^[0-9]$/.test(ev.key)) key(ev.key);
  else if (ev.key === "Backspace") key("⌫");
  else if (ev.key === "b" || ev.key === "-") { card.bce = !card.bce; card.dirty = true; drawCard(); }
  else if (ev.key === "Enter") $("save-card").click();
  else return;
  ev.preventDefault();
});
$("bce").addEventListener("click", () => { card.bce = !card.bce; card.dirty = true; drawCard(); });
for (let h = 1; h <= 12; h++) $("hours").append(btn(String(h), () => { card.hours = h; card.dirty = true; drawCard(); }, String(h)));
for (const g of BENEFITS) $("tokens").append(btn(SHORT[g], () => { card.gains.push(g); card.dirty = true; drawCard(); }, g));
$("tokens").append(btn("⌫", () => { card.gains.pop(); card.dirty = true; drawCard(); }, "back"));

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
    const li = document.createElement("li"); li.textContent = `${c.id} ${showYear(c.year)} ${c.title} · ${c.hours} h ${c.gains.join(" ")}`;
    li.addEventListener("click", () => { loadCard(c); card.tag = null; }); list.append(li);
  }
}
export function loadCard(c) {
  Object.assign(card, { id: c.id, day: c.day, digits: String(Math.abs(c.year)), bce: c.year < 0, hours: c.hours, gains: [...c.gains], dirty: false });
  $("title").value = c.title === c.id ? "" : c.title; $("note").value = c.note || ""; drawCard();
}
export function clearCard(keepTag) {
  // the Day and BCE carry over: a Day I deck is mostly BCE, entered one card after another
  Object.assign(card, { id: null, digits: "", hours: null, gains: [], dirty: false });
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
$("remove-card").addEventListener("click", async () => {
  if (!card.id || !confirm(t("ed_remove", { id: card.id }))) return;
  try {
    const r = await api("DELETE", here(`/cards/${encodeURIComponent(card.id)}`));
    session.ed.cards = session.ed.cards.filter((c) => c.id !== card.id); showProgress(r.progress); say("card-msg", t("ed_removed", { id: card.id }), "ok"); clearCard();
  } catch (e) { say("card-msg", problems(e), "err"); }
});
$("unbind").addEventListener("click", () => unbindTag(card, "card-msg"));

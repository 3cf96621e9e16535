// The Playmat tab: the benefit under each Departures Row position, and the trek table.
import { t } from "../i18n.js";
import { api, here, problems } from "./api.js";
import { $, BENEFITS, SHORT, btn, say, session } from "./shared.js";
import { showProgress } from "./words.js";

// A position shows what the edition holds (a new edition: its base's, to be checked);
// the first tap on it, a benefit or ⌫, starts it afresh, so retyping costs no ⌫ first.
let slots = [], fresh = new Set();
export function drawMat() {
  const ed = session.ed;
  if (!ed) return;
  slots = (ed.slots || [[], [], [], [], [], []]).map((s) => [...s]);
  fresh = new Set(slots.map((_, i) => i));
  const box = $("slots"); box.textContent = "";
  slots.forEach((s, i) => {
    const row = document.createElement("div"); row.className = "slot";
    const label = document.createElement("b"); label.textContent = `${t("ed_position")} ${i}`;
    const shown = document.createElement("span"); shown.className = "chips";
    const tokens = document.createElement("div"); tokens.className = "tokens";
    const draw = () => { shown.textContent = slots[i].map((g) => SHORT[g]).join(" + ") || t("ed_none"); shown.classList.toggle("kept", fresh.has(i)); };
    const afresh = () => { if (fresh.delete(i)) slots[i] = []; };
    for (const g of BENEFITS) tokens.append(btn(SHORT[g], () => { afresh(); slots[i].push(g); draw(); }, g));
    row.append(label, shown, btn("⌫", () => { if (!fresh.has(i)) slots[i].pop(); afresh(); draw(); }, "back"), tokens); box.append(row); draw();
  });
  const treks = $("treks"); treks.textContent = "";
  for (let i = 0; i < 10; i++) {
    const inp = document.createElement("input"); inp.inputMode = "numeric"; inp.value = (ed.treks || [])[i] ?? "";
    inp.setAttribute("aria-label", i ? t("ed_trek_cards", { i: i + 1 }) : t("ed_1_card")); inp.placeholder = `${i + 1}`; treks.append(inp);
  }
  // Typing replaces a field's number (they hold the base's values), and the keyboard's
  // Next goes to the following field: the trek table is typed with no taps in between.
  const fields = [...treks.children, $("beyond")];
  fields.forEach((inp, i) => {
    inp.enterKeyHint = i + 1 < fields.length ? "next" : "done";
    if (inp.dataset.wired) return; // #beyond stays from one drawing to the next
    inp.dataset.wired = "1";
    for (const ev of ["focus", "click"]) inp.addEventListener(ev, () => inp.select());
  });
  treks.onkeydown = (ev) => { if (ev.key !== "Enter") return; ev.preventDefault(); const i = fields.indexOf(ev.target); if (i >= 0 && i + 1 < fields.length) fields[i + 1].focus(); };
  $("beyond").value = ed.trek_beyond ?? 3;
}
$("save-mat").addEventListener("click", async () => {
  const treks = [...$("treks").children].map((i) => i.value.trim());
  try {
    const r = await api("PUT", here("/playmat"), { slots, treks, trek_beyond: $("beyond").value.trim() });
    session.ed.slots = slots; session.ed.treks = treks.map(Number); showProgress(r.progress); say("mat-msg", t("ed_saved_the_playmat_and"), "ok");
  } catch (e) { say("mat-msg", problems(e), "err"); }
});

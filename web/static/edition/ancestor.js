// The Ancestor tab: its hours, benefits and copies per player count; each of its stickers
// is bound by a save (the box has one per copy).
import { t } from "../i18n.js";
import { api, here, problems, unbindTag } from "./api.js";
import { $, BENEFITS, SHORT, btn, say, session } from "./shared.js";
import { boundWords, showProgress } from "./words.js";

/** `tag`: the sticker the next save binds; `last`: the one tapped last (Unbind frees it). */
export const anc = { hours: 1, gains: [], tag: null };

for (let h = 1; h <= 12; h++) $("anc-hours").append(btn(String(h), () => { anc.hours = h; drawAnc(); }, String(h)));
for (const g of BENEFITS) $("anc-tokens").append(btn(SHORT[g], () => { anc.gains.push(g); drawAnc(); }, g));
$("anc-tokens").append(btn("⌫", () => { anc.gains.pop(); drawAnc(); }, "back"));

/** Draws the Ancestor; an edition opened afresh loads its own first (unless `reset` is false). */
export function drawAnc(reset) {
  const ed = session.ed;
  if (!ed) return;
  if (reset !== false && ed.ancestor && anc.loaded !== session.name) {
    anc.hours = ed.ancestor.hours; anc.gains = [...ed.ancestor.gains]; anc.loaded = session.name;
    const a = ed.ancestors || {};
    $("anc-2").value = a["2"] ?? ""; $("anc-3").value = a["3"] ?? ""; $("anc-4").value = a["4"] ?? "";
  }
  for (const b of $("anc-hours").children) b.classList.toggle("on", +b.dataset.v === anc.hours);
  $("anc-gains").textContent = anc.gains.map((g) => SHORT[g]).join(" + ") || t("ed_no_benefit");
}
$("save-anc").addEventListener("click", () => saveAnc());
/** Saves the Ancestor (binding the sticker tapped last); true when it was saved. */
export async function saveAnc() {
  const copies = { 2: $("anc-2").value.trim(), 3: $("anc-3").value.trim(), 4: $("anc-4").value.trim() };
  const body = { hours: anc.hours, gains: anc.gains, copies };
  if (anc.tag) body.tag = anc.tag;
  try {
    const r = await api("PUT", here("/ancestor"), body);
    session.ed.ancestor = { hours: anc.hours, gains: [...anc.gains] }; showProgress(r.progress);
    say("anc-msg", t("ed_saved_the_ancestor") + boundWords(r), "ok"); anc.tag = null;
    return true;
  } catch (e) { say("anc-msg", problems(e), "err"); return false; }
}
$("unbind-anc").addEventListener("click", () => unbindTag(anc, "anc-msg"));

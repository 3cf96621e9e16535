// The edition picked (the library's list, a new one created) and opened: every tab is
// drawn afresh, and the reader's taps come to this edition from then on.
import { t } from "../i18n.js";
import { drawAnc } from "./ancestor.js";
import { api, problems } from "./api.js";
import { clearCard } from "./cards.js";
import { clearIt } from "./itineraries.js";
import { drawMat } from "./playmat.js";
import { $, say, session } from "./shared.js";
import { showProgress } from "./words.js";

/** Lists the library's editions and opens `choose` (or the last of the host's own, or the default). */
export async function listEditions(choose) {
  const list = await api("GET", "/api/library");
  const sel = $("edition"); sel.textContent = "";
  const owned = list.editions.filter((e) => !e.shipped);
  session.readOnly = new Set(list.editions.filter((e) => e.shipped).map((e) => e.name));
  for (const e of list.editions) {
    const o = document.createElement("option"); o.value = e.name;
    o.textContent = e.name + (e.shipped ? t("ed_shipped_read_only") : e.complete ? " ✓" : t("ed_draft")) + (e.name === list.default ? " ★" : "");
    sel.append(o);
  }
  const pick = choose || (owned.length ? owned[owned.length - 1].name : list.default);
  sel.value = pick; await openEdition(pick);
  if (!owned.length) { $("create").hidden = false; }
}
// A pick of the edition already open (or opening) opens nothing again: a second opening,
// landing after the host picked an itinerary, would clear the screen under them.
$("edition").addEventListener("change", () => { if ($("edition").value !== session.name) openEdition($("edition").value); });
// "New…" opens the form, always: shown by itself when the owner has no edition yet, a toggle
// closed it under the tap that meant to open it.
$("open-create").addEventListener("click", () => { $("create").hidden = false; $("new-name").focus(); });
$("create").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  try {
    await api("POST", "/api/library", { name: $("new-name").value.trim(), base: "reference", copy: $("new-copy").checked });
    $("create").hidden = true; await listEditions($("new-name").value.trim());
  } catch (e) { say("card-msg", problems(e), "err"); $("progress").textContent = problems(e); }
});

// Openings started, so that only the latest one draws: on a slow table the answer for an
// edition picked before arrives after the one picked since, and would show the wrong edition.
let openings = 0;

async function openEdition(n) {
  const mine = ++openings;
  session.name = n;
  const shipped = session.readOnly.has(n);
  try {
    const got = await api("GET", `/api/library/${encodeURIComponent(n)}`);
    if (mine !== openings) return;  // another edition was picked meanwhile
    session.ed = got.edition; session.tags = got.tags;
    // From now on the reader's taps come to this page: only taps after this one count.
    const seq = (await api("POST", "/api/library/transcribe", { edition: shipped ? null : n })).seq;
    if (mine !== openings) return;
    session.seq = seq;
    clearCard(); clearIt(); drawMat(); drawAnc(); showProgress(got.progress);
    if (shipped) { $("tag-status").textContent = t("ed_ships_with_the_companion", { n }); $("tag-status").className = "status bound"; }
    else { $("tag-status").textContent = t("edp_tap_a_card_s"); $("tag-status").className = "status"; }  // an own edition: no "cannot be changed"
    if (got.problems && got.problems.length) $("progress").textContent += t("ed_this_file_needs_fixing") + got.problems.join("; ");
  } catch (e) { if (mine === openings) { session.ed = null; $("progress").textContent = problems(e); } }
}

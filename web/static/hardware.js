// Hardware status: a part that is down, its likely cause and the fix (from /api/state), in
// the page's language. The store's damage notices (checksums that failed at start) share the
// line, until a host acknowledges them.
import { CATALOGUES, fill, lang } from "./i18n.js";
import { call } from "./api.js";
import { $, esc, page } from "./page.js";
import { setVenue } from "./venue.js";

export async function renderHardware() {
  try {
    const state = await (await fetch("/api/state")).json();
    const down = (state.hardware || []).filter((p) => !p.ok).concat(state.store || []);
    $("hardware").hidden = down.length === 0;
    hardwareDown = down;
    showHardware();
    setVenue(state.venue);  // reachability changes apart from the game: the same poll
  } catch (e) { /* the next round retries */ }
}

// Each part that is down in the page's language: its cause and fix from the fault's code and
// params (device, pin, the driver's own words); the English message and fix for an unknown code.
let hardwareDown = [];
let hardwareShown = "";
export function showHardware() {
  const words = CATALOGUES[lang()].hw;
  let html = hardwareDown.map((p) => {
    const params = { ...(p.params || {}) };
    params.part = words["part." + p.part] || p.part;
    const filled = (text) => fill(lang(), text, params);
    const known = p.code && words[p.code] !== undefined && words[p.code + ".fix"] !== undefined;
    const cause = known ? filled(words[p.code]) : p.message;
    const fix = known ? filled(words[p.code + ".fix"]) : p.fix;
    return esc(words.line.replace("{part}", () => params.part).replace("{message}", () => cause).replace("{fix}", () => fix));
  }).join("<br>");
  const damage = hardwareDown.some((p) => p.part === "store");
  if (damage && page.csrf) html += ` <button type="button" id="store-ack">${esc(words.store_ack)}</button>`;
  if (html === hardwareShown) return;  // a status line re-written unchanged would be announced again
  hardwareShown = html;
  $("hardware").innerHTML = html;
  if ($("store-ack")) $("store-ack").onclick = async () => { if (await call("/api/store/acknowledge")) renderHardware(); };
}

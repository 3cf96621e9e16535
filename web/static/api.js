// The page's controls talk to the companion here: `call` sends one, ignoring repeats while
// it is on its way; a refusal becomes an outcome the page words in its language.
import { message, t } from "./i18n.js";
import { renderLast } from "./banner.js";
import { afterControl } from "./live.js";
import { $, page, render, saw } from "./page.js";
import { request } from "./request.js";

// Controls waiting for the companion's answer, by what they do (both Undo buttons are one): a
// second Undo on its way would take back the take before it too. Every control doing the same
// thing is disabled and aria-busy until the answer comes, and `call` ignores it meanwhile.
export const busy = new Set();
function busyGroup(path) { return path === "/api/undo" || path === "/api/buttons/undo" ? "undo" : path; }
// The virtual Undo button is held down as long as the real one must be (about a second): the buttons say so.
let holdingUndo = false;
export function showBusy() {
  document.querySelectorAll("[data-call]").forEach((el) => {
    const waiting = busy.has(busyGroup(el.dataset.call));
    el.disabled = waiting || el.dataset.off === "1";
    if (waiting) el.setAttribute("aria-busy", "true");
    else el.removeAttribute("aria-busy");
    if (el.dataset.call === "/api/buttons/undo") el.textContent = t(waiting && holdingUndo ? "undo_holding" : el.dataset.i18n);
  });
}

export async function call(path, body) {
  const group = busyGroup(path);
  if (busy.has(group)) return null;  // a repeat while the first is on its way: ignored
  busy.add(group);
  holdingUndo = path === "/api/buttons/undo";
  showBusy();
  try {
    return await send(path, body);
  } finally {
    busy.delete(group);
    if (group === "undo") holdingUndo = false;
    showBusy();
  }
}

async function send(path, body) {
  let answer;
  try {
    answer = await request("POST", path, body || {}, page.csrf);
  } catch (e) {  // the companion is down: say so, never lose the tap silently
    renderLast({ accepted: false, message: t("unreachable") });
    return null;
  }
  const data = answer.data;
  if (!answer.ok) {
    const refusal = refused(data);
    renderLast(refusal);
    if (answer.status === 401) loggedOut(t("session_ended"));
    else if (data.code === "csrf_stale") loggedOut(message(refusal));
    return null;
  }
  if (data.state) { saw(data.state); afterControl(); }
  // An answer older than the snapshot shown (the stream brought a later change first): that
  // snapshot's outcome is the table's latest, and stays.
  const shown = page.state;
  if (data.state && shown && data.state.process === shown.process && data.state.version < shown.version) return data;
  if (data.outcome) renderLast(data.outcome);
  else if (data.message) renderLast({ accepted: true, code: data.code, params: data.params, message: data.message });
  return data;
}

// A refusal of the server as an outcome the page words in its language: the error's
// `code` and `params`, its English `error` only for a code this page does not know.
export function refused(data) {
  return { accepted: false, code: data.code, params: data.params || {}, message: data.error };
}

// The host's login ended (logout elsewhere, expiry, a new PIN, a damaged sessions file): back to the login
// form, with the reason kept beside it until the next login (not a message that flashes by).
function loggedOut(why) {
  page.csrf = null;
  $("host").hidden = false;
  render(page.state);
  loginWhy(why);
}

export function loginWhy(why) {
  let note = $("login-why");
  if (!note) {
    note = document.createElement("p");
    note.id = "login-why";
    note.setAttribute("role", "alert");
    $("login").insertAdjacentElement("afterend", note);
  }
  note.textContent = why || "";
  note.hidden = !why;
}

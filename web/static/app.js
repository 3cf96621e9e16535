// The live tally: renders /api/state?page=1 snapshots pushed by Server-Sent Events. This module
// starts the page; each part of it is a view module whose drawing function is `register`ed.
import "./shown.js"; // first: `window.state` is there before the catalogues are fetched
import { lang, message, setLang, t, translatePage as translateWords } from "./i18n.js";
import { renderBanner, renderLast, rerenderLast } from "./banner.js";
import { renderClock } from "./clock.js";
import { renderPlayers } from "./standings.js";
import { renderRow } from "./row.js";
import { renderLog } from "./log.js";
import { renderEnd } from "./end.js";
import { renderHost, setupHost } from "./controls.js";
import { showBusy } from "./api.js";
import { renderHardware, showHardware } from "./hardware.js";
import { connect, fetchState, pollingTimer, setNotice } from "./live.js";
import { $, ICON, LEGEND, esc, page, register, render } from "./page.js";
import { renderCoach, setupCoach } from "./coach.js";
import { renderVenue, showVenue } from "./venue.js";

for (const view of [renderBanner, renderClock, renderPlayers, renderRow, renderLog, renderEnd, renderHost, showBusy, renderCoach, renderVenue]) register(view);

function translatePage() {
  translateWords();
  if ($("enrol-q").value.trim().length >= 2) $("enrol-q").oninput();
  $("legend").innerHTML = Object.keys(LEGEND).map((k) => `<span><b class="tok">${ICON[k]}</b> ${esc(t(LEGEND[k]))}</span>`).join("");
  if ($("notice").dataset.key) setNotice($("notice").dataset.key);
  showHardware();
  showVenue();
  if (page.state) render(page.state);
  else rerenderLast();
}

// What the browser tests and a curious host's console read, as the classic scripts had them.
Object.defineProperties(window, {
  pollTimer: { get: () => pollingTimer(), configurable: true },
  lang: { get: () => lang(), set: (l) => setLang(l), configurable: true },
});
Object.assign(window, { t, message, fetchState, render, renderLast, register });

async function start() {
  $("lang").onclick = () => { setLang(lang() === "en" ? "fr" : "en"); localStorage.setItem("lang", lang()); translatePage(); };
  setupHost();
  setupCoach();
  // the live turn's bar on a phone: a tap on it (not on a button or link) unfolds its lines
  $("now").addEventListener("click", (ev) => { if (!ev.target.closest("button, a")) $("now").classList.toggle("open"); });
  // Disabled in the HTML until here: the modules wait for the catalogues, and a tap before
  // their handlers exist would be lost (the Host button) or send a form the browser's way.
  for (const el of document.querySelectorAll("[data-until-script]")) el.disabled = false;
  try {
    const who = await (await fetch("/api/session", { credentials: "same-origin" })).json();
    if (who.host) page.csrf = who.csrf;
    const join = await (await fetch("/api/join")).json();
    $("url").textContent = join.url; $("url").href = join.url;
  } catch (e) { /* the stream will retry */ }
  translatePage();
  await fetchState();
  connect();
  renderHardware();
  setInterval(renderHardware, 10000);
}

start();

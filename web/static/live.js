// Live updates: the snapshots the companion pushes (Server-Sent Events), and polling every
// 2 s while the stream is unavailable.
import { t } from "./i18n.js";
import { $, render } from "./page.js";

let pollTimer = null;
let retryTimer = null;
// Whether the live stream is bringing snapshots (its last word was one, not an error).
let streaming = false;
/** Whether the page is polling (the browser tests read it as `pollTimer`). */
export function pollingTimer() { return pollTimer; }

export async function fetchState() {
  try {
    // the Clock is drawn from the game, so the LEDs (/api/ring) are not fetched
    const s = await (await fetch("/api/state?page=1")).json();
    render(s);
    $("live").className = "live on";
    setGone(false);
  } catch (e) {
    $("live").className = "live";
    setGone(true);
  }
}

// After a control that changed the table: the live stream brings the new snapshot to this
// page as to every other, so it is fetched only while there is no stream (polling, or a
// stream that broke and has not brought one since).
export function afterControl() { if (!streaming) fetchState(); }

// The table not answering (its stream broke and a fetch failed too): said across the page,
// every control disabled (a tap would be lost), until the table answers again. Only what this
// marked is enabled again; the next snapshot's views set the rest as they should be.
let gone = false;
export function setGone(now) {
  if (now === gone) return;
  gone = now;
  document.body.classList.toggle("gone", now);
  $("gone").hidden = !now;
  if (now) {
    for (const el of document.querySelectorAll("main button, main input, main select, main textarea, #now button")) {
      if (!el.disabled) { el.disabled = true; el.dataset.gone = "1"; }
    }
  } else {
    for (const el of document.querySelectorAll("[data-gone]")) { el.disabled = false; delete el.dataset.gone; }
  }
}

// After an outage the page polls every 2 s and tries the live stream again every 20 s;
// the first snapshot the stream brings stops the polling.
function startPolling() {
  setNotice("polling");
  if (!pollTimer) { pollTimer = setInterval(fetchState, window.TREK_POLL_MS || 2000); fetchState(); }
  if (window.EventSource && !retryTimer) retryTimer = setTimeout(() => { retryTimer = null; connect(); }, window.TREK_STREAM_RETRY_MS || 20000);
}

export function setNotice(key) {
  $("notice").dataset.key = key || "";
  $("notice").textContent = key ? t(key) : "";
  $("notice").hidden = !key;
}

function stopPolling() {
  setNotice("");
  if (pollTimer) { clearInterval(pollTimer); pollTimer = null; }
  if (retryTimer) { clearTimeout(retryTimer); retryTimer = null; }
}

export function connect() {
  if (!window.EventSource) { startPolling(); return; }
  let failures = 0;
  const source = new EventSource("/api/events");
  source.addEventListener("state", async (ev) => {
    failures = 0;
    streaming = true;
    if (pollTimer) stopPolling();
    setGone(false);
    render(JSON.parse(ev.data));
    $("live").className = "live on";
  });
  source.onerror = () => {
    $("live").className = "live";
    streaming = false;
    failures += 1;
    // a stream that broke: is the table still there? (a fetch that fails says it is gone)
    if (!pollTimer) fetchState();
    // CLOSED: the server refused the stream (too many live pages open): poll instead
    if (failures >= (window.TREK_STREAM_FAILURES || 5) || source.readyState === EventSource.CLOSED) { source.close(); startPolling(); }
  };
}

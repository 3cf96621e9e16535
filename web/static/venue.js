// The venue line: whether this table publishes to a venue's broker, under which
// table id, and how many events wait in its outbox. From `venue` in /api/state (null without
// [venue]: the line stays hidden). Public like the rest of /api/state, so every phone shows it.
import { t } from "./i18n.js";
import { $ } from "./page.js";

// The reasons the publisher gives (its `problem` code) in the page's words.
const WHY = {
  venue_refused: "venue_why_refused",
  venue_unreachable: "venue_why_unreachable",
  venue_credentials: "venue_why_credentials",
  venue_connecting: "venue_why_connecting",
  venue_library_missing: "venue_why_library",
  venue_stalled: "venue_why_stalled",
};

let venue = null;
let shown = "";

/** Keep the newest venue status (from a snapshot or the 10 s status poll) and draw it. */
export function setVenue(status) {
  if (status === undefined) return;  // a snapshot without the field: keep what was known
  venue = status;
  showVenue();
}

/** The venue line in the page's language (again after a language change). */
export function showVenue() {
  const line = $("venue");
  if (!line) return;
  line.hidden = !venue;
  if (!venue) return;
  const n = Number(venue.waiting || 0);
  const text = venue.reachable
    ? t(n > 0 ? "venue_line_sending" : "venue_line_ok", { table: venue.table, n })
    : t("venue_line_down", { table: venue.table, n, why: t(WHY[venue.problem] || "venue_why_unreachable") });
  if (text === shown) return;  // a status line re-written unchanged would be announced again
  shown = text;
  line.textContent = text;
  line.classList.toggle("venue-down", !venue.reachable);
}

export function renderVenue(state) { setVenue(state && state.venue); }

// What every view of the live page shares: the snapshot shown, the host's login, the helpers
// that write a name, a colour or a card, and the list of views `render` draws a snapshot with.
import { t, titleOf, year } from "./i18n.js";
import { page } from "./shown.js";
import { markSpan } from "./chart.js";
import { esc } from "./text.js";

export const $ = (id) => document.getElementById(id);
export const DAYS = ["I", "II", "III"];
export const COLUMNS = ["person", "event", "innovation", "progress"];
// Plain-text marks that every phone's fonts have (emoji fonts are not a given offline).
export const ICON = { person: "Pe", event: "Ev", innovation: "In", progress: "Pr", wild: "★", crystal: "◆" };
export const LEGEND = { person: "l_person", event: "l_event", innovation: "l_innovation", progress: "l_progress", wild: "l_wild", crystal: "l_crystal" };

/** The page's own state (shown.js): the snapshot shown (`state`), the host's CSRF token
 * (`csrf`, null when not logged in) and the newest (process, version) shown (`shown`). */
export { esc, page };

// The newest table version this page has shown (a snapshot, or a control's answer): an undo
// names it, and the companion refuses an undo of a table changed since (no second take back).
export function saw(s) {
  const shown = page.shown;
  if (s && typeof s.version === "number" && (s.process !== shown.process || s.version > shown.version)) page.shown = { process: s.process, version: s.version };
}
export function seen() { return page.shown.process === null ? {} : { ...page.shown }; }
export function gains(list) { return (list || []).map((g) => `<span class="tok" title="${esc(t(LEGEND[g] || g))}">${ICON[g] || esc(g)}</span>`).join(" "); }
export function colourOf(name) {
  const p = page.state && page.state.players.find((q) => q.name === name);
  return p ? p.colour : "#888";
}
export function dot(colour) { return `<span class="dot" style="background:${esc(colour)}" aria-hidden="true"></span>`; }
// A player as the table shows them everywhere: their marker in their colour (chart.js).
export function markOf(name) {
  const p = page.state && page.state.players.find((q) => q.name === name);
  return p ? markSpan(p.colour, p.marker) : dot("#888");
}
export function cardTitle(id) {
  if (id === "ancestor") return t("ancestor");
  const pos = page.state && (page.state.row_cards || []).find((q) => q.card && q.card.id === id);
  return pos ? `${titleOf(id, pos.card.title)} (${year(pos.card.year)})` : id;
}
// An Itinerary card by its id and its layout (the cards have no titles): "Itinerary T05 (Pe 2 · Ev 3 · In 2)".
export function itineraryLabel(id) {
  const s = page.state;
  const spaces = s && s.edition && s.edition.itinerary_spaces && s.edition.itinerary_spaces[id];
  const layout = spaces ? " (" + COLUMNS.map((c, k) => spaces[k] ? `${ICON[c]} ${spaces[k]}` : "").filter(Boolean).join(" · ") + ")" : "";
  return t("itinerary", { i: id }) + layout;
}

// --- the views ----------------------------------------------------------------------------
// A view is a function drawing its part of the page from a snapshot; `register` adds one
// (in the order they draw), `render` draws a snapshot with all of them.
const views = [];
export function register(view) { views.push(view); }

export function render(s) {
  // Snapshots arrive by two roads (the live stream, and fetches: at start, polling, after a
  // control without a stream): a slow fetch that lands after a newer snapshot must not put the
  // page back in time, since the stream sends nothing more until the next change.
  const state = page.state;
  if (!s) return;
  if (state && s !== state && s.process === state.process && s.version < state.version) return;
  page.state = s;
  saw(s);
  for (const view of views) view(s);
}

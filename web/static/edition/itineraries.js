// The Itineraries tab: the grid of an itinerary's columns (one per kind, then the row
// rewards), typed from the palette with a cursor that moves down a column and on to the next.
import { t } from "../i18n.js";
import { api, here, problems, removeItem, unbindTag } from "./api.js";
import { $, SHORT, btn, say, session } from "./shared.js";
import { boundWords, showProgress } from "./words.js";

const COLS = ["person", "event", "innovation", "progress", "rows"];
const FULL = Object.fromEntries(COLS.map((k) => [k, t(`ed_full.${k}`)]));
// a column's heading (narrow: six share a phone's width); FULL names it in sentences
const colName = (k) => (k === "rows" ? t("ed_row_reward") : SHORT[k]);
// The grid shows 6 rows (printed cards have 2-6) and grows, one empty row below the deepest, up
// to the engine's bound (MAX_COLUMN_SPACES): a deeper itinerary is shown and saved whole.
const MIN_ROWS = 6, MAX_DEPTH = 10;
// `depth`: a column's depth the owner set by tapping its bottom space (see expected()).
export const it = { cells: {}, cursor: [0, 0], old: null, tag: null, dirty: false, depth: {} };
const SPACE_CYCLE = [undefined, null, "crystal", 1, 2, 3, 4, 5, 6, 7];
const spaceText = (v) => (v === undefined ? "·" : v === null ? "○" : v === "crystal" ? "◆" : String(v));
const itineraries = () => (session.ed && session.ed.itineraries) || [];

for (const [label, v] of [[t("ed_plain"), null], ["◆", "crystal"], ["1", 1], ["2", 2], ["3", 3], ["4", 4], ["5", 5], ["6", 6], ["7", 7], ["8", 8], [t("ed_end"), "end"], ["⌫", "back"]]) {
  $("palette").append(btn(label, () => palette(v), String(v)));
}
function palette(v) {
  it.dirty = true;
  let [c, r] = it.cursor;
  if (v === "back") { if (r > 0) r--; else if (c > 0) { c--; r = depthOf(c); if (r > 0) r--; } delete it.cells[`${c},${r}`]; it.cursor = [c, r]; drawIt(); return; }
  if (v === "end") { for (let k = r; k < MAX_DEPTH; k++) delete it.cells[`${c},${k}`]; if (c < 4) it.depth[c] = r; it.cursor = [Math.min(c + 1, COLS.length - 1), 0]; drawIt(); return; }
  it.cells[`${c},${r}`] = v;
  // Down the column to its expected depth (past the sixth row only when it is expected deeper);
  // the row rewards go as deep as the deepest column.
  const limit = Math.min(MAX_DEPTH, Math.max(MIN_ROWS, c < 4 ? expected(c) : Math.max(0, ...[0, 1, 2, 3].map(depthOf))));
  it.cursor = r + 1 < limit && !endsHere(c, r) ? [c, r + 1] : [Math.min(c + 1, COLS.length - 1), 0];
  drawIt();
}
// A kind's column is taken to be as deep as the one to its left (printed columns often
// are), unless its bottom space was tapped: filling its space at that depth moves on to
// the next column, so a column costs no extra tap when it is as deep as its left one and
// one tap (its bottom space, or end) otherwise. Row rewards are last: they never jump.
function expected(c) { return c >= 4 ? 0 : c in it.depth ? it.depth[c] : c > 0 ? depthOf(c - 1) : 0; }
function endsHere(c, r) {
  if (c >= 4 || `${c},${r + 1}` in it.cells) return false;
  const d = expected(c);
  return d > 0 && r + 1 === d;
}
// The kinds whose tapped depth still has empty spaces, in words ("" when none).
function unfilled() {
  return [0, 1, 2, 3].filter((c) => c in it.depth && depthOf(c) < it.depth[c]).map((c) => FULL[COLS[c]]).join(", ");
}
function depthOf(c) { let d = 0; for (let r = 0; r < MAX_DEPTH; r++) if (`${c},${r}` in it.cells) d = r + 1; return d; }
// Rows shown: at least MIN_ROWS, and one more than any column's depth (filled or tapped)
// or the cursor, so a deeper column can always be started by tapping the row below.
function shownRows() {
  const deepest = Math.max(...COLS.map((_, c) => Math.max(depthOf(c), it.depth[c] || 0)));
  return Math.min(MAX_DEPTH, Math.max(MIN_ROWS, deepest + 1, it.cursor[1] + 1));
}
function tapSpace(c, r) {
  const key = `${c},${r}`, v = it.cells[key];
  if (it.cursor[0] === c && it.cursor[1] === r) { // a tap on the selected space cycles it
    it.dirty = true;
    const next = SPACE_CYCLE[(SPACE_CYCLE.indexOf(key in it.cells ? v : undefined) + 1) % SPACE_CYCLE.length];
    if (next === undefined) delete it.cells[key]; else it.cells[key] = next;
    it.cursor = [c, r];
  } else if (c < 4 && !(key in it.cells) && r >= depthOf(c) && r > 0) { // an empty space under a column: its bottom
    it.dirty = true; it.depth[c] = r + 1; it.cursor = [c, depthOf(c)];
  } else it.cursor = [c, r];
  drawIt();
}
function drawIt() {
  const g = $("grid"); g.textContent = "";
  for (const k of COLS) { const h = document.createElement("div"); h.className = "head"; h.textContent = colName(k); g.append(h); }
  for (let r = 0, rows = shownRows(); r < rows; r++) for (let c = 0; c < COLS.length; c++) {
    const key = `${c},${r}`;
    const b = btn(spaceText(it.cells[key]), () => tapSpace(c, r));
    b.dataset.cell = key; b.setAttribute("aria-label", `${FULL[COLS[c]]} ${r + 1}`);
    // Spaces still to fill (down to the column's depth) are outlined, not greyed out.
    const todo = !(key in it.cells) && c < 4 && r < expected(c) && (c in it.depth || c === it.cursor[0]);
    b.classList.toggle("absent", !(key in it.cells) && !todo); b.classList.toggle("todo", todo);
    b.classList.toggle("cursor", it.cursor[0] === c && it.cursor[1] === r);
    g.append(b);
  }
  const pick = $("it-pick"); pick.textContent = "";
  pick.append(new Option(t("ed_saved_edit", { itineraries: itineraries().length }), ""));
  for (const x of itineraries()) pick.append(new Option(x.id, x.id));
}
function nextItId() { const used = new Set(itineraries().map((x) => x.id)); let n = 1; while (used.has(`T${String(n).padStart(2, "0")}`)) n++; return `T${String(n).padStart(2, "0")}`; }
export function clearIt() { it.cells = {}; it.cursor = [0, 0]; it.old = null; it.tag = null; it.dirty = false; it.depth = {}; $("it-id").value = session.ed ? nextItId() : ""; drawIt(); }
$("clear-it").addEventListener("click", clearIt);
export function loadIt(x) {
  it.cells = {}; it.old = x.id; it.tag = null; it.dirty = false; it.depth = {}; $("it-id").value = x.id;
  COLS.forEach((k, c) => { const col = k === "rows" ? x.rows : (x.columns[k] || []); col.forEach((v, r) => { it.cells[`${c},${r}`] = v; }); });
  it.cursor = [0, 0]; drawIt();
}
$("it-pick").addEventListener("change", () => { const x = itineraries().find((y) => y.id === $("it-pick").value); if (x) loadIt(x); });
function columnOf(c) { const out = []; for (let r = 0; r < depthOf(c); r++) out.push(`${c},${r}` in it.cells ? it.cells[`${c},${r}`] : null); return out; }
$("it-id").addEventListener("input", () => { it.dirty = true; });
/** What an itinerary on screen still lacks before the next sticker may save it ("" when
 * nothing). Save itself sends any grid: the engine's checks are the real ones. */
export function missingOfIt() {
  const lack = [];
  if (!$("it-id").value.trim()) lack.push(t("ed_its_id"));
  if (![0, 1, 2, 3].some((c) => depthOf(c) > 0)) lack.push(t("ed_its_spaces"));
  if (!depthOf(4)) lack.push(t("ed_its_row_rewards"));
  if (unfilled()) lack.push(t("ed_the_outlined_spaces_of", { unfilled: unfilled() }));
  return lack.join(t("ed_and"));
}
$("save-it").addEventListener("click", () => saveIt());
/** Saves the itinerary on screen (binding its sticker); true when it was saved. */
export async function saveIt() {
  if (unfilled()) { say("it-msg", t("ed_fill_the_outlined_spaces", { unfilled: unfilled() }), "err"); return false; }
  const columns = {}; COLS.slice(0, 4).forEach((k, c) => { const col = columnOf(c); if (col.length) columns[k] = col; });
  const body = { id: $("it-id").value.trim(), columns, rows: columnOf(4) };
  if (it.old) body.old_id = it.old;
  if (it.tag) body.tag = it.tag;
  try {
    const r = await api("PUT", here("/itineraries"), body);
    const all = session.ed.itineraries, i = all.findIndex((x) => x.id === (it.old || r.itinerary.id));
    if (i >= 0) all[i] = r.itinerary; else all.push(r.itinerary);
    showProgress(r.progress); say("it-msg", t("ed_saved_itinerary", { id: r.itinerary.id }) + boundWords(r) + t("ed_tap_the_next_itinerary"), "ok"); clearIt();
    return true;
  } catch (e) { say("it-msg", problems(e), "err"); return false; }
}
$("remove-it").addEventListener("click", () => removeItem("itineraries", it.old, t("ed_remove_itinerary", { old: it.old }), "it-msg", clearIt));
$("unbind-it").addEventListener("click", () => unbindTag(it, "it-msg"));

// What every part of the edition page shares: the session's one state (the edition open,
// the host's token, the last tap seen) and the small DOM helpers. One exported object rather
// than module-level `let`s: an importer cannot reassign another module's binding.
import { t } from "../i18n.js";

export const $ = (id) => document.getElementById(id);
export const BENEFITS = ["person", "event", "innovation", "progress", "wild", "crystal"];
/** A benefit's short name (buttons and chips: six share a phone's width). */
export const SHORT = Object.fromEntries(BENEFITS.map((k) => [k, t(`ed_short.${k}`)]));
export const ROMAN = { 1: "I", 2: "II", 3: "III" };

/** `name`: the edition open; `ed`: its content; `seq`: the last reader tap seen (-1: none yet);
 * `readOnly`: the shipped editions' names (opened to look at, never saved). */
export const session = { csrf: null, mock: false, name: null, ed: null, tags: {}, seq: -1, readOnly: new Set() };

/** A tab's message line: its text and kind ("ok", "warn", "err" or none). */
export function say(id, text, kind) { const el = $(id); el.textContent = text; el.className = "msg " + (kind || ""); }
/** A button that calls `on`; `extra` is its `data-v` (what the tests and the page's CSS pick it by). */
export function btn(label, on, extra) {
  const b = document.createElement("button"); b.type = "button"; b.textContent = label; b.addEventListener("click", on);
  if (extra) b.dataset.v = extra;
  return b;
}
/** A card without a title of its own (its title is its id): named once, "I01", never "I01 (I01)". */
export const untitled = (c) => !c.title || c.title === c.id;
/** A year as this page writes it (the catalogue's "BCE" word of the page's language). */
export const showYear = (y) => (y < 0 ? `${-y} ${t("ed_bce")}` : `${y}`);

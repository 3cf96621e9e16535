// The page's words: one catalogue per language (i18n/en.json, i18n/fr.json), the files the
// companion's console and API read too (companion/util/wording.py). "{name}" is a param,
// "{n|one|other}" the plural form of n. `msg` holds the table's, engine's and server's sentences
// by code ("code" or "code.variant": an outcome's `why`, `kind` or `more`), `hw` a part's fault.

// Fetched by a top-level await (Safari 15, Chrome 89), not JSON modules, which need Safari
// 17.2 or Chrome 123: a family's older iPad would show a blank page.
async function catalogue(language) {
  const response = await fetch(new URL(`./i18n/${language}.json`, import.meta.url));
  if (!response.ok) throw new Error(`the page's ${language} words did not load (${response.status})`);
  return response.json();
}
const [en, fr] = await Promise.all([catalogue("en"), catalogue("fr")]);

export const LANGUAGES = ["en", "fr"];
export const CATALOGUES = { en, fr };

let current = localStorage.getItem("lang") || ((navigator.language || "en").startsWith("fr") ? "fr" : "en");
if (!LANGUAGES.includes(current)) current = "en";
/** The page's language ("en" or "fr"). */
export function lang() { return current; }
export function setLang(l) { current = LANGUAGES.includes(l) ? l : "en"; }
/** A card's title in the page's language: the edition's title for it in this language (an
 * owner's French box, `titles` in docs/editions.md) where it has one, else its `title`. */
export function titleOf(id, title) {
  const titles = window.state && window.state.edition && window.state.edition.titles;
  return (titles && titles[id] && titles[id][current]) || title;
}
/** A colon as the page's language writes it after a label: French puts a narrow no-break space before it. */
export function colon() { return current === "fr" ? "\u202f: " : ": "; }

/** A sentence's params filled in: "{n}" by its value, "{n|one|other}" by the form of n. */
export function fill(language, text, params) {
  const p = params || {};
  const rules = new Intl.PluralRules(language);
  const out = String(text).replace(/\{(\w+)\|((?:[^|{}]|\{\w+\})*)\|((?:[^|{}]|\{\w+\})*)\}/g,
    (whole, name, one, other) => (p[name] === undefined ? whole : rules.select(Number(p[name])) === "one" ? one : other));
  return out.replace(/\{(\w+)\}/g, (whole, name) => (p[name] === undefined ? whole : String(p[name])));
}

/** The page's word ``key`` in its language (English if French lacks it), params filled in. */
export function t(key, params) {
  return fill(current, CATALOGUES[current][key] ?? CATALOGUES.en[key] ?? key, params);
}

/** A card's year as printed: "490 BCE" / "490 av. J.-C." (stored negative), "1492". On the
 * page a year and its era never part at a line's end ("44" / "BCE", "av. J.-" / "C."): no-break
 * spaces and a non-breaking hyphen. */
export function year(y) { return y < 0 ? `${-y}\u00a0${t("bce").replace(/ /g, "\u00a0").replace(/-/g, "\u2011")}` : String(y); }

/** An outcome of the table, or a refusal of the server (code + params), in the page's
 * language; its English `message` only for a code this page does not know. */
export function message(last) {
  if (!last) return "";
  const p = { ...(last.params || {}) };
  const words = CATALOGUES[current].msg;
  // the Ancestor inside a sentence: "Mia a pris l'Ancêtre", "Mia took the Ancestor"
  if (p.card !== undefined) p.c = p.card === "ancestor" ? t("the_ancestor") : p.title ? `${titleOf(p.card, p.title)} (${year(p.year)})` : p.card;
  if (p.player === "") p.player = words.that_player;
  if (Array.isArray(p.columns)) p.columns = columnsWords(p.columns);
  // the Departures Row as the table shows it: "Title (year), …", never the cards' ids
  if (Array.isArray(p.row)) p.row = p.row.map((c) => (c.title ? `${titleOf(c.card, c.title)} (${year(c.year)})` : c.card)).join(", ") || "-";
  // the store's refusal of a move: its own code and facts (`store`, `facts`) say the cause in this language
  if (last.code === "store_error" && words[p.store]) p.error = fill(current, words[p.store], p.facts || {});
  if (last.code === "enrolled" && p.itinerary) p.c = t("itinerary", { i: p.itinerary });
  const variant = p.why || p.kind || (p.more ? "more" : "");
  let text = (variant && words[last.code + "." + variant]) || words[last.code];
  if (text === undefined || (current === "en" && !last.params && last.message)) return last.message || "";
  text = fill(current, text, p);
  if (text.startsWith(p.c || "\u0000")) text = text.charAt(0).toUpperCase() + text.slice(1);  // "L'Ancêtre coûte…"
  if (last.code === "enrolled" && p.saved) text += " " + words["enrolled.saved"];
  if (last.code === "took") {
    if (p.crystals) text += " " + t("spent", { n: p.crystals }) + ".";
    if (p.punctual) text += " " + t("punctual");
    if (p.day_over) text += " " + t("day_over", { d: p.day_over, e: p.day });
    if (p.reveal) text += " " + t("reveal_prompt");
  }
  if (p.correction) text = t("correction_failed") + " " + text;
  return text;
}

/** Columns by their legend's names ("Person and Event"), as `companion.util.wording` writes them. */
function columnsWords(columns) {
  const names = columns.map((c) => t(`l_${c}`));
  return names.length < 2 ? names.join("") : `${names.slice(0, -1).join(", ")} ${CATALOGUES[current].console.and} ${names[names.length - 1]}`;
}

/** A message shown on its own line, with a capital (the store's sentences start in lower case,
 *  to sit inside another sentence); a player's name among ``names`` stays as typed ("van Dijk"). */
export function sentence(text, names = []) {
  if (!text || names.some((name) => name && text.startsWith(name))) return text;
  return text.charAt(0).toLocaleUpperCase(current) + text.slice(1);
}

// The catalogues on `window`, for the browser tests and a curious host's console.
window.I18N = CATALOGUES;

/** The page's fixed words in its language: what its data-i18n attributes name (the text, or
 * the placeholder, aria-label (with data-n), title or alt), and the language button if it has one. */
export function translatePage() {
  document.documentElement.lang = current;
  document.querySelectorAll("[data-i18n]").forEach((el) => { el.textContent = t(el.dataset.i18n); });
  document.querySelectorAll("[data-i18n-placeholder]").forEach((el) => { el.placeholder = t(el.dataset.i18nPlaceholder); });
  document.querySelectorAll("[data-i18n-label]").forEach((el) => { el.setAttribute("aria-label", t(el.dataset.i18nLabel, { n: el.dataset.n })); });
  document.querySelectorAll("[data-i18n-title]").forEach((el) => { el.title = t(el.dataset.i18nTitle); });
  document.querySelectorAll("[data-i18n-alt]").forEach((el) => { el.alt = t(el.dataset.i18nAlt); });
  const button = document.getElementById("lang");
  if (!button) return;
  button.textContent = current === "en" ? "FR" : "EN";
  button.setAttribute("aria-label", `${t("language")}${colon()}${button.textContent}`);
}

/** A number in the page's language ("12.5", "12,5"); "—" for none. */
export function number(n) {
  return n === null || n === undefined ? "—" : new Intl.NumberFormat(current, { maximumFractionDigits: 1 }).format(n);
}
/** A moment (ISO 8601) as a date and time in the page's language. */
export function when(iso) {
  return new Intl.DateTimeFormat(current, { dateStyle: "medium", timeStyle: "short" }).format(new Date(iso));
}

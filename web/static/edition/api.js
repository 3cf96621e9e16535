// The edition page's requests and the companion's refusals in the page's language.
import { CATALOGUES, fill, lang, sentence, t } from "../i18n.js";
import { say, session } from "./shared.js";
import { baseWords } from "./words.js";

/** One JSON request with the host's token; a refusal is thrown with its answer as `data`. */
export async function api(method, url, body) {
  const headers = { "Content-Type": "application/json" };
  if (session.csrf) headers["X-CSRF-Token"] = session.csrf;
  const r = await fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), credentials: "same-origin" });
  const type = r.headers.get("Content-Type") || "";
  const data = type.includes("json") ? await r.json() : await r.text();
  if (!r.ok) throw Object.assign(new Error((data && data.error) || r.statusText), { data, status: r.status });
  return data;
}

/** The edition open's address under /api/library, with `rest` after it. */
export const here = (rest) => `/api/library/${encodeURIComponent(session.name)}${rest || ""}`;

// A refusal of the companion in the page's language: its `code` and `params` worded by
// the catalogue's `msg` (the same sentences as the table's page, one per code in English and
// French); an invalid edition's own problems (the engine's English, naming ids and lines)
// follow its sentence. The English `error` only for a code this page does not know.
const MSG = CATALOGUES[lang()].msg;
export function problems(e) {
  const d = e && e.data && typeof e.data === "object" ? e.data : {};
  const listed = d.problems && d.problems.length ? d.problems.join("; ") : "";
  const text = d.code ? MSG[d.code] : undefined;
  if (text === undefined) return listed || e.message;
  const p = { ...(d.params || {}) };
  if (p.column !== undefined) p.column = MSG["column." + p.column] ?? p.column;
  if (p.from_base && typeof p.from_base === "object") p.from_base = baseWords(p.from_base).join(", ");
  const said = sentence(fill(lang(), text, p));
  return d.code === "edition_problems" && listed ? `${said} ${listed}` : said;
}

/** Unbind tag, on each tab: frees the sticker tapped last there (a next save does not bind it). */
export async function unbindTag(form, msg) {
  const tag = form.tag || form.last;
  if (!tag) { say(msg, t("ed_tap_the_sticker_to"), "err"); return; }
  try { await api("DELETE", `/api/library/tags/${encodeURIComponent(tag)}`); form.tag = null; form.last = null; say(msg, t("ed_tag_is_free_again", { tag }), "ok"); }
  catch (e) { say(msg, problems(e), "err"); }
}

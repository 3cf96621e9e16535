// The edition page's requests and the companion's refusals in the page's language.
import { CATALOGUES, fill, lang, sentence, t } from "../i18n.js";
import { request } from "../request.js";
import { say, session } from "./shared.js";
import { baseWords, showProgress } from "./words.js";

/** One JSON request with the host's token; a refusal is thrown with its answer as `data`. */
export async function api(method, url, body) {
  const { ok, status, data } = await request(method, url, body, session.csrf);
  if (!ok) throw Object.assign(new Error(data.error), { data, status });
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

/** Remove, on the Cards and Itineraries tabs: the edition's ``kind`` ("cards", "itineraries") ``id``,
 * once the host confirms ``question``; `done` follows, a refusal is said in ``msg``. */
export async function removeItem(kind, id, question, msg, done) {
  if (!id || !confirm(question)) return;
  try {
    const r = await api("DELETE", here(`/${kind}/${encodeURIComponent(id)}`));
    session.ed[kind] = session.ed[kind].filter((x) => x.id !== id); showProgress(r.progress); done();
  } catch (e) { say(msg, problems(e), "err"); }
}

/** Unbind tag, on each tab: frees the sticker tapped last there (a next save does not bind it). */
export async function unbindTag(form, msg) {
  const tag = form.tag || form.last;
  if (!tag) { say(msg, t("ed_tap_the_sticker_to"), "err"); return; }
  try { await api("DELETE", `/api/library/tags/${encodeURIComponent(tag)}`); form.tag = null; form.last = null; say(msg, t("ed_tag_is_free_again", { tag }), "ok"); }
  catch (e) { say(msg, problems(e), "err"); }
}

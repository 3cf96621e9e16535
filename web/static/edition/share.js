// The Share tab: the edition downloaded (JSON, or its cards and itineraries as CSV), a
// shared one imported, made the one new games use, or deleted.
import { t } from "../i18n.js";
import { api, here, problems } from "./api.js";
import { listEditions } from "./library.js";
import { $, say, session } from "./shared.js";

async function download(format, suffix) {
  try {
    const r = await fetch(here(`/export?format=${format}`), { headers: { "X-CSRF-Token": session.csrf } });
    if (!r.ok) { const data = await r.json(); throw Object.assign(new Error(data.error), { data, status: r.status }); }
    const a = document.createElement("a"); a.href = URL.createObjectURL(await r.blob()); a.download = session.name + suffix; a.click();
  } catch (e) { say("share-msg", problems(e), "err"); }
}
$("dl-json").addEventListener("click", () => download("json", ".json"));
$("dl-csv").addEventListener("click", () => download("csv", "-cards.csv"));
$("dl-its").addEventListener("click", () => download("itineraries-csv", "-itineraries.csv"));
$("import-file").addEventListener("change", async () => {
  const f = $("import-file").files[0]; if (!f) return;
  try { const r = await api("POST", "/api/library/import", { text: await f.text() }); say("share-msg", t("ed_imported_as", { name: r.name }), "ok"); await listEditions(r.name); }
  catch (e) { say("share-msg", problems(e), "err"); }
});
$("make-default").addEventListener("click", async () => {
  try { await api("POST", here("/default")); say("share-msg", t("ed_new_games_now_use", { name: session.name }), "ok"); }
  catch (e) { say("share-msg", problems(e), "err"); }
});
$("delete-ed").addEventListener("click", async () => {
  if (!confirm(t("ed_delete_the_edition_games", { name: session.name }))) return;
  try { await api("DELETE", here()); await listEditions(); }
  catch (e) { say("share-msg", problems(e), "err"); }
});

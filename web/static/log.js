// What happened: the game's events, newest first, undos saying what they took back.
import { t, titleOf, year } from "./i18n.js";
import { $, colourOf, dot, esc } from "./page.js";

function logText(e) {
  if (e.kind === "take") {
    let text = e.card === "ancestor" ? t("log_take_ancestor", { p: e.player }) : t("log_take", { p: e.player, c: titleOf(e.card, e.title), y: year(e.year) });
    if (e.crystals) text += ", " + t("spent", { n: e.crystals });
    return dot(colourOf(e.player)) + esc(text);
  }
  if (e.kind === "itinerary") return dot(colourOf(e.player)) + esc(t("log_itin", { p: e.player, i: e.itinerary }));
  if (e.kind === "reveal") return esc(t("log_reveal", { c: titleOf(e.card, e.title), y: year(e.year) }));
  if (e.kind === "undo") {
    // What the undo took back, so a tap on Undo never makes a take vanish without a word.
    const u = e.event || {};
    const c = u.card === "ancestor" ? t("ancestor") : titleOf(u.card, u.title);
    if (u.kind === "take" && u.card === "ancestor") return dot(colourOf(u.player)) + esc(t("log_undo_ancestor", { p: u.player }));
    if (u.kind === "take") return dot(colourOf(u.player)) + esc(t("log_undo_take", { p: u.player, c, y: year(u.year) }));
    if (u.kind === "itinerary") return dot(colourOf(u.player)) + esc(t("log_undo_itin", { p: u.player, i: u.itinerary }));
    if (u.kind === "reveal") return esc(t("log_undo_reveal", { c, y: year(u.year) }));
  }
  return "";
}

export function renderLog(s) {
  const items = [];
  const log = s.log || [];
  for (let i = log.length - 1; i >= 0; i--) {
    const e = log[i];
    if (e.day_end) items.push(`<li class="dayend">${esc(t("log_dayend", { d: e.day_end }))}</li>`);
    const classes = [i === log.length - 1 ? "latest" : "", e.kind === "undo" ? "undo" : "", e.undone ? "undone" : ""];
    const note = e.undone ? ` <small>(${esc(t("log_undone"))})</small>` : "";
    items.push(`<li class="${classes.filter(Boolean).join(" ")}">${logText(e)}${note}</li>`);
  }
  $("log").innerHTML = items.join("");
}

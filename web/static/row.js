// The Departures Row: its cards, their positions and Playmat bonuses, and the Ancestors left.
import { colon, t, titleOf } from "./i18n.js";
import { $, esc, gains, page } from "./page.js";

export function renderRow(s) {
  const cells = (s.row_cards || []).map((pos) => {
    const c = pos.card;
    const body = c
      ? `<span class="year">${c.year < 0 ? `${-c.year} <span class="era">${esc(t("bce"))}</span>` : c.year}</span><span class="title">${esc(titleOf(c.id, c.title))}</span><span><span class="hours">${c.hours} h</span> ${gains(c.gains)}</span>`
      : `<span>${pos.hidden ? t("hidden") : t("empty")}</span>`;
    const pick = c && page.state.mock && page.csrf && s.expect && s.expect.kind === "take" && s.expect.choices.includes(c.id);
    const tag = pick ? "button" : "div";
    return `<li class="${pos.position === 0 ? "deck" : ""}${pick ? " pick" : ""}${pos.hidden && !s.finished ? " waiting" : ""}"><${tag} ${pick ? `type="button" data-call="/api/reader/tap" ` : ""}class="cell" data-card="${c ? esc(c.id) : ""}" title="${c ? esc(c.note) : ""}">
      <small>${pos.position === 0 ? t("deck_top") : t("position", { n: pos.position })}</small>${body}
      <span class="bonus">${t("bonus")}${colon()}${gains(pos.bonus) || "—"}</span>${pick ? `<span class="tap-hint">${t("tap_to_take")}</span>` : ""}</${tag}></li>`;
  });
  $("row").innerHTML = cells.join("");
  $("ancestors").textContent = "· " + t("ancestors_left", { n: s.ancestors_left });
}

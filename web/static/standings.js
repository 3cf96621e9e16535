// Each player's standing: total, track, crystals, hour, treks and Itinerary.
import { colon, t, titleOf, year } from "./i18n.js";
import { markSpan } from "./chart.js";
import { $, ICON, LEGEND, esc } from "./page.js";

function trekChip(trek) {
  const first = year(trek[0].year), last = year(trek[trek.length - 1].year);
  const span = trek.length > 1 ? `${first}–${last}` : first;
  const n = t("trek_cards", { n: trek.length });
  return `<span class="chip done" title="${trek.map((c) => esc(titleOf(c.id, c.title))).join(", ")}">${esc(n)}${colon()}${esc(span)}</span>`;
}

export function renderPlayers(s) {
  const acting = s.finished ? null : (s.expect && s.expect.player) || s.turn;
  $("players").innerHTML = s.players.map((p) => {
    const current = (p.current_trek || []).map((c) => `<span class="chip${c.ancestor ? " anc" : ""}" title="${esc(c.ancestor ? t("ancestor") : titleOf(c.id, c.title))}">${esc(year(c.year))}</span>`).join("");
    const done = (p.completed_treks || []).map(trekChip).join("");
    const acts = p.name === acting;
    return `<article class="player${acts ? " turn" : ""}" style="border-left-color:${esc(p.colour)};${acts ? `box-shadow:0 0 0 3px ${esc(p.colour)}` : ""}">
      <div class="top"><span class="who">${markSpan(p.colour, p.marker)} <span class="name">${esc(p.name)}</span></span><span class="total" title="${t("total")}">${p.total}</span></div>
      <div class="parts"><span>${t("track")} ${p.track}</span> · <span>${ICON.crystal} ${t("crystals")} ${p.crystals}</span> · <span>${t("trek_points")} ${p.trek_points}</span> · <span>${t("hour")} ${p.hour}</span></div>
      <div class="treks"><b>${t("current_trek")}</b> ${current || "—"}</div>
      ${done ? `<div class="treks"><b>${t("done_treks")}</b> ${done}</div>` : ""}
      ${renderItinerary(p.itinerary)}
    </article>`;
  }).join("");
}

function renderItinerary(it) {
  if (!it) return `<div class="parts">${t("itinerary_none")}</div>`;
  const cols = it.columns.map((c) => `<div class="col"><b title="${esc(t(LEGEND[c.kind]))}">${ICON[c.kind]} ${c.covered}/${c.spaces.length}</b>` +
    c.spaces.map((sp, i) => `<span class="space${i < c.covered ? " covered" : ""}${i === c.covered ? " next" : ""}">${sp === null ? "" : sp === "crystal" ? ICON.crystal : sp}</span>`).join("") + "</div>").join("");
  const rows = it.rows.map((r, i) => `${t("row_n", { n: i + 1 })}${colon()}${r.reward === null ? "–" : r.reward === "crystal" ? ICON.crystal : t("points", { n: r.reward })}${r.complete ? " ✓" : ""}`).join(" · ");
  return `<div class="rows"><b>${esc(t("itinerary", { i: it.id }))}</b></div><div class="itin">${cols}</div><div class="rows">${t("row_reward")}${colon()}${rows}</div>`;
}

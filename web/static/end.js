// The end of the game: the winners, how they won, the breakdown, the score chart and BG Stats.
import { lang, t } from "./i18n.js";
import { $, dot, esc } from "./page.js";

export function renderEnd(s) {
  $("end").hidden = !s.finished;
  if (!s.finished) return;
  $("winners").textContent = s.winners.length > 1 ? t("won_shared", { w: s.winners.join(" & ") }) : t("won", { w: s.winners[0] });
  // How the winner was decided, in the page's language (and without naming the winner again).
  const best = Math.max(...s.players.map((p) => p.total));
  const leaders = s.players.filter((p) => p.total === best).map((p) => p.name);
  $("tiebreak").textContent = leaders.length === 1 ? t("best_total", { n: best })
    : s.winners.length > 1 ? t("tie_shared", { names: leaders.join(", "), n: best })
    : t("tie_won", { names: leaders.join(", "), n: best, w: s.winners[0] });
  const rows = [...s.players].sort((a, b) => b.total - a.total);
  $("breakdown").innerHTML = `<tr><th scope="col">${t("player")}</th><th scope="col">${t("track")}</th><th scope="col">${t("crystals")}</th><th scope="col">${t("trek_points")}</th><th scope="col">${t("total")}</th></tr>` +
    // the cards of each trek on a row of their own under the player's: a phone's narrow Treks
    // column would wrap "29 (cards per trek: 2, 4, 2, 5, 4, 4)" over five lines
    rows.map((p) => `<tr class="scores"><td>${dot(p.colour)}${esc(p.name)}</td><td>${p.track}</td><td>${p.crystals}</td><td>${p.trek_points}</td><td><b>${p.total}</b></td></tr>` +
      `<tr class="trek-cards"><td colspan="5">${esc(t("treks_of"))}: ${p.treks.length ? p.treks.join(", ") : "—"}</td></tr>`).join("");
  renderChart(s);
  renderBgStats(s);
}

// The finished game as a BG Stats play (/api/bgstats): its link, and a QR code of it for the
// phone that has BG Stats. Asked once per game and event count (an undo changes the play).
let bgstatsShown = "";
async function renderBgStats(s) {
  const key = `${s.game}/${s.events}/${lang()}`;
  if (bgstatsShown === key) return;
  bgstatsShown = key;
  $("bgstats").hidden = true;
  try {
    const response = await fetch(`/api/bgstats/${encodeURIComponent(s.game)}?lang=${lang()}`);  // comments in this language
    if (!response.ok || bgstatsShown !== key) return;  // not finished after all, or a newer game
    const play = await response.json();
    $("bgstats-link").href = play.url;
    $("bgstats-qr").src = `/api/bgstats/${encodeURIComponent(s.game)}/qr.svg?e=${s.events}`;
    $("bgstats").hidden = false;
  } catch (e) { bgstatsShown = ""; /* the next snapshot tries again */ }
}

// Each player's line has its own dash pattern and end marker as well as its colour,
// with axes and a legend, so players are told apart without colour.
const DASHES = ["", "8 4", "2 4", "10 3 2 3"];
const MARKS = ["●", "■", "▲", "◆"];
function renderChart(s) {
  const series = s.chart || [];
  if (series.length < 2) { $("chart").innerHTML = ""; $("chart-legend").innerHTML = ""; return; }
  const max = Math.max(1, ...series.flat());
  const min = Math.min(0, ...series.flat());
  const x = (i) => 40 + (i / (series.length - 1)) * 270;
  const y = (v) => 140 - ((v - min) / (max - min)) * 125;
  let out = `<line x1="40" y1="${y(0)}" x2="310" y2="${y(0)}" stroke="currentColor" stroke-opacity=".3"/>`;
  out += `<line x1="40" y1="15" x2="40" y2="140" stroke="currentColor"/><line x1="40" y1="140" x2="310" y2="140" stroke="currentColor"/>`;
  for (const v of [min, Math.round((min + max) / 2), max]) out += `<text x="35" y="${(y(v) + 4).toFixed(1)}" font-size="10" text-anchor="end" fill="currentColor">${v}</text>`;
  out += `<text x="175" y="156" font-size="10" text-anchor="middle" fill="currentColor">${esc(t("chart_x"))}</text>`;
  out += `<text x="8" y="80" font-size="10" text-anchor="middle" fill="currentColor" transform="rotate(-90 8 80)">${esc(t("chart_y"))}</text>`;
  s.players.forEach((p, k) => {
    const pts = series.map((row, i) => `${x(i).toFixed(1)},${y(row[k]).toFixed(1)}`).join(" ");
    const endY = y(series[series.length - 1][k]);
    out += `<polyline points="${pts}" fill="none" stroke="${esc(p.colour)}" stroke-width="2.5" stroke-dasharray="${DASHES[k % 4]}"><title>${esc(p.name)}</title></polyline>`;
    out += `<text x="312" y="${(endY + 4).toFixed(1)}" font-size="10" fill="${esc(p.colour)}" aria-hidden="true">${MARKS[k % 4]}</text>`;
  });
  $("chart").innerHTML = out;
  $("chart").setAttribute("aria-label", t("score_chart") + ": " + s.players.map((p) => `${p.name} ${p.total}`).join(", "));
  $("chart-legend").innerHTML = s.players.map((p, k) => `<li><svg width="34" height="10" aria-hidden="true"><line x1="0" y1="5" x2="34" y2="5" stroke="${esc(p.colour)}" stroke-width="3" stroke-dasharray="${DASHES[k % 4]}"/></svg> ${MARKS[k % 4]} ${esc(p.name)} (${p.total})</li>`).join("");
}

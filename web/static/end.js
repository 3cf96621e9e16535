// The end of the game: the winners, how they won, the breakdown, the score chart and BG Stats.
import { colon, lang, t } from "./i18n.js";
import { MARKS, chartSvg, lineSample, markSpan } from "./chart.js";
import { $, esc } from "./page.js";

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
    rows.map((p) => `<tr class="scores"><td><span class="who">${markSpan(p.colour, p.marker)} ${esc(p.name)}</span></td><td>${p.track}</td><td>${p.crystals}</td><td>${p.trek_points}</td><td><b>${p.total}</b></td></tr>` +
      `<tr class="trek-cards"><td colspan="5">${esc(t("treks_of"))}${colon()}${p.treks.length ? p.treks.join(", ") : "—"}</td></tr>`).join("");
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
    $("bgstats-qr").src = `/api/qr.svg?game=${encodeURIComponent(s.game)}&e=${s.events}`;
    $("bgstats").hidden = false;
  } catch (e) { bgstatsShown = ""; /* the next snapshot tries again */ }
}

// The score after each event, one line per player (the chart's drawing: chart.js).
function renderChart(s) {
  const series = s.chart || [];
  if (series.length < 2) { $("chart").innerHTML = ""; $("chart-legend").innerHTML = ""; return; }
  const lines = s.players.map((p, k) => ({ name: p.name, colour: p.colour, marker: p.marker, points: series.map((row, i) => [i, row[k]]) }));
  $("chart").innerHTML = chartSvg({
    lines, count: series.length, bottom: 140, height: 125, labelAt: 156, zero: true,
    xLabel: t("chart_x"), yLabel: t("chart_y"),
  });
  $("chart").setAttribute("aria-label", t("score_chart") + colon() + s.players.map((p) => `${p.name} ${p.total}`).join(", "));
  $("chart-legend").innerHTML = s.players.map((p) => `<li>${lineSample(p.colour, p.marker)} ${markSpan(p.colour, p.marker)} ${esc(p.name)} (${p.total})</li>`).join("");
  saveLink(s);
}

// The chart as one picture to share, made here from what the page drew (no network): the
// lines, a legend with each player's marker and total, and the game's title, in one SVG file.
function saveLink(s) {
  const legend = s.players.map((p, k) => `<text x="40" y="${182 + k * 16}" font-size="12" fill="${esc(p.colour)}">${MARKS[(p.marker || 0) % MARKS.length]} <tspan fill="#222">${esc(p.name)} (${p.total})</tspan></text>`).join("");
  const height = 190 + s.players.length * 16;
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 330 ${height}" width="660" height="${height * 2}" color="#222" font-family="sans-serif">` +
    `<rect width="330" height="${height}" fill="#fff"/><text x="165" y="12" font-size="11" text-anchor="middle" fill="#222">${esc(t("score_chart"))}</text>` +
    `<g transform="translate(0 6)">${$("chart").innerHTML}</g>${legend}</svg>`;
  $("chart-save").href = "data:image/svg+xml;charset=utf-8," + encodeURIComponent(svg);
  $("chart-save").download = `trekking-game-${s.game}.svg`;
}

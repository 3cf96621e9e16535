// The end of the game: the winners, how they won, the breakdown, the game's story and BG Stats.
import { colon, lang, t } from "./i18n.js";
import { drawStory, markSpan } from "./chart.js";
import { $, esc, page } from "./page.js";

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
  $("bgstats-link").hidden = true;
  try {
    const response = await fetch(`/api/bgstats/${encodeURIComponent(s.game)}?lang=${lang()}`);  // comments in this language
    if (!response.ok || bgstatsShown !== key) return;  // not finished after all, or a newer game
    const play = await response.json();
    $("bgstats-link").href = play.url;
    $("bgstats-qr").src = `/api/qr.svg?game=${encodeURIComponent(s.game)}&e=${s.events}`;
    $("bgstats").hidden = false;
    $("bgstats-link").hidden = false;  // beside the chart's Save
  } catch (e) { bgstatsShown = ""; /* the next snapshot tries again */ }
}

// The game's story (chart.js drawStory): every player's points and Clock after each turn, asked once per
// game and event count (an undo changes it) and drawn again from what was asked on each render
// (a language switch redraws its words).
let story = null;
let storyAsked = "";
async function renderChart(s) {
  const key = `${s.game}/${s.events}`;
  if (story && story.key === key) { drawStory($("story"), story.body, s.players, $("chart-save"), s.game); return; }
  if (storyAsked === key) return;
  storyAsked = key;
  story = null;
  $("chart-save").hidden = true;
  try {
    const response = await fetch(`/api/story/${encodeURIComponent(s.game)}`);
    if (!response.ok || storyAsked !== key) { if (storyAsked === key) storyAsked = ""; return; }
    const body = await response.json();
    if (storyAsked !== key) return;  // a newer game, or an undo, since
    story = { key, body };
    const now = page.state && page.state.finished ? page.state : s;
    drawStory($("story"), body, now.players, $("chart-save"), now.game);
  } catch (e) { storyAsked = ""; /* the next snapshot tries again */ }
}

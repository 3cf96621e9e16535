// The coach (issue 18): the host's switch, and for the player to move each available card's
// estimated chance of winning and expected final score, best first, with every player's
// chance if that player takes the best card. It reads `coach` in the snapshot (see /api/openapi.json, POST /api/coach), which
// carries an answer only for the position on the table now, never an older one.
import { call } from "./api.js";
import { lang, t } from "./i18n.js";
import { $, cardTitle, colourOf, dot, esc, register } from "./page.js";

function coachPercent(x) {
  return new Intl.NumberFormat(lang(), { style: "percent", maximumFractionDigits: 0 }).format(x / 100);
}

function coachScore(x) {
  return new Intl.NumberFormat(lang(), { maximumFractionDigits: 1 }).format(x);
}

export function renderCoach(s) {
  const coach = s.coach || { on: false };
  const box = $("coach-switch");
  if (box && document.activeElement !== box) box.checked = !!coach.on;
  const section = $("coach");
  section.hidden = !coach.on || s.finished;
  if (section.hidden) return;
  const body = $("coach-body");
  if (coach.status === "failed") { body.innerHTML = `<p>${esc(t("coach_failed"))}</p>`; return; }
  if (coach.status !== "ready") {
    body.innerHTML = `<p class="coach-wait">${esc(t("coach_thinking"))}</p>`;
    return;
  }
  let out = "";
  if (coach.cards.length) {
    const rows = coach.cards.map((c, i) => {
      const spend = c.spend ? ` <small>${esc(t("coach_spend", { n: c.spend }))}</small>` : "";
      const best = i === 0 ? ` <b class="coach-best">${esc(t("coach_best"))}</b>` : "";
      return `<tr${i === 0 ? ' class="best"' : ""}><th scope="row" data-card="${esc(c.card)}">${esc(cardTitle(c.card))}${spend}${best}</th>` +
        `<td>${coachPercent(c.win)}</td><td>${coachScore(c.score)}</td></tr>`;
    }).join("");
    out += `<p class="coach-for">${dot(colourOf(coach.player))}${esc(t("coach_for", { p: coach.player, n: coach.cards[0].rollouts }))}</p>` +
      `<table class="coach-cards">` +
      `<tr><th scope="col">${esc(t("coach_card"))}</th><th scope="col">${esc(t("coach_win"))}</th><th scope="col">${esc(t("coach_score"))}</th></tr>${rows}</table>`;
  }
  const heading = coach.cards.length ? t("coach_players_best", { p: coach.player }) : t("coach_players");
  out += `<h3>${esc(heading)}</h3><ul class="coach-players">` + coach.players.map((p) =>
    `<li><span class="name">${dot(colourOf(p.name))}${esc(p.name)}</span>` +
    `<span class="bar" aria-hidden="true"><span style="width:${Math.max(0, Math.min(100, p.win))}%;background:${esc(colourOf(p.name))}"></span></span>` +
    `<span class="pct">${coachPercent(p.win)}</span></li>`).join("") + "</ul>";
  body.innerHTML = out;
}

export function setupCoach() {
  const box = $("coach-switch");
  if (!box) return;
  box.onchange = async () => {
    const on = box.checked;
    const answer = await call("/api/coach", { on });
    if (!answer) box.checked = !on;  // refused: the switch shows what the table does (call() redraws on success)
  };
}

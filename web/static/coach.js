// The coach: asked for, never a spoiler. The host's switch makes it available; the player to
// move asks from the phone holding their seat (taken when it joins: "I am Zoé"; the host may
// release one) and the answer (each card's chance of winning and expected score, everyone's
// chance after the best) comes back to that phone only. Every page reads GET /api/coach once
// per position (the snapshot carries only {on, everyone}); "coach for everyone" (a teaching
// game) answers unasked. An answer is shown only for the position it was made for.
import { call } from "./api.js";
import { lang, number, t } from "./i18n.js";
import { $, cardTitle, colourOf, dot, esc, page } from "./page.js";

// The latest answer this page got (from its own ask, or GET /api/coach), and whether an ask
// of this page is on its way.
let answer = null;
let asking = false;
let moved = false;
let timer = null;
let polledFor = null;  // the position (and settings) this page last started reading for
let seat = null;  // the player whose seat this phone holds (GET /api/coach, an ask's answer)
let seats = [];  // every seat a phone holds (names only)

function sawSeats(data) {
  if (!data) return;
  if ("seat" in data) seat = data.seat;
  if (Array.isArray(data.seats)) seats = data.seats;
}

function coachPercent(x) {
  return new Intl.NumberFormat(lang(), { style: "percent", maximumFractionDigits: 0 }).format(x / 100);
}

function forNow(s) {
  return answer && answer.status === "ready" && answer.game === s.game && answer.events === s.events;
}

function adviceHtml(coach) {
  let out = "";
  if (coach.cards.length) {
    const rows = coach.cards.map((c, i) => {
      const spend = c.spend ? ` <small>${esc(t("coach_spend", { n: c.spend }))}</small>` : "";
      const best = i === 0 ? ` <b class="coach-best">${esc(t("coach_best"))}</b>` : "";
      return `<tr${i === 0 ? ' class="best"' : ""}><th scope="row" data-card="${esc(c.card)}">${esc(cardTitle(c.card))}${spend}${best}</th>` +
        `<td>${coachPercent(c.win)}</td><td>${number(c.score)}</td></tr>`;
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
  return out;
}

// Every page reads what the coach has for it at the position now: at once after a change, then
// again while it thinks for this phone (or, in a teaching game, for everyone).
function poll(delay) {
  clearTimeout(timer);
  timer = setTimeout(async () => {
    timer = null;
    const s = page.state;
    if (!s || !s.coach || !s.coach.on || s.finished || forNow(s)) return;
    try {
      const data = await (await fetch("/api/coach", { credentials: "same-origin" })).json();
      const coach = data.coach || {};
      sawSeats(data);
      if (coach.status === "ready" || coach.status === "failed") answer = coach;
      renderCoach(page.state);
      if (coach.status === "thinking" || (s.coach.everyone && coach.status === "none")) poll(coach.status === "thinking" ? 1000 : 2000);
    } catch (e) { poll(3000); }
  }, delay);
}

// A phone takes its player's seat, or the host releases one (`path`); both answer the seats.
async function seatCall(path, player) {
  const data = await call(path, { player });
  if (data) sawSeats(data);
  else polledFor = null;  // refused (call() has said why): read the seats again
  renderCoach(page.state);
}

async function ask(player) {
  asking = true; moved = false;
  renderCoach(page.state);
  try {
    for (let tries = 0; tries < 8; tries++) {  // "thinking": the companion waited long enough, ask again
      const data = await call("/api/coach/ask", { player });
      const coach = data && data.coach;
      if (!coach) { polledFor = null; break; }  // refused: call() has said why; read the seats again
      sawSeats(data);
      if (coach.status === "ready" || coach.status === "failed") { answer = coach; break; }
      if (coach.status === "moved") { moved = true; break; }
    }
  } finally {
    asking = false;
    renderCoach(page.state);
  }
}

export function renderCoach(s) {
  const coach = s.coach || { on: false };
  const box = $("coach-switch");
  if (box && document.activeElement !== box) box.checked = !!coach.on;
  const everyone = $("coach-everyone");
  if (everyone) {
    if (document.activeElement !== everyone) everyone.checked = !!coach.everyone;
    everyone.disabled = !coach.on;
  }
  const section = $("coach");
  section.hidden = !coach.on || s.finished;
  if (section.hidden) {
    answer = null;
    if (s.finished) { seat = null; seats = []; }  // the game's end frees every seat
    return;
  }
  const body = $("coach-body");
  const mine = !coach.everyone;  // asked for: say who sees it
  if (forNow(s)) {
    body.innerHTML = adviceHtml(answer) + (mine ? `<p class="coach-note coach-private">${esc(t("coach_private"))}</p>` : "");
    return;
  }
  if (answer && answer.status === "failed") { body.innerHTML = `<p>${esc(t("coach_failed"))}</p>`; return; }
  const key = `${s.game}:${s.events}:${coach.everyone}:${!!page.csrf}`;
  if (key !== polledFor && !asking) { polledFor = key; poll(0); }
  const take = s.expect && s.expect.kind === "take";
  if (asking || (coach.everyone && take)) {
    body.innerHTML = `<p class="coach-wait">${esc(t("coach_thinking"))}</p>`;
    return;
  }
  let out = moved ? `<p class="coach-note">${esc(t("coach_moved"))}</p>` : "";
  if (!coach.everyone && !seat) {  // a phone that joins takes its player's seat first
    const free = (s.players || []).map((p) => p.name).filter((p) => !seats.includes(p));
    out += `<p>${esc(t("coach_pick_seat"))}</p><p class="coach-take">` + free.map((p) =>
      `<button type="button" data-seat="${esc(p)}">${dot(colourOf(p))}${esc(t("coach_take_seat", { p }))}</button>`).join(" ") + "</p>";
    if (take && seats.includes(s.expect.player)) out += `<p class="coach-seat">${esc(t("coach_seat_held", { p: s.expect.player }))}</p>`;
  } else if (take && !coach.everyone && seat === s.expect.player) {
    out += `<button type="button" id="coach-ask" data-player="${esc(seat)}">${dot(colourOf(seat))}${esc(t("coach_ask", { p: seat }))}</button>` +
      `<p class="coach-note coach-private">${esc(t("coach_private"))}</p>`;
  } else if (seat && !coach.everyone) {
    out += `<p class="coach-seat">${esc(t("coach_your_seat", { p: seat }))}</p>`;
  }
  if (page.csrf && seats.length && !coach.everyone) {  // the host frees the seat of a lost phone
    out += `<p class="coach-note">${esc(t("coach_seats"))}</p><p class="coach-release">` + seats.map((p) =>
      `<button type="button" data-release="${esc(p)}">${dot(colourOf(p))}${esc(t("coach_release", { p }))}</button>`).join(" ") + "</p>";
  }
  body.innerHTML = out;
  const button = $("coach-ask");
  if (button) button.onclick = () => ask(button.dataset.player);
  body.querySelectorAll("[data-release]").forEach((b) => { b.onclick = () => seatCall("/api/coach/release", b.dataset.release); });
  body.querySelectorAll("[data-seat]").forEach((b) => { b.onclick = () => seatCall("/api/coach/seat", b.dataset.seat); });
}

// The host's two switches: the coach, and the coach for everyone. Refused, a switch shows what
// the table does (call() redraws on success).
export function setupCoach() {
  const switches = { "coach-switch": (on) => ({ on }), "coach-everyone": (on) => ({ on: true, everyone: on }) };
  for (const [id, body] of Object.entries(switches)) {
    const box = $(id);
    if (box) box.onchange = async () => { const on = box.checked; if (!(await call("/api/coach", body(on)))) box.checked = !on; };
  }
}

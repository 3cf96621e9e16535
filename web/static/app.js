// The live tally: renders /api/state?page=1 snapshots pushed by Server-Sent Events.
"use strict";

const $ = (id) => document.getElementById(id);
const DAYS = ["I", "II", "III"];
const COLUMNS = ["person", "event", "innovation", "progress"];
// Plain-text marks that every phone's fonts have (emoji fonts are not a given offline).
const ICON = { person: "Pe", event: "Ev", innovation: "In", progress: "Pr", wild: "★", crystal: "◆" };
let lang = localStorage.getItem("lang") || ((navigator.language || "en").startsWith("fr") ? "fr" : "en");
let state = null;
let csrf = null;
let pollTimer = null;
let retryTimer = null;
// The newest table version this page has shown (a snapshot, or a control's answer, whose
// outcome is on screen): an undo names it, and the companion refuses an undo of a table
// that changed since, so a second phone's repeat cannot take back two takes.
let shown = { process: null, version: -1 };
function saw(s) {
  if (s && typeof s.version === "number" && (s.process !== shown.process || s.version > shown.version)) shown = { process: s.process, version: s.version };
}
function seen() { return shown.process === null ? {} : { ...shown }; }

function t(key, vars) {
  return i18nFill(lang, I18N[lang][key] ?? I18N.en[key] ?? key, vars);
}
function esc(s) {
  return String(s ?? "").replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c]));
}
function year(y) { return y < 0 ? `${-y} ${t("bce")}` : String(y); }
const LEGEND = { person: "l_person", event: "l_event", innovation: "l_innovation", progress: "l_progress", wild: "l_wild", crystal: "l_crystal" };
function gains(list) { return (list || []).map((g) => `<span class="tok" title="${esc(t(LEGEND[g] || g))}">${ICON[g] || esc(g)}</span>`).join(" "); }
function colourOf(name) {
  const p = state && state.players.find((q) => q.name === name);
  return p ? p.colour : "#888";
}
function dot(colour) { return `<span class="dot" style="background:${esc(colour)}" aria-hidden="true"></span>`; }
function cardTitle(id) {
  if (id === "ancestor") return t("ancestor");
  const pos = state && (state.row_cards || []).find((q) => q.card && q.card.id === id);
  return pos ? `${pos.card.title} (${year(pos.card.year)})` : id;
}

// An outcome of the table (code + params) in the page's language; the English
// `message` only for a code this page does not know.
function message(last) {
  if (!last) return "";
  const p = { ...(last.params || {}) };
  const words = I18N[lang].msg;
  if (p.card !== undefined) p.c = p.card === "ancestor" ? t("ancestor") : p.title ? `${p.title} (${year(p.year)})` : p.card;
  if (p.player === "") p.player = words.that_player;
  if (last.code === "enrolled" && p.itinerary) p.c = t("itinerary", { i: p.itinerary });
  const variant = p.why || p.kind || (p.more ? "more" : "");
  let text = (variant && words[last.code + "." + variant]) || words[last.code];
  if (text === undefined || (lang === "en" && !last.params && last.message)) return last.message || "";
  text = i18nFill(lang, text, p);
  if (last.code === "enrolled" && p.saved) text += " " + words["enrolled.saved"];
  if (last.code === "took") {
    if (p.crystals) text += " " + t("spent", { n: p.crystals }) + ".";
    if (p.punctual) text += " " + t("punctual");
    if (p.day_over) text += " " + t("day_over", { d: p.day_over, e: p.day });
    if (p.reveal) text += " " + t("reveal_prompt");
  }
  if (p.correction) text = t("correction_failed") + " " + text;
  return text;
}

function translatePage() {
  document.documentElement.lang = lang;
  document.querySelectorAll("[data-i18n]").forEach((el) => { el.textContent = t(el.dataset.i18n); });
  document.querySelectorAll("[data-i18n-placeholder]").forEach((el) => { el.placeholder = t(el.dataset.i18nPlaceholder); });
  document.querySelectorAll("[data-i18n-label]").forEach((el) => { el.setAttribute("aria-label", t(el.dataset.i18nLabel, { n: el.dataset.n })); });
  document.querySelectorAll("[data-i18n-title]").forEach((el) => { el.title = t(el.dataset.i18nTitle); });
  document.querySelectorAll("[data-i18n-alt]").forEach((el) => { el.alt = t(el.dataset.i18nAlt); });
  if ($("enrol-q").value.trim().length >= 2) $("enrol-q").oninput();
  $("lang").textContent = lang === "en" ? "FR" : "EN";
  $("lang").setAttribute("aria-label", `${t("language")}: ${$("lang").textContent}`);
  $("legend").innerHTML = Object.keys(LEGEND).map((k) => `<span><b class="tok">${ICON[k]}</b> ${esc(t(LEGEND[k]))}</span>`).join("");
  if ($("notice").dataset.key) setNotice($("notice").dataset.key);
  showHardware();
  if (state) render(state);
  else if (lastShown) renderLast(lastShown);
}

// --- rendering ------------------------------------------------------------------------------

function render(s) {
  // Snapshots arrive by two roads (the live stream, and a fetch after each control): a slow
  // fetch that lands after a newer snapshot must not put the page back in time, since the
  // stream sends nothing more until the next change.
  if (state && s !== state && s.process === state.process && s.version < state.version) return;
  state = s;
  saw(s);
  $("day").textContent = `${t("day")} ${DAYS[s.day - 1]}`;
  renderBanner(s);
  renderLast(s.last);
  renderClock(s);
  renderPlayers(s);
  renderRow(s);
  renderLog(s);
  renderEnd(s);
  renderHost(s);
  showBusy();
  if (window.renderCoach) window.renderCoach(s);  // coach.js
}

function renderBanner(s) {
  const e = s.expect;
  let text;
  if (s.finished) {
    text = t("game_over_banner");
  } else if (!e) {
    text = "";
  } else if (e.kind === "reveal") {
    text = t("waiting_reveal");
  } else if (e.kind === "itinerary") {
    text = t("waiting_itinerary", { p: e.player });
  } else if (e.kind === "confirm" && s.pending) {
    const p = s.pending;
    text = t(p.crystals < p.max_crystals ? "confirm_take" : "confirm_take_max", { p: p.player, c: cardTitle(p.card), h: p.landing });
  } else {
    text = t("turn", { p: s.turn });
    if (s.armed) text += " · " + t("armed", { p: s.turn, n: s.armed });
    else if (s.order && s.order.length > 1) text += " · " + t("next", { p: s.order[1] });
  }
  if (!s.finished && e && e.kind === "itinerary" && s.armed) text += " · " + t("armed", { p: s.turn, n: s.armed });
  // Tell a new family the quick turn: the mover holds a crystal and has chosen none yet.
  const moverNow = s.players.find((q) => q.name === s.turn) || {};
  const hint = !s.finished && s.turn_style === "quick" && e && e.kind === "take" && !s.pending && !s.armed && moverNow.crystals > 0;
  $("hint").hidden = !hint;
  $("hint").textContent = hint ? t("quick_hint") : "";
  const banner = $("banner");
  banner.textContent = text;
  banner.className = "banner" + (e && e.kind === "reveal" ? " reveal" : "");
  banner.style.borderLeftColor = colourOf(e && e.player ? e.player : s.turn);
  const mine = !!(csrf && s.mock && !s.finished);
  $("now-buttons").hidden = !mine;
  if (mine) {
    const mover = s.players.find((q) => q.name === s.turn) || {};
    const canCrystal = s.pending ? s.pending.crystals < s.pending.max_crystals
      : s.turn_style === "quick" ? !!(mover.itinerary && mover.crystals > s.armed) : false;
    $("now-crystal").dataset.off = canCrystal ? "" : "1";  // `showBusy` adds the busy state to it
    $("now-confirm").hidden = !s.pending;
  }
}

let lastShown = null;
function renderLast(last) {
  lastShown = last;
  const el = $("last");
  const text = message(last);
  if (!text) { el.textContent = ""; el.className = "last"; return; }
  el.textContent = (last.accepted ? "" : "✗ ") + text;
  el.className = "last " + (last.accepted ? "ok" : "bad");
  if (last.code === "unknown_tag" && last.params && last.params.why === "unknown" && csrf) {
    // the way to fix it, one tap away: the enrol form with the tag filled in
    const button = document.createElement("button");
    button.type = "button"; button.id = "enrol-this"; button.textContent = t("enrol_this");
    button.onclick = () => {
      $("host").hidden = false;
      const details = $("enrol").closest("details");
      details.open = true;
      $("enrol-tag").value = last.params.tag;
      details.scrollIntoView({ block: "start" });
      $("enrol-q").focus();
    };
    el.append(" ", button);
  }
}

// The Clock drawn from the game (not the LEDs): the twelve hours, every watch as a token
// in its player's colour on the rim (stacked watches side by side, the top one outermost),
// the player to move ringed, and the landing preview as a dashed ring with the path to it.
function renderClock(s) {
  const svg = $("clock");
  const pt = (hour, r) => { const a = ((hour % 12) / 12) * 2 * Math.PI - Math.PI / 2; return [(r * Math.cos(a)).toFixed(1), (r * Math.sin(a)).toFixed(1)]; };
  let out = `<circle r="104" fill="none" stroke="currentColor" stroke-opacity=".35" stroke-width="2"/>`;
  for (let h = 0; h < 12; h++) {
    const [x1, y1] = pt(h, 96), [x2, y2] = pt(h, 104), [tx, ty] = pt(h, 60);
    out += `<line x1="${x1}" y1="${y1}" x2="${x2}" y2="${y2}" stroke="currentColor" stroke-width="2" stroke-opacity=".6"/>`;
    out += `<text x="${tx}" y="${(+ty + 5).toFixed(1)}" font-size="14" text-anchor="middle" fill="currentColor">${h === 0 ? 12 : h}</text>`;
  }
  const mover = s.finished ? null : (s.pending ? s.pending.player : s.turn);
  const p = s.pending;
  if (p) {
    const me = s.players.find((q) => q.name === p.player);
    const from = me ? me.hour : 0;
    const colour = colourOf(p.player);
    for (let h = from + 1; h < p.landing; h++) { const [x, y] = pt(h, 84); out += `<circle cx="${x}" cy="${y}" r="3" fill="${esc(colour)}"/>`; }
    const [x, y] = pt(p.landing, 84);
    out += `<circle class="preview" cx="${x}" cy="${y}" r="11" fill="none" stroke="${esc(colour)}" stroke-width="3" stroke-dasharray="4 3"><title>${esc(p.player)}: ${p.landing}</title></circle>`;
  }
  const byHour = {};
  s.players.forEach((q) => { (byHour[q.hour % 12] = byHour[q.hour % 12] || []).push(q); });
  const stack = s.stack || s.order || [];
  const rank = (q) => { const k = stack.indexOf(q.name); return k < 0 ? stack.length : k; };
  for (const watches of Object.values(byHour)) watches.sort((a, b) => rank(a) - rank(b));  // the top one first, outermost
  for (const [hour, stack] of Object.entries(byHour)) {
    stack.forEach((q, k) => {
      const [x, y] = pt(+hour, 84 - k * 19);
      const turn = q.name === mover;
      out += `<g class="watch"><circle cx="${x}" cy="${y}" r="${turn ? 10 : 8}" fill="${esc(q.colour)}" stroke="currentColor" stroke-width="${turn ? 3 : 1}"><title>${esc(q.name)}: ${q.hour}</title></circle>` +
        `<text x="${x}" y="${(+y + 4).toFixed(1)}" font-size="10" font-weight="700" text-anchor="middle" fill="#000" aria-hidden="true">${esc(q.name.slice(0, 1))}</text></g>`;
    });
  }
  svg.innerHTML = out;
  svg.setAttribute("aria-label", s.players.map((q) => `${q.name} ${q.hour}`).join(", "));
  $("order").innerHTML = "<ol>" + (s.order || []).map((name) => `<li>${dot(colourOf(name))}${esc(name)}</li>`).join("") + "</ol>";
}

function trekChip(trek) {
  const first = year(trek[0].year), last = year(trek[trek.length - 1].year);
  const span = trek.length > 1 ? `${first}–${last}` : first;
  const n = t("trek_cards", { n: trek.length });
  return `<span class="chip done" title="${trek.map((c) => esc(c.title)).join(", ")}">${esc(n)}: ${esc(span)}</span>`;
}

function renderPlayers(s) {
  const acting = s.finished ? null : (s.expect && s.expect.player) || s.turn;
  $("players").innerHTML = s.players.map((p) => {
    const current = (p.current_trek || []).map((c) => `<span class="chip${c.ancestor ? " anc" : ""}" title="${esc(c.ancestor ? t("ancestor") : c.title)}">${esc(year(c.year))}</span>`).join("");
    const done = (p.completed_treks || []).map(trekChip).join("");
    const acts = p.name === acting;
    return `<article class="player${acts ? " turn" : ""}" style="border-left-color:${esc(p.colour)};${acts ? `box-shadow:0 0 0 3px ${esc(p.colour)}` : ""}">
      <div class="top"><span class="name">${dot(p.colour)}${esc(p.name)}</span><span class="total" title="${t("total")}">${p.total}</span></div>
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
  const rows = it.rows.map((r, i) => `${t("row_n", { n: i + 1 })}: ${r.reward === null ? "–" : r.reward === "crystal" ? ICON.crystal : t("points", { n: r.reward })}${r.complete ? " ✓" : ""}`).join(" · ");
  return `<div class="rows"><b>${esc(t("itinerary", { i: it.id }))}</b></div><div class="itin">${cols}</div><div class="rows">${t("row_reward")}: ${rows}</div>`;
}

function renderRow(s) {
  const cells = (s.row_cards || []).map((pos) => {
    const c = pos.card;
    const body = c
      ? `<span class="year">${esc(year(c.year))}</span><span class="title">${esc(c.title)}</span><span><span class="hours">${c.hours} h</span> ${gains(c.gains)}</span>`
      : `<span>${pos.hidden ? t("hidden") : t("empty")}</span>`;
    const pick = c && state.mock && csrf && s.expect && s.expect.kind === "take" && s.expect.choices.includes(c.id);
    const tag = pick ? "button" : "div";
    return `<li class="${pos.position === 0 ? "deck" : ""}${pick ? " pick" : ""}${pos.hidden && !s.finished ? " waiting" : ""}"><${tag} ${pick ? `type="button" data-call="/api/reader/tap" ` : ""}class="cell" data-card="${c ? esc(c.id) : ""}" title="${c ? esc(c.note) : ""}">
      <small>${pos.position === 0 ? t("deck_top") : t("position", { n: pos.position })}</small>${body}
      <span class="bonus">${t("bonus")}: ${gains(pos.bonus) || "—"}</span>${pick ? `<span class="tap-hint">${t("tap_to_take")}</span>` : ""}</${tag}></li>`;
  });
  $("row").innerHTML = cells.join("");
  $("ancestors").textContent = "· " + t("ancestors_left", { n: s.ancestors_left });
}

function logText(e) {
  if (e.kind === "take") {
    let text = t("log_take", { p: e.player, c: e.card === "ancestor" ? t("ancestor") : e.title, y: year(e.year) });
    if (e.crystals) text += ", " + t("spent", { n: e.crystals });
    return dot(colourOf(e.player)) + esc(text);
  }
  if (e.kind === "itinerary") return dot(colourOf(e.player)) + esc(t("log_itin", { p: e.player, i: e.itinerary }));
  if (e.kind === "reveal") return esc(t("log_reveal", { c: e.title, y: year(e.year) }));
  if (e.kind === "undo") {
    // What the undo took back, so a tap on Undo never makes a take vanish without a word.
    const u = e.event || {};
    const c = u.card === "ancestor" ? t("ancestor") : u.title;
    if (u.kind === "take") return dot(colourOf(u.player)) + esc(t("log_undo_take", { p: u.player, c, y: year(u.year) }));
    if (u.kind === "itinerary") return dot(colourOf(u.player)) + esc(t("log_undo_itin", { p: u.player, i: u.itinerary }));
    if (u.kind === "reveal") return esc(t("log_undo_reveal", { c, y: year(u.year) }));
  }
  return "";
}

function renderLog(s) {
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

function renderEnd(s) {
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
    rows.map((p) => `<tr><td>${dot(p.colour)}${esc(p.name)}</td><td>${p.track}</td><td>${p.crystals}</td><td>${p.trek_points} <small>(${esc(t("treks_of"))}: ${p.treks.join(", ")})</small></td><td><b>${p.total}</b></td></tr>`).join("");
  renderChart(s);
  renderBgStats(s);
}

// The finished game as a BG Stats play (/api/bgstats): its link, and a QR code of it for the
// phone that has BG Stats. Asked once per game and event count (an undo changes the play).
let bgstatsShown = "";
async function renderBgStats(s) {
  const key = `${s.game}/${s.events}`;
  if (bgstatsShown === key) return;
  bgstatsShown = key;
  $("bgstats").hidden = true;
  try {
    const response = await fetch(`/api/bgstats/${encodeURIComponent(s.game)}`);
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
  out += `<text x="175" y="156" font-size="10" text-anchor="middle" fill="currentColor">${esc(t("chart_x"))} (${series.length - 1})</text>`;
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

// --- host controls ----------------------------------------------------------------------------

function renderHost(s) {
  showHardware();  // a host may acknowledge the store's damage: the button follows the login
  $("controls").hidden = !csrf;
  $("login").hidden = !!csrf;
  if (!csrf) return;
  $("mock").hidden = !s.mock;
  const choices = s.expect ? s.expect.choices : [];
  $("choices").innerHTML = choices.map((c) => `<option value="${esc(c)}">`).join("");
  $("quick").innerHTML = (s.expect && s.expect.kind !== "reveal" ? choices.slice(0, 30) : [])
    .map((c) => `<button type="button" data-tap="${esc(c)}" data-call="/api/reader/tap">${esc(s.expect.kind === "itinerary" ? itineraryLabel(c) : cardTitle(c))}</button>`).join("");
  fillSelect($("wild1"), COLUMNS.map((c) => [c, t(LEGEND[c])]));
  fillSelect($("wild2"), [["", t("none")], ...COLUMNS.map((c) => [c, t(LEGEND[c])])]);
  fillSelect($("itin-player"), s.players.map((p) => [p.name, p.name]));
  fillSelect($("itin-id"), ((s.edition && s.edition.itineraries) || []).map((i) => [i, itineraryLabel(i)]));
}

// An Itinerary card by its id and its layout (the cards have no titles): "Itinerary T05 (Pe 2 · Ev 3 · In 2)".
function itineraryLabel(id) {
  const spaces = state && state.edition && state.edition.itinerary_spaces && state.edition.itinerary_spaces[id];
  const layout = spaces ? " (" + COLUMNS.map((c, k) => spaces[k] ? `${ICON[c]} ${spaces[k]}` : "").filter(Boolean).join(" · ") + ")" : "";
  return t("itinerary", { i: id }) + layout;
}

// Options as [value, label]; the choice made is kept, and a select is never left blank.
function fillSelect(select, values) {
  const current = select.value;
  const html = values.map(([v, label]) => `<option value="${esc(v)}">${esc(label)}</option>`).join("");
  if (select.dataset.html !== html) {
    select.innerHTML = html; select.dataset.html = html;
    const keep = values.some(([v]) => v === current) ? current : (values[0] || [""])[0];
    select.value = keep;
  }
}

// Controls waiting for the companion's answer, by what they do: a second tap on Undo while
// the first is on its way would take back the take before it too (and a second Confirm,
// Crystal or new game would do twice what was meant). Every control doing the same thing
// (both Undo buttons, the reader's form, quick taps and row cells) is disabled and
// aria-busy until the answer comes, and `call` ignores it meanwhile.
const busy = new Set();
function busyGroup(path) { return path === "/api/undo" || path === "/api/buttons/undo" ? "undo" : path; }
function showBusy() {
  document.querySelectorAll("[data-call]").forEach((el) => {
    const waiting = busy.has(busyGroup(el.dataset.call));
    el.disabled = waiting || el.dataset.off === "1";
    if (waiting) el.setAttribute("aria-busy", "true");
    else el.removeAttribute("aria-busy");
  });
}

async function call(path, body) {
  const group = busyGroup(path);
  if (busy.has(group)) return null;  // a repeat while the first is on its way: ignored
  busy.add(group);
  showBusy();
  try {
    return await send(path, body);
  } finally {
    busy.delete(group);
    showBusy();
  }
}

async function send(path, body) {
  let response;
  try {
    response = await fetch(path, {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf || "" },
      body: JSON.stringify(body || {}),
      credentials: "same-origin",
    });
  } catch (e) {  // the companion is down: say so, never lose the tap silently
    renderLast({ accepted: false, message: t("unreachable") });
    return null;
  }
  const data = await response.json().catch(() => ({ error: response.statusText }));
  if (!response.ok) {
    const refusal = refused(data, response);
    renderLast(refusal);
    if (response.status === 401) loggedOut(t("session_ended"));
    else if (data.code === "csrf_stale") loggedOut(message(refusal));
    return null;
  }
  if (data.state) { saw(data.state); fetchState(); }
  if (data.outcome) renderLast(data.outcome);
  else if (data.message) renderLast({ accepted: true, code: data.code, params: data.params, message: data.message });
  return data;
}

// A refusal of the server as an outcome the page words in its language: the error's
// `code` and `params`, its English `error` only for a code this page does not know.
function refused(data, response) {
  return { accepted: false, code: data.code, params: data.params || {}, message: data.error || response.statusText };
}

// The host's login ended (logout elsewhere, expiry, a new PIN, a damaged sessions file): back to the login
// form, with the reason kept beside it until the next login (not a message that flashes by).
function loggedOut(why) {
  csrf = null;
  $("host").hidden = false;
  render(state);
  loginWhy(why);
}

function loginWhy(why) {
  let note = $("login-why");
  if (!note) {
    note = document.createElement("p");
    note.id = "login-why";
    note.setAttribute("role", "alert");
    $("login").insertAdjacentElement("afterend", note);
  }
  note.textContent = why || "";
  note.hidden = !why;
}

function setupHost() {
  $("host-toggle").onclick = () => { $("host").hidden = !$("host").hidden; if (!$("host").hidden) $("pin").focus(); };
  $("login").onsubmit = async (ev) => {
    ev.preventDefault();
    let response;
    try {
      response = await fetch("/api/login", { method: "POST", headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ pin: $("pin").value }), credentials: "same-origin" });
    } catch (e) {  // the companion is down: say so beside the form and in the live panel
      loginWhy(t("unreachable")); renderLast({ accepted: false, message: t("unreachable") });
      return;
    }
    const data = await response.json().catch(() => ({ error: response.statusText }));
    if (response.ok) { csrf = data.csrf; $("pin").value = ""; loginWhy(""); renderLast({ accepted: true, message: t("logged_in") }); render(state); }
    else {
      const refusal = refused(data, response);
      loginWhy(message(refusal)); renderLast(refusal);
    }
  };
  $("logout").onclick = async () => { await call("/api/logout"); csrf = null; render(state); };
  $("tap").onsubmit = async (ev) => { ev.preventDefault(); const tag = $("tag").value.trim(); if (tag) { await call("/api/reader/tap", { tag }); $("tag").value = ""; } };
  document.querySelectorAll("[data-button]").forEach((b) => { b.onclick = () => call("/api/buttons/" + b.dataset.button); });
  $("quick").onclick = (ev) => { const b = ev.target.closest("[data-tap]"); if (b) call("/api/reader/tap", { tag: b.dataset.tap }); };
  $("row").onclick = (ev) => { const cell = ev.target.closest("li.pick .cell"); if (cell && csrf) call("/api/reader/tap", { tag: cell.dataset.card }); };
  $("undo").onclick = () => call("/api/undo", seen());
  $("wild").onsubmit = (ev) => { ev.preventDefault(); call("/api/correct/wild", { wild: [$("wild1").value, $("wild2").value].filter(Boolean) }); };
  $("itin").onsubmit = (ev) => { ev.preventDefault(); call("/api/correct/itinerary", { player: $("itin-player").value, itinerary: $("itin-id").value }); };
  $("newgame").onsubmit = async (ev) => {
    ev.preventDefault();
    if (busy.has("/api/game/new")) return;  // a double click starts one game
    const players = [], colours = [];
    const seats = [];
    document.querySelectorAll("#seats .seat").forEach((l) => {
      const name = l.querySelector("input[type=text]").value.trim();
      const colour = l.querySelector("input[type=color]").value;
      seats.push([name, colour]);
      if (name) { players.push(name); colours.push(colour.toUpperCase()); }
    });
    localStorage.setItem("seats", JSON.stringify(seats));
    // what the companion would refuse, said at once in the page's language
    if (players.length < 1 || players.length > 4) { renderLast({ accepted: false, message: t("seats_count") }); return; }
    if (new Set(players).size !== players.length) { renderLast({ accepted: false, message: t("seats_unique") }); return; }
    if (state && !state.finished && state.events > 0 && !window.confirm(t("replace_game"))) return;
    await call("/api/game/new", { players, colours, edition: $("edition").value });
  };
  const palette = ["#0072B2", "#E69F00", "#009E73", "#CC79A7"];
  let saved = [];
  try { saved = JSON.parse(localStorage.getItem("seats") || "[]"); } catch (e) { saved = []; }
  $("seats").innerHTML = palette.map((c, i) => {
    const [name, colour] = saved[i] || [i < 2 ? ["Ann", "Ben"][i] : "", c.toLowerCase()];
    return `<div class="seat"><span>${i + 1}.</span> <input type="text" size="12" value="${esc(name)}" data-i18n-label="seat_player" data-n="${i + 1}" aria-label="${esc(t("seat_player", { n: i + 1 }))}"> <input type="color" value="${esc(colour)}" data-i18n-label="seat_colour" data-n="${i + 1}" aria-label="${esc(t("seat_colour", { n: i + 1 }))}"></div>`;
  }).join("");
  fetch("/api/editions").then((r) => r.json()).then((d) => {
    const names = d.editions.includes("reference") ? ["reference", ...d.editions.filter((n) => n !== "reference")] : d.editions;
    fillSelect($("edition"), names.map((n) => [n, n]));
    if (d.default) $("edition").value = d.default; // the table's default edition (a setting)
  });
  document.querySelectorAll("[data-now]").forEach((b) => { b.onclick = () => call("/api/buttons/" + b.dataset.now); });
  $("enrol").closest("details").addEventListener("toggle", async (ev) => {
    if (!ev.target.open) return;
    const who = await (await fetch("/api/session", { credentials: "same-origin" })).json();
    if (who.unknown_tag && !$("enrol-tag").value) $("enrol-tag").value = who.unknown_tag;
  });
  $("enrol-q").oninput = async () => {
    const q = $("enrol-q").value.trim();
    if (q.length < 2) return;
    const d = await (await fetch("/api/cards?q=" + encodeURIComponent(q))).json();
    $("enrol-card").innerHTML = d.cards.slice(0, 20).map((c) => `<option value="${esc(c.id)}">${esc(enrolLabel(c))}</option>`).join("");
  };
  $("enrol").onsubmit = (ev) => {
    ev.preventDefault();
    const body = { tag: $("enrol-tag").value.trim(), card: $("enrol-card").value };
    if ($("enrol-hours").value) {
      body.hours = parseInt($("enrol-hours").value, 10);
      body.gains = $("enrol-gains").value.split(/[\s,]+/).filter(Boolean).map(benefitKey);
    }
    call("/api/enroll", body);
  };
}

// A match of the enrol search in the page's language: "I12 · 490 BCE · Marathon (2 h: Pe ◆)".
function enrolLabel(c) {
  if (c.kind === "card") return `${c.id} · ${year(c.year)} · ${c.title} (${c.hours} h${c.gains.length ? ": " + c.gains.map((g) => t(LEGEND[g] || g).split(" (")[0]).join(", ") : ""})`;
  if (c.kind === "itinerary") return itineraryLabel(c.id);
  if (c.kind === "ancestor") return `${t("ancestor")}: ${t("enrol_ancestor")}`;
  return c.label;
}

// A benefit typed in the enrol form, in either language ("cristal", "Personnage", "crystal"): its key.
function benefitKey(word) {
  const plain = (w) => w.normalize("NFD").replace(/[\u0300-\u036f]/g, "").toLowerCase();
  const typed = plain(word);
  for (const key of Object.keys(LEGEND)) {
    if (typed === key) return key;
    for (const l of ["en", "fr"]) if (plain(I18N[l][LEGEND[key]].split(" ")[0]) === typed) return key;
  }
  return word;
}

// --- live updates -------------------------------------------------------------------------

async function fetchState() {
  try {
    // the Clock is drawn from the game, so the LEDs (/api/ring) are not fetched
    const s = await (await fetch("/api/state?page=1")).json();
    render(s);
    $("live").className = "live on";
  } catch (e) {
    $("live").className = "live";
  }
}

// After an outage the page polls every 2 s and tries the live stream again every 20 s;
// the first snapshot the stream brings stops the polling.
function startPolling() {
  setNotice("polling");
  if (!pollTimer) { pollTimer = setInterval(fetchState, 2000); fetchState(); }
  if (window.EventSource && !retryTimer) retryTimer = setTimeout(() => { retryTimer = null; connect(); }, window.TREK_STREAM_RETRY_MS || 20000);
}

function setNotice(key) {
  $("notice").dataset.key = key || "";
  $("notice").textContent = key ? t(key) : "";
  $("notice").hidden = !key;
}

function stopPolling() {
  setNotice("");
  if (pollTimer) { clearInterval(pollTimer); pollTimer = null; }
  if (retryTimer) { clearTimeout(retryTimer); retryTimer = null; }
}

function connect() {
  if (!window.EventSource) { startPolling(); return; }
  let failures = 0;
  const source = new EventSource("/api/events");
  source.addEventListener("state", async (ev) => {
    failures = 0;
    if (pollTimer) stopPolling();
    render(JSON.parse(ev.data));
    $("live").className = "live on";
  });
  source.onerror = () => {
    $("live").className = "live";
    failures += 1;
    // CLOSED: the server refused the stream (too many live pages open): poll instead
    if (failures >= (window.TREK_STREAM_FAILURES || 5) || source.readyState === EventSource.CLOSED) { source.close(); startPolling(); }
  };
}

// --- hardware status: a part that is down, its likely cause and the fix (from /api/state) -------
// The store's damage notices (checksums that failed at start) share the line, until a host
// acknowledges them.

async function renderHardware() {
  try {
    const state = await (await fetch("/api/state")).json();
    const down = (state.hardware || []).filter((p) => !p.ok).concat(state.store || []);
    $("hardware").hidden = down.length === 0;
    hardwareDown = down;
    showHardware();
  } catch (e) { /* the next round retries */ }
}

// Each part that is down in the page's language: its cause and fix from the fault's code and
// params (device, pin, the driver's own words); the English message and fix for an unknown code.
let hardwareDown = [];
let hardwareShown = "";
function showHardware() {
  const words = I18N[lang].hw;
  let html = hardwareDown.map((p) => {
    const params = { ...(p.params || {}) };
    params.part = words["part." + p.part] || p.part;
    const fill = (text) => i18nFill(lang, text, params);
    const known = p.code && words[p.code] !== undefined && words[p.code + ".fix"] !== undefined;
    const cause = known ? fill(words[p.code]) : p.message;
    const fix = known ? fill(words[p.code + ".fix"]) : p.fix;
    return esc(words.line.replace("{part}", () => params.part).replace("{message}", () => cause).replace("{fix}", () => fix));
  }).join("<br>");
  const damage = hardwareDown.some((p) => p.part === "store");
  if (damage && csrf) html += ` <button type="button" id="store-ack">${esc(words.store_ack)}</button>`;
  if (html === hardwareShown) return;  // a status line re-written unchanged would be announced again
  hardwareShown = html;
  $("hardware").innerHTML = html;
  if ($("store-ack")) $("store-ack").onclick = async () => { if (await call("/api/store/acknowledge")) renderHardware(); };
}

async function start() {
  $("lang").onclick = () => { lang = lang === "en" ? "fr" : "en"; localStorage.setItem("lang", lang); translatePage(); };
  setupHost();
  try {
    const who = await (await fetch("/api/session", { credentials: "same-origin" })).json();
    if (who.host) csrf = who.csrf;
    const join = await (await fetch("/api/join")).json();
    $("url").textContent = join.url; $("url").href = join.url;
  } catch (e) { /* the stream will retry */ }
  translatePage();
  await fetchState();
  connect();
  renderHardware();
  setInterval(renderHardware, 10000);
}

start();

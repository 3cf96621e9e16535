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

function t(key, vars) {
  let s = (I18N[lang][key] ?? I18N.en[key] ?? key);
  for (const [k, v] of Object.entries(vars || {})) s = s.replaceAll("{" + k + "}", v);
  return s;
}
function esc(s) {
  return String(s ?? "").replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c]));
}
function year(y) { return y < 0 ? `${-y} ${t("bce")}` : String(y); }
function gains(list) { return (list || []).map((g) => `<span title="${g}">${ICON[g] || g}</span>`).join(" "); }
function colourOf(name) {
  const p = state && state.players.find((q) => q.name === name);
  return p ? p.colour : "#888";
}
function dot(colour) { return `<span class="dot" style="background:${esc(colour)}"></span>`; }

function translatePage() {
  document.documentElement.lang = lang;
  document.querySelectorAll("[data-i18n]").forEach((el) => { el.textContent = t(el.dataset.i18n); });
  document.querySelectorAll("[data-i18n-placeholder]").forEach((el) => { el.placeholder = t(el.dataset.i18nPlaceholder); });
  $("lang").textContent = lang === "en" ? "FR" : "EN";
  if (state) render(state);
}

// --- rendering ------------------------------------------------------------------------------

function render(s) {
  state = s;
  $("day").textContent = `${t("day")} ${DAYS[s.day - 1]}`;
  renderBanner(s);
  renderLast(s.last);
  renderClock(s);
  renderPlayers(s);
  renderRow(s);
  renderLog(s);
  renderEnd(s);
  renderHost(s);
}

function renderBanner(s) {
  const e = s.expect;
  let text;
  if (s.finished) {
    text = s.winners.length > 1 ? t("won_shared", { w: s.winners.join(" & ") }) : t("won", { w: s.winners[0] });
  } else if (!e) {
    text = "";
  } else if (e.kind === "reveal") {
    text = t("waiting_reveal");
  } else if (e.kind === "itinerary") {
    text = t("waiting_itinerary", { p: e.player });
  } else if (e.kind === "confirm" && s.pending) {
    const card = s.pending.card === "ancestor" ? "Ancestor" : s.pending.card;
    text = t("confirm_take", { p: s.pending.player, c: card, h: s.pending.landing });
  } else {
    text = t("turn", { p: s.turn });
    if (s.order && s.order.length > 1) text += " · " + t("next", { p: s.order[1] });
  }
  const banner = $("banner");
  banner.textContent = text;
  banner.style.borderLeftColor = colourOf(e && e.player ? e.player : s.turn);
}

function renderLast(last) {
  const el = $("last");
  if (!last || !last.message) { el.textContent = ""; el.className = "last"; return; }
  const plain = last.code && I18N[lang].codes[last.code] && lang !== "en" ? I18N[lang].codes[last.code] + " " : "";
  el.textContent = (last.accepted ? "" : "✗ ") + plain + last.message;
  el.className = "last " + (last.accepted ? "ok" : "bad");
}

function renderClock(s) {
  const svg = $("clock");
  let out = `<circle r="100" fill="none" stroke="currentColor" stroke-opacity=".15" stroke-width="2"/>`;
  const leds = s.ring || [];
  const n = leds.length || 12;
  for (let i = 0; i < n; i++) {
    const a = (i / n) * 2 * Math.PI - Math.PI / 2;
    const colour = leds[i] && leds[i] !== "#000000" ? leds[i] : "transparent";
    out += `<circle cx="${(92 * Math.cos(a)).toFixed(1)}" cy="${(92 * Math.sin(a)).toFixed(1)}" r="6" fill="${colour}" stroke="currentColor" stroke-opacity=".2"/>`;
  }
  for (let h = 0; h < 12; h++) {
    const a = (h / 12) * 2 * Math.PI - Math.PI / 2;
    out += `<text x="${(72 * Math.cos(a)).toFixed(1)}" y="${(72 * Math.sin(a) + 4).toFixed(1)}" font-size="11" text-anchor="middle" fill="currentColor" opacity=".6">${h === 0 ? 12 : h}</text>`;
  }
  // watches: stacked ones spread inwards, the top one outermost
  const byHour = {};
  s.players.forEach((p) => { (byHour[p.hour % 12] = byHour[p.hour % 12] || []).push(p); });
  for (const [hour, stack] of Object.entries(byHour)) {
    stack.forEach((p, k) => {
      const a = (hour / 12) * 2 * Math.PI - Math.PI / 2;
      const r = 50 - k * 13;
      const turn = p.name === s.turn && !s.finished;
      out += `<circle cx="${(r * Math.cos(a)).toFixed(1)}" cy="${(r * Math.sin(a)).toFixed(1)}" r="${turn ? 9 : 7}" fill="${esc(p.colour)}" stroke="${turn ? "currentColor" : "none"}" stroke-width="2"><title>${esc(p.name)}: ${p.hour}</title></circle>`;
    });
  }
  svg.innerHTML = out;
  $("order").innerHTML = "<ol>" + (s.order || []).map((name) => `<li>${dot(colourOf(name))}${esc(name)}</li>`).join("") + "</ol>";
}

function renderPlayers(s) {
  $("players").innerHTML = s.players.map((p) => {
    const current = (p.current_trek || []).map((c) => `<span class="chip${c.ancestor ? " anc" : ""}">${esc(year(c.year))}</span>`).join("");
    const done = (p.completed_treks || []).map((trek) => `<span class="chip done" title="${trek.map((c) => esc(c.title)).join(", ")}">${trek.length}: ${esc(year(trek[0].year))}–${esc(year(trek[trek.length - 1].year))}</span>`).join("");
    return `<article class="player${p.name === s.turn && !s.finished ? " turn" : ""}" style="border-left-color:${esc(p.colour)}">
      <div class="top"><span class="name">${dot(p.colour)}${esc(p.name)}</span><span class="total" title="${t("total")}">${p.total}</span></div>
      <div class="parts">${p.track} ${t("track")} · ${p.crystals} ${t("crystals")} · ${p.trek_points} ${t("trek_points")} · ${t("hour")} ${p.hour}</div>
      <div class="treks"><b>${t("current_trek")}</b> ${current || "—"}</div>
      ${done ? `<div class="treks"><b>${t("done_treks")}</b> ${done}</div>` : ""}
      ${renderItinerary(p.itinerary)}
    </article>`;
  }).join("");
}

function renderItinerary(it) {
  if (!it) return `<div class="parts">${t("itinerary_none")}</div>`;
  const cols = it.columns.map((c) => `<div class="col"><b title="${c.kind}">${ICON[c.kind]} ${c.covered}/${c.spaces.length}</b>` +
    c.spaces.map((sp, i) => `<span class="space${i < c.covered ? " covered" : ""}${i === c.covered ? " next" : ""}">${sp === null ? "" : sp === "crystal" ? ICON.crystal : sp}</span>`).join("") + "</div>").join("");
  return `<div class="itin" title="${esc(it.id)}">${cols}</div><div class="rows">${esc(it.id)} · ${t("row_reward")}: ${it.rows.map((r, i) => `${i + 1}=${r.reward === null ? "–" : r.reward === "crystal" ? ICON.crystal : r.reward}${r.complete ? "✓" : ""}`).join(" ")}</div>`;
}

function renderRow(s) {
  const cells = (s.row_cards || []).map((pos) => {
    const c = pos.card;
    const body = c
      ? `<span class="year">${esc(year(c.year))}</span><span>${esc(c.title)}</span><span><span class="hours">${c.hours} h</span> ${gains(c.gains)}</span>`
      : `<span>${pos.hidden ? t("hidden") : t("empty")}</span>`;
    const pick = c && state.mock && csrf && s.expect && s.expect.choices.includes(c.id) ? " pick" : "";
    return `<li class="${pos.position === 0 ? "deck" : ""}${pick}" data-card="${c ? esc(c.id) : ""}" title="${c ? esc(c.note) : ""}">
      <small>${pos.position === 0 ? t("deck_top") : t("position") + " " + pos.position}</small>${body}
      <span class="bonus">${t("bonus")}: ${gains(pos.bonus) || "—"}</span></li>`;
  });
  $("row").innerHTML = cells.join("");
  $("ancestors").textContent = "· " + t("ancestors_left", { n: s.ancestors_left });
}

function logText(e) {
  if (e.kind === "take") {
    let text = t("log_take", { p: e.player, c: e.card === "ancestor" ? "Ancestor" : e.title, y: year(e.year) });
    if (e.crystals) text += ", " + t("spent", { n: e.crystals });
    return dot(colourOf(e.player)) + esc(text);
  }
  if (e.kind === "itinerary") return dot(colourOf(e.player)) + esc(t("log_itin", { p: e.player, i: e.itinerary }));
  if (e.kind === "reveal") return esc(t("log_reveal", { c: e.title, y: year(e.year) }));
  return "";
}

function renderLog(s) {
  const items = [];
  const log = s.log || [];
  for (let i = log.length - 1; i >= 0; i--) {
    const e = log[i];
    if (e.day_end) items.push(`<li class="dayend">${esc(t("log_dayend", { d: e.day_end }))}</li>`);
    items.push(`<li class="${i === log.length - 1 ? "latest" : ""}">${logText(e)}</li>`);
  }
  $("log").innerHTML = items.join("");
}

function renderEnd(s) {
  $("end").hidden = !s.finished;
  if (!s.finished) return;
  $("winners").textContent = s.winners.length > 1 ? t("won_shared", { w: s.winners.join(" & ") }) : t("won", { w: s.winners[0] });
  $("tiebreak").textContent = s.tie_break || "";
  const rows = [...s.players].sort((a, b) => b.total - a.total);
  $("breakdown").innerHTML = `<tr><th>${t("player")}</th><th>${t("track")}</th><th>${t("crystals")}</th><th>${t("trek_points")}</th><th>${t("total")}</th></tr>` +
    rows.map((p) => `<tr><td>${dot(p.colour)}${esc(p.name)}</td><td>${p.track}</td><td>${p.crystals}</td><td>${p.trek_points} <small>(${p.treks.join(", ")})</small></td><td><b>${p.total}</b></td></tr>`).join("");
  renderChart(s);
}

function renderChart(s) {
  const series = s.chart || [];
  if (series.length < 2) { $("chart").innerHTML = ""; return; }
  const max = Math.max(1, ...series.flat());
  const min = Math.min(0, ...series.flat());
  const x = (i) => 10 + (i / (series.length - 1)) * 300;
  const y = (v) => 150 - ((v - min) / (max - min)) * 140;
  let out = `<line x1="10" y1="${y(0)}" x2="310" y2="${y(0)}" stroke="currentColor" stroke-opacity=".3"/>`;
  s.players.forEach((p, k) => {
    const pts = series.map((row, i) => `${x(i).toFixed(1)},${y(row[k]).toFixed(1)}`).join(" ");
    out += `<polyline points="${pts}" fill="none" stroke="${esc(p.colour)}" stroke-width="2.5"><title>${esc(p.name)}</title></polyline>`;
  });
  $("chart").innerHTML = out;
}

// --- host controls ----------------------------------------------------------------------------

function renderHost(s) {
  $("controls").hidden = !csrf;
  $("login").hidden = !!csrf;
  if (!csrf) return;
  $("mock").hidden = !s.mock;
  const choices = s.expect ? s.expect.choices : [];
  $("choices").innerHTML = choices.map((c) => `<option value="${esc(c)}">`).join("");
  $("quick").innerHTML = (s.expect && s.expect.kind !== "reveal" ? choices.slice(0, 30) : [])
    .map((c) => `<button type="button" data-tap="${esc(c)}">${esc(c)}</button>`).join("");
  fillSelect($("wild1"), COLUMNS);
  fillSelect($("wild2"), ["", ...COLUMNS]);
  fillSelect($("itin-player"), s.players.map((p) => p.name));
  fillSelect($("itin-id"), (s.edition && s.edition.itineraries) || []);
}

function fillSelect(select, values) {
  const current = select.value;
  const html = values.map((v) => `<option value="${esc(v)}">${esc(v)}</option>`).join("");
  if (select.dataset.html !== html) { select.innerHTML = html; select.dataset.html = html; select.value = current; }
}

async function call(path, body) {
  const response = await fetch(path, {
    method: "POST",
    headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf || "" },
    body: JSON.stringify(body || {}),
    credentials: "same-origin",
  });
  const data = await response.json().catch(() => ({ error: response.statusText }));
  if (!response.ok) {
    renderLast({ accepted: false, message: data.error || response.statusText });
    if (response.status === 403 && /CSRF/.test(data.error || "")) { csrf = null; render(state); }
    return null;
  }
  if (data.state) fetchState();
  if (data.message) renderLast({ accepted: true, message: data.message });
  return data;
}

function setupHost() {
  $("host-toggle").onclick = () => { $("host").hidden = !$("host").hidden; if (!$("host").hidden) $("pin").focus(); };
  $("login").onsubmit = async (ev) => {
    ev.preventDefault();
    const response = await fetch("/api/login", { method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ pin: $("pin").value }), credentials: "same-origin" });
    const data = await response.json();
    if (response.ok) { csrf = data.csrf; $("pin").value = ""; renderLast({ accepted: true, message: t("logged_in") }); render(state); }
    else renderLast({ accepted: false, message: data.error });
  };
  $("logout").onclick = async () => { await call("/api/logout"); csrf = null; render(state); };
  $("tap").onsubmit = async (ev) => { ev.preventDefault(); const tag = $("tag").value.trim(); if (tag) { await call("/api/reader/tap", { tag }); $("tag").value = ""; } };
  document.querySelectorAll("[data-button]").forEach((b) => { b.onclick = () => call("/api/buttons/" + b.dataset.button); });
  $("quick").onclick = (ev) => { const b = ev.target.closest("[data-tap]"); if (b) call("/api/reader/tap", { tag: b.dataset.tap }); };
  $("row").onclick = (ev) => { const li = ev.target.closest("li.pick"); if (li && csrf) call("/api/reader/tap", { tag: li.dataset.card }); };
  $("undo").onclick = () => call("/api/undo");
  $("wild").onsubmit = (ev) => { ev.preventDefault(); call("/api/correct/wild", { wild: [$("wild1").value, $("wild2").value].filter(Boolean) }); };
  $("itin").onsubmit = (ev) => { ev.preventDefault(); call("/api/correct/itinerary", { player: $("itin-player").value, itinerary: $("itin-id").value }); };
  $("newgame").onsubmit = async (ev) => {
    ev.preventDefault();
    const players = [], colours = [];
    document.querySelectorAll("#seats label").forEach((l) => {
      const name = l.querySelector("input[type=text]").value.trim();
      if (name) { players.push(name); colours.push(l.querySelector("input[type=color]").value.toUpperCase()); }
    });
    await call("/api/game/new", { players, colours, edition: $("edition").value });
  };
  const palette = ["#0072B2", "#E69F00", "#009E73", "#CC79A7"];
  $("seats").innerHTML = palette.map((c, i) => `<label>${i + 1}. <input type="text" size="12" value="${i < 2 ? ["Ann", "Ben"][i] : ""}"> <input type="color" value="${c.toLowerCase()}"></label>`).join("");
  fetch("/api/editions").then((r) => r.json()).then((d) => {
    fillSelect($("edition"), d.editions);
    if (d.default) $("edition").value = d.default; // the table's default edition (a setting)
  });
  $("enrol").closest("details").addEventListener("toggle", async (ev) => {
    if (!ev.target.open) return;
    const who = await (await fetch("/api/session", { credentials: "same-origin" })).json();
    if (who.unknown_tag && !$("enrol-tag").value) $("enrol-tag").value = who.unknown_tag;
  });
  $("enrol-q").oninput = async () => {
    const q = $("enrol-q").value.trim();
    if (q.length < 2) return;
    const d = await (await fetch("/api/cards?q=" + encodeURIComponent(q))).json();
    $("enrol-card").innerHTML = d.cards.slice(0, 20).map((c) => `<option value="${esc(c.id)}">${esc(c.label)}</option>`).join("");
  };
  $("enrol").onsubmit = (ev) => {
    ev.preventDefault();
    const body = { tag: $("enrol-tag").value.trim(), card: $("enrol-card").value };
    if ($("enrol-hours").value) {
      body.hours = parseInt($("enrol-hours").value, 10);
      body.gains = $("enrol-gains").value.split(/[\s,]+/).filter(Boolean);
    }
    call("/api/enroll", body);
  };
}

// --- live updates -------------------------------------------------------------------------

async function fetchState() {
  try {
    const [s, ring] = await Promise.all([
      fetch("/api/state?page=1").then((r) => r.json()),
      fetch("/api/ring").then((r) => r.json()),
    ]);
    s.ring = ring.leds;
    render(s);
    $("live").className = "live on";
  } catch (e) {
    $("live").className = "live";
  }
}

function startPolling() {
  if (pollTimer) return;
  renderLast({ accepted: true, message: t("polling") });
  pollTimer = setInterval(fetchState, 2000);
}

function connect() {
  if (!window.EventSource) { startPolling(); return; }
  let failures = 0;
  const source = new EventSource("/api/events");
  source.addEventListener("state", async (ev) => {
    failures = 0;
    const s = JSON.parse(ev.data);
    try { s.ring = (await (await fetch("/api/ring")).json()).leds; } catch (e) { s.ring = state ? state.ring : []; }
    render(s);
    $("live").className = "live on";
  });
  source.onerror = () => {
    $("live").className = "live";
    failures += 1;
    if (failures >= 5) { source.close(); startPolling(); }
  };
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
}

start();

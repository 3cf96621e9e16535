// The history page: finished games, each player's figures and rating, scores over time, and
// the host's merge of two spellings. Everything comes from /api/history (derived from the
// event log on the companion); the words from the catalogues (i18n.js), in English or French.
import { chartSvg, drawStory, lineSample, markSpan, storyFrame } from "./chart.js";
import { colon, lang, message, number as num, sentence, setLang, t, translatePage, when } from "./i18n.js";
import { request } from "./request.js";
import { esc, fillSelect } from "./text.js";

const $ = (id) => document.getElementById(id);
let data = null;
let csrf = null;
let lastSaid = null;


// A refusal or an answer of the server in the page's language: its code and params, the
// English sentence only for a code this page does not know.
function say(answer) {
  lastSaid = answer;
  const el = $("said");
  if (!answer) { el.textContent = ""; el.className = "last"; return; }
  const text = sentence(message({ accepted: answer.ok, code: answer.code, params: answer.params || {}, message: answer.message }));
  el.textContent = (answer.ok ? "" : "✗ ") + (text || "");
  el.className = "last " + (answer.ok ? "ok" : "bad");
}

function translate() {
  translatePage();
  document.title = `${t("h_title")} · ${t("title")}`;
  if (data) render(data);
  if (lastSaid) say(lastSaid);
}

function render(d) {
  data = d;
  if (!opened.size && d.games.length) opened.add(String(d.games[0].id));  // the newest game's story, at first
  $("empty").hidden = d.games.length > 0;
  $("unreadable").hidden = !d.unreadable.length;
  $("unreadable").textContent = d.unreadable.length ? t("h_unreadable", { n: d.unreadable.length }) : "";
  renderPlayers(d);
  renderChart(d);
  renderGames(d);
  renderMerge(d);
}

function renderPlayers(d) {
  $("pstats").innerHTML = d.players.map((p) => {
    const figures = [
      ["h_played", p.games], ["h_wins", p.wins], ["h_avg", num(p.average)], ["h_best", p.best],
      ["h_longest", p.longest_trek], ["h_trek_avg", num(p.average_trek_points)], ["h_crystals", num(p.average_crystals)],
    ].map(([k, v]) => `<dt>${esc(t(k))}</dt><dd>${esc(v)}</dd>`).join("");
    const others = p.spellings.filter((n) => n !== p.name);
    // the family's number, and the model's own figures beside it under their names (for the curious)
    const rating = p.rating === null ? esc(t("h_unrated"))
      : `${esc(t("h_rating"))} <b>${esc(num(p.rating))}</b> <small class="model">${esc(t("h_model", { mu: num(p.mu), sigma: num(p.sigma) }))}</small>`;
    return `<li class="pstat" data-key="${esc(p.key)}"><div class="top"><span class="name">${markSpan(p.colour, p.marker)} ${esc(p.name)}</span><span class="rating">${rating}</span></div>` +
      `<dl>${figures}</dl>` + (others.length ? `<p class="also">${esc(t("h_also", { names: others.join(", ") }))}</p>` : "") + "</li>";
  }).join("");
}

// Each player's scores game after game, oldest game on the left. Each line has its own dash
// and marker as well as its colour, each point a title, and the picture an English or French
// summary, so it reads without colour and with a screen reader.
function renderChart(d) {
  const games = [...d.games].reverse();  // oldest first
  const svg = $("hchart");
  if (games.length === 0) { svg.innerHTML = ""; $("hchart-legend").innerHTML = ""; return; }
  const lines = d.players.map((player, k) => {
    const points = [];
    games.forEach((g, i) => {
      const seat = g.players.find((p) => p.key === player.key);
      if (seat) points.push([i, seat.score, `${player.name} · ${t("h_game", { id: g.id })}${colon()}${seat.score}`]);
    });
    return { name: player.name, colour: player.colour, marker: player.marker, points };
  });
  svg.innerHTML = chartSvg({ lines, count: games.length, xLabel: `${t("h_games_axis")} (${games.length})`, yLabel: t("chart_y") });
  svg.setAttribute("aria-label", `${t("h_chart")}${colon()}${lines.map((l) => `${l.name} ${l.points.map((q) => q[1]).join(", ")}`).join("; ")}`);
  $("hchart-legend").innerHTML = d.players.map((p) => `<li>${lineSample(p.colour, p.marker)} ${markSpan(p.colour, p.marker)} ${esc(p.name)}</li>`).join("");
}

function renderGames(d) {
  $("games").innerHTML = d.games.map((g) => {
    // each seat marked as the table showed it (its colour and marker, its player's own unless two of one colour sat together)
    const rows = [...g.players].sort((a, b) => a.rank - b.rank).map((p) =>
      `<tr><td>${p.rank}</td><td>${markSpan(p.colour, p.marker)} ${esc(p.name)}` +
      `${p.player !== p.name ? ` <small>(${esc(p.player)})</small>` : ""}${p.winner ? ` <span class="win">★ ${esc(t("h_winner"))}</span>` : ""}</td><td><b>${p.score}</b></td></tr>`).join("");
    const facts = [when(g.started), g.minutes ? t("h_minutes", { n: g.minutes }) : "", t("h_edition", { e: g.edition })].filter(Boolean).join(" · ");
    const assisted = g.assisted ? ` <small class="assisted" title="${esc(t("h_assisted_title"))}">${esc(t("h_assisted"))}</small>` : "";
    return `<li class="game" id="game-${g.id}" data-game="${g.id}"><h3>${esc(t("h_game", { id: g.id }))}${assisted}</h3><p class="when">${esc(facts)}</p>` +
      `<table><tr><th scope="col">${esc(t("h_rank"))}</th><th scope="col">${esc(t("h_player"))}</th><th scope="col">${esc(t("h_score"))}</th></tr>${rows}</table>` +
      `<details class="story-box" data-story="${g.id}"${opened.has(String(g.id)) ? " open" : ""}><summary>${esc(t("story_show"))}</summary>` +
      `<figure class="story">${storyFrame()}</figure><p class="story-said last bad" role="status" hidden></p></details>` +
      `<p class="share"><a class="story-save" href="#" hidden>${esc(t("chart_save"))}</a>` +
      (g.bgstats ? ` <a class="bgstats-game" href="${esc(g.bgstats)}" rel="noopener">${esc(t("h_bgstats"))}</a>` : "") + "</p></li>";
  }).join("");
  for (const box of document.querySelectorAll("#games details.story-box[open]")) showStory(box);
}

// Each game's story (chart.js drawStory), asked when its fold is opened (the newest game's is open at
// first, and the game a phone was sent to): a game's story is the same until its log changes,
// so it is kept by game and last event, and drawn again after each render (a language switch).
const stories = new Map();  // "id/ended" -> the story, or the promise of it while asked
const opened = new Set();  // the games whose story is open (ids as strings)

async function showStory(box) {
  const id = box.dataset.story;
  const game = data && data.games.find((g) => String(g.id) === id);
  if (!game) return;
  const key = `${game.id}/${game.ended}`;
  let body = stories.get(key);
  if (!body) {
    body = request("GET", `/api/story/${encodeURIComponent(id)}`)
      .then(({ ok, data: answer }) => (ok ? answer : { refused: answer }), () => ({ refused: { error: t("unreachable") } }));
    stories.set(key, body);
  }
  body = await body;
  const here = document.querySelector(`#game-${id} details.story-box`);  // the games may be drawn again meanwhile
  if (!here) return;
  if (body.refused) {
    stories.delete(key);  // asked again when opened again
    const r = body.refused;
    here.querySelector(".story-said").hidden = false;
    here.querySelector(".story-said").textContent = "✗ " + sentence(message({ accepted: false, code: r.code, params: r.params || {}, message: r.error }));
    return;
  }
  stories.set(key, body);
  here.querySelector(".story-said").hidden = true;
  drawStory(here.querySelector(".story"), body, game.players, document.querySelector(`#game-${id} .story-save`), game.id);
}

function renderMerge(d) {
  $("hlogin").hidden = !!csrf;
  $("merge").hidden = !csrf;
  $("rate-assisted-box").hidden = !csrf;  // the host's choice: assisted games rated or not
  $("rate-assisted").checked = !!d.assisted_rated;
  const spellings = [...new Set(d.games.flatMap((g) => g.players.map((p) => p.name)))].sort((a, b) => a.localeCompare(b, lang()));
  fillSelect($("merge-name"), spellings.map((n) => [n, n]));
  fillSelect($("merge-into"), d.players.map((p) => [p.name, p.name]));
  $("merged").innerHTML = csrf ? d.players.flatMap((p) => p.merged.map((n) =>
    `<li><button type="button" data-unmerge="${esc(n)}">${esc(t("h_unmerge", { name: `${n} (${p.name})` }))}</button></li>`)).join("") : "";
}

async function load() {
  try {
    const { ok, data: body } = await request("GET", `/api/history?lang=${lang()}`);  // BG Stats comments in this language
    if (!ok) { say({ ok: false, code: body.code, params: body.params, message: body.error }); return; }
    render(body);
    // a phone that scanned the end screen's code lands on its game, the BG Stats link in view
    const asked = location.hash && document.getElementById(location.hash.slice(1));
    if (asked && !asked.classList.contains("asked")) {
      asked.classList.add("asked");
      const box = asked.querySelector("details.story-box");
      if (box && !box.open) box.open = true;  // its story too (the toggle draws it)
      asked.scrollIntoView({ block: "start" });
    }
  } catch (e) { say({ ok: false, message: t("unreachable") }); }
}

async function control(path, body) {
  let sent;
  try { sent = await request("POST", path, body, csrf); } catch (e) { say({ ok: false, message: t("unreachable") }); return; }
  const answer = sent.data;
  if (sent.status === 401 || answer.code === "csrf_stale") { csrf = null; if (data) renderMerge(data); }
  say({ ok: sent.ok, code: answer.code, params: answer.params, message: answer.error || answer.message });
  if (sent.ok) await load();
}

async function start() {
  $("lang").onclick = () => { setLang(lang() === "en" ? "fr" : "en"); localStorage.setItem("lang", lang()); translate(); load(); };
  $("hlogin").onsubmit = async (ev) => {
    ev.preventDefault();
    try {
      const { ok, data: answer } = await request("POST", "/api/login", { pin: $("hpin").value });
      if (ok) { csrf = answer.csrf; $("hpin").value = ""; say({ ok: true, message: t("logged_in") }); if (data) renderMerge(data); }
      else say({ ok: false, code: answer.code, params: answer.params, message: answer.error });
    } catch (e) { say({ ok: false, message: t("unreachable") }); }
  };
  $("merge").onsubmit = (ev) => { ev.preventDefault(); control("/api/players/merge", { name: $("merge-name").value, into: $("merge-into").value }); };
  $("rate-assisted").onchange = (ev) => control("/api/history/assisted", { include: ev.target.checked });
  // a game's story drawn when its fold is opened (toggle does not bubble: caught on the way down)
  $("games").addEventListener("toggle", (ev) => {
    const box = ev.target;
    if (!box.matches || !box.matches("details.story-box")) return;
    if (box.open) { opened.add(box.dataset.story); showStory(box); } else opened.delete(box.dataset.story);
  }, true);
  $("merged").onclick = (ev) => { const b = ev.target.closest("[data-unmerge]"); if (b) control("/api/players/unmerge", { name: b.dataset.unmerge }); };
  // Disabled in the HTML until here: a login sent before its handler would put the PIN in
  // the address (the browser's own GET of the form).
  for (const el of document.querySelectorAll("[data-until-script]")) el.disabled = false;
  try {
    const who = await (await fetch("/api/session", { credentials: "same-origin" })).json();
    if (who.host) csrf = who.csrf;
  } catch (e) { /* reading needs no login */ }
  translate();
  await load();
}

start();

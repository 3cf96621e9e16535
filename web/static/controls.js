// The host's controls: login, the virtual reader and buttons, corrections, a new game and
// enrolling a tag (shown to a logged-in host; the mock table's controls only in mock mode).
import { CATALOGUES, colon, message, t, year } from "./i18n.js";
import { busy, call, loginWhy, refused } from "./api.js";
import { renderLast } from "./banner.js";
import { showHardware } from "./hardware.js";
import { $, COLUMNS, LEGEND, cardTitle, esc, itineraryLabel, page, render, seen } from "./page.js";
import { markSpan } from "./chart.js";
import { request } from "./request.js";
import { fillSelect } from "./text.js";

/** The console's keys (README): the same words typed in the page's reader field press a button. */
const CONSOLE_KEYS = { c: "crystal", crystal: "crystal", y: "confirm", confirm: "confirm", ok: "confirm", u: "undo", undo: "undo" };

export function renderHost(s) {
  showHardware();  // a host may acknowledge the store's damage: the button follows the login
  // mock mode (a PC): where the virtual reader is, until the host opens it
  $("mock-where").hidden = !(s.mock && !page.csrf);
  $("controls").hidden = !page.csrf;
  $("login").hidden = !!page.csrf;
  if (!page.csrf) return;
  $("mock").hidden = !s.mock;
  const choices = s.expect ? s.expect.choices : [];
  $("choices").innerHTML = choices.map((c) => `<option value="${esc(c)}">`).join("");
  // the first 30 choices, and the Ancestor whenever it can be taken (it is last in the list)
  const quick = choices.slice(0, 30);
  if (choices.includes("ancestor") && !quick.includes("ancestor")) quick.push("ancestor");
  $("quick").innerHTML = (s.expect && s.expect.kind !== "reveal" ? quick : [])
    .map((c) => `<button type="button" data-tap="${esc(c)}" data-call="/api/reader/tap">${esc(s.expect.kind === "itinerary" ? itineraryLabel(c) : cardTitle(c))}</button>`).join("");
  fillSelect($("wild1"), COLUMNS.map((c) => [c, t(LEGEND[c])]));
  fillSelect($("wild2"), [["", t("none")], ...COLUMNS.map((c) => [c, t(LEGEND[c])])]);
  fillSelect($("itin-player"), s.players.map((p) => [p.name, p.name]));
  fillSelect($("itin-id"), ((s.edition && s.edition.itineraries) || []).map((i) => [i, itineraryLabel(i)]));
}

export function setupHost() {
  $("host-toggle").onclick = () => { $("host").hidden = !$("host").hidden; if (!$("host").hidden) $("pin").focus(); };
  $("login").onsubmit = async (ev) => {
    ev.preventDefault();
    let answer;
    try {
      answer = await request("POST", "/api/login", { pin: $("pin").value });
    } catch (e) {  // the companion is down: say so beside the form and in the live panel
      loginWhy(t("unreachable")); renderLast({ accepted: false, message: t("unreachable") });
      return;
    }
    const data = answer.data;
    if (answer.ok) { page.csrf = data.csrf; $("pin").value = ""; loginWhy(""); renderLast({ accepted: true, message: t("logged_in") }); render(page.state); }
    else {
      const refusal = refused(data);
      loginWhy(message(refusal)); renderLast(refusal);
    }
  };
  // A logout the companion could not keep (a full disk) is refused and said: still the host.
  $("logout").onclick = async () => { if (await call("/api/logout")) { page.csrf = null; render(page.state); } };
  $("tap").onsubmit = async (ev) => {
    ev.preventDefault();
    const tag = $("tag").value.trim();
    if (!tag) return;
    // the terminal's keys work here too: c (or crystal), y (confirm, ok), u (undo) press a button
    const button = CONSOLE_KEYS[tag.toLowerCase()];
    await (button ? call("/api/buttons/" + button) : call("/api/reader/tap", { tag }));
    $("tag").value = "";
  };
  document.querySelectorAll("[data-button]").forEach((b) => { b.onclick = () => call("/api/buttons/" + b.dataset.button); });
  $("quick").onclick = (ev) => { const b = ev.target.closest("[data-tap]"); if (b) call("/api/reader/tap", { tag: b.dataset.tap }); };
  $("row").onclick = (ev) => { const cell = ev.target.closest("li.pick .cell"); if (cell && page.csrf) call("/api/reader/tap", { tag: cell.dataset.card }); };
  $("undo").onclick = () => call("/api/undo", seen());
  $("wild").onsubmit = (ev) => { ev.preventDefault(); call("/api/correct/wild", { wild: [$("wild1").value, $("wild2").value].filter(Boolean) }); };
  $("itin").onsubmit = (ev) => { ev.preventDefault(); call("/api/correct/itinerary", { player: $("itin-player").value, itinerary: $("itin-id").value }); };
  $("newgame").onsubmit = async (ev) => {
    ev.preventDefault();
    if (busy.has("/api/game/new")) return;  // a double click starts one game
    const { rows, players, colours } = typedSeats();
    localStorage.setItem("seats", JSON.stringify(rows.map((l) => [nameOf(l), l.querySelector("input[type=color]").value])));
    // what the companion would refuse, said at once in the page's language
    if (players.length < 1 || players.length > 4) { renderLast({ accepted: false, message: t("seats_count") }); return; }
    if (new Set(players).size !== players.length) { renderLast({ accepted: false, message: t("seats_unique") }); return; }
    const game = { players, colours, edition: $("edition").value };
    if (page.state && !page.state.finished && page.state.events > 0) {
      // the companion's own checks (names, colours, the edition) first: a refusal never comes
      // after the family agreed to replace the game in progress
      if (!(await call("/api/game/new", { ...game, check: true }))) return;
      if (!window.confirm(t("replace_game"))) return;
    }
    await call("/api/game/new", game);
  };
  const palette = ["#0072B2", "#E69F00", "#009E73", "#CC79A7"];
  let saved = [];
  try { saved = JSON.parse(localStorage.getItem("seats") || "[]"); } catch (e) { saved = []; }
  $("seats").innerHTML = palette.map((c, i) => {
    const [name, colour] = saved[i] || [i < 2 ? ["Ann", "Ben"][i] : "", c.toLowerCase()];
    return `<div class="seat"><span>${i + 1}.</span> <span class="seat-mark"></span> <input type="text" size="12" maxlength="24" value="${esc(name)}" data-i18n-label="seat_player" data-n="${i + 1}" aria-label="${esc(t("seat_player", { n: i + 1 }))}"> <input type="color" value="${esc(colour)}" data-i18n-label="seat_colour" data-n="${i + 1}" aria-label="${esc(t("seat_colour", { n: i + 1 }))}"></div>`;
  }).join("");
  fetch("/api/editions").then((r) => r.json()).then((d) => {
    const names = d.editions.includes("reference") ? ["reference", ...d.editions.filter((n) => n !== "reference")] : d.editions;
    fillSelect($("edition"), names.map((n) => [n, n]));
    if (d.default) $("edition").value = d.default; // the table's default edition (a setting)
  });
  document.querySelectorAll("#seats input[type=color]").forEach((picker) => { picker.oninput = () => { picker.dataset.chosen = "1"; }; });
  // each seat's colour and marker as Start will give them, shown before Start
  $("seats").addEventListener("change", showSeats);
  $("newgame").closest("details").addEventListener("toggle", (ev) => { if (ev.target.open) showSeats(); });
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

// The new-game form's seats, the filled ones, their players and colours: a colour picked here is
// the player's from now on; else (null) a player keeps their own, a new one gets a free one
// (companion/table/marks.py).
const nameOf = (seat) => seat.querySelector("input[type=text]").value.trim();
function typedSeats() {
  const rows = [...document.querySelectorAll("#seats .seat")];
  const filled = rows.filter(nameOf);
  const colours = filled.map((l) => { const p = l.querySelector("input[type=color]"); return p.dataset.chosen ? p.value.toUpperCase() : null; });
  return { rows, filled, players: filled.map(nameOf), colours };
}

// The seats as the companion will give them (`POST /api/game/new` with `check`, which starts
// nothing): a known player's own colour and marker, a new player's free pair, a colour picked
// here. A picker left alone follows (it stays "not chosen": the player keeps their own).
let seatsAsked = 0;
async function showSeats() {
  const { rows, filled, players, colours } = typedSeats();
  const asked = ++seatsAsked;
  let data = null;
  if (page.csrf && players.length) {
    try {
      const answer = await request("POST", "/api/game/new", { players, colours, check: true }, page.csrf);
      if (answer.ok) data = answer.data;
    } catch (e) { data = null; }
  }
  if (asked !== seatsAsked) return;  // a newer question is on its way
  const seats = (data && data.seats) || [];
  rows.forEach((l) => { l.querySelector(".seat-mark").innerHTML = ""; });
  filled.forEach((l, k) => {
    const seat = seats[k];
    if (!seat) return;
    const picker = l.querySelector("input[type=color]");
    if (!picker.dataset.chosen) picker.value = seat.colour.toLowerCase();
    l.querySelector(".seat-mark").innerHTML = markSpan(seat.colour, seat.marker);
  });
}

// A match of the enrol search in the page's language: "I12 · 490 BCE · Marathon (2 h: Pe ◆)".
function enrolLabel(c) {
  if (c.kind === "card") return `${c.id} · ${year(c.year)}${!c.title || c.title === c.id ? "" : " · " + c.title} (${c.hours} h${c.gains.length ? ": " + c.gains.map((g) => t(LEGEND[g] || g).split(" (")[0]).join(", ") : ""})`;
  if (c.kind === "itinerary") return itineraryLabel(c.id);
  if (c.kind === "ancestor") return `${t("ancestor")}${colon()}${t("enrol_ancestor")}`;
  return c.label;
}

// A benefit typed in the enrol form, in either language ("cristal", "Personnage", "crystal"): its key.
function benefitKey(word) {
  const plain = (w) => w.normalize("NFD").replace(/[\u0300-\u036f]/g, "").toLowerCase();
  const typed = plain(word);
  for (const key of Object.keys(LEGEND)) {
    if (typed === key) return key;
    for (const l of ["en", "fr"]) if (plain(CATALOGUES[l][LEGEND[key]].split(" ")[0]) === typed) return key;
  }
  return word;
}

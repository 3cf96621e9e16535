// The edition page: transcribe your own box, fast, on a phone at the table.
// Host only (the table PIN). Every change is one request that the companion
// validates with the engine and saves atomically; the reader's taps are captured
// for the edition while this page is open. No build step, no library.
import { CATALOGUES, fill, lang, t } from "./i18n.js";

(() => {
  const $ = (id) => document.getElementById(id);
  // English or French, as the table's page chose (its setting is shared through localStorage).
  const FR = lang() === "fr";
  const BENEFITS = ["person", "event", "innovation", "progress", "wild", "crystal"];
  const SHORT = Object.fromEntries(BENEFITS.map((k) => [k, t(`ed_short.${k}`)]));
  const ROMAN = { 1: "I", 2: "II", 3: "III" };
  const COLS = ["person", "event", "innovation", "progress", "rows"];
  const FULL = Object.fromEntries(["person", "event", "innovation", "progress", "rows"].map((k) => [k, t(`ed_full.${k}`)]));
  // a column's heading (narrow: six share a phone's width) and its name in sentences
  const colName = (k) => (k === "rows" ? t("ed_row_reward") : SHORT[k]);
  // The grid shows 6 rows (printed cards have 2-6) and grows, one empty row below the
  // deepest, up to the engine's bound (MAX_COLUMN_SPACES): an itinerary loaded or typed
  // deeper than 6 is shown and saved whole, never cut.
  const MIN_ROWS = 6, MAX_DEPTH = 10;
  let csrf = null, mock = false, name = null, ed = null, tags = {}, seq = -1, readOnly = new Set();
  // `dirty`: the form holds something typed since it was opened, cleared or saved: the next
  // sticker saves it (when complete) rather than dropping it.
  const card = { id: null, day: 1, digits: "", bce: false, hours: null, gains: [], tag: null, dirty: false };
  // `depth`: a column's depth the owner set by tapping its bottom space (see expected()).
  const it = { cells: {}, cursor: [0, 0], old: null, tag: null, dirty: false, depth: {} };
  const anc = { hours: 1, gains: [], tag: null };

  async function api(method, url, body) {
    const headers = { "Content-Type": "application/json" };
    if (csrf) headers["X-CSRF-Token"] = csrf;
    const r = await fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), credentials: "same-origin" });
    const type = r.headers.get("Content-Type") || "";
    const data = type.includes("json") ? await r.json() : await r.text();
    if (!r.ok) throw Object.assign(new Error((data && data.error) || r.statusText), { data, status: r.status });
    return data;
  }
  function say(id, text, kind) { const el = $(id); el.textContent = text; el.className = "msg " + (kind || ""); }
  // A refusal of the companion in the page's language: its `code` and `params` worded by
  // the catalogue's `msg` (the same sentences as the table's page, one per code in English and
  // French); an invalid edition's own problems (the engine's English, naming ids and lines)
  // follow its sentence. The English `error` only for a code this page does not know.
  const MSG = CATALOGUES[lang()].msg;
  function problems(e) {
    const d = e && e.data && typeof e.data === "object" ? e.data : {};
    const listed = d.problems && d.problems.length ? d.problems.join("; ") : "";
    const text = d.code ? MSG[d.code] : undefined;
    if (text === undefined) return listed || e.message;
    const p = { ...(d.params || {}) };
    if (p.column !== undefined) p.column = MSG["column." + p.column] ?? p.column;
    if (p.from_base && typeof p.from_base === "object") p.from_base = baseWords(p.from_base).join(", ");
    const said = fill(lang(), text, p);
    return d.code === "edition_problems" && listed ? `${said} ${listed}` : said;
  }
  function btn(label, on, extra) { const b = document.createElement("button"); b.type = "button"; b.textContent = label; b.addEventListener("click", on); if (extra) b.dataset.v = extra; return b; }
  // A sticker bound by a save (the answer's `binding`), in the page's language.
  function boundWords(r) {
    const b = r.binding;
    if (!b) return "";
    if (b.error) { // the edition is saved; the sticker could not be bound (a full disk): it is as it was
      const why = b.error === "disk_full" ? t("ed_the_companion_s_disk") : (b.params && b.params.detail) || b.error;
      const kept = b.was ? t("ed_it_is_still", { was: b.was }) : t("ed_it_is_bound_to");
      return " " + t("ed_is_saved_but_tag", { card: b.card, tag: b.tag, why, kept });
    }
    if (b.was === b.card) return " " + t("ed_tag_was_already", { tag: b.tag, card: b.card });
    const was = b.was ? t("ed_it_was", { was: b.was }) : "";
    const card = b.card === "ancestor" ? t("ed_the_ancestor_tag") : b.card;
    return " " + t("ed_tag_is_now", { tag: b.tag, card, was });
  }
  // A likely mistake in a saved card (the answer's `checks`: not a refusal), in the page's language.
  function checkWords(c) {
    if (c.code === "year_outside_day") return t("ed_is_outside_day_s", { year: showYear(c.year), day: c.day, low: showYear(c.low), high: showYear(c.high) });
    return t("ed_looks_like", { id: c.id, title: c.title, year: showYear(c.year) });
  }
  const showYear = (y) => (y < 0 ? `${-y} ${t("ed_bce")}` : `${y}`);

  // --- session -------------------------------------------------------------------------
  async function start() {
    const s = await api("GET", "/api/session");
    mock = s.mock;
    if (!s.host) { $("login").hidden = false; return; }
    csrf = s.csrf;
    $("login").hidden = true; $("main").hidden = false; $("mock-reader").hidden = !mock;
    await listEditions();
    setInterval(pollTag, 400);
  }
  $("login-form").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    try { await api("POST", "/api/login", { pin: $("pin").value }); await start(); }
    catch (e) { $("login-msg").textContent = problems(e); }
  });

  // --- editions ------------------------------------------------------------------------
  async function listEditions(choose) {
    const list = await api("GET", "/api/library");
    const sel = $("edition"); sel.textContent = "";
    const owned = list.editions.filter((e) => !e.shipped);
    readOnly = new Set(list.editions.filter((e) => e.shipped).map((e) => e.name));
    for (const e of list.editions) {
      const o = document.createElement("option"); o.value = e.name;
      o.textContent = e.name + (e.shipped ? t("ed_shipped_read_only") : e.complete ? " ✓" : t("ed_draft")) + (e.name === list.default ? " ★" : "");
      sel.append(o);
    }
    const pick = choose || (owned.length ? owned[owned.length - 1].name : list.default);
    sel.value = pick; await openEdition(pick);
    if (!owned.length) { $("create").hidden = false; }
  }
  $("edition").addEventListener("change", () => openEdition($("edition").value));
  $("open-create").addEventListener("click", () => { $("create").hidden = !$("create").hidden; $("new-name").focus(); });
  $("create").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    try { await api("POST", "/api/library", { name: $("new-name").value.trim(), base: "reference", copy: $("new-copy").checked }); $("create").hidden = true; await listEditions($("new-name").value.trim()); }
    catch (e) { say("card-msg", problems(e), "err"); $("progress").textContent = problems(e); }
  });
  async function openEdition(n) {
    name = n;
    try {
      const got = await api("GET", `/api/library/${encodeURIComponent(n)}`);
      ed = got.edition; tags = got.tags;
      // From now on the reader's taps come to this page: only taps after this one count.
      seq = (await api("POST", "/api/library/transcribe", { edition: readOnly.has(n) ? null : n })).seq;
      clearCard(); clearIt(); drawMat(); drawAnc(); showProgress(got.progress);
      if (readOnly.has(n)) { $("tag-status").textContent = t("ed_ships_with_the_companion", { n }); $("tag-status").className = "status bound"; }
      if (got.problems && got.problems.length) $("progress").textContent += t("ed_this_file_needs_fixing") + got.problems.join("; ");
    } catch (e) { ed = null; $("progress").textContent = problems(e); }
  }
  // What still holds the base edition's values (`from_base` of progress, or of a refusal), in words.
  function baseWords(fb) {
    const names = { ancestor: t("ed_the_ancestor"), playmat: t("ed_the_playmat"), treks: t("ed_the_trek_table") };
    const left = (fb.parts || []).map((x) => names[x] || x);
    if (fb.cards) left.push(fb.cards === 1 ? t("ed_1_card") : t("ed_cards", { cards: fb.cards }));
    if (fb.itineraries) left.push(fb.itineraries === 1 ? t("ed_1_itinerary") : t("ed_itineraries", { itineraries: fb.itineraries }));
    return left;
  }
  function showProgress(p) {
    const days = Object.entries(p.days).map(([d, n]) => `${t("ed_day")} ${d}: ${n}/${p.of.day}`).join(" · ");
    $("progress").textContent = `${days} · ${t("ed_itineraries2")}: ${p.itineraries}/${p.of.itineraries}`;
    // parts copied from the base edition (the reference's are the team's values, not the box's)
    const left = baseWords(p.from_base || { parts: [], cards: 0, itineraries: 0 });
    if (left.length) $("progress").textContent += " · " + t("ed_not_entered_yet_still") + left.join(", ");
  }

  // --- tabs --------------------------------------------------------------------------
  for (const b of document.querySelectorAll("#tabs button")) {
    b.addEventListener("click", () => {
      for (const o of document.querySelectorAll("#tabs button")) o.classList.toggle("on", o === b);
      for (const t of document.querySelectorAll(".tab")) t.hidden = t.id !== "tab-" + b.dataset.tab;
    });
  }

  // --- taps from the reader ----------------------------------------------------------
  let polling = false; // one tap handled at a time: a tap may save the form first
  async function pollTag() {
    if (!name || polling) return;
    polling = true;
    try {
      let t; try { t = await api("GET", "/api/library/transcribe/tag"); } catch (e) { return; }
      if (seq === -1) { seq = t.seq; return; }
      if (t.seq === seq || !t.tag) return;
      seq = t.seq; await onTag(t.tag, t.bound_to);
    } finally { polling = false; }
  }
  const currentTab = () => document.querySelector("#tabs button.on").dataset.tab;
  const showTab = (t) => { if (currentTab() !== t) document.querySelector(`#tabs button[data-tab='${t}']`).click(); };
  // A sticker opens what it is bound to (a card, an itinerary, the Ancestor), or a new
  // one of the kind on screen; Save binds it. The next sticker is a Save too: the card or
  // itinerary being entered on screen is saved (and bound) first when it is complete, and
  // kept, with what it lacks said, when it is not; nothing typed is ever dropped by a tap.
  async function onTag(tag, bound) {
    const knownCard = bound && (ed.cards || []).find((c) => c.id === bound);
    const knownIt = bound && (ed.itineraries || []).find((x) => x.id === bound);
    const target = bound === "ancestor" || (!knownCard && !knownIt && currentTab() === "anc") ? "anc" : knownIt || (!knownCard && currentTab() === "its") ? "its" : "cards";
    const note = await saveBeforeNext(tag, target); // the form this tap would replace
    if (note === null) return;
    const elsewhere = bound ? t("ed_it_is_bound_to2", { bound }) : "";
    if (target === "anc") {
      showTab("anc"); anc.tag = bound === "ancestor" ? null : tag; anc.last = tag;
      say("anc-msg", note + (bound === "ancestor" ? t("ed_tag_is_the_ancestor", { tag }) : t("ed_tag_save_binds_it", { tag, elsewhere })), bound ? "warn" : "");
      return;
    }
    if (target === "its") {
      showTab("its");
      if (knownIt) { loadIt(knownIt); say("it-msg", note + t("ed_tag_is_edit_it", { tag, id: knownIt.id }), "warn"); }
      else { clearIt(); say("it-msg", note + t("ed_tag_a_new_itinerary", { tag, elsewhere }), bound ? "warn" : ""); }
      it.tag = tag;
      return;
    }
    showTab("cards");
    const st = $("tag-status");
    if (knownCard) { loadCard(knownCard); card.tag = tag; st.textContent = t("ed_tag_is_edit_it2", { tag, id: knownCard.id, title: knownCard.title }); st.className = "status bound"; return; }
    clearCard(true); card.tag = tag;
    if (bound) { st.textContent = t("ed_tag_is_bound_to", { tag, bound }); st.className = "status bound"; }
    else { st.textContent = t("ed_tag_a_new_day", { tag, day: ROMAN[card.day] }); st.className = "status"; }
  }
  async function saveBeforeNext(tag, target) {
    if (target === "cards" && card.dirty) {
      showTab("cards");
      const missing = missingOfCard();
      if (missing) {
        say("card-msg", t("ed_not_saved_yet_finish", { missing, tag }), "err");
        // The top line is where eyes go after a tap; the message below says what to do.
        $("tag-status").textContent = (card.tag ? t("ed_tag", { tag: card.tag }) : "") + t("ed_this_card_still_needs", { missing });
        $("tag-status").className = "status bound"; return null;
      }
      const own = card.tag === tag; // its own sticker again: saved, and nothing else to open
      if (!(await saveCard())) {
        say("card-msg", $("card-msg").textContent + t("ed_not_saved_fix_it", { tag }), "err");
        $("tag-status").textContent = t("ed_this_card_was_not"); $("tag-status").className = "status bound"; return null;
      }
      return own ? null : ""; // the saved message stays in its own line
    }
    // The box has an Ancestor card per copy (12), each with its sticker: the next one
    // tapped saves the Ancestor and binds the one before, so the copies cost a tap each.
    if (target === "anc" && anc.tag && currentTab() === "anc") {
      const own = anc.tag === tag;
      if (!(await saveAnc())) { say("anc-msg", $("anc-msg").textContent + t("ed_not_saved_fix_it2", { tag }), "err"); return null; }
      return own ? null : $("anc-msg").textContent + " ";
    }
    if (target === "its" && it.dirty) {
      showTab("its");
      const missing = missingOfIt();
      if (missing) { say("it-msg", t("ed_not_saved_yet_finish2", { missing, tag }), "err"); $("it-msg").scrollIntoView({ block: "nearest" }); return null; }
      const own = it.tag === tag;
      if (!(await saveIt())) { say("it-msg", $("it-msg").textContent + t("ed_not_saved_fix_it2", { tag }), "err"); $("it-msg").scrollIntoView({ block: "nearest" }); return null; }
      // The itinerary tab has one message line: the new sticker's words follow the saved ones.
      return own ? null : $("it-msg").textContent.replace(t("ed_tap_the_next_itinerary"), "") + " ";
    }
    return "";
  }
  $("mock-tap").addEventListener("click", async () => {
    const tag = $("mock-tag").value.trim(); if (!tag) return;
    await api("POST", "/api/reader/tap", { tag }).catch((e) => say("card-msg", problems(e), "err"));
    $("mock-tag").value = ""; pollTag();
  });

  // --- the card form -------------------------------------------------------------------
  for (const b of document.querySelectorAll("#day button")) b.addEventListener("click", () => { card.day = +b.dataset.day; if (card.id) card.dirty = true; drawCard(); });
  for (const id of ["title", "note"]) $(id).addEventListener("input", () => { card.dirty = true; });
  function key(k) {
    if (k === "⌫") card.digits = card.digits.slice(0, -1);
    else if (k === "C") { card.digits = ""; card.bce = false; }
    else if (card.digits.length + k.length <= 5) card.digits += k;
    card.dirty = true; drawCard();
  }
  // The last row types two digits at once: years are said that way ("nineteen sixty-nine")
  // and most History cards' years are in the 1700s-1900s, so 1969 is 19, 6, 9: three taps.
  for (const k of ["1", "2", "3", "4", "5", "6", "7", "8", "9", "⌫", "0", "C", "17", "18", "19"]) { const b = btn(k, () => key(k)); b.classList.toggle("pair", k.length === 2); $("keypad").append(b); }
  // On a laptop the keyboard types the year too: digits, Backspace, b for BCE, Enter saves.
  document.addEventListener("keydown", (ev) => {
    if ($("tab-cards").hidden || ev.target.closest("input, select, textarea") || ev.ctrlKey || ev.metaKey || ev.altKey) return;
    if (/^[0-9]$/.test(ev.key)) key(ev.key);
    else if (ev.key === "Backspace") key("⌫");
    else if (ev.key === "b" || ev.key === "-") { card.bce = !card.bce; card.dirty = true; drawCard(); }
    else if (ev.key === "Enter") $("save-card").click();
    else return;
    ev.preventDefault();
  });
  $("bce").addEventListener("click", () => { card.bce = !card.bce; card.dirty = true; drawCard(); });
  for (let h = 1; h <= 12; h++) {
    $("hours").append(btn(String(h), () => { card.hours = h; card.dirty = true; drawCard(); }, String(h)));
    $("anc-hours").append(btn(String(h), () => { anc.hours = h; drawAnc(); }, String(h)));
  }
  for (const g of BENEFITS) {
    $("tokens").append(btn(SHORT[g], () => { card.gains.push(g); card.dirty = true; drawCard(); }, g));
    $("anc-tokens").append(btn(SHORT[g], () => { anc.gains.push(g); drawAnc(); }, g));
  }
  $("tokens").append(btn("⌫", () => { card.gains.pop(); card.dirty = true; drawCard(); }, "back"));
  $("anc-tokens").append(btn("⌫", () => { anc.gains.pop(); drawAnc(); }, "back"));
  function year() { return card.digits ? (card.bce ? -1 : 1) * parseInt(card.digits, 10) : null; }
  function drawCard() {
    for (const b of document.querySelectorAll("#day button")) b.classList.toggle("on", +b.dataset.day === card.day);
    $("year-out").textContent = card.digits ? showYear(year()) : "—";
    $("bce").setAttribute("aria-pressed", String(card.bce));
    for (const b of $("hours").children) b.classList.toggle("on", +b.dataset.v === card.hours);
    $("gains-out").innerHTML = "";
    for (const g of card.gains) { const s = document.createElement("span"); s.textContent = SHORT[g]; $("gains-out").append(s); }
    $("save-card").textContent = card.id ? t("ed_save", { id: card.id }) : t("ed_save_new_card");
    const list = $("card-list"); list.textContent = "";
    for (const c of (ed && ed.cards || []).filter((c) => c.day === card.day)) {
      const li = document.createElement("li"); li.textContent = `${c.id} ${showYear(c.year)} ${c.title} · ${c.hours} h ${c.gains.join(" ")}`;
      li.addEventListener("click", () => { loadCard(c); card.tag = null; }); list.append(li);
    }
  }
  function loadCard(c) {
    Object.assign(card, { id: c.id, day: c.day, digits: String(Math.abs(c.year)), bce: c.year < 0, hours: c.hours, gains: [...c.gains], dirty: false });
    $("title").value = c.title === c.id ? "" : c.title; $("note").value = c.note || ""; drawCard();
  }
  function clearCard(keepTag) {
    Object.assign(card, { id: null, digits: "", bce: false, hours: null, gains: [], dirty: false }); // the Day carries over
    if (!keepTag) card.tag = null;
    $("title").value = ""; $("note").value = ""; drawCard();
  }
  $("clear-card").addEventListener("click", () => clearCard());
  // What a card on screen still lacks before it can be saved, in words ("" when nothing).
  function missingOfCard() {
    const lack = [];
    if (year() === null) lack.push(t("ed_the_year"));
    if (card.hours === null) lack.push(t("ed_the_hours"));
    return lack.join(t("ed_and"));
  }
  $("save-card").addEventListener("click", () => saveCard());
  // Saves the card on screen (binding its sticker); true when it was saved.
  async function saveCard() {
    if (missingOfCard()) { say("card-msg", t("ed_type_the_year_and"), "err"); return false; }
    const body = { id: card.id, day: ROMAN[card.day], year: year(), hours: card.hours, gains: card.gains, title: $("title").value, note: $("note").value };
    if (card.tag) body.tag = card.tag;
    try {
      const r = await api("PUT", `/api/library/${encodeURIComponent(name)}/cards`, body);
      const i = ed.cards.findIndex((c) => c.id === r.card.id);
      if (i >= 0) ed.cards[i] = r.card; else ed.cards.push(r.card);
      showProgress(r.progress);
      const text = t("ed_saved", { id: r.card.id, year: showYear(r.card.year) }) + boundWords(r) + t("ed_tap_the_next_card");
      const checks = (r.checks || []).map(checkWords);
      say("card-msg", checks.length ? text + t("ed_check") + checks.join("; ") : text, checks.length ? "warn" : "ok");
      $("tag-status").textContent = t("ed_tap_the_next_card2"); $("tag-status").className = "status";
      clearCard();
      return true;
    } catch (e) { say("card-msg", problems(e), "err"); return false; }
  }
  $("remove-card").addEventListener("click", async () => {
    if (!card.id || !confirm(t("ed_remove", { id: card.id }))) return;
    try { const r = await api("DELETE", `/api/library/${encodeURIComponent(name)}/cards/${encodeURIComponent(card.id)}`); ed.cards = ed.cards.filter((c) => c.id !== card.id); showProgress(r.progress); say("card-msg", t("ed_removed", { id: card.id }), "ok"); clearCard(); }
    catch (e) { say("card-msg", problems(e), "err"); }
  });
  // Unbind tag, on each tab: frees the sticker tapped last there (a next save does not bind it).
  async function unbindTag(form, msg) {
    const tag = form.tag || form.last;
    if (!tag) { say(msg, t("ed_tap_the_sticker_to"), "err"); return; }
    try { await api("DELETE", `/api/library/tags/${encodeURIComponent(tag)}`); form.tag = null; form.last = null; say(msg, t("ed_tag_is_free_again", { tag }), "ok"); }
    catch (e) { say(msg, problems(e), "err"); }
  }
  $("unbind").addEventListener("click", () => unbindTag(card, "card-msg"));
  $("unbind-it").addEventListener("click", () => unbindTag(it, "it-msg"));
  $("unbind-anc").addEventListener("click", () => unbindTag(anc, "anc-msg"));

  // --- itineraries ---------------------------------------------------------------------
  const SPACE_CYCLE = [undefined, null, "crystal", 1, 2, 3, 4, 5, 6, 7];
  const spaceText = (v) => (v === undefined ? "·" : v === null ? "○" : v === "crystal" ? "◆" : String(v));
  for (const [label, v] of [[t("ed_plain"), null], ["◆", "crystal"], ["1", 1], ["2", 2], ["3", 3], ["4", 4], ["5", 5], ["6", 6], ["7", 7], ["8", 8], [t("ed_end"), "end"], ["⌫", "back"]]) {
    $("palette").append(btn(label, () => palette(v), String(v)));
  }
  function palette(v) {
    it.dirty = true;
    let [c, r] = it.cursor;
    if (v === "back") { if (r > 0) r--; else if (c > 0) { c--; r = depthOf(c); if (r > 0) r--; } delete it.cells[`${c},${r}`]; it.cursor = [c, r]; drawIt(); return; }
    if (v === "end") { for (let k = r; k < MAX_DEPTH; k++) delete it.cells[`${c},${k}`]; if (c < 4) it.depth[c] = r; it.cursor = [Math.min(c + 1, COLS.length - 1), 0]; drawIt(); return; }
    it.cells[`${c},${r}`] = v;
    // Down the column to its expected depth, and past the sixth row (printed cards have
    // 2-6) only when the column is expected deeper (its bottom space tapped, or its left's).
    // The row rewards go as deep as the deepest column.
    const limit = Math.min(MAX_DEPTH, Math.max(MIN_ROWS, c < 4 ? expected(c) : Math.max(0, ...[0, 1, 2, 3].map(depthOf))));
    it.cursor = r + 1 < limit && !endsHere(c, r) ? [c, r + 1] : [Math.min(c + 1, COLS.length - 1), 0];
    drawIt();
  }
  // A kind's column is taken to be as deep as the one to its left (printed columns often
  // are), unless its bottom space was tapped: filling its space at that depth moves on to
  // the next column, so a column costs no extra tap when it is as deep as its left one and
  // one tap (its bottom space, or end) otherwise. Row rewards are last: they never jump.
  function expected(c) { return c >= 4 ? 0 : c in it.depth ? it.depth[c] : c > 0 ? depthOf(c - 1) : 0; }
  function endsHere(c, r) {
    if (c >= 4 || `${c},${r + 1}` in it.cells) return false;
    const d = expected(c);
    return d > 0 && r + 1 === d;
  }
  // The kinds whose tapped depth still has empty spaces, in words ("" when none).
  function unfilled() {
    return [0, 1, 2, 3].filter((c) => c in it.depth && depthOf(c) < it.depth[c]).map((c) => FULL[COLS[c]]).join(", ");
  }
  function depthOf(c) { let d = 0; for (let r = 0; r < MAX_DEPTH; r++) if (`${c},${r}` in it.cells) d = r + 1; return d; }
  // Rows shown: at least MIN_ROWS, and one more than any column's depth (filled or tapped)
  // or the cursor, so a deeper column can always be started by tapping the row below.
  function shownRows() {
    const deepest = Math.max(...COLS.map((_, c) => Math.max(depthOf(c), it.depth[c] || 0)));
    return Math.min(MAX_DEPTH, Math.max(MIN_ROWS, deepest + 1, it.cursor[1] + 1));
  }
  function drawIt() {
    const g = $("grid"); g.textContent = "";
    for (const k of COLS) { const h = document.createElement("div"); h.className = "head"; h.textContent = colName(k); g.append(h); }
    for (let r = 0, rows = shownRows(); r < rows; r++) for (let c = 0; c < COLS.length; c++) {
      const key = `${c},${r}`, v = it.cells[key];
      const b = btn(spaceText(v), () => {
        if (it.cursor[0] === c && it.cursor[1] === r) { // a tap on the selected space cycles it
          it.dirty = true;
          const next = SPACE_CYCLE[(SPACE_CYCLE.indexOf(key in it.cells ? v : undefined) + 1) % SPACE_CYCLE.length];
          if (next === undefined) delete it.cells[key]; else it.cells[key] = next;
          it.cursor = [c, r];
        } else if (c < 4 && !(key in it.cells) && r >= depthOf(c) && r > 0) { // an empty space under a column: its bottom
          it.dirty = true; it.depth[c] = r + 1; it.cursor = [c, depthOf(c)];
        } else it.cursor = [c, r];
        drawIt();
      });
      b.dataset.cell = key; b.setAttribute("aria-label", `${FULL[COLS[c]]} ${r + 1}`);
      // Spaces still to fill (down to the column's depth) are outlined, not greyed out.
      const todo = !(key in it.cells) && c < 4 && r < expected(c) && (c in it.depth || c === it.cursor[0]);
      b.classList.toggle("absent", !(key in it.cells) && !todo); b.classList.toggle("todo", todo);
      b.classList.toggle("cursor", it.cursor[0] === c && it.cursor[1] === r);
      g.append(b);
    }
    const pick = $("it-pick"); pick.textContent = "";
    pick.append(new Option(t("ed_saved_edit", { itineraries: (ed && ed.itineraries || []).length }), ""));
    for (const x of (ed && ed.itineraries || [])) pick.append(new Option(x.id, x.id));
  }
  function nextItId() { const used = new Set((ed.itineraries || []).map((x) => x.id)); let n = 1; while (used.has(`T${String(n).padStart(2, "0")}`)) n++; return `T${String(n).padStart(2, "0")}`; }
  function clearIt() { it.cells = {}; it.cursor = [0, 0]; it.old = null; it.tag = null; it.dirty = false; it.depth = {}; $("it-id").value = ed ? nextItId() : ""; drawIt(); }
  $("clear-it").addEventListener("click", clearIt);
  function loadIt(x) {
    it.cells = {}; it.old = x.id; it.tag = null; it.dirty = false; it.depth = {}; $("it-id").value = x.id;
    COLS.forEach((k, c) => { const col = k === "rows" ? x.rows : (x.columns[k] || []); col.forEach((v, r) => { it.cells[`${c},${r}`] = v; }); });
    it.cursor = [0, 0]; drawIt();
  }
  $("it-pick").addEventListener("change", () => {
    const x = (ed.itineraries || []).find((y) => y.id === $("it-pick").value); if (x) loadIt(x);
  });
  function columnOf(c) { const out = []; for (let r = 0; r < depthOf(c); r++) out.push(`${c},${r}` in it.cells ? it.cells[`${c},${r}`] : null); return out; }
  $("it-id").addEventListener("input", () => { it.dirty = true; });
  // What an itinerary on screen still lacks before the next sticker may save it ("" when
  // nothing). Save itself sends any grid: the engine's checks are the real ones.
  function missingOfIt() {
    const lack = [];
    if (!$("it-id").value.trim()) lack.push(t("ed_its_id"));
    if (![0, 1, 2, 3].some((c) => depthOf(c) > 0)) lack.push(t("ed_its_spaces"));
    if (!depthOf(4)) lack.push(t("ed_its_row_rewards"));
    if (unfilled()) lack.push(t("ed_the_outlined_spaces_of", { unfilled: unfilled() }));
    return lack.join(t("ed_and"));
  }
  $("save-it").addEventListener("click", () => saveIt());
  // Saves the itinerary on screen (binding its sticker); true when it was saved.
  async function saveIt() {
    if (unfilled()) { say("it-msg", t("ed_fill_the_outlined_spaces", { unfilled: unfilled() }), "err"); return false; }
    const columns = {}; COLS.slice(0, 4).forEach((k, c) => { const col = columnOf(c); if (col.length) columns[k] = col; });
    const body = { id: $("it-id").value.trim(), columns, rows: columnOf(4) };
    if (it.old) body.old_id = it.old;
    if (it.tag) body.tag = it.tag;
    try {
      const r = await api("PUT", `/api/library/${encodeURIComponent(name)}/itineraries`, body);
      const i = ed.itineraries.findIndex((x) => x.id === (it.old || r.itinerary.id));
      if (i >= 0) ed.itineraries[i] = r.itinerary; else ed.itineraries.push(r.itinerary);
      showProgress(r.progress); say("it-msg", t("ed_saved2", { id: r.itinerary.id }) + boundWords(r) + t("ed_tap_the_next_itinerary"), "ok"); clearIt();
      return true;
    } catch (e) { say("it-msg", problems(e), "err"); return false; }
  }
  $("remove-it").addEventListener("click", async () => {
    if (!it.old || !confirm(t("ed_remove2", { old: it.old }))) return;
    try { const r = await api("DELETE", `/api/library/${encodeURIComponent(name)}/itineraries/${encodeURIComponent(it.old)}`); ed.itineraries = ed.itineraries.filter((x) => x.id !== it.old); showProgress(r.progress); clearIt(); }
    catch (e) { say("it-msg", problems(e), "err"); }
  });

  // --- playmat and treks -----------------------------------------------------------------
  // A position shows what the edition holds (a new edition: its base's, to be checked);
  // the first tap on it, a benefit or ⌫, starts it afresh, so retyping costs no ⌫ first.
  let slots = [], fresh = new Set();
  function drawMat() {
    if (!ed) return;
    slots = (ed.slots || [[], [], [], [], [], []]).map((s) => [...s]);
    fresh = new Set(slots.map((_, i) => i));
    const box = $("slots"); box.textContent = "";
    slots.forEach((s, i) => {
      const row = document.createElement("div"); row.className = "slot";
      const label = document.createElement("b"); label.textContent = `${t("ed_position")} ${i}`;
      const shown = document.createElement("span"); shown.className = "chips";
      const tokens = document.createElement("div"); tokens.className = "tokens";
      const draw = () => { shown.textContent = slots[i].map((g) => SHORT[g]).join(" + ") || t("ed_none"); shown.classList.toggle("kept", fresh.has(i)); };
      const afresh = () => { if (fresh.delete(i)) slots[i] = []; };
      for (const g of BENEFITS) tokens.append(btn(SHORT[g], () => { afresh(); slots[i].push(g); draw(); }, g));
      row.append(label, shown, btn("⌫", () => { if (!fresh.has(i)) slots[i].pop(); afresh(); draw(); }, "back"), tokens); box.append(row); draw();
    });
    const treks = $("treks"); treks.textContent = "";
    for (let i = 0; i < 10; i++) { const inp = document.createElement("input"); inp.inputMode = "numeric"; inp.value = (ed.treks || [])[i] ?? ""; inp.setAttribute("aria-label", i ? t("ed_cards2", { i: i + 1 }) : t("ed_1_card")); inp.placeholder = `${i + 1}`; treks.append(inp); }
    // Typing replaces a field's number (they hold the base's values), and the keyboard's
    // Next goes to the following field: the trek table is typed with no taps in between.
    const fields = [...treks.children, $("beyond")];
    fields.forEach((inp, i) => {
      inp.enterKeyHint = i + 1 < fields.length ? "next" : "done";
      if (inp.dataset.wired) return; // #beyond stays from one drawing to the next
      inp.dataset.wired = "1";
      for (const ev of ["focus", "click"]) inp.addEventListener(ev, () => inp.select());
    });
    treks.onkeydown = (ev) => { if (ev.key !== "Enter") return; ev.preventDefault(); const i = fields.indexOf(ev.target); if (i >= 0 && i + 1 < fields.length) fields[i + 1].focus(); };
    $("beyond").value = ed.trek_beyond ?? 3;
  }
  $("save-mat").addEventListener("click", async () => {
    const treks = [...$("treks").children].map((i) => i.value.trim());
    try { const r = await api("PUT", `/api/library/${encodeURIComponent(name)}/playmat`, { slots, treks, trek_beyond: $("beyond").value.trim() }); ed.slots = slots; ed.treks = treks.map(Number); showProgress(r.progress); say("mat-msg", t("ed_saved_the_playmat_and"), "ok"); }
    catch (e) { say("mat-msg", problems(e), "err"); }
  });

  // --- the Ancestor ---------------------------------------------------------------------
  function drawAnc(reset) {
    if (!ed) return;
    if (reset !== false && ed.ancestor && anc.loaded !== name) { anc.hours = ed.ancestor.hours; anc.gains = [...ed.ancestor.gains]; anc.loaded = name; const a = ed.ancestors || {}; $("anc-2").value = a["2"] ?? ""; $("anc-3").value = a["3"] ?? ""; $("anc-4").value = a["4"] ?? ""; }
    for (const b of $("anc-hours").children) b.classList.toggle("on", +b.dataset.v === anc.hours);
    $("anc-gains").textContent = anc.gains.map((g) => SHORT[g]).join(" + ") || t("ed_no_benefit");
  }
  $("save-anc").addEventListener("click", () => saveAnc());
  // Saves the Ancestor (binding the sticker tapped last); true when it was saved.
  async function saveAnc() {
    const copies = { 2: $("anc-2").value.trim(), 3: $("anc-3").value.trim(), 4: $("anc-4").value.trim() };
    const body = { hours: anc.hours, gains: anc.gains, copies };
    if (anc.tag) body.tag = anc.tag;
    try { const r = await api("PUT", `/api/library/${encodeURIComponent(name)}/ancestor`, body); ed.ancestor = { hours: anc.hours, gains: [...anc.gains] }; showProgress(r.progress); say("anc-msg", t("ed_saved_the_ancestor") + boundWords(r), "ok"); anc.tag = null; return true; }
    catch (e) { say("anc-msg", problems(e), "err"); return false; }
  }

  // --- sharing --------------------------------------------------------------------------
  async function download(format, suffix) {
    try {
      const r = await fetch(`/api/library/${encodeURIComponent(name)}/export?format=${format}`, { headers: { "X-CSRF-Token": csrf } });
      if (!r.ok) { const data = await r.json(); throw Object.assign(new Error(data.error), { data, status: r.status }); }
      const a = document.createElement("a"); a.href = URL.createObjectURL(await r.blob()); a.download = name + suffix; a.click();
    } catch (e) { say("share-msg", problems(e), "err"); }
  }
  $("dl-json").addEventListener("click", () => download("json", ".json"));
  $("dl-csv").addEventListener("click", () => download("csv", "-cards.csv"));
  $("dl-its").addEventListener("click", () => download("itineraries-csv", "-itineraries.csv"));
  $("import-file").addEventListener("change", async () => {
    const f = $("import-file").files[0]; if (!f) return;
    try { const r = await api("POST", "/api/library/import", { text: await f.text() }); say("share-msg", t("ed_imported_as", { name: r.name }), "ok"); await listEditions(r.name); }
    catch (e) { say("share-msg", problems(e), "err"); }
  });
  $("make-default").addEventListener("click", async () => {
    try { await api("POST", `/api/library/${encodeURIComponent(name)}/default`); say("share-msg", t("ed_new_games_now_use", { name }), "ok"); }
    catch (e) { say("share-msg", problems(e), "err"); }
  });
  $("delete-ed").addEventListener("click", async () => {
    if (!confirm(t("ed_delete_the_edition_games", { name }))) return;
    try { await api("DELETE", `/api/library/${encodeURIComponent(name)}`); await listEditions(); }
    catch (e) { say("share-msg", problems(e), "err"); }
  });
  window.addEventListener("pagehide", () => { if (csrf) navigator.sendBeacon && fetch("/api/library/transcribe", { method: "POST", keepalive: true, headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf }, body: JSON.stringify({ edition: null }) }); });

  // The page's fixed words in French (the English ones are in edition.html).
  // The page's own text (edition.html is written in English): each text, placeholder and
  // label that is an English sentence of the catalogue (keys "edp_…") is put in the page's language.
  const PAGE_WORDS = Object.keys(CATALOGUES.en).filter((k) => k.startsWith("edp_"));
  const WORDS = Object.fromEntries(PAGE_WORDS.map((k) => [CATALOGUES.en[k], t(k)]));

  if (FR) {
    document.documentElement.lang = "fr";
    $("bce").textContent = t("bce");
    const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let n = walk.nextNode(); n; n = walk.nextNode()) {
      const key = n.nodeValue.trim();
      if (WORDS[key]) n.nodeValue = n.nodeValue.replace(key, WORDS[key]);
    }
    for (const el of document.querySelectorAll("[placeholder]")) if (WORDS[el.placeholder]) el.placeholder = WORDS[el.placeholder];
    for (const el of document.querySelectorAll("[aria-label]")) {
      const label = el.getAttribute("aria-label");
      if (WORDS[label]) el.setAttribute("aria-label", WORDS[label]);
    }
  }

  start().catch((e) => { document.body.append(problems(e)); });
})();

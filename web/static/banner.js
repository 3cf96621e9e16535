// The top of the page: the Day, whose turn it is and what the table waits for (the banner),
// the quick-turn hint, the mover's own buttons, and the latest outcome (`#last`).
import { message, sentence, t } from "./i18n.js";
import { $, DAYS, cardTitle, colourOf, page } from "./page.js";

export function renderBanner(s) {
  $("day").textContent = `${t("day")} ${DAYS[s.day - 1]}`;
  const e = s.expect;
  const armed = s.armed ? " · " + t("armed", { p: s.turn, n: s.armed }) : "";
  let text;
  if (s.finished) {
    text = t("game_over_banner");
  } else if (!e) {
    text = "";
  } else if (e.kind === "reveal") {
    text = t("waiting_reveal");
  } else if (e.kind === "itinerary") {
    text = t("waiting_itinerary", { p: e.player }) + armed;
  } else if (e.kind === "confirm" && s.pending) {
    const p = s.pending;
    text = t(p.crystals < p.max_crystals ? "confirm_take" : "confirm_take_max", { p: p.player, c: cardTitle(p.card), h: p.landing });
  } else {
    text = t("turn", { p: s.turn }) + (armed || (s.order && s.order.length > 1 ? " · " + t("next", { p: s.order[1] }) : ""));
  }
  // Tell a new family the quick turn: the mover holds a crystal and has chosen none yet.
  const mover = s.players.find((q) => q.name === s.turn) || {};
  const hint = !s.finished && s.turn_style === "quick" && e && e.kind === "take" && !s.pending && !s.armed && mover.crystals > 0;
  $("hint").hidden = !hint;
  $("hint").textContent = hint ? t("quick_hint") : "";
  const banner = $("banner");
  banner.textContent = text;
  if (s.finished) {  // the results are at the top of the page: the banner takes you there
    const link = document.createElement("a");
    link.href = "#end"; link.className = "to-results"; link.textContent = text;
    banner.replaceChildren(link);
  }
  banner.className = "banner" + (e && e.kind === "reveal" ? " reveal" : "");
  banner.style.borderLeftColor = colourOf(e && e.player ? e.player : s.turn);
  const mine = !!(page.csrf && s.mock && !s.finished);
  $("now-buttons").hidden = !mine;
  if (mine) {
    const canCrystal = s.pending ? s.pending.crystals < s.pending.max_crystals
      : s.turn_style === "quick" ? !!(mover.itinerary && mover.crystals > s.armed) : false;
    $("now-crystal").dataset.off = canCrystal ? "" : "1";  // `showBusy` adds the busy state to it
    $("now-confirm").hidden = !s.pending;
  }
  renderLast(s.last);
}

let lastShown = null;
/** The latest outcome shown again (in a new language). */
export function rerenderLast() { if (lastShown) renderLast(lastShown); }

export function renderLast(last) {
  lastShown = last;
  const el = $("last");
  const text = sentence(message(last), ((page.state && page.state.players) || []).map((p) => p.name));
  if (!text) { el.textContent = ""; el.className = "last"; return; }
  el.textContent = (last.accepted ? "" : "✗ ") + text;
  el.className = "last " + (last.accepted ? "ok" : "bad");
  if (last.code === "unknown_tag" && last.params && last.params.why === "unknown" && page.csrf) {
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

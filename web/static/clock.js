// The Clock drawn from the game (not the LEDs): the twelve hours, every watch as a token
// in its player's colour on the rim (stacked watches side by side, the top one first clockwise),
// the player to move ringed, and the landing preview as a dashed ring with the path to it.
import { mark } from "./chart.js";
import { $, colourOf, esc, markOf } from "./page.js";

export function renderClock(s) {
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
  for (const watches of Object.values(byHour)) watches.sort((a, b) => rank(a) - rank(b));  // the top one first (clockwise)
  for (const [hour, stack] of Object.entries(byHour)) {
    stack.forEach((q, k) => {
      // side by side on the rim (half an hour apart, centred on the hour), clear of the hour
      // numbers: the "12" stays readable at a Day's start, when every watch is on it
      const [x, y] = pt(+hour + (k - (stack.length - 1) / 2) * 0.5, 100);
      const turn = q.name === mover;
      out += `<g class="watch"><circle cx="${x}" cy="${y}" r="${turn ? 10 : 8}" fill="${esc(q.colour)}" stroke="currentColor" stroke-width="${turn ? 3 : 1}"><title>${esc(q.name)}: ${q.hour}</title></circle>` +
        `<text x="${x}" y="${(+y + 4).toFixed(1)}" font-size="10" font-weight="700" text-anchor="middle" fill="#000" aria-hidden="true">${mark(q.marker)}</text></g>`;
    });
  }
  svg.innerHTML = out;
  svg.setAttribute("aria-label", s.players.map((q) => `${q.name} ${q.hour}`).join(", "));
  $("order").innerHTML = "<ol>" + (s.order || []).map((name) => `<li>${markOf(name)}\u00a0${esc(name)}</li>`).join("") + "</ol>";
}

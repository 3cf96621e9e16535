// The score charts, drawn by one module for the end screen and the history page: each player's
// line has its own dash pattern and marker as well as its colour, with axes, a legend and a
// summary for screen readers, so players are told apart without colour.
import { esc } from "./text.js";

export const DASHES = ["", "8 4", "2 4", "10 3 2 3"];
// A player's marker is an index in MARKS, kept with the player (companion/table/marks.py,
// whose MARKERS is its length): shapes every phone's fonts have. Its dash is DASHES[marker % 4].
export const MARKS = ["●", "■", "▲", "◆", "▼", "○", "□", "△"];

// The SVG of one chart. `lines`: [{name, colour, marker, points: [[i, value, title?]]}], `count`
// the number of steps on the x axis; `bottom`/`height` place the plot in the picture
// and `labelAt` the x axis's label;
// `zero` draws the zero line; `everyPoint` marks each point (with its title), else only the end.
export function chartSvg({ lines, count, xLabel, yLabel, bottom, height, labelAt, zero = false, everyPoint = false }) {
  const values = lines.flatMap((l) => l.points.map((p) => p[1]));
  const max = Math.max(1, ...values), min = Math.min(0, ...values);
  const x = (i) => 40 + (count === 1 ? 135 : (i / (count - 1)) * 270);
  const y = (v) => bottom - ((v - min) / (max - min)) * height;
  let out = zero ? `<line x1="40" y1="${y(0)}" x2="310" y2="${y(0)}" stroke="currentColor" stroke-opacity=".3"/>` : "";
  out += `<line x1="40" y1="15" x2="40" y2="${bottom}" stroke="currentColor"/><line x1="40" y1="${bottom}" x2="310" y2="${bottom}" stroke="currentColor"/>`;
  for (const v of [min, Math.round((min + max) / 2), max]) out += `<text x="35" y="${(y(v) + 4).toFixed(1)}" font-size="10" text-anchor="end" fill="currentColor">${v}</text>`;
  out += `<text x="175" y="${labelAt}" font-size="10" text-anchor="middle" fill="currentColor">${esc(xLabel)}</text>`;
  out += `<text x="8" y="80" font-size="10" text-anchor="middle" fill="currentColor" transform="rotate(-90 8 80)">${esc(yLabel)}</text>`;
  lines.forEach((line, k) => {
    const colour = esc(line.colour);
    const m = typeof line.marker === "number" ? line.marker : k;
    const title = everyPoint ? "" : `<title>${esc(line.name)}</title>`;
    out += `<polyline points="${line.points.map(([i, v]) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(" ")}" fill="none" stroke="${colour}" stroke-width="2.5" stroke-dasharray="${DASHES[m % 4]}">${title}</polyline>`;
    if (everyPoint) {
      for (const [i, v, name] of line.points) out += `<text x="${x(i).toFixed(1)}" y="${(y(v) + 4).toFixed(1)}" font-size="10" text-anchor="middle" fill="${colour}"><title>${esc(name)}</title>${MARKS[m % MARKS.length]}</text>`;
    } else if (line.points.length) {
      const last = line.points[line.points.length - 1];
      out += `<text x="312" y="${(y(last[1]) + 4).toFixed(1)}" font-size="10" fill="${colour}" aria-hidden="true">${MARKS[m % MARKS.length]}</text>`;
    }
  });
  return out;
}

// The legend's sample of a player's line (its colour and dash, by their marker).
export function lineSample(colour, marker) {
  return `<svg width="34" height="10" aria-hidden="true"><line x1="0" y1="5" x2="34" y2="5" stroke="${esc(colour)}" stroke-width="3" stroke-dasharray="${DASHES[marker % 4]}"/></svg>`;
}
// A player's marker in their colour, beside their name (told apart without colour too).
export function markSpan(colour, marker) {
  return `<span class="mark" style="color:${esc(colour)}" aria-hidden="true">${MARKS[(marker || 0) % MARKS.length]}</span>`;
}

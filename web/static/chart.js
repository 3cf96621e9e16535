// The score charts, drawn by one module for the end screen and the history page: each player's
// line has its own dash pattern and marker as well as its colour, with axes, a legend and a
// summary for screen readers, so players are told apart without colour.
import { esc } from "./text.js";

// The history page's colours, one per player across games (the seats' own colours first:
// Okabe-Ito, distinguishable with the common colour-vision deficiencies).
export const PALETTE = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#D55E00", "#56B4E9", "#7F7F00", "#888888"];
export const DASHES = ["", "8 4", "2 4", "10 3 2 3"];
export const MARKS = ["●", "■", "▲", "◆"];

// The SVG of one chart. `lines`: [{name, colour, points: [[i, value, title?]]}], `count`
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
    const title = everyPoint ? "" : `<title>${esc(line.name)}</title>`;
    out += `<polyline points="${line.points.map(([i, v]) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(" ")}" fill="none" stroke="${colour}" stroke-width="2.5" stroke-dasharray="${DASHES[k % 4]}">${title}</polyline>`;
    if (everyPoint) {
      for (const [i, v, name] of line.points) out += `<text x="${x(i).toFixed(1)}" y="${(y(v) + 4).toFixed(1)}" font-size="10" text-anchor="middle" fill="${colour}"><title>${esc(name)}</title>${MARKS[k % 4]}</text>`;
    } else if (line.points.length) {
      const last = line.points[line.points.length - 1];
      out += `<text x="312" y="${(y(last[1]) + 4).toFixed(1)}" font-size="10" fill="${colour}" aria-hidden="true">${MARKS[k % 4]}</text>`;
    }
  });
  return out;
}

// The legend's sample of player k's line (its colour and dash).
export function lineSample(colour, k) {
  return `<svg width="34" height="10" aria-hidden="true"><line x1="0" y1="5" x2="34" y2="5" stroke="${esc(colour)}" stroke-width="3" stroke-dasharray="${DASHES[k % 4]}"/></svg>`;
}

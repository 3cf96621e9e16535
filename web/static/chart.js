// The charts, drawn by one module for the end screen and the history page: each player's
// line has its own dash pattern and marker as well as its colour, with axes, a legend and a
// summary for screen readers, so players are told apart without colour. The scores game after
// game (`chartSvg`, /history) and a game's story (`drawStory`, below).
import { colon, t } from "./i18n.js";
import { esc } from "./text.js";

export const DASHES = ["", "8 4", "2 4", "10 3 2 3"];
// A player's marker is an index in MARKS, kept with the player (companion/table/marks.py,
// whose MARKERS is its length): shapes every phone's fonts have. Its dash is DASHES[marker % 4].
export const MARKS = ["●", "■", "▲", "◆", "▼", "○", "□", "△"];
export function mark(marker) { return MARKS[(marker || 0) % MARKS.length]; }
function dash(marker) { return DASHES[(marker || 0) % DASHES.length]; }

// The scores game after game (/history). `lines`: [{name, colour, marker, points: [[i, value,
// title]]}], `count` the games on the x axis; each point is marked, with its title.
export function chartSvg({ lines, count, xLabel, yLabel }) {
  const values = lines.flatMap((l) => l.points.map((p) => p[1]));
  const max = Math.max(1, ...values), min = Math.min(0, ...values);
  const x = (i) => 40 + (count === 1 ? 135 : (i / (count - 1)) * 270);
  const y = (v) => 145 - ((v - min) / (max - min)) * 130;
  let out = `<line x1="40" y1="15" x2="40" y2="145" stroke="currentColor"/><line x1="40" y1="145" x2="310" y2="145" stroke="currentColor"/>`;
  for (const v of [min, Math.round((min + max) / 2), max]) out += `<text x="35" y="${(y(v) + 4).toFixed(1)}" font-size="10" text-anchor="end" fill="currentColor">${v}</text>`;
  out += `<text x="175" y="163" font-size="10" text-anchor="middle" fill="currentColor">${esc(xLabel)}</text>`;
  out += `<text x="8" y="80" font-size="10" text-anchor="middle" fill="currentColor" transform="rotate(-90 8 80)">${esc(yLabel)}</text>`;
  lines.forEach((line, k) => {
    const colour = esc(line.colour);
    const m = typeof line.marker === "number" ? line.marker : k;
    out += `<polyline points="${line.points.map(([i, v]) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(" ")}" fill="none" stroke="${colour}" stroke-width="2.5" stroke-dasharray="${dash(m)}"></polyline>`;
    for (const [i, v, name] of line.points) out += `<text x="${x(i).toFixed(1)}" y="${(y(v) + 4).toFixed(1)}" font-size="10" text-anchor="middle" fill="${colour}"><title>${esc(name)}</title>${mark(m)}</text>`;
  });
  return out;
}

// The legend's sample of a player's line (its colour and dash, by their marker).
export function lineSample(colour, marker) {
  return `<svg width="34" height="10" aria-hidden="true"><line x1="0" y1="5" x2="34" y2="5" stroke="${esc(colour)}" stroke-width="3" stroke-dasharray="${dash(marker)}"/></svg>`;
}
// A player's marker in their colour, beside their name (told apart without colour too).
export function markSpan(colour, marker) {
  return `<span class="mark" style="color:${esc(colour)}" aria-hidden="true">${mark(marker)}</span>`;
}

// --- a game's story ---------------------------------------------------------------------------
// A finished game's story (/api/story/<game>): every player's points (above) and hour on the
// Clock (below) after each turn, the Days apart, a trek completed or an Ancestor taken marked on
// the taker's line; a legend explains the marks, a table says it all again for a screen reader,
// and the whole saves as one SVG made here (no network).

const LEFT = 40, RIGHT = 300, ROMAN = ["I", "II", "III"];
const POINTS = { top: 10, bottom: 118, height: 130 };  // the points' plot, and its picture's height
const CLOCK = { top: 22, bottom: 92, height: 118 };  // the Clock's (0 to 12 h)

function dayName(d) { return `${t("day")} ${ROMAN[d - 1] || d}`; }

// The players of the story in seat order, each with the colour and marker the page shows them in
// (`players`: the page's own list, matched by name; a name it lacks gets a grey line).
function seats(story, players) {
  return story.names.map((name, k) => {
    const p = players.find((q) => q.name === name) || players[k] || {};
    return { name, colour: p.colour || "#888888", marker: typeof p.marker === "number" ? p.marker : k };
  });
}

// Where the story's points sit: point 0 is the start, point i+1 is after turn i; a Day's span
// runs from the point its first turn starts from to its last turn's.
function layout(story) {
  const count = story.turns.length;
  const x = (i) => LEFT + (count ? (i / count) * (RIGHT - LEFT) : 0);
  const days = [];
  story.turns.forEach((turn, k) => {
    const last = days[days.length - 1];
    if (!last || last.day !== turn.day) days.push({ day: turn.day, from: k, to: k + 1 });
    else last.to = k + 1;
  });
  return { count, x, days };
}

// The marks of a take: a bar across the line for a trek completed, a ring for an Ancestor.
function trekMark(cx, cy, colour) {
  return `<line x1="${cx}" y1="${cy - 7}" x2="${cx}" y2="${cy + 7}" stroke="${colour}" stroke-width="3" stroke-linecap="round"/>`;
}
function ancestorMark(cx, cy, colour) {
  return `<circle cx="${cx}" cy="${cy}" r="4.5" fill="none" stroke="${colour}" stroke-width="2"/>`;
}

// A picture's two axes from ``top`` to ``bottom``, its values at ``ticks`` (placed by ``y``), its turned label.
function axes(top, bottom, ticks, y, label) {
  const mid = (top + bottom) / 2;
  let out = `<line x1="${LEFT}" y1="${top}" x2="${LEFT}" y2="${bottom}" stroke="currentColor"/><line x1="${LEFT}" y1="${bottom}" x2="${RIGHT}" y2="${bottom}" stroke="currentColor"/>`;
  for (const v of ticks) out += `<text x="35" y="${(y(v) + 4).toFixed(1)}" font-size="12" text-anchor="end" fill="currentColor">${v}</text>`;
  return out + `<text x="10" y="${mid}" font-size="12" text-anchor="middle" fill="currentColor" transform="rotate(-90 10 ${mid})">${esc(label)}</text>`;
}

function daySeparators(days, x, top, bottom) {
  return days.slice(1).map((d) => `<line x1="${x(d.from).toFixed(1)}" y1="${top}" x2="${x(d.from).toFixed(1)}" y2="${bottom}" stroke="currentColor" stroke-opacity=".45" stroke-dasharray="3 3"/>`).join("");
}

// The points' picture: one line per player, the marks on the taker's line, its end marker.
export function pointsSvg(story, players) {
  const who = seats(story, players);
  const { count, x, days } = layout(story);
  const rows = [story.start, ...story.turns.map((turn) => turn.totals)];
  const max = Math.max(1, ...rows.flat()), min = Math.min(0, ...rows.flat());
  const y = (v) => POINTS.bottom - ((v - min) / (max - min)) * (POINTS.bottom - POINTS.top);
  let out = axes(POINTS.top, POINTS.bottom, [min, Math.round((min + max) / 2), max], y, t("chart_y"));
  out += daySeparators(days, x, POINTS.top, POINTS.bottom);
  who.forEach((p, k) => {
    const colour = esc(p.colour);
    out += `<polyline points="${rows.map((row, i) => `${x(i).toFixed(1)},${y(row[k]).toFixed(1)}`).join(" ")}" fill="none" stroke="${colour}" stroke-width="2.5" stroke-dasharray="${dash(p.marker)}"><title>${esc(p.name)}</title></polyline>`;
    if (count) out += `<text x="${RIGHT + 3}" y="${(y(rows[count][k]) + 4).toFixed(1)}" font-size="12" fill="${colour}" aria-hidden="true">${mark(p.marker)}</text>`;
  });
  story.turns.forEach((turn, k) => {
    if (!turn.trek && !turn.ancestor) return;
    const p = who[turn.seat];
    const cx = x(k + 1).toFixed(1), cy = y(turn.totals[turn.seat]);
    const colour = esc(p.colour);
    if (turn.trek) out += `<g class="mark-trek"><title>${esc(t("story_trek_of", { p: p.name }))}</title>${trekMark(cx, cy, colour)}</g>`;
    if (turn.ancestor) out += `<g class="mark-ancestor"><title>${esc(t("log_take_ancestor", { p: p.name }))}</title>${ancestorMark(cx, cy, colour)}</g>`;
  });
  return out;
}

// The Clock's picture: each player's hour after each turn, from 0 to 12 within each Day (a Day
// starts every watch at 0 again), the Days named above their turns, the turns' axis below.
export function clockSvg(story, players) {
  const who = seats(story, players);
  const { x, days } = layout(story);
  const y = (h) => CLOCK.bottom - (h / 12) * (CLOCK.bottom - CLOCK.top);
  let out = axes(CLOCK.top, CLOCK.bottom, [0, 6, 12], y, t("story_clock_axis"));
  out += daySeparators(days, x, CLOCK.top - 12, CLOCK.bottom);
  for (const d of days) out += `<text x="${((x(d.from) + x(d.to)) / 2).toFixed(1)}" y="${CLOCK.top - 6}" font-size="12" text-anchor="middle" fill="currentColor">${esc(dayName(d.day))}</text>`;
  out += `<text x="${(LEFT + RIGHT) / 2}" y="${CLOCK.bottom + 18}" font-size="12" text-anchor="middle" fill="currentColor">${esc(t("story_turns_axis"))}</text>`;
  who.forEach((p, k) => {
    const path = days.map((d) => `M${x(d.from).toFixed(1)},${y(0)}` + story.turns.slice(d.from, d.to)
      .map((turn, j) => `L${x(d.from + j + 1).toFixed(1)},${y(turn.clock[k]).toFixed(1)}`).join("")).join("");
    out += `<path class="clock-line" d="${path}" fill="none" stroke="${esc(p.colour)}" stroke-width="2" stroke-dasharray="${dash(p.marker)}"><title>${esc(p.name)}</title></path>`;
  });
  return out;
}

// What the pictures say, in words: each player's final points, and how many marks of each kind.
export function pointsLabel(story, players) {
  const last = story.turns.length ? story.turns[story.turns.length - 1].totals : story.start;
  const treks = story.turns.filter((turn) => turn.trek).length, ancestors = story.turns.filter((turn) => turn.ancestor).length;
  return `${t("story_title")}${colon()}${seats(story, players).map((p, k) => `${p.name} ${last[k]}`).join(", ")}; ${t("story_marks_count", { n: treks, a: ancestors })}`;
}

// The legend: each player's line, marker, name and final points (`playersLegend`), then what the
// two marks mean (`marksLegend`), each mark drawn as on the chart.
function sample(inner) { return `<svg width="34" height="14" aria-hidden="true">${inner}</svg>`; }
export function playersLegend(story, players) {
  const last = story.turns.length ? story.turns[story.turns.length - 1].totals : story.start;
  return seats(story, players).map((p, k) => `<li>${sample(`<line x1="0" y1="7" x2="34" y2="7" stroke="${esc(p.colour)}" stroke-width="3" stroke-dasharray="${dash(p.marker)}"/>`)} ${markSpan(p.colour, p.marker)} ${esc(p.name)} (${last[k]})</li>`).join("");
}
export function marksLegend() {
  const base = `<line x1="0" y1="7" x2="34" y2="7" stroke="currentColor" stroke-opacity=".5"/>`;
  return `<li class="story-trek">${sample(base + trekMark(17, 7, "currentColor"))} ${esc(t("story_trek"))}</li>` +
    `<li class="story-ancestor">${sample(base + ancestorMark(17, 7, "currentColor"))} ${esc(t("story_ancestor"))}</li>`;
}

// The story again as a table, for a screen reader and anyone who would rather read: a row per
// turn (who took, what it completed), each player's points and hour after it, a row per Day.
export function tableHtml(story, players) {
  const who = seats(story, players);
  const head = `<thead><tr><th scope="col">${esc(t("story_turn"))}</th><th scope="col">${esc(t("player"))}</th>` +
    who.map((p) => `<th scope="col">${markSpan(p.colour, p.marker)} ${esc(p.name)}</th>`).join("") + "</tr></thead>";
  let body = "", day = 0;
  story.turns.forEach((turn, k) => {
    if (turn.day !== day) {
      day = turn.day;
      body += `<tr class="story-day"><th scope="rowgroup" colspan="${who.length + 2}">${esc(dayName(day))}</th></tr>`;
    }
    const p = who[turn.seat];
    const notes = [turn.trek ? t("story_trek") : "", turn.ancestor ? t("ancestor") : ""].filter(Boolean);
    body += `<tr><td>${k + 1}</td><td>${esc(p.name)}${notes.length ? `<br><small>${esc(notes.join(", "))}</small>` : ""}</td>` +
      who.map((_, j) => `<td>${turn.totals[j]}<br><small>${esc(t("story_hour", { h: turn.clock[j] }))}</small></td>`).join("") + "</tr>";
  });
  return `<caption>${esc(t("story_table_note"))}</caption>${head}<tbody>${body}</tbody>`;
}

// An empty figure for `drawStory` (the end screen has its own in index.html, with ids).
export function storyFrame() {
  return `<svg class="story-points" viewBox="0 0 330 ${POINTS.height}" role="img"></svg>` +
    `<svg class="story-clock" viewBox="0 0 330 ${CLOCK.height}" role="img"></svg>` +
    `<ul class="chart-legend story-legend"></ul><ul class="chart-legend story-marks"></ul>` +
    `<details class="story-table-box"><summary></summary><div class="story-table-wrap"><table class="story-table"></table></div></details>`;
}

// Draw game ``game``'s ``story`` into a figure laid out as `storyFrame`'s (found by class inside
// ``root``): both pictures, the legend, the table folded under it, each picture's words for a
// screen reader; and the link ``save`` that saves it as one picture (`saveSvg`), shown.
export function drawStory(root, story, players, save, game) {
  const part = (name) => root.querySelector(name);
  part(".story-points").innerHTML = pointsSvg(story, players);
  part(".story-points").setAttribute("aria-label", pointsLabel(story, players));
  part(".story-clock").innerHTML = clockSvg(story, players);
  part(".story-clock").setAttribute("aria-label", t("story_clock_label"));
  part(".story-legend").innerHTML = playersLegend(story, players);
  part(".story-marks").innerHTML = marksLegend();
  part(".story-table-box summary").textContent = t("story_table");
  part(".story-table").innerHTML = tableHtml(story, players);
  const title = `${t("story_title")} · ${t("h_game", { id: game })}`;
  save.href = "data:image/svg+xml;charset=utf-8," + encodeURIComponent(saveSvg(story, players, title));
  save.download = `trekking-game-${game}.svg`;
  save.hidden = false;
}

// The chart as one picture to share, made here (no network): the title, both pictures, the
// legend with each player's marker, name and points and what the marks mean, in one SVG file.
export function saveSvg(story, players, title) {
  const who = seats(story, players);
  const last = story.turns.length ? story.turns[story.turns.length - 1].totals : story.start;
  const top = 20, clockAt = top + POINTS.height, legendAt = clockAt + CLOCK.height + 8;
  let legend = who.map((p, k) => `<line x1="40" y1="${legendAt + k * 18}" x2="70" y2="${legendAt + k * 18}" stroke="${esc(p.colour)}" stroke-width="3" stroke-dasharray="${dash(p.marker)}"/>` +
    `<text x="76" y="${legendAt + k * 18 + 4}" font-size="12" fill="${esc(p.colour)}">${mark(p.marker)} <tspan fill="#222">${esc(p.name)} (${last[k]})</tspan></text>`).join("");
  const marksAt = legendAt + who.length * 18;
  legend += `${trekMark(55, marksAt, "#222")}<text x="76" y="${marksAt + 4}" font-size="12" fill="#222">${esc(t("story_trek"))}</text>`;
  legend += `${ancestorMark(55, marksAt + 18, "#222")}<text x="76" y="${marksAt + 22}" font-size="12" fill="#222">${esc(t("story_ancestor"))}</text>`;
  const height = marksAt + 34;
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 330 ${height}" width="660" height="${height * 2}" color="#222" font-family="sans-serif">` +
    `<title>${esc(title)}</title><rect width="330" height="${height}" fill="#fff"/>` +
    `<text x="165" y="14" font-size="12" text-anchor="middle" fill="#222">${esc(title)}</text>` +
    `<g transform="translate(0 ${top})">${pointsSvg(story, players)}</g><g transform="translate(0 ${clockAt})">${clockSvg(story, players)}</g>${legend}</svg>`;
}

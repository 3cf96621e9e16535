// Text put into the page's HTML: the one escape every module uses (names typed by people,
// titles from an edition).
export function esc(s) {
  return String(s ?? "").replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c]));
}
// A select's options as [value, label]: the choice made is kept, and a select is never left blank.
export function fillSelect(select, values) {
  const current = select.value;
  const html = values.map(([v, label]) => `<option value="${esc(v)}">${esc(label)}</option>`).join("");
  if (select.dataset.html !== html) {
    select.innerHTML = html; select.dataset.html = html;
    select.value = values.some(([v]) => v === current) ? current : (values[0] || [""])[0];
  }
}

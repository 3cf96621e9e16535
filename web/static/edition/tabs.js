// The tabs (Cards, Itineraries, Playmat, Ancestor, Share): one shown at a time.
for (const b of document.querySelectorAll("#tabs button")) {
  b.addEventListener("click", () => {
    for (const o of document.querySelectorAll("#tabs button")) o.classList.toggle("on", o === b);
    for (const tab of document.querySelectorAll(".tab")) tab.hidden = tab.id !== "tab-" + b.dataset.tab;
  });
}
/** The tab on screen: "cards", "its", "mat", "anc" or "share". */
export const currentTab = () => document.querySelector("#tabs button.on").dataset.tab;
/** Shows tab `name` (as its button's click does), if it is not already on screen. */
export const showTab = (name) => { if (currentTab() !== name) document.querySelector(`#tabs button[data-tab='${name}']`).click(); };

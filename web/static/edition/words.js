// The companion's answers in the page's language: what a save bound, what a saved card may
// have wrong, what still holds the base edition's values, and the progress line.
import { colon, message, t } from "../i18n.js";
import { $, showYear } from "./shared.js";

/** What still holds the base edition's values (`from_base` of progress, or of a refusal), in words. */
export function baseWords(fb) {
  const names = { ancestor: t("ed_the_ancestor"), playmat: t("ed_the_playmat"), treks: t("ed_the_trek_table") };
  const left = (fb.parts || []).map((x) => names[x] || x);
  if (fb.cards) left.push(fb.cards === 1 ? t("ed_1_card") : t("ed_cards", { cards: fb.cards }));
  if (fb.itineraries) left.push(fb.itineraries === 1 ? t("ed_1_itinerary") : t("ed_itineraries", { itineraries: fb.itineraries }));
  return left;
}

/** A sticker bound by a save (the answer's `binding`), in the page's language ("" when none). */
export function boundWords(r) {
  const b = r.binding;
  if (!b) return "";
  if (b.error) { // the edition is saved; the sticker could not be bound (a full disk): it is as it was
    // any other refusal of the store comes as its own code and params, worded by the catalogue
    const why = b.error === "disk_full" ? t("ed_the_companion_s_disk") : message({ code: b.error, params: b.params || {}, message: b.error });
    const kept = b.was ? t("ed_it_is_still", { was: b.was }) : t("ed_it_is_bound_to");
    return " " + t("ed_is_saved_but_tag", { card: b.card, tag: b.tag, why, kept });
  }
  if (b.was === b.card) return " " + t("ed_tag_was_already", { tag: b.tag, card: b.card });
  const was = b.was ? t("ed_it_was", { was: b.was }) : "";
  const card = b.card === "ancestor" ? t("ed_the_ancestor_tag") : b.card;
  return " " + t("ed_tag_is_now", { tag: b.tag, card, was });
}

/** A likely mistake in a saved card (the answer's `checks`: not a refusal), in the page's language. */
export function checkWords(c) {
  if (c.code === "year_outside_day") return t("ed_is_outside_day_s", { year: showYear(c.year), day: c.day, low: showYear(c.low), high: showYear(c.high) });
  return t("ed_looks_like", { id: c.id, title: c.title, year: showYear(c.year) });
}

/** The progress line: cards per Day, itineraries, and the parts still the base edition's. */
export function showProgress(p) {
  const days = Object.entries(p.days).map(([d, n]) => `${t("ed_day")} ${d}${colon()}${n}/${p.of.day}`).join(" · ");
  $("progress").textContent = `${days} · ${t("ed_progress_itineraries")}${colon()}${p.itineraries}/${p.of.itineraries}`;
  // parts copied from the base edition (the reference's are the team's values, not the box's)
  const left = baseWords(p.from_base || { parts: [], cards: 0, itineraries: 0 });
  if (left.length) $("progress").textContent += " · " + t("ed_not_entered_yet_still") + left.join(", ");
}

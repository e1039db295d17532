// Reading what the library hands over: a report (`assemble --json`, or a whole prompt's
// `context`), its chips, and the few facts a chip shows. Nothing here touches the page.

/** The chips of `report` (an object or its JSON text), in `index` order. */
export function chipsOf(report) {
  if (report == null) return [];
  const value = typeof report === 'string' ? JSON.parse(report) : report;
  // A whole prompt (`prompt --json`) carries the report as `context`.
  const citations = Array.isArray(value) ? value
    : value.citations ?? value.context?.citations ?? [];
  return [...citations].sort((a, b) => a.index - b.index);
}

/** The URL if its scheme is http or https (the only ones made links), else null. */
export function safeUrl(url) {
  if (typeof url !== 'string') return null;
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.href : null;
  } catch {
    return null;
  }
}

/** The host of an http(s) URL, or an empty string. */
export function hostOf(url) {
  const safe = safeUrl(url);
  return safe ? new URL(safe).host : '';
}

/** The title a chip shows: its title, else its URL (as the record says), else `[n]`. */
export function titleOf(chip) {
  return chip.title || chip.sourceUrl || `[${chip.index}]`;
}

/**
 * What a marker is called for a screen reader: "Source 2: Price list 2026". It starts with
 * the numbers the marker shows (`text`, brackets dropped), so the name holds the visible label.
 */
export function markerName(text, chips, unknown) {
  const numbers = text.slice(1, -1).trim();
  const plural = chips.length > 1 || unknown || /[^0-9]/.test(numbers);
  const titles = chips.map(titleOf).join('; ');
  return `${plural ? 'Sources' : 'Source'} ${numbers}: ${titles}${unknown ? '; a number names no source' : ''}`;
}

/** Creates an element with `part`, its text set as text (never parsed as markup). */
export function el(tag, part, text) {
  const node = document.createElement(tag);
  if (part) node.setAttribute('part', part);
  if (text !== undefined) node.textContent = text;
  return node;
}

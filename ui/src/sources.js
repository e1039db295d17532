// `<mentor-sources>`: one chip per citation of a report, in `index` order; each chip a
// disclosure button (WAI-ARIA disclosure pattern) over a card with the source's link, its
// shown metadata and whether its block was cut.

import { chipsOf, el, hostOf, safeUrl, titleOf } from './report.js';
import { styleSheet } from './style.js';

let nextCard = 0;

/** The chips of a report. */
export class MentorSources extends HTMLElement {
  #chips = [];
  #report = null;

  constructor() {
    super();
    this.attachShadow({ mode: 'open' }).adoptedStyleSheets = [styleSheet()];
    this.shadowRoot.addEventListener('keydown', (e) => {
      if (e.key !== 'Escape') return;
      const open = this.shadowRoot.querySelector('button[aria-expanded="true"]');
      if (open) { this.#toggle(open, false); open.focus(); }
    });
    // One listener for every chip (a thousand chips, one closure).
    this.shadowRoot.addEventListener('click', (e) => {
      const button = e.target.closest?.('li > button');
      if (button) this.#toggle(button, button.getAttribute('aria-expanded') !== 'true');
    });
  }

  /** The report (`assemble --json`, its JSON text, or a whole prompt) the chips are of. */
  get report() { return this.#report; }

  set report(value) {
    this.#report = value;
    this.#chips = chipsOf(value);
    this.#render();
  }

  /** The chips shown, in `index` order. */
  get chips() { return this.#chips; }

  /** Marks the chips numbered `indexes` (others unmarked): an answer's marker points at them. */
  highlight(indexes = []) {
    for (const li of this.shadowRoot.querySelectorAll('li')) {
      const on = indexes.includes(Number(li.dataset.index));
      li.toggleAttribute('data-highlighted', on);
      li.setAttribute('part', on ? 'chip chip-highlighted' : 'chip');
    }
  }

  /** Opens the card of chip `index` and moves focus to its chip. */
  open(index) {
    const button = this.shadowRoot.querySelector(`li[data-index="${Number(index)}"] > button`);
    if (button) { this.#toggle(button, true); button.focus(); }
  }

  #toggle(button, open) {
    button.setAttribute('aria-expanded', String(open));
    const div = this.shadowRoot.getElementById(button.getAttribute('aria-controls'));
    // Filled when first opened: a thousand chips cost a thousand buttons, not their cards.
    if (open && !div.childNodes.length) fill(div, this.#chips.find((c) => c.index === Number(button.parentElement.dataset.index)));
    div.hidden = !open;
  }

  #render() {
    const list = el('ol', 'list');
    list.setAttribute('aria-label', 'Sources');
    const template = chipTemplate();
    for (const chip of this.#chips) list.append(this.#chip(chip, template));
    this.shadowRoot.replaceChildren(list);
  }

  #chip(chip, template) {
    // A clone of one made chip, its texts and ids set: cheaper than building each anew.
    const li = template.cloneNode(true);
    li.dataset.index = chip.index;
    const id = `mentor-card-${nextCard += 1}`;
    const [button, div] = li.children;
    button.setAttribute('aria-controls', id);
    const [number, title, host] = button.children;
    number.textContent = chip.index;
    title.textContent = titleOf(chip);
    host.textContent = hostOf(chip.sourceUrl);
    if (!host.textContent) host.previousSibling.remove();
    div.id = id;
    div.setAttribute('aria-label', `Source ${chip.index}: ${title.textContent}`);
    return li;
  }
}

/** A chip with empty texts: a button (number, title, host) over its card, empty and hidden. */
function chipTemplate() {
  const li = el('li', 'chip');
  const button = el('button', 'chip-button');
  button.type = 'button';
  button.setAttribute('aria-expanded', 'false');
  const number = el('span', 'number');
  number.className = 'number';
  const host = el('span', 'host');
  host.className = 'host';
  button.append(number, ' ', el('span', 'title'), ' ', host);
  const div = el('div', 'card');
  div.className = 'card';
  div.hidden = true;
  div.setAttribute('role', 'region');
  li.append(button, div);
  return li;
}

/** Fills a card: the link (http/https only; any other URL is text), metadata, and cut. */
function fill(div, chip) {
  if (chip.sourceUrl) {
    const href = safeUrl(chip.sourceUrl);
    const link = el(href ? 'a' : 'span', 'link', chip.sourceUrl);
    if (href) { link.href = href; link.rel = 'noopener noreferrer'; link.target = '_blank'; }
    div.append(link);
  }
  const entries = Object.entries(chip.metadata ?? {});
  if (entries.length) {
    const dl = el('dl', 'metadata');
    for (const [key, value] of entries) dl.append(el('dt', '', key), el('dd', '', value ?? ''));
    div.append(dl);
  }
  // Said either way, so that no card is empty and the state is not told by color alone.
  const cut = el('p', 'cut', chip.truncated ? 'Cut to fit the context: the model saw only the start.'
    : 'Whole: the model saw all of it.');
  if (chip.truncated) cut.className = 'cut';
  div.append(cut);
}

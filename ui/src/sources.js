// `<mentor-sources>`: one chip per citation of a report, in `index` order; each chip a
// disclosure button (WAI-ARIA disclosure pattern) over a card with the source's link, its
// shown metadata and whether its block was cut.

import { chipsOf, el, hostOf, safeUrl, titleOf } from './report.js';
import { styleSheet } from './style.js';

let nextId = 0;

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
    this.shadowRoot.getElementById(button.getAttribute('aria-controls')).hidden = !open;
  }

  #render() {
    const list = el('ol', 'list');
    list.setAttribute('aria-label', 'Sources');
    for (const chip of this.#chips) list.append(this.#chip(chip));
    this.shadowRoot.replaceChildren(list);
  }

  #chip(chip) {
    const li = el('li', 'chip');
    li.dataset.index = chip.index;
    const id = `mentor-card-${nextId += 1}`;
    const button = el('button', 'chip-button');
    button.type = 'button';
    button.setAttribute('aria-expanded', 'false');
    button.setAttribute('aria-controls', id);
    const number = el('span', 'number', String(chip.index));
    number.className = 'number';
    const host = el('span', 'host', hostOf(chip.sourceUrl));
    host.className = 'host';
    button.append(number, ' ', el('span', 'title', titleOf(chip)));
    if (host.textContent) button.append(' ', host);
    button.addEventListener('click', () => this.#toggle(button, button.getAttribute('aria-expanded') !== 'true'));
    li.append(button, card(chip, id));
    return li;
  }
}

/** A chip's card: the link (http/https only; any other URL is text), metadata, and cut. */
function card(chip, id) {
  const div = el('div', 'card');
  div.className = 'card';
  div.id = id;
  div.hidden = true;
  div.setAttribute('role', 'region');
  div.setAttribute('aria-label', `Source ${chip.index}: ${titleOf(chip)}`);
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
  return div;
}

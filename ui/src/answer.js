// `<mentor-answer>`: an answer's text with each resolved marker a button linked to its chip.
// Whole (`answer` + `resolution`) or streamed (`append(output)`, `finish(end)`), the same
// DOM: text is merged into the last text node, markers arrive whole (the library's streams
// never hand out half of one), and the cards are filled only when opened.

import { chipsOf, el, markerName, titleOf } from './report.js';
import { isMarkerText, marksOf, marksOfEvents } from './marks.js';
import { styleSheet } from './style.js';

let nextAnswer = 0;

/** An answer whose markers open their sources. */
export class MentorAnswer extends HTMLElement {
  #report = null;
  #answer = '';
  #resolution = null;
  #marks = [];
  #text;
  #card;
  #opener = null;

  constructor() {
    super();
    this.attachShadow({ mode: 'open' }).adoptedStyleSheets = [styleSheet()];
    this.#reset();
    this.shadowRoot.addEventListener('keydown', (e) => {
      if (e.key === 'Escape' && this.#opener) { const b = this.#opener; this.#close(); b.focus(); }
    });
  }

  /** The report the markers point into; unset, the `sources` element's report. */
  get report() { return this.#report ?? this.#sources()?.report ?? null; }

  set report(value) { this.#report = value; this.#rerender(); }

  /** The answer's text. */
  get answer() { return this.#answer; }

  set answer(value) { this.#answer = String(value ?? ''); this.#rerender(); }

  /**
   * What `cite` (or a binding's resolver) returned for the answer; with no answer set, its
   * `answer` (a model API's response text, which the spans index; or `text`, where `cite`
   * wrote it before). Set a renumbered resolution's original answer first.
   */
  get resolution() { return this.#resolution; }

  set resolution(value) {
    this.#resolution = value ?? null;
    // A model API's response read by `cite --dialect`: its text is the answer the spans index.
    const text = typeof value?.text === 'string' ? value.text : value?.answer;
    if (!this.#answer && typeof text === 'string') this.#answer = text;
    this.#rerender();
  }

  /** Shows one output of a citation stream: `{text, events}`. */
  append(output) {
    const base = this.#answer.length;
    this.#answer += output.text ?? '';
    const marks = marksOfEvents(this.#answer, output.events, base);
    this.#marks.push(...marks);
    this.#render(base, marks);
  }

  /** Ends the stream: shows the rest and keeps the resolution (its quotes fill the cards). */
  finish(end) {
    this.append(end);
    this.#resolution = end.resolution ?? null;
  }

  #sources() {
    const id = this.getAttribute('sources');
    return id ? this.getRootNode().getElementById?.(id) ?? null : null;
  }

  #chips() {
    try { return chipsOf(this.report); } catch { return []; }
  }

  #reset() {
    this.#opener = null;
    this.#text = el('div', 'text');
    this.#text.className = 'answer';
    this.#card = el('div', 'card');
    this.#card.className = 'card';
    this.#card.id = `mentor-answer-card-${nextAnswer += 1}`;
    this.#card.hidden = true;
    this.#card.setAttribute('role', 'region');
    this.#card.setAttribute('aria-live', 'polite');
    this.shadowRoot.replaceChildren(this.#text, this.#card);
  }

  #rerender() {
    const known = new Set(this.#chips().map((c) => c.index));
    this.#marks = marksOf(this.#answer, this.#resolution, known);
    const id = this.#card.id;
    this.#reset();
    this.#card.id = id;
    this.#render(0, this.#marks);
  }

  /** Renders `this.#answer` from `base` on, with `marks` (all at or after `base`). */
  #render(base, marks) {
    let at = base;
    for (const mark of marks) {
      this.#addText(this.#answer.slice(at, mark.start));
      const text = this.#answer.slice(mark.start, mark.end);
      // A provider's citation marks a stretch of text; the control follows it.
      if (!isMarkerText(text)) this.#addText(text);
      this.#text.append(this.#marker(mark, isMarkerText(text) ? text : `[${mark.indexes.join(', ')}]`));
      at = mark.end;
    }
    this.#addText(this.#answer.slice(at));
  }

  #addText(text) {
    if (!text) return;
    const last = this.#text.lastChild;
    if (last?.nodeType === Node.TEXT_NODE) last.appendData(text);
    else this.#text.append(text);
  }

  #marker(mark, text) {
    const chips = this.#chips().filter((c) => mark.indexes.includes(c.index));
    if (!chips.length) {
      const span = el('span', 'unknown', text);
      span.className = 'unknown';
      span.append(el('span', '', ' (unknown source)'));
      span.lastChild.className = 'sr';
      return span;
    }
    const button = el('button', 'marker', text);
    button.type = 'button';
    button.className = 'marker';
    button.dataset.start = mark.start;
    button.setAttribute('aria-label', markerName(text, chips, mark.unknown));
    button.setAttribute('aria-expanded', 'false');
    button.setAttribute('aria-controls', this.#card.id);
    const highlight = (on) => this.#sources()?.highlight?.(on ? mark.indexes : []);
    button.addEventListener('focus', () => highlight(true));
    button.addEventListener('blur', () => highlight(false));
    button.addEventListener('mouseenter', () => highlight(true));
    button.addEventListener('mouseleave', () => highlight(button.matches(':focus')));
    button.addEventListener('click', () => {
      if (this.#opener === button) { this.#close(); return; }
      this.#open(button, mark, chips, text);
    });
    return button;
  }

  #close() {
    this.#opener?.setAttribute('aria-expanded', 'false');
    this.#opener = null;
    this.#card.hidden = true;
    this.#card.replaceChildren();
  }

  #open(button, mark, chips, text) {
    this.#close();
    this.#opener = button;
    button.setAttribute('aria-expanded', 'true');
    this.#card.setAttribute('aria-label', markerName(text, chips, mark.unknown));
    const before = this.#answer.slice(this.#previousEnd(mark), mark.start);
    for (const chip of chips) {
      this.#card.append(el('p', 'card-title', `Source ${chip.index}: ${titleOf(chip)}`));
      for (const quote of this.#quotes(chip.index, before)) {
        this.#card.append(el('blockquote', 'quote', quote.text));
        const state = el('p', quote.verified ? 'verified' : 'unverified',
          quote.verified ? 'Quote found in the source.' : 'Quote not found in the source.');
        if (!quote.verified) state.className = 'unverified';
        this.#card.append(state);
      }
    }
    this.#card.hidden = false;
    this.dispatchEvent(new CustomEvent('mentor-citation', {
      bubbles: true, composed: true, detail: { index: chips[0].index, indexes: mark.indexes, citation: chips[0] },
    }));
  }

  #previousEnd(mark) {
    let end = 0;
    for (const m of this.#marks) if (m.end <= mark.start) end = m.end;
    return end;
  }

  /** The chip's quotes that stand in the text just before the marker. */
  #quotes(index, before) {
    const cited = (this.#resolution?.cited ?? []).find((c) => (c.index ?? c.citation?.index) === index);
    return (cited?.quotes ?? []).filter((q) => before.includes(q.text));
  }
}

// Where an answer's citations are, as "marks": `{start, end, indexes, unknown}` in UTF-16
// units of the answer (what a browser string indexes). From a resolution's spans (`cite`'s,
// the service's, Node's, Python's), from a stream's events, or, for a resolution that carries no
// spans, from the answer itself, read as the library reads markers.

const WIDEST_RANGE = 1000;
const LONGEST_MARKER = 64;

/** Whether `text` is a marker's text (brackets included) rather than a cited stretch. */
export function isMarkerText(text) {
  return /^[[［][0-9 ,\-–]*[\]］]$/.test(text);
}

/** A span's start and end in UTF-16 units (the command's `start` is bytes). */
function units(span) {
  return [span.startUtf16 ?? span.start, span.endUtf16 ?? span.end];
}

/** Where an unknown marker (`{marker, at}`, `at` in bytes or UTF-16) is in `answer`. */
export function locate(answer, marker, at, from = 0) {
  if (answer.startsWith(marker, at) && at >= from) return at;
  const bytes = new TextEncoder().encode(answer);
  const before = new TextDecoder().decode(bytes.subarray(0, at));
  if (answer.startsWith(marker, before.length) && before.length >= from) return before.length;
  return answer.indexOf(marker, from);
}

/** Adds the marks of cited spans and unknown markers to `byStart`. */
function add(byStart, answer, start, end, index) {
  const mark = byStart.get(start) ?? { start, end, indexes: [], unknown: false };
  if (index === null) mark.unknown = true;
  else if (!mark.indexes.includes(index)) mark.indexes.push(index);
  byStart.set(start, mark);
}

/** The marks of a whole resolution of `answer`; `known` holds the report's chip numbers. */
export function marksOf(answer, resolution, known) {
  const cited = resolution?.cited ?? [];
  if (!cited.some((c) => Array.isArray(c.spans))) return scan(answer, known);
  const byStart = new Map();
  for (const c of cited) {
    for (const span of c.spans ?? []) {
      const [start, end] = units(span);
      // A resolution of another answer (set before this one, or kept from a stream) has spans
      // that do not lie in this text: they mark nothing.
      if (!(start >= 0 && start < end && end <= answer.length)) continue;
      add(byStart, answer, start, end, c.index ?? c.citation?.index);
    }
  }
  let from = 0;
  for (const u of resolution.unknown ?? []) {
    const start = locate(answer, u.marker, u.at, from);
    if (start < 0) continue;
    add(byStart, answer, start, start + u.marker.length, null);
    from = start + u.marker.length;
  }
  return [...byStart.values()].sort((a, b) => a.start - b.start);
}

/** The marks of stream events, for text that starts at `base` of `answer` (read so far). */
export function marksOfEvents(answer, events, base) {
  const byStart = new Map();
  let from = base;
  for (const e of events ?? []) {
    if (e.type === 'cited') {
      const [start, end] = units(e.span);
      add(byStart, answer, start, end, e.index);
    } else if (e.type === 'unknown') {
      const start = locate(answer, e.marker, e.at, from);
      if (start < 0) continue;
      add(byStart, answer, start, start + e.marker.length, null);
      from = start + e.marker.length;
    }
  }
  return [...byStart.values()].sort((a, b) => a.start - b.start);
}

/** The numbers a marker's text cites, ranges expanded; null if it is not a marker. */
function numbers(text) {
  const items = text.slice(1, -1).split(',');
  const found = [];
  for (const item of items) {
    const m = /^ *([0-9]{1,9}) *(?:[-–] *([0-9]{1,9}) *)?$/.exec(item);
    if (!m) return null;
    const first = Number(m[1]);
    const last = m[2] === undefined ? first : Number(m[2]);
    // A reversed or too wide range cites nothing: the library calls it unknown.
    if (last < first || last - first >= WIDEST_RANGE) found.push(NaN);
    else for (let n = first; n <= last; n += 1) found.push(n);
  }
  return found;
}

/**
 * The markers of `answer` as the library's scanner finds them: `[` or `［`, numbers, ranges
 * and commas, the matching bracket; not in code, not glued to a word (`a[1]`), not link text
 * (`[1](url)`), not after the `]` of something that is no marker.
 */
export function scan(answer, known) {
  const marks = [];
  let fence = null;
  let code = 0;
  let afterMarker = false;
  for (let i = 0; i < answer.length; i += 1) {
    if (i === 0 || answer[i - 1] === '\n') {
      const lineEnd = answer.indexOf('\n', i) < 0 ? answer.length : answer.indexOf('\n', i);
      const line = answer.slice(i, lineEnd);
      // A blank line ends the paragraph, and any code span left open in it.
      if (!line.trim()) code = 0;
      const run = /^ {0,3}(`{3,}|~{3,})/.exec(line);
      if (run && (!fence || (run[1][0] === fence[0] && run[1].length >= fence.length && !line.slice(run[0].length).trim()))) {
        fence = fence ? null : run[1];
        code = 0;
        i = lineEnd - 1;
        continue;
      }
      if (fence) { i = lineEnd - 1; continue; }
    }
    const c = answer[i];
    const prev = answer[i - 1];
    const wasAfter = afterMarker;
    afterMarker = false;
    if (c === '`') {
      let n = 1;
      while (answer[i + n] === '`') n += 1;
      if (!code) code = n;
      else if (code === n) code = 0;
      i += n - 1;
      continue;
    }
    if (code || (c !== '[' && c !== '［')) continue;
    if (prev && (/[A-Za-z0-9_\\]/.test(prev) || ((prev === ']' || prev === '］') && !wasAfter))) continue;
    const close = c === '[' ? ']' : '］';
    const end = answer.indexOf(close, i + 1);
    if (end < 0) continue;
    const text = answer.slice(i, end + 1);
    if (!isMarkerText(text) || new TextEncoder().encode(text).length > LONGEST_MARKER) continue;
    if (answer[end + 1] === '(') continue;
    const cited = numbers(text);
    if (!cited) continue;
    const indexes = [...new Set(cited.filter((n) => known.has(n)))];
    marks.push({ start: i, end: end + 1, indexes, unknown: indexes.length < new Set(cited).size });
    i = end;
    afterMarker = true;
  }
  return marks;
}

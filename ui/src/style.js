// The elements' one style sheet, constructed (not an inline `<style>` nor `style`
// attributes), so a Content-Security-Policy of `default-src 'self'` lets it apply. Every
// color is a custom property a page may set; the defaults follow `prefers-color-scheme` and
// keep WCAG AA contrast in both schemes.

const CSS = `
:host { --mentor-fg: #1f2328; --mentor-bg: #ffffff; --mentor-muted: #57606a;
  --mentor-accent: #0a58ca; --mentor-border: #d0d7de; --mentor-highlight: #fff3bf;
  --mentor-warn: #9a3412; --mentor-radius: 6px; --mentor-font: inherit;
  display: block; color: var(--mentor-fg); background: var(--mentor-bg); font: var(--mentor-font); }
@media (prefers-color-scheme: dark) {
  :host { --mentor-fg: #e6edf3; --mentor-bg: #0d1117; --mentor-muted: #9ea7b3;
    --mentor-accent: #79c0ff; --mentor-border: #30363d; --mentor-highlight: #3d2e00;
    --mentor-warn: #ffa657; }
}
[hidden] { display: none !important; }
ol { list-style: none; margin: 0; padding: 0; display: flex; flex-wrap: wrap; gap: .4em; }
li { border: 1px solid var(--mentor-border); border-radius: var(--mentor-radius); }
li[data-highlighted] { background: var(--mentor-highlight); outline: 2px solid var(--mentor-accent); }
button { font: inherit; color: inherit; background: none; border: 0; padding: .2em .5em; cursor: pointer; }
button:focus-visible { outline: 2px solid var(--mentor-accent); outline-offset: 1px; }
.number { font-weight: 600; }
.host, dt { color: var(--mentor-muted); }
a { color: var(--mentor-accent); }
.card { padding: .4em .6em; border-top: 1px solid var(--mentor-border); max-width: 40em; }
.answer { white-space: pre-wrap; }
.answer .card { border: 1px solid var(--mentor-border); border-radius: var(--mentor-radius); white-space: normal; margin-top: .4em; }
.marker { color: var(--mentor-accent); padding: 0 .1em; text-decoration: underline dotted; }
.unknown { color: var(--mentor-warn); }
.sr { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
dl { display: grid; grid-template-columns: auto 1fr; gap: 0 .8em; margin: .3em 0; }
dd { margin: 0; overflow-wrap: anywhere; }
blockquote { margin: .3em 0; padding-left: .6em; border-left: 3px solid var(--mentor-border); }
.cut, .unverified { color: var(--mentor-warn); }
`;

let sheet;

/** The shared sheet, made on first use (so importing the module in Node does no DOM work). */
export function styleSheet() {
  if (!sheet) {
    sheet = new CSSStyleSheet();
    sheet.replaceSync(CSS);
  }
  return sheet;
}

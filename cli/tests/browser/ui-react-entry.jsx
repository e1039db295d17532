// The page of ui-react.test.mjs: ui/examples/react/RagSourcePanel.jsx in a React root, in
// StrictMode (whose extra unmount and mount of each effect catches a listener left behind),
// driven by the test through `window.panel`. Bundled by the test with esbuild, once with React
// 19 and once with React 18 (`react` aliased to `react18`).

import { StrictMode, useEffect, version } from 'react';
import { createRoot } from 'react-dom/client';
import { RagSourcePanel } from '../../../ui/examples/react/RagSourcePanel.jsx';

/** Calls `done` once the effects before it in the tree have run. */
function Rendered({ done }) {
  useEffect(() => done());
  return null;
}

let root = null;
window.calls = [];

window.panel = {
  version,
  /** Renders the panel with `props`; resolves once its effects have set the elements. */
  render(props) {
    root ??= createRoot(document.getElementById('root'));
    // A new callback on each render, as an inline arrow in an application would be.
    const onCitation = (index, citation) => window.calls.push([index, citation.index]);
    return new Promise((resolve) => root.render(
      <StrictMode>
        <RagSourcePanel {...props} onCitation={onCitation} />
        <Rendered done={resolve} />
      </StrictMode>,
    ));
  },
  unmount() {
    root.unmount();
    root = null;
  },
};

// RagSourcePanel for React: an answer with its [n] markers and the chips they cite, drawn by
// mentor-context's elements (<mentor-answer>, <mentor-sources>; see ui/README.md).
//
// The elements take objects (a report, a resolution) as DOM properties. React 18 would pass
// JSX props to a custom element as string attributes, so this component sets the properties
// itself, through refs, in effects: the same code in React 18 and 19 (React 19 would set them
// from JSX; this does not rely on it). Tested in Chromium on both
// (cli/tests/browser/ui-react.test.mjs).

import { useEffect, useId, useRef } from 'react';
// Defines <mentor-answer> and <mentor-sources> (once, however often it is imported). Point it
// at your copy of ui/.
import '../../mentor-context-ui.js';

/**
 * The citation panel of a chat answer.
 *
 * @param {object} props
 * @param {object | string} props.report what the answer cites: `assemble --json` or the
 *   service's /assemble (any layout or dialect), or a whole prompt; an object or its JSON text.
 * @param {string} [props.answer] the model's answer, with its [n] markers.
 * @param {object} [props.resolution] what `cite` (the service's /cite, Python's or Node's
 *   resolver) returned for this answer: where the markers are, the quotes and whether each
 *   was found in its source. Without it the markers are read from the answer.
 * @param {(index: number, citation: object) => void} [props.onCitation] a marker was
 *   activated: the number of the chip it cites and that chip's citation, to scroll to,
 *   highlight or open the source.
 */
export function RagSourcePanel({ report, answer = '', resolution = null, onCitation }) {
  // Ties the answer to these chips: a marker highlights its chip while focused or hovered.
  const sourcesId = useId();
  const answerRef = useRef(null);
  const sourcesRef = useRef(null);

  // Effects run in order: the report is set before the answer, which is linked to its chips.
  useEffect(() => {
    sourcesRef.current.report = report;
    answerRef.current.report = report;
  }, [report]);

  useEffect(() => {
    const element = answerRef.current;
    // A resolution belongs to one answer: the old one goes before the new text comes.
    element.resolution = null;
    element.answer = answer;
    element.resolution = resolution;
  }, [answer, resolution]);

  useEffect(() => {
    if (!onCitation) return undefined;
    const element = answerRef.current;
    const cited = (event) => onCitation(event.detail.index, event.detail.citation);
    element.addEventListener('mentor-citation', cited);
    // On unmount, or before a new onCitation is listened to: nothing calls the old one.
    return () => element.removeEventListener('mentor-citation', cited);
  }, [onCitation]);

  // `sources` and `id` are plain strings: attributes in React 18 and 19 alike.
  return (
    <>
      <mentor-answer ref={answerRef} sources={sourcesId} />
      <mentor-sources ref={sourcesRef} id={sourcesId} />
    </>
  );
}

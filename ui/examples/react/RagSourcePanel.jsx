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
 * @param {Array<{text: string, events: object[]}>} [props.outputs] instead of `answer`: a
 *   citation stream's outputs so far (Node's `CitationStream.push`, Python's stream, relayed
 *   as JSON), kept in state and grown (`[...outputs, output]`): the outputs already shown are
 *   not shown again. One whose first output is another object is another stream.
 * @param {object} [props.end] the stream's end, `{text, events, resolution}`.
 * @param {(index: number, citation: object) => void} [props.onCitation] a marker was
 *   activated: the number of the chip it cites and that chip's citation, to scroll to,
 *   highlight or open the source.
 */
export function RagSourcePanel({ report, answer = '', resolution = null, outputs, end, onCitation }) {
  // Ties the answer to these chips: a marker highlights its chip while focused or hovered.
  const sourcesId = useId();
  const answerRef = useRef(null);
  const sourcesRef = useRef(null);
  // The stream shown (its first output) and how much of it: only new outputs are appended.
  const streamed = useRef({ first: null, count: 0, ended: false });

  // Effects run in order: the report is set before the answer, which is linked to its chips.
  useEffect(() => {
    sourcesRef.current.report = report;
    answerRef.current.report = report;
  }, [report]);

  useEffect(() => {
    if (outputs) return;
    const element = answerRef.current;
    // A resolution belongs to one answer: the old one goes before the new text comes.
    element.resolution = null;
    element.answer = answer;
    element.resolution = resolution;
    streamed.current = { first: null, count: 0, ended: false };
  }, [answer, resolution, outputs]);

  useEffect(() => {
    if (!outputs) return;
    const element = answerRef.current;
    const seen = streamed.current;
    if (outputs[0] !== seen.first || outputs.length < seen.count) {
      // Another stream, or this one again after a whole answer: start over.
      element.resolution = null;
      element.answer = '';
      Object.assign(seen, { first: outputs[0], count: 0, ended: false });
    }
    // Appending what is new keeps a stream's cost linear; the whole text is never set again.
    for (const output of outputs.slice(seen.count)) element.append(output);
    seen.count = outputs.length;
    if (end && !seen.ended) {
      element.finish(end);
      seen.ended = true;
    }
  }, [outputs, end]);

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

// The JavaScript half of RagSourcePanel.razor: Blazor hands its ElementReferences over as the
// elements themselves and the .NET side's JSON as text; this sets the elements' properties,
// which Blazor's markup cannot, and reports a chosen citation back to .NET.

/** Shows `reportJson`'s chips, and `answer` with its markers resolved by `resolutionJson`. */
export function show(sourcesElement, answerElement, reportJson, answer, resolutionJson) {
  const report = JSON.parse(reportJson);
  sourcesElement.report = report;
  answerElement.report = report;
  // The resolution belongs to this answer: the old one goes before the new text comes.
  answerElement.resolution = null;
  answerElement.answer = answer ?? '';
  answerElement.resolution = resolutionJson ? JSON.parse(resolutionJson) : null;
}

/** Calls the component's `[JSInvokable] Cited(index)` when a marker is activated. */
export function listen(answerElement, dotnet) {
  const cited = (event) => dotnet.invokeMethodAsync('Cited', event.detail.index);
  answerElement.addEventListener('mentor-citation', cited);
  return { dispose: () => answerElement.removeEventListener('mentor-citation', cited) };
}

// The page's script: the retrieval's results become a report (/assemble), the model's answer
// is resolved against it (/cite), and the elements show both. Here the results and the
// answer are files beside the page; in an application they come from the backend.

const PROFILE = '/v1/default'

/** POSTs `body` as JSON to the service; its JSON, or an Error with its problem's detail. */
async function post (path, body) {
  const response = await fetch(`${PROFILE}/${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body)
  })
  const json = await response.json()
  // Every refusal of the service is problem+json: `detail` in words, `code` for programs.
  if (!response.ok) throw new Error(`${json.code}: ${json.detail}`)
  return json
}

async function show () {
  const results = await (await fetch('results.json')).json()
  const answer = await (await fetch('answer.txt')).text()
  const report = await post('assemble', { results })
  document.getElementById('sources').report = report
  const resolution = await post('cite', { report, answer })
  const element = document.getElementById('answer')
  element.answer = answer
  element.resolution = resolution
  element.addEventListener('mentor-citation', (e) => {
    document.getElementById('status').textContent = `Opened source ${e.detail.index}.`
  })
  document.body.dataset.shown = 'true'
}

show().catch((error) => {
  document.getElementById('status').textContent = `The answer could not be shown: ${error.message}`
  document.body.dataset.shown = 'failed'
})

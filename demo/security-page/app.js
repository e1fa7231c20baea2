// The demo page's only script (served from the same origin, so the Content-Security-Policy needs no inline script).
/* global document, location, fetch, URLSearchParams */
'use strict'

// The API is called cross-origin: the origin in ?api=, or else this page's host swapped between localhost and 127.0.0.1.
function api_origin() {
  const given = new URLSearchParams(location.search).get('api')
  if (given) return given
  const host = location.hostname === 'localhost' ? '127.0.0.1' : 'localhost'
  return `${location.protocol}//${host}${location.port ? ':' + location.port : ''}`
}

const url = api_origin() + document.body.dataset.base + '/api/ping'
const result = document.getElementById('api-result')
document.getElementById('api-url').textContent = url

document.getElementById('ping').addEventListener('click', async () => {
  result.textContent = 'calling...'
  try {
    const r = await fetch(url, { credentials: 'include' })
    result.textContent = `allowed: ${r.status} ${await r.text()}`
  } catch (err) {
    result.textContent = `blocked: ${err.name}`
  }
})

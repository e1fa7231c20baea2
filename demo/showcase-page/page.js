// The showcase page's script, inlined into the page (its hash is in the Content-Security-Policy).
/* global document, location, fetch, FormData, setInterval */
'use strict'

// The API lives next to the page: at the root in the showcase, under the page's own path when mounted elsewhere.
const base = location.pathname.replace(/\/+$/, '')
let token = ''

const $ = (id) => document.getElementById(id)

async function call(method, path, body) {
  const headers = {}
  if (body !== undefined) headers['content-type'] = 'application/json'
  if (token !== '') headers.authorization = 'Bearer ' + token
  const init = { method, headers, credentials: 'same-origin' }
  if (body !== undefined) init.body = JSON.stringify(body)
  const r = await fetch(base + path, init)
  const text = await r.text()
  let json
  try { json = JSON.parse(text) } catch { json = undefined }
  return { status: r.status, text, json }
}

// textContent only: answers echo what was typed, which may look like HTML.
function show(id, r) {
  $(id).textContent = `${r.status}\n${r.json === undefined ? r.text : JSON.stringify(r.json, null, 2)}`
}

function fields(form) {
  return Object.fromEntries(new FormData(form).entries())
}

function set_token(t) {
  token = t
  $('token').textContent = t === '' ? 'none (log in first)' : t
}

$('register').addEventListener('submit', async (e) => {
  e.preventDefault()
  show('register-result', await call('POST', '/auth/register', fields(e.target)))
})

$('login').addEventListener('submit', async (e) => {
  e.preventDefault()
  const r = await call('POST', '/auth/login', fields(e.target))
  if (r.status === 200 && r.json && typeof r.json.token === 'string') set_token(r.json.token)
  show('login-result', r)
})

$('me').addEventListener('click', async () => show('me-result', await call('GET', '/auth/me')))
$('admin').addEventListener('click', async () => show('me-result', await call('GET', '/auth/admin')))
$('forget').addEventListener('click', () => set_token(''))

$('session').addEventListener('click', async () => {
  const r = await call('GET', '/session')
  $('session-count').textContent = r.status === 200 ? r.text : `${r.status} ${r.text}`
})

// One series per line: fw_http_requests_total{method="GET",route="/users/{id}",status="200"} 12
const SERIES = /^fw_http_requests_total\{(.*)\} (\S+)$/
const LABEL = /(\w+)="((?:[^"\\]|\\.)*)"/g

/** Request counts by route and method, summed over statuses, from Prometheus exposition text. */
function request_counts(text) {
  const counts = new Map()
  for (const line of text.split('\n')) {
    const m = SERIES.exec(line)
    if (m === null) continue
    const labels = Object.fromEntries([...m[1].matchAll(LABEL)].map((l) => [l[1], l[2]]))
    const key = labels.route + ' ' + labels.method
    const row = counts.get(key) ?? { route: labels.route, method: labels.method, n: 0 }
    row.n += Number(m[2])
    counts.set(key, row)
  }
  return [...counts.values()].sort((a, b) => b.n - a.n)
}

async function show_counts() {
  const r = await fetch(base + '/metrics', { credentials: 'same-origin' })
  if (r.status !== 200) return
  const rows = request_counts(await r.text())
  const body = $('request-counts').tBodies[0]
  body.replaceChildren(...rows.map((row) => {
    const tr = document.createElement('tr')
    for (const v of [row.route, row.method, String(row.n)]) tr.appendChild(document.createElement('td')).textContent = v
    return tr
  }))
  $('requests-total').textContent = String(rows.reduce((sum, row) => sum + row.n, 0))
}

void show_counts().catch(() => {})
setInterval(() => void show_counts().catch(() => {}), 2000)

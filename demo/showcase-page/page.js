// The showcase page's script, inlined into the page (its hash is in the Content-Security-Policy).
/* global document, location, fetch, FormData */
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

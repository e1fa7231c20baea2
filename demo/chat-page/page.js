// The chat page's script, inlined into the page (its hash is in the Content-Security-Policy).
/* global document, location, fetch, WebSocket */
'use strict'

// The page is `<base>/chat`; the WebSocket routes live next to it, under the same base. Runs of slashes (the router
// serves `//chat` and `/chat//` too) are folded first: a base of `/` would make `//chat/name`, another host's URL.
const base = location.pathname.replace(/\/{2,}/g, '/').replace(/\/chat\/?$/, '')
const $ = (id) => document.getElementById(id)
let socket

function add(message) {
  const li = document.createElement('li')
  const from = document.createElement('span')
  from.className = 'from'
  // textContent only: messages are what other people typed.
  from.textContent = message.from
  li.append(from, document.createTextNode(message.text))
  if (message.from === 'server') li.className = 'server'
  $('log').append(li)
}

function join(room) {
  if (socket) socket.close(1000, 'changing room')
  const scheme = location.protocol === 'https:' ? 'wss://' : 'ws://'
  const ws = new WebSocket(scheme + location.host + base + '/ws/chat/' + encodeURIComponent(room))
  socket = ws
  $('status').textContent = 'connecting...'
  ws.addEventListener('open', () => {
    $('status').textContent = 'in room ' + room
    $('send').disabled = false
  })
  ws.addEventListener('message', (e) => add(JSON.parse(e.data)))
  ws.addEventListener('close', (e) => {
    if (socket !== ws) return
    $('status').textContent = 'closed (' + e.code + ')'
    $('send').disabled = true
  })
}

$('join-form').addEventListener('submit', (e) => {
  e.preventDefault()
  $('log').replaceChildren()
  join($('room').value.trim() || 'lobby')
})

$('send-form').addEventListener('submit', (e) => {
  e.preventDefault()
  const text = $('text').value
  if (text.trim() === '' || !socket || socket.readyState !== WebSocket.OPEN) return
  socket.send(text)
  $('text').value = ''
})

$('name-form').addEventListener('submit', async (e) => {
  e.preventDefault()
  const r = await fetch(base + '/chat/name', {
    method: 'POST', credentials: 'same-origin', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: $('name').value }),
  })
  const body = await r.json()
  $('name-result').textContent = r.ok ? 'you are ' + body.name + ' (join again)' : body.message
})

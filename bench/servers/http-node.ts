// node:http with a hand-written switch: the ceiling for the HTTP scenarios.
import type { AddressInfo } from 'node:net'
import { createServer } from 'node:http'

const JSON_TYPE = { 'content-type': 'application/json; charset=utf-8' }
const server = createServer((req, res) => {
  const url = req.url ?? '/'
  const q = url.indexOf('?')
  const path = q === -1 ? url : url.slice(0, q)
  if (req.method === 'GET' && (path === '/hello' || path === '/mw/hello')) {
    res.writeHead(200, JSON_TYPE).end(JSON.stringify({ hello: 'world' }))
  } else if (req.method === 'GET' && path.startsWith('/users/')) {
    const fields = new URLSearchParams(q === -1 ? '' : url.slice(q + 1)).get('fields') ?? ''
    res.writeHead(200, JSON_TYPE).end(JSON.stringify({ id: decodeURIComponent(path.slice(7)), fields }))
  } else if (req.method === 'POST' && path === '/echo') {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => res.writeHead(200, JSON_TYPE).end(JSON.stringify(JSON.parse(Buffer.concat(chunks).toString()))))
  } else {
    res.writeHead(404).end()
  }
})
server.listen(0, '127.0.0.1', () => process.stdout.write(`listening ${(server.address() as AddressInfo).port}\n`))

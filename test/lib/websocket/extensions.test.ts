// extensions_ok against ws's own reading of Sec-WebSocket-Extensions (its parser and permessage-deflate's parameter
// check, loaded from ws's files): the same verdict for listed headers and for many generated ones.
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import t from 'tap'
import { extensions_ok } from '../../../lib/websocket/extensions.js'

const require = createRequire(import.meta.url)
const ws_dir = dirname(require.resolve('ws/package.json'))
const { parse } = require(join(ws_dir, 'lib/extension.js')) as { parse: (h: string) => Record<string, unknown[]> }
const PerMessageDeflate = require(join(ws_dir, 'lib/permessage-deflate.js')) as new (options: object) => {
  accept(offers: unknown[]): unknown
}

/** What ws does with the header on a server with fw's deflate options (`true`): takes it, or answers 400. */
function ws_takes(header: string): boolean {
  try {
    const offers = parse(header)
    const deflate = offers['permessage-deflate']
    if (deflate !== undefined) new PerMessageDeflate({ isServer: true }).accept(deflate)
    return true
  } catch {
    return false
  }
}

t.test('extensions_ok', async (t) => {
  t.test('takes what ws takes and refuses what it refuses, for listed headers', async (t) => {
    const headers = [
      'permessage-deflate',
      'permessage-deflate; client_max_window_bits',
      'permessage-deflate; client_max_window_bits=10; server_max_window_bits=08',
      'permessage-deflate; client_max_window_bits="1\\0"',
      'permessage-deflate;server_no_context_takeover;client_no_context_takeover',
      'x-webkit-deflate-frame, permessage-deflate ;\tserver_max_window_bits=15',
      'foo; bar="baz"; qux, permessage-deflate',
      'foo ,bar',
      '',
      ' permessage-deflate',
      'permessage-deflate ',
      'permessage-deflate,',
      'permessage-deflate;',
      ',permessage-deflate',
      'a, ,b',
      'permessage-deflate; client_max_window_bits = 10',
      'permessage-deflate; client_max_window_bits= 10',
      'permessage-deflate; server_max_window_bits',
      'permessage-deflate; server_max_window_bits=7',
      'permessage-deflate; server_max_window_bits=16',
      'permessage-deflate; server_max_window_bits=9.5',
      'permessage-deflate; server_no_context_takeover=true',
      'permessage-deflate; client_no_context_takeover; client_no_context_takeover',
      'permessage-deflate; unknown',
      'permessage-deflate, permessage-deflate; unknown',
      'PERMESSAGE-DEFLATE; unknown',
      'foo; a="b c"',
      'foo; a=""',
      'foo; a="b\\"',
      'foo; a=b"',
      'foo; a="b"c',
      'foo bar',
      'foo; a b',
      'foo; a=b c',
      'f\u00e9o',
    ]
    for (const h of headers) t.equal(extensions_ok(h), ws_takes(h), JSON.stringify(h))
    t.equal(extensions_ok(undefined), true, 'no header')
  })

  t.test('takes what ws takes and refuses what it refuses, for 50,000 generated headers', async (t) => {
    const parts = [
      'permessage-deflate',
      'x',
      'client_max_window_bits',
      'server_max_window_bits',
      'server_no_context_takeover',
      '10',
      '7',
      '1',
      ' ',
      '\t',
      ',',
      ';',
      '=',
      '"',
      '\\',
      '(',
    ]
    // A fixed generator: a failure names a header that can be replayed.
    let seed = 42
    const next = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31
      return seed % n
    }
    let differ: string | undefined
    let taken = 0
    for (let i = 0; i < 50_000 && differ === undefined; i++) {
      let h = ''
      for (let n = 1 + next(10); n > 0; n--) h += parts[next(parts.length)]
      const ok = ws_takes(h)
      if (ok) taken++
      if (extensions_ok(h) !== ok) differ = h
    }
    t.equal(differ, undefined, `first header read differently: ${JSON.stringify(differ)}`)
    t.ok(taken > 1000 && taken < 49_000, `${taken} of them taken: the comparison covers both verdicts`)
  })
})

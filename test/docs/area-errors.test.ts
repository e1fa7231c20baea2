// Each area's docs page documents its own thrown errors: every `FW_ERR_<AREA>_*` code of the registry appears, in
// backticks, on the page of its area, not only in docs/errors.md.
import { readFileSync } from 'node:fs'
import t from 'tap'
import { errorCodes } from '../../index.js'
// Every entry point, so every module that declares codes has declared them (as test/lib/errors-doc.test.ts does).
import '../../lib/cache/index.js'
import '../../lib/log/index.js'
import '../../lib/validation/index.js'
import '../../lib/middleware/index.js'
import '../../lib/redis/index.js'
import '../../lib/observability/index.js'
import '../../lib/websocket/index.js'
import '../../adapters/plugin.js'
import '../../demo/registry.js'

/** The docs page of each area, by the part of the code after `FW_ERR_`. */
const PAGES: Record<string, string> = {
  APP: 'app.md',
  CONFIG: 'app.md',
  HTTP_ERROR: 'app.md',
  JSON: 'app.md',
  RESPONSE: 'app.md',
  STORE: 'app.md',
  AUTH: 'auth.md',
  AUTHAPI: 'auth-api.md',
  BODY: 'body.md',
  CACHE: 'cache.md',
  CONDUIT: 'conduit.md',
  CORS: 'security.md',
  IP_FILTER: 'security.md',
  SECURITY: 'security.md',
  LOG: 'log.md',
  OBSERVABILITY: 'observability.md',
  REDIS: 'redis.md',
  STREAM: 'streaming.md',
  VALIDATION: 'validation.md',
  WS: 'websocket.md',
}

/** The page of `code`: the longest area that prefixes it, or undefined when none does. */
function page_of(code: string): string | undefined {
  const areas = Object.keys(PAGES)
    .filter((area) => code.startsWith(`FW_ERR_${area}_`))
    .sort((a, b) => b.length - a.length)
  return areas[0] === undefined ? undefined : PAGES[areas[0]]
}

/** `code (page)` for each code its area's page does not name in backticks. */
function undocumented(codes: readonly string[], read: (page: string) => string): string[] {
  return codes.flatMap((code) => {
    const page = page_of(code)
    return page !== undefined && !read(page).includes(`\`${code}\``) ? [`${code} (docs/${page})`] : []
  })
}

const read_doc = (page: string): string => readFileSync(new URL(`../../docs/${page}`, import.meta.url), 'utf8')

t.test('area docs pages', async (t) => {
  const codes = errorCodes()

  t.test('every code of the registry belongs to an area with a page', async (t) => {
    t.ok(codes.length > 50, `${codes.length} codes`)
    t.same(
      codes.filter((code) => page_of(code) === undefined),
      [],
    )
  })

  t.test('every code is named on its area’s page', async (t) => {
    t.same(undocumented(codes, read_doc), [])
  })

  t.test('the check finds a code its page leaves out, and reads the longest area', async (t) => {
    t.equal(page_of('FW_ERR_HTTP_ERROR_BAD_CODE'), 'app.md')
    t.equal(page_of('FW_ERR_AUTHAPI_BAD_OPTION'), 'auth-api.md')
    t.equal(page_of('FW_ERR_AUTH_BAD_OPTION'), 'auth.md')
    t.equal(page_of('FW_ERR_NOWHERE_X'), undefined)
    const pages: Record<string, string> = {
      'auth.md': 'throws `FW_ERR_AUTH_BAD_OPTION`',
      'cache.md': 'FW_ERR_CACHE_BAD_TIME',
    }
    t.same(
      undocumented(
        ['FW_ERR_AUTH_BAD_OPTION', 'FW_ERR_AUTH_WEAK_SECRET', 'FW_ERR_CACHE_BAD_TIME'],
        (p) => pages[p] ?? '',
      ),
      ['FW_ERR_AUTH_WEAK_SECRET (docs/auth.md)', 'FW_ERR_CACHE_BAD_TIME (docs/cache.md)'],
      'a missing code, and a code without backticks',
    )
  })
})

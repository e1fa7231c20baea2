// docs/errors.md lists every code fw declares, each in one table row, and no other: checked against the two registries.
import { readFileSync } from 'node:fs'
import t from 'tap'
import { errorCodes, httpErrorCodes } from '../../index.js'
// Every entry point, so every module that declares codes has declared them.
import '../../lib/cache/index.js'
import '../../lib/log/index.js'
import '../../lib/validation/index.js'
import '../../lib/middleware/index.js'
import '../../lib/redis/index.js'
import '../../lib/observability/index.js'
import '../../lib/websocket/index.js'
import '../../adapters/plugin.js'
import '../../demo/registry.js'

const PAGE = readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8')

/** A documented code: which part of the page lists it, the status cell (HTTP rows), and its line. */
interface Row {
  part: 'http' | 'thrown'
  code: string
  status: string | undefined
  line: number
}

const PARTS: Record<string, Row['part']> = { 'HTTP error codes': 'http', 'Thrown error codes': 'thrown' }

/** The cells of a table line; `\|` inside a cell is text, not a border. */
function cells(line: string): string[] {
  return line
    .trim()
    .replace(/^\||\|$/g, '')
    .split(/(?<!\\)\|/)
    .map((c) => c.trim())
}

/**
 * Every row of every table under `## HTTP error codes` and `## Thrown error codes`. A table names its columns in its
 * header; the `Code` cell must be one code in backticks (a row that is not is reported with code '').
 */
function documented(markdown: string): Row[] {
  const lines = markdown.split('\n')
  const rows: Row[] = []
  let part: Row['part'] | undefined
  let columns: string[] | undefined
  lines.forEach((line, i) => {
    if (line.startsWith('## ')) part = PARTS[line.slice(3).trim()]
    if (!line.startsWith('|')) return void (columns = undefined)
    if (part === undefined || /^\|[\s|:-]+\|$/.test(line.trim())) return
    if (columns === undefined) return void (columns = cells(line))
    const row = cells(line)
    const at = (name: string): string | undefined => {
      const j = columns!.indexOf(name)
      return j === -1 ? undefined : row[j]
    }
    const code = /^`([^`]+)`$/.exec(at('Code') ?? '')?.[1] ?? ''
    rows.push({ part, code, status: at('Status'), line: i + 1 })
  })
  return rows
}

/** Codes declared but not documented, and documented but not declared. */
function compare(declared: readonly string[], rows: readonly Row[]): { missing: string[]; extra: string[] } {
  const listed = new Set(rows.map((r) => r.code))
  const known = new Set(declared)
  return { missing: declared.filter((c) => !listed.has(c)), extra: [...listed].filter((c) => !known.has(c)).sort() }
}

t.test('docs/errors.md', async (t) => {
  const rows = documented(PAGE)
  const http = rows.filter((r) => r.part === 'http')
  const thrown = rows.filter((r) => r.part === 'thrown')

  t.test('lists every thrown code fw declares, and no other', async (t) => {
    t.strictSame(compare(errorCodes(), thrown), { missing: [], extra: [] })
  })

  t.test('lists every HTTP error code fw answers with, and no other', async (t) => {
    t.strictSame(compare(httpErrorCodes(), http), { missing: [], extra: [] })
  })

  t.test('names exactly one code in the Code cell of every row', async (t) => {
    t.strictSame(
      rows.filter((r) => r.code === '').map((r) => r.line),
      [],
    )
  })

  t.test('lists each code once', async (t) => {
    const codes = rows.map((r) => r.code)
    t.strictSame(
      codes.filter((c, i) => codes.indexOf(c) !== i),
      [],
    )
  })

  t.test('gives every HTTP code a 4xx or 5xx status', async (t) => {
    const bad = http.filter((r) => !(r.status ?? '').split(', ').every((s) => /^[45](?:\d\d|xx)$/.test(s)))
    t.strictSame(
      bad.map((r) => `${r.code}: ${r.status}`),
      [],
    )
  })

  t.test('misses a code whose row is removed, and flags a row for a code nobody declares', async (t) => {
    const without = PAGE.split('\n')
      .filter((l) => !l.startsWith('| `FW_ERR_APP_LOCKED` |'))
      .join('\n')
    t.strictSame(
      compare(
        errorCodes(),
        documented(without).filter((r) => r.part === 'thrown'),
      ).missing,
      ['FW_ERR_APP_LOCKED'],
    )
    const invented = PAGE.replace('| 429 | `rate_limit_exceeded` |', '| 429 | `rate_limit_exceded` |')
    t.strictSame(
      compare(
        httpErrorCodes(),
        documented(invented).filter((r) => r.part === 'http'),
      ),
      { missing: ['rate_limit_exceeded'], extra: ['rate_limit_exceded'] },
    )
  })
})

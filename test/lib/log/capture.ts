// Test helper: sends fw's log lines to memory, with a fixed clock and UTC wall time, and reads KV lines back.
import { Writable } from 'node:stream'

// Set before any line is formatted, so `HH:MM:SS.mmm` does not depend on the machine's time zone.
process.env.TZ = 'UTC'

/** 2024-01-02T03:04:05.678Z: KV lines show `03:04:05.678`. */
export const T0 = Date.UTC(2024, 0, 2, 3, 4, 5, 678)

/** A writable stream that keeps what it is given; `isTTY` makes it look like a terminal. */
export class MemoryStream extends Writable {
  readonly chunks: string[] = []
  isTTY = false

  constructor(tty = false) {
    super({ decodeStrings: false })
    this.isTTY = tty
  }

  override _write(chunk: unknown, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.chunks.push(String(chunk))
    callback()
  }

  /** Everything written so far. */
  text(): string {
    return this.chunks.join('')
  }

  /** The lines written so far, without their newlines. */
  lines(): string[] {
    return this.text().split('\n').slice(0, -1)
  }

  /** Forgets what was written. */
  clear(): void {
    this.chunks.length = 0
  }
}

/** A KV line taken apart: the parse a consumer of the format would do. */
export interface KvLine {
  time: string
  name: string
  label: string
  msg: string
  pairs: Array<[string, string]>
}

/** Parses a KV line: a quoted message or value is a JSON string; a bare one runs to the next space. */
export function parse_kv(line: string): KvLine {
  const head = /^(\d\d:\d\d:\d\d\.\d\d\d) \[([^\]]+)\] \[([^\]]+)\] /.exec(line)
  if (head === null) throw new Error(`not a KV line: ${line}`)
  let rest = line.slice(head[0].length)
  let msg: string
  if (rest.startsWith('"')) {
    const end = string_end(rest)
    msg = JSON.parse(rest.slice(0, end)) as string
    rest = rest.slice(end)
  } else {
    const first_pair = rest.search(/(^| )[^ =]+=/)
    msg = first_pair === -1 ? rest : rest.slice(0, first_pair)
    rest = first_pair === -1 ? '' : rest.slice(first_pair)
  }
  const pairs: Array<[string, string]> = []
  rest = rest.trimStart()
  while (rest !== '') {
    const eq = rest.indexOf('=')
    const key = rest.slice(0, eq)
    rest = rest.slice(eq + 1)
    const end = rest.startsWith('"') ? string_end(rest) : rest.indexOf(' ') === -1 ? rest.length : rest.indexOf(' ')
    const raw = rest.slice(0, end)
    pairs.push([key, raw.startsWith('"') ? (JSON.parse(raw) as string) : raw])
    rest = rest.slice(end).trimStart()
  }
  return { time: head[1]!, name: head[2]!, label: head[3]!, msg, pairs }
}

function string_end(text: string): number {
  for (let i = 1; i < text.length; i++) {
    if (text[i] === '\\') i++
    else if (text[i] === '"') return i + 1
  }
  throw new Error(`unterminated string: ${text}`)
}

/** Sets environment variables (undefined removes one) until the test ends, then puts the old values back. */
export function set_env(t: { teardown(fn: () => void): void }, vars: Record<string, string | undefined>): void {
  const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]))
  const apply = (values: Record<string, string | undefined>): void => {
    for (const [k, v] of Object.entries(values)) {
      if (v === undefined) delete process.env[k]
      else process.env[k] = v
    }
  }
  apply(vars)
  t.teardown(() => apply(saved))
}

/** A KV line's message and its `rid` (undefined when it has none), to check which request each line belongs to. */
export function msg_and_rid(line: string): [string, string | undefined] {
  const l = parse_kv(line)
  return [l.msg, Object.fromEntries(l.pairs).rid]
}

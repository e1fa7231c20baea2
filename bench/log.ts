// Logging throughput to a file (fw JSON and KV against raw pino JSON and winston JSON, rounds interleaved) and the cost
// of a debug call while the level is Info.
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import pino from 'pino'
import winston from 'winston'
import * as log from '../lib/log/index.js'
import { median, ratio, type BenchRatio, type BenchReport, type BenchRow } from './report.js'

/**
 * One logger writing to a file: `line(i)` logs the scenario's record, `done()` resolves once every line is in the file.
 */
interface Run {
  line(i: number): void
  done(): Promise<void>
}

const MESSAGE = 'user logged in'
/** Where a winston log entry keeps its finished line. */
const MESSAGE_KEY = Symbol.for('message')
const IP = '10.0.0.1'
const PATH = '/api/orders'

function fw_run(format: log.LogFormat) {
  return async (file: string, _lines: number): Promise<Run> => {
    log.configure({ level: log.LogLevel.Info, format, async: true, destination: file })
    return {
      line: (i) => log.logf(log.LogLevel.Info, MESSAGE, 'user_id', i, 'ip', IP, 'path', PATH),
      done: async () => {
        await log.flush()
        log.set_destination({ write: () => true })
      },
    }
  }
}

async function pino_run(file: string, _lines: number): Promise<Run> {
  const dest = pino.destination({ dest: file, sync: false, minLength: 0 })
  await new Promise((resolve) => dest.once('ready', resolve))
  const logger = pino(dest)
  return {
    line: (i) => logger.info({ user_id: i, ip: IP, path: PATH }, MESSAGE),
    done: async () => {
      // An empty write queues behind every pending line, so the next drain means all of them are written.
      await new Promise((resolve) => {
        dest.once('drain', resolve)
        dest.write('')
      })
      dest.end()
    },
  }
}

async function winston_run(file: string, lines: number): Promise<Run> {
  const transport = new winston.transports.File({ filename: file })
  const logger = winston.createLogger({
    level: 'info',
    format: winston.format.combine(winston.format.timestamp(), winston.format.json()),
    transports: [transport],
  })
  let logged = 0
  let bytes = 0
  const all_logged = new Promise<void>((resolve) =>
    transport.on('logged', (info: Record<symbol, string>) => {
      bytes += Buffer.byteLength(info[MESSAGE_KEY]!) + 1
      if (++logged === lines) resolve()
    }),
  )
  return {
    line: (i) => logger.info(MESSAGE, { user_id: i, ip: IP, path: PATH }),
    done: async () => {
      // 'logged' fires once a line is handed to the file stream; the file holds them all once it has every byte
      // counted.
      await all_logged
      while (statSync(file, { throwIfNoEntry: false })?.size !== bytes)
        await new Promise((resolve) => setTimeout(resolve, 2))
      logger.close()
    },
  }
}

const COMPETITORS: ReadonlyArray<readonly [string, (file: string, lines: number) => Promise<Run>]> = [
  ['pino json', pino_run],
  ['fw json', fw_run(log.LogFormat.JSON)],
  ['fw kv', fw_run(log.LogFormat.KV)],
  ['winston json', winston_run],
]

/** Lines per second for one competitor: `lines` records written and waited for, then counted in the file. */
async function lines_per_second(
  open: (file: string, lines: number) => Promise<Run>,
  dir: string,
  lines: number,
): Promise<number> {
  const file = join(dir, 'bench.log')
  try {
    const run = await open(file, lines)
    const started = process.hrtime.bigint()
    for (let i = 0; i < lines; i++) run.line(i)
    await run.done()
    const seconds = Number(process.hrtime.bigint() - started) / 1e9
    const written = await settled_line_count(file, lines)
    if (written !== lines) throw new Error(`expected ${lines} lines in the file, found ${written}`)
    return lines / seconds
  } finally {
    rmSync(file, { force: true })
  }
}

/** Counts lines, giving a stream that reports done early up to a second to land the rest (it then fails the check). */
async function settled_line_count(file: string, expected: number): Promise<number> {
  let count = 0
  for (let tries = 0; tries < 20; tries++) {
    const text = readFileSync(file, 'latin1')
    count = 0
    for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) count++
    if (count >= expected) return count
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  return count
}

/** Nanoseconds per call of a logging call whose level is disabled. */
function disabled_ns(call: (i: number) => void, calls: number): number {
  for (let i = 0; i < calls / 10; i++) call(i)
  const started = process.hrtime.bigint()
  for (let i = 0; i < calls; i++) call(i)
  return Number(process.hrtime.bigint() - started) / calls
}

/** Runs the log scenarios; `quick` writes fewer lines per round for a smoke run. */
export async function bench(opts: { rounds: number; quick?: boolean }): Promise<BenchReport> {
  const lines = opts.quick ? 30_000 : 100_000
  const calls = opts.quick ? 5_000_000 : 10_000_000
  const dir = mkdtempSync(join(tmpdir(), 'fw-bench-log-'))
  const figures = new Map<string, number[]>()
  const add = (key: string, value: number): void => void figures.set(key, [...(figures.get(key) ?? []), value])
  const quiet = pino(pino.destination({ dest: 1, sync: true }))
  try {
    for (const [, open] of COMPETITORS) await lines_per_second(open, dir, lines / 5)
    for (let round = 0; round < opts.rounds; round++) {
      // Rotate the order each round so no competitor always runs first on a cold machine.
      for (let k = 0; k < COMPETITORS.length; k++) {
        const [name, open] = COMPETITORS[(k + round) % COMPETITORS.length]!
        add(`log|${name}`, await lines_per_second(open, dir, lines))
      }
      log.configure({ level: log.LogLevel.Info })
      add(
        'log disabled debug|fw debug at info',
        disabled_ns((i) => log.debug('value {}', i), calls),
      )
      add(
        'log disabled debug|pino debug at info',
        disabled_ns((i) => quiet.debug('value %d', i), calls),
      )
    }
  } finally {
    log.set_destination(1)
    rmSync(dir, { recursive: true, force: true })
  }
  return report(figures)
}

function report(figures: Map<string, number[]>): BenchReport {
  const rows: BenchRow[] = []
  for (const [key, rounds] of figures) {
    const [scenario, competitor] = key.split('|') as [string, string]
    const disabled = scenario === 'log disabled debug'
    const row: BenchRow = {
      scenario,
      competitor,
      median: median(rounds),
      rounds,
      unit: disabled ? 'ns/call' : 'lines/s',
    }
    if (disabled) row.lower_is_better = true
    rows.push(row)
  }
  const row = (c: string): BenchRow => rows.find((r) => r.competitor === c)!
  const budget: BenchRatio = {
    scenario: 'log disabled debug',
    label: '20 ns budget / fw',
    value: 20 / row('fw debug at info').median,
    target: 1,
  }
  return {
    name: 'log',
    rows,
    ratios: [
      ratio('log', 'fw json / pino json', row('fw json'), row('pino json'), 0.9),
      ratio('log', 'fw kv / pino json', row('fw kv'), row('pino json'), 0.6),
      ratio('log', 'fw json / winston json', row('fw json'), row('winston json'), 2),
      ratio('log', 'fw kv / winston json', row('fw kv'), row('winston json'), 2),
      budget,
    ],
    notes: [
      'log: one process, async file destinations (pino.destination sync:false, winston File transport), each round writes the same',
      '  record (message, user_id, ip, path) per competitor and waits until every line is in the file, then counts the lines',
      'pino and winston run with their defaults (pino adds pid and hostname; winston has timestamp + json formats)',
      'log disabled debug: ns per debug call while the level is info, in a hot loop; the budget ratio is 20 ns over the measured cost',
    ],
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const quick = process.argv.includes('--quick')
  console.log(JSON.stringify(await bench({ rounds: quick ? 1 : 5, quick }), null, 2))
}

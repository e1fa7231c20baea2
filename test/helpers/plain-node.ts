// Node without the test runner in it. tap's process tracking hooks child_process and puts its loader into every child's
// NODE_OPTIONS, whatever `env` the spawn passes (an empty NODE_OPTIONS included); the loader brings a SIGTERM listener
// (signal-exit) and garbage of its own. `env -u NODE_OPTIONS` drops it after the hook, and then execs node in place, so
// the child's pid, exit code and signal are node's.

/** The command and arguments that run `node <args>` without the runner's loader. */
export function plain_node(args: readonly string[]): [string, string[]] {
  return ['env', ['-u', 'NODE_OPTIONS', process.execPath, ...args]]
}

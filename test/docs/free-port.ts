// Injected into every documented example the docs test runs: each listen binds a free port of 127.0.0.1 (so examples
// written for port 8080 run side by side), and the first one that listens says so on stderr.
import net from 'node:net'

/** The line a running example writes to stderr once it listens. */
export const LISTENING = 'fw-doc-example-listening'

const listen = net.Server.prototype.listen
net.Server.prototype.listen = function (this: net.Server, ...args: unknown[]) {
  const [first] = args
  if (typeof first === 'number') {
    args[0] = 0
    if (typeof args[1] === 'string') args[1] = '127.0.0.1'
  } else if (first && typeof first === 'object' && 'port' in first) args[0] = { ...first, port: 0, host: '127.0.0.1' }
  this.once('listening', () => process.stderr.write(`${LISTENING}\n`))
  return listen.apply(this, args as Parameters<typeof listen>)
} as typeof listen

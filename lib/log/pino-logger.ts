// A pino logger for Fastify's `loggerInstance`: Fastify's own lines go through fw's level, format, context and
// destination.
import pino from 'pino'
import { line_context } from './context.js'
import { core } from './core.js'
import type { LogLevel } from './levels.js'
import { cap, text_of } from './values.js'

const PINO_LEVELS: Readonly<Record<LogLevel, pino.LevelWithSilent>> = {
  trace: 'trace',
  debug: 'debug',
  info: 'info',
  warn: 'warn',
  error: 'error',
  critical: 'fatal',
  off: 'silent',
}

type Internals = pino.Logger & { [key: symbol]: unknown }

/** Removes the level watcher of a collected `pino_logger`. */
const dropped = new FinalizationRegistry<() => void>((unwatch) => unwatch())

/**
 * A pino logger whose every line is written by fw: same level (kept in step with `set_level`), format, context and
 * destination, under the name `[<name>]`. Child loggers (Fastify's per-request `reqId`) add their bindings as fields,
 * and serializers (Fastify's `req`, `res`, `err`) apply as in pino.
 * @example
 * const app = Fastify({ loggerInstance: pino_logger() })
 */
export function pino_logger(name = 'fastify'): pino.Logger {
  const instance = pino(
    {
      level: PINO_LEVELS[core.level()],
      base: null,
      hooks: {
        logMethod(args, _method, level) {
          forward(this as Internals, name, args, level)
        },
      },
    },
    {
      write: () => {
        // Never reached: the logMethod hook hands every call to fw instead of pino's writer.
      },
      flush: (cb?: (err?: Error) => void) => void core.flush().then(() => cb?.()),
    } as pino.DestinationStream,
  )
  // The watcher holds the logger weakly, and goes with it: every App makes one, and an App dropped must not leave its
  // logger alive.
  const ref = new WeakRef(instance)
  const unwatch = core.watch_level((level) => {
    const live = ref.deref()
    if (live !== undefined) live.level = PINO_LEVELS[level]
  })
  dropped.register(instance, unwatch)
  return instance
}

/** Turns pino's call shapes (`(obj, msg, ...args)`, `(err)`, `(msg, ...args)`) into one fw line. */
function forward(logger: Internals, name: string, args: readonly unknown[], level: number): void {
  // pino levels are 10 (trace) to 60 (fatal); custom ones in between take the level below them.
  const severity = Math.min(5, Math.max(0, Math.floor(level / 10) - 1))
  if (severity < core.threshold) return
  const [first, ...rest] = args
  if (typeof first !== 'object' || first === null)
    return core.write(severity, name, cap(printf(first, rest)), bindings_of(logger, undefined), line_context())
  const fields: Record<string, unknown> = first instanceof Error ? { err: first } : (first as Record<string, unknown>)
  // As in pino, a lone object's `msg` member is the message, and an error's message stands in for a missing one.
  const msg_member = rest.length === 0 && typeof fields.msg === 'string' ? fields.msg : undefined
  const msg =
    rest.length > 0 ? printf(rest[0], rest.slice(1)) : first instanceof Error ? first.message : (msg_member ?? '')
  const pairs = bindings_of(logger, fields, msg_member === undefined ? undefined : 'msg')
  core.write(severity, name, cap(msg), pairs, line_context())
}

/** The child bindings, then the call's fields through the logger's serializers, as alternating keys and values. */
function bindings_of(
  logger: Internals,
  fields: Record<string, unknown> | undefined,
  skip?: string,
): unknown[] | undefined {
  const pairs: unknown[] = []
  // Bindings live in pino as a JSON fragment; parsing it is only worth doing when there is one.
  if (logger[pino.symbols.chindingsSym] !== '') for (const [k, v] of Object.entries(logger.bindings())) pairs.push(k, v)
  const serializers = (logger[pino.symbols.serializersSym] ?? {}) as Record<
    string,
    ((value: unknown) => unknown) | undefined
  >
  for (const key in fields) {
    if (!Object.hasOwn(fields, key) || key === skip) continue
    const value = fields[key]
    const serialize = serializers[key]
    // fw renders an Error itself (its stack in KV, an object in JSON), so pino's standard err serializer is not needed.
    pairs.push(
      key,
      serialize === undefined || (value instanceof Error && serialize === pino.stdSerializers.err)
        ? value
        : serialize(value),
    )
  }
  return pairs.length === 0 ? undefined : pairs
}

/**
 * pino's printf subset: `%s`, `%d`, `%i`, `%f`, `%j`, `%o`, `%O` take the next argument; `%%` is `%`; extra arguments
 * are ignored.
 */
function printf(msg: unknown, args: readonly unknown[]): string {
  if (typeof msg !== 'string') return msg === undefined ? '' : text_of(msg)
  if (args.length === 0 || !msg.includes('%')) return msg
  let i = 0
  return msg.replace(/%[sdifjoO%]/g, (spec) => {
    if (spec === '%%') return '%'
    if (i >= args.length) return spec
    const arg = args[i++]
    if (spec === '%d' || spec === '%f') return String(Number(arg))
    return spec === '%i' ? String(Math.trunc(Number(arg))) : text_of(arg)
  })
}

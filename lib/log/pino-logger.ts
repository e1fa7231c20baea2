// A pino logger for Fastify's `loggerInstance`: Fastify's own lines go through fw's level, format, context and
// destination.
import pino from 'pino'
import { line_context } from './context.js'
import { core } from './core.js'
import type { LogLevel } from './levels.js'
import { check_name } from './logger.js'
import { UNSERIALIZABLE, cap, is_error, text_of } from './values.js'

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
 * and serializers (Fastify's `req`, `res`, `err`) apply as in pino. `name` is checked as a `Logger`'s
 * (`FW_ERR_LOG_BAD_NAME`).
 * @example
 * const app = Fastify({ loggerInstance: pino_logger() })
 */
export function pino_logger(name = 'fastify'): pino.Logger {
  check_name(name)
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
  const error = is_error(first)
  const fields: object = error ? { err: first } : first
  // As in pino, a lone object's `msg` member is the message, and an error's message stands in for a missing one.
  const own = rest.length === 0 ? member(first, error ? 'message' : 'msg') : undefined
  const msg_member = !error && typeof own === 'string' ? own : undefined
  const msg = rest.length > 0 ? printf(rest[0], rest.slice(1)) : error ? printf(own, []) : (msg_member ?? '')
  const pairs = bindings_of(logger, fields, msg_member === undefined ? undefined : 'msg')
  core.write(severity, name, cap(msg), pairs, line_context())
}

/** `obj[key]`, or `UNSERIALIZABLE` when reading it throws (a getter, a Proxy's trap). */
function member(obj: object, key: string): unknown {
  try {
    return (obj as Record<string, unknown>)[key]
  } catch {
    return UNSERIALIZABLE
  }
}

/** The own enumerable keys of a call's object, none when a Proxy's trap throws. */
function keys_of(obj: object): string[] {
  try {
    return Object.keys(obj)
  } catch {
    return []
  }
}

/**
 * The child bindings, then the call's fields through the logger's serializers, as alternating keys and values. A member
 * that throws when read, or whose serializer throws, is `UNSERIALIZABLE`; an object whose keys cannot be listed adds
 * none.
 */
function bindings_of(logger: Internals, fields: object | undefined, skip?: string): unknown[] | undefined {
  const pairs: unknown[] = []
  // Bindings live in pino as a JSON fragment; parsing it is only worth doing when there is one.
  if (logger[pino.symbols.chindingsSym] !== '') for (const [k, v] of Object.entries(logger.bindings())) pairs.push(k, v)
  const serializers = (logger[pino.symbols.serializersSym] ?? {}) as Record<
    string,
    ((value: unknown) => unknown) | undefined
  >
  for (const key of fields === undefined ? [] : keys_of(fields)) {
    if (key === skip) continue
    const value = member(fields!, key)
    const serialize = serializers[key]
    // fw renders an Error itself (its stack in KV, an object in JSON), so pino's standard err serializer is not needed.
    pairs.push(
      key,
      serialize === undefined || (serialize === pino.stdSerializers.err && is_error(value))
        ? value
        : serialized(serialize, value),
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
    return spec === '%d' || spec === '%f' || spec === '%i' ? number_text(arg, spec === '%i') : text_of(arg)
  })
}

/** A `%d`, `%f` or `%i` argument; `UNSERIALIZABLE` when it cannot become a number (a symbol, a throwing `valueOf`). */
function number_text(arg: unknown, integer: boolean): string {
  try {
    const n = Number(arg)
    return String(integer ? Math.trunc(n) : n)
  } catch {
    return UNSERIALIZABLE
  }
}

/** A serializer's result; `UNSERIALIZABLE` when it throws on the value (a Proxy, a getter that throws). */
function serialized(serialize: (value: unknown) => unknown, value: unknown): unknown {
  try {
    return serialize(value)
  } catch {
    return UNSERIALIZABLE
  }
}

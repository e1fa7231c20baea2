// Output formats: key/value text for people, single-line JSON for machines, indented JSON for reading JSON by eye.
import { ERR_LOG_BAD_FORMAT } from './errors.js'

/** Output formats; `KV` is the default. */
export const LogFormat = {
  KV: 'kv',
  JSON: 'json',
  JSON_PRETTY: 'json_pretty',
} as const

/** One of `LogFormat`'s values. */
export type LogFormat = (typeof LogFormat)[keyof typeof LogFormat]

const ALIASES: Readonly<Record<string, LogFormat>> = {
  kv: 'kv',
  json: 'json',
  'json-pretty': 'json_pretty',
  'pretty-json': 'json_pretty',
  json_pretty: 'json_pretty',
}

/**
 * Reads a format from text, ignoring case and surrounding spaces: `kv`, `json`, and
 * `json-pretty`/`pretty-json`/`json_pretty`. Any other text gives `KV`.
 * @example
 * parse_format('pretty-json') // 'json_pretty'
 */
export function parse_format(text: string): LogFormat {
  const key = String(text).trim().toLowerCase()
  return Object.hasOwn(ALIASES, key) ? ALIASES[key]! : LogFormat.KV
}

/** Checks that a value is one of `LogFormat`'s values; anything else throws `FW_ERR_LOG_BAD_FORMAT`. */
export function check_format(format: LogFormat): LogFormat {
  if (format !== 'kv' && format !== 'json' && format !== 'json_pretty') throw ERR_LOG_BAD_FORMAT(format)
  return format
}

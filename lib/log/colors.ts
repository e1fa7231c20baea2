// Terminal colours: when to use them (a TTY, FW_COLOR, NO_COLOR) and how KV labels and pretty JSON are painted.

/**
 * ANSI colour of each severity's label: trace grey, debug blue, info green, warning yellow, error red, critical bold
 * red.
 */
const LEVEL_COLORS: readonly string[] = ['\x1b[90m', '\x1b[34m', '\x1b[32m', '\x1b[33m', '\x1b[31m', '\x1b[1;31m']
const RESET = '\x1b[0m'
const KEY = '\x1b[36m'
const STRING = '\x1b[32m'
const NUMBER = '\x1b[33m'
const LITERAL = '\x1b[35m'

/**
 * Whether output should be coloured: `NO_COLOR` set to anything non-empty says no; otherwise `FW_COLOR=always` or
 * `FW_COLOR=never` decides; otherwise colour only when the destination is a terminal.
 */
export function color_wanted(is_tty: boolean, env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false
  const forced = env.FW_COLOR?.trim().toLowerCase()
  if (forced === 'always') return true
  if (forced === 'never') return false
  return is_tty
}

/** A severity's label in its colour. */
export function paint_label(severity: number, label: string): string {
  return `${LEVEL_COLORS[severity]}${label}${RESET}`
}

const JSON_TOKEN = /("(?:[^"\\]|\\.)*")(\s*:)?|\b(?:true|false|null)\b|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g

/**
 * Indented JSON text with keys, strings, numbers and literals coloured, and the `level` value in its severity's colour.
 */
export function paint_json(text: string, severity: number): string {
  let level_next = false
  return text.replace(JSON_TOKEN, (token: string, str: string | undefined, colon: string | undefined) => {
    if (str !== undefined && colon !== undefined) {
      level_next = str === '"level"'
      return `${KEY}${str}${RESET}${colon}`
    }
    const color = level_next
      ? LEVEL_COLORS[severity]
      : str !== undefined
        ? STRING
        : token[0] === 't' || token[0] === 'f' || token[0] === 'n'
          ? LITERAL
          : NUMBER
    level_next = false
    return `${color}${token}${RESET}`
  })
}

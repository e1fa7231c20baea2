// What a database driver's error means, read from its code: SQLite's `SQLITE_*` names (as better-sqlite3 gives them,
// and as node:sqlite's numeric `errcode` maps to them) and PostgreSQL's SQLSTATE.

/** SQLite's result codes the demos act on, by number: extended codes first, then primary ones (`errcode & 0xff`). */
const SQLITE_CODES: Record<number, string> = {
  2067: 'SQLITE_CONSTRAINT_UNIQUE',
  1555: 'SQLITE_CONSTRAINT_PRIMARYKEY',
  5: 'SQLITE_BUSY',
  6: 'SQLITE_LOCKED',
  10: 'SQLITE_IOERR',
  13: 'SQLITE_FULL',
  14: 'SQLITE_CANTOPEN',
  19: 'SQLITE_CONSTRAINT',
}

/** The driver's error code (`SQLITE_BUSY`, `23505`...), or '' when it has none. */
export function code_of(err: unknown): string {
  const { code, errcode } = (err ?? {}) as { code?: unknown; errcode?: unknown }
  // node:sqlite gives every SQLite error one code and the result code as a number.
  if (code === 'ERR_SQLITE_ERROR' && typeof errcode === 'number') {
    return SQLITE_CODES[errcode] ?? SQLITE_CODES[errcode & 0xff] ?? `SQLITE_${errcode}`
  }
  return typeof code === 'string' ? code : ''
}

/**
 * The column a unique constraint refused (`email`, `username`, `slug`...), or undefined when `err` is not a unique
 * violation. PostgreSQL names the constraint (`users_email_key`), SQLite the column (`users.email`).
 */
export function unique_violation(err: unknown): string | undefined {
  const code = code_of(err)
  const message = err instanceof Error ? err.message : ''
  if (code === '23505') {
    const constraint = (err as { constraint?: string }).constraint ?? ''
    return /_(email|username|slug|name)_key$/.exec(constraint)?.[1] ?? constraint
  }
  if (code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY') {
    return /UNIQUE constraint failed: \w+\.(\w+)/.exec(message)?.[1] ?? 'key'
  }
  return undefined
}

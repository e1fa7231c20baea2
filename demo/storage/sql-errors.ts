// What a database driver's error means, read from its code: better-sqlite3's `SQLITE_*` and PostgreSQL's SQLSTATE.

/** The driver's error code (`SQLITE_BUSY`, `23505`...), or '' when it has none. */
export function code_of(err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code
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

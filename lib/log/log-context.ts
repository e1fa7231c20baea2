// What a log line's context holds (`rid=`, `mod=`, fields): the shape every line writer reads, with no behaviour.

/** Context added to every line logged in one async flow: `rid=`, `mod=`, then each field, in KV output. */
export interface LogContext {
  /** The request id (`rid=`); empty for none. */
  request_id: string
  /** The module or component (`mod=`); empty for none. */
  module: string
  /** Extra fields, each shown as `<name>=<value>`. */
  fields: Record<string, string>
}

/** What `set_context` and `run_with_context` take: any part of a `LogContext`; the rest is empty. */
export type LogContextInit = Partial<LogContext>

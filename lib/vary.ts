// The `Vary` header: one merge for every writer (CORS, compression, http_cache, a handler's `res.header`).

/**
 * `current` with the names of `added` appended: a list of request header names compared case-insensitively, each kept
 * once, in the order first seen; `*` anywhere makes the whole value `*` (it varies on everything). Empty items drop.
 * @example
 * merge_vary('Origin', 'accept-encoding, origin') // 'Origin, accept-encoding'
 * merge_vary('Origin', '*') // '*'
 */
export function merge_vary(current: string | undefined, added: string): string {
  // The common first write, one name (CORS's `Origin` on every response): the merge would give it back as it is.
  if (current === undefined && added !== '*' && added !== '' && !added.includes(',') && added.trim() === added)
    return added
  const seen = new Set<string>()
  const names: string[] = []
  for (const item of `${current ?? ''},${added}`.split(',')) {
    const name = item.trim()
    const key = name.toLowerCase()
    if (name === '*') return '*'
    if (name === '' || seen.has(key)) continue
    seen.add(key)
    names.push(name)
  }
  return names.join(', ')
}

// The `Vary` header: adding a request header to it without dropping or repeating what is there.
import type { Response } from '../../response.js'

/** Adds `name` to the response's `Vary` unless it (or `*`) is listed already. */
export function add_vary(res: Response, name: string): void {
  const v = res.get_header('vary')
  if (v === undefined || v === '') return void res.header('Vary', name)
  const listed = v.split(',').some((t) => {
    const token = t.trim().toLowerCase()
    return token === '*' || token === name.toLowerCase()
  })
  if (!listed) res.header('Vary', `${v}, ${name}`)
}

// What both body servers send: 64 KiB chunks of a shared buffer, and the event count asked for.

/** The chunk a download repeats. */
export const CHUNK = Buffer.alloc(64 * 1024, 0x61)

/** `n` chunks, one at a time (the consumer's pace). */
export async function* chunks(n: number): AsyncGenerator<Buffer> {
  for (let i = 0; i < n; i++) yield CHUNK
}

/** The `n` query parameter as a bounded count. */
export function sse_count(raw: string): number {
  const n = Number(raw)
  return Number.isInteger(n) && n > 0 && n <= 100_000 ? n : 1000
}

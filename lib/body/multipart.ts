// multipart/form-data on @fastify/busboy: the parts as an async iterable under limits, and `save()` writing the files
// to a temporary folder that is removed once the response is over.
import { createWriteStream } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import type { IncomingHttpHeaders } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PassThrough, type Readable, type Writable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { ERR_BODY_CONSUMED, ERR_BODY_MALFORMED, over_limit } from './errors.js'
import { add_field, type FormFields } from './form.js'
import type { ResolvedFormLimits } from './limits.js'

/**
 * A multipart parser fed the body: a Writable emitting busboy's events (`field`, `file`, `fieldsLimit`, `filesLimit`,
 * `error`, `finish`). The adapter supplies one built on `@fastify/busboy`; lib/ stays free of Fastify packages.
 */
export type MultipartParserFactory = (headers: IncomingHttpHeaders, limits: ResolvedFormLimits) => Writable

/** A file stream of the parser: it emits `limit` when the file passes `file_size`. */
type ParserFile = Readable

/** A text field of a multipart form. */
export interface FieldPart {
  readonly kind: 'field'
  readonly name: string
  readonly value: string
}

/** A file of a multipart form: read `stream` before asking for the next part (an unread file is skipped). */
export interface FilePart {
  readonly kind: 'file'
  readonly name: string
  /** The client's file name without its folders: metadata only, never a safe path. */
  readonly filename: string
  readonly mime_type: string
  readonly stream: Readable
}

/** One part of a multipart form. */
export type Part = FieldPart | FilePart

/** A file that `save()` wrote: `path` is in a temporary folder removed after the response. */
export interface SavedFile {
  readonly name: string
  readonly filename: string
  readonly mime_type: string
  readonly path: string
  readonly size: number
}

/** What `save()` gives: the fields (null prototype, repeated names as arrays) and the files in arrival order. */
export interface SavedForm {
  readonly fields: FormFields
  readonly files: SavedFile[]
}

/**
 * A multipart body, read once: iterate its parts, or `save()` them. Exceeding a limit fails the iteration (and the file
 * stream being read) with `FW_ERR_BODY_OVER_LIMIT` (413); a malformed body with `FW_ERR_BODY_MALFORMED` (400).
 * @example
 * for await (const part of req.multipart()) if (part.kind === 'file') await pipeline(part.stream, sink)
 */
export class Multipart implements AsyncIterable<Part> {
  readonly #source: () => Readable
  readonly #headers: IncomingHttpHeaders
  readonly #limits: ResolvedFormLimits
  readonly #after_response: (fn: () => Promise<unknown>) => void
  readonly #parser: MultipartParserFactory
  #used = false

  constructor(
    parser: MultipartParserFactory,
    source: () => Readable,
    headers: IncomingHttpHeaders,
    limits: ResolvedFormLimits,
    after_response: (fn: () => Promise<unknown>) => void,
  ) {
    this.#parser = parser
    this.#source = source
    this.#headers = headers
    this.#limits = limits
    this.#after_response = after_response
  }

  /** The parts in arrival order; a body can be iterated once. */
  [Symbol.asyncIterator](): AsyncIterator<Part> {
    this.#check_unused()
    this.#used = true
    return parts(start(this.#parser, this.#headers, this.#limits), this.#source())
  }

  /**
   * Reads every part: fields by name, files written under fresh names (never the client's) to a temporary folder. A
   * failure (a limit, a malformed body, a file that cannot be written) stops the parser and rejects; the files already
   * written go with the folder once the response is over.
   */
  async save(): Promise<SavedForm> {
    this.#check_unused()
    // The folder first: when it cannot be made, no parser has started and the body is left as it was.
    const dir = await mkdtemp(join(tmpdir(), 'fw-upload-'))
    // The folder goes once the response is over and this save has settled: a response already over (a client gone
    // before the handler asked, its body buffered) would otherwise remove it while the files are still being written,
    // leaving those written after on disk, or failing their writes.
    const saved = save_parts(this, dir)
    const remove = (): Promise<void> => rm(dir, { recursive: true, force: true })
    this.#after_response(() => saved.then(remove, remove))
    return saved
  }

  #check_unused(): void {
    if (this.#used) throw ERR_BODY_CONSUMED('multipart', 'its parts were already read')
  }
}

/** Reads every part of `form`: fields by name, files written to `dir` under fresh names. */
async function save_parts(form: AsyncIterable<Part>, dir: string): Promise<SavedForm> {
  const fields = Object.create(null) as FormFields
  const files: SavedFile[] = []
  // `for await` ends the parts on a throw too (a write failing), which unpipes and destroys the parser.
  for await (const part of form) {
    if (part.kind === 'field') {
      add_field(fields, part.name, part.value)
      continue
    }
    const path = join(dir, `${files.length + 1}.upload`)
    const out = createWriteStream(path)
    await pipeline(part.stream, out)
    files.push({ name: part.name, filename: part.filename, mime_type: part.mime_type, path, size: out.bytesWritten })
  }
  return { fields, files }
}

/** The state of one parse: parts waiting to be taken, the first failure, and the wake-up of a waiting consumer. */
class PartQueue {
  readonly items: Part[] = []
  failure: unknown = undefined
  finished = false
  open_file: PassThrough | undefined = undefined
  #wake: (() => void) | undefined

  push(part: Part): void {
    this.items.push(part)
    this.#notify()
  }

  fail(err: unknown): void {
    this.failure ??= err
    // The file being read fails too, so a consumer piping it to disk stops.
    if (this.open_file !== undefined && !this.open_file.writableFinished) this.open_file.destroy(this.failure as Error)
    this.#notify()
  }

  finish(): void {
    this.finished = true
    this.#notify()
  }

  wait(): Promise<void> {
    return new Promise((resolve) => (this.#wake = resolve))
  }

  #notify(): void {
    const w = this.#wake
    this.#wake = undefined
    w?.()
  }
}

/** A parser for the body, listened to; a header the parser refuses (no boundary) throws `FW_ERR_BODY_MALFORMED`. */
function start(
  make: MultipartParserFactory,
  headers: IncomingHttpHeaders,
  limits: ResolvedFormLimits,
): { bb: Writable; q: PartQueue } {
  let bb: Writable
  try {
    bb = make(headers, limits)
  } catch (err) {
    throw ERR_BODY_MALFORMED('multipart body', (err as Error).message)
  }
  const q = new PartQueue()
  listen(bb, q, limits)
  return { bb, q }
}

function listen(bb: Writable, q: PartQueue, limits: ResolvedFormLimits): void {
  const malformed = (err: unknown): FwErrorLike => ERR_BODY_MALFORMED('multipart body', (err as Error).message)
  bb.on('field', (name: string | undefined, value: string, _name_truncated: boolean, truncated: boolean) => {
    if (name === undefined) q.fail(nameless())
    else if (truncated) q.fail(over_limit('field_size', limits.field_size))
    else q.push({ kind: 'field', name, value })
  })
  bb.on('file', (name: string | undefined, file: ParserFile, filename: string, _enc: string, mime_type: string) => {
    if (name === undefined) {
      file.resume()
      return q.fail(nameless())
    }
    const out = new PassThrough()
    // A failure may reach a file still queued, before the consumer listens: its reader sees the error when it reads.
    out.on('error', () => {})
    // A reader that lets the file go before its end (destroys it, or leaves a `for await` over it) skips the rest: the
    // parser reaches the next part only once this file has drained, and nobody reads `out` any more.
    out.on('close', () => {
      if (file.readableEnded) return
      file.unpipe(out)
      file.resume()
    })
    q.open_file = out
    file.on('limit', () => q.fail(over_limit('file_size', limits.file_size)))
    file.on('error', (err: unknown) => q.fail(malformed(err)))
    file.pipe(out)
    q.push({ kind: 'file', name, filename, mime_type, stream: out })
  })
  bb.on('fieldsLimit', () => q.fail(over_limit('fields', limits.fields)))
  bb.on('filesLimit', () => q.fail(over_limit('files', limits.files)))
  bb.on('error', (err: unknown) => q.fail(malformed(err)))
  bb.on('finish', () => q.finish())
}

type FwErrorLike = ReturnType<typeof ERR_BODY_MALFORMED>

/**
 * A part whose `Content-Disposition: form-data` has no `name`: busboy keeps it with the name undefined, which would
 * reach the handler as a part whose name is no string, and `save()`'s fields as the key `undefined`.
 */
const nameless = (): FwErrorLike => ERR_BODY_MALFORMED('multipart body', 'a part without a name')

async function* parts({ bb, q }: { bb: Writable; q: PartQueue }, source: Readable): AsyncGenerator<Part> {
  const on_source_error = (err: unknown): void => q.fail(err)
  source.on('error', on_source_error)
  if (source.errored !== null) q.fail(source.errored)
  source.pipe(bb)
  try {
    for (;;) {
      if (q.failure !== undefined) throw q.failure
      const next = q.items.shift()
      if (next !== undefined) {
        yield next
        // A file left unread is skipped: the parser waits for it to drain before it reaches the next part.
        if (next.kind === 'file' && !next.stream.readableEnded) next.stream.resume()
        continue
      }
      if (q.finished) return
      await q.wait()
    }
  } finally {
    source.off('error', on_source_error)
    source.unpipe(bb)
    bb.removeAllListeners()
    // Late parser errors after the consumer stopped are expected; they must not become unhandled.
    bb.on('error', () => {})
    if (q.open_file !== undefined && !q.open_file.readableEnded) q.open_file.destroy()
    // Nothing feeds the parser any more: a consumer that stopped early (a `break`, a failed write) leaves it no work.
    bb.destroy()
  }
}

// Test helper: multipart/form-data bodies built by hand, so tests can also send broken ones.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/**
 * Points this test process's temporary folder (`TMPDIR`, which `os.tmpdir()` reads on each call) at a private one, so
 * counting `fw-upload-*` folders sees this file's uploads only, not those of a test file running beside it.
 */
export function private_tmpdir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'fw-test-tmp-'))
  process.env.TMPDIR = dir
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }))
  return dir
}

/** One part: a field (`value`) or a file (`filename`, `content`, `type`). */
export type TestPart =
  { name: string; value: string } | { name: string; filename: string; content: string | Buffer; type?: string }

/** The boundary every helper body uses. */
export const BOUNDARY = 'fw-test-boundary'

/** The headers of a multipart body built by `multipart_body`. */
export const MULTIPART_HEADERS = { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` }

/** A multipart body of `parts`; `end: false` leaves out the closing boundary (a truncated body). */
export function multipart_body(parts: TestPart[], { end = true }: { end?: boolean } = {}): Buffer {
  const chunks: Buffer[] = []
  for (const p of parts) {
    const head =
      'value' in p
        ? `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${p.name}"\r\n\r\n`
        : `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${p.name}"; filename="${p.filename}"\r\nContent-Type: ${p.type ?? 'application/octet-stream'}\r\n\r\n`
    chunks.push(Buffer.from(head), Buffer.from('value' in p ? p.value : p.content), Buffer.from('\r\n'))
  }
  if (end) chunks.push(Buffer.from(`--${BOUNDARY}--\r\n`))
  return Buffer.concat(chunks)
}

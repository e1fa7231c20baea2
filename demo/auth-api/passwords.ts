// How passwords are kept: as sent in demonstration mode (the spec's record), as salted scrypt hashes in production
// mode.
import { createHash, randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto'
import { ERR_AUTHAPI_BAD_OPTION } from './errors.js'

/** Turns a password into what the user record keeps, and checks a password against it. */
export interface PasswordHasher {
  /** What the user record keeps for `password`. */
  hash(password: string): Promise<string>
  /** Whether `password` matches `stored`; `stored` undefined (no such user) costs the same and answers false. */
  verify(password: string, stored: string | undefined): Promise<boolean>
}

const UNPAIRED_SURROGATE = /\p{Surrogate}/u
/** Never a byte of UTF-8: marks text encoded as its UTF-16 code units. */
const UTF16_MARK = Buffer.from([0xff])
/** Never a byte of UTF-8 either: opens an encoding that ends in a zero byte, closed by `ZERO_END_CLOSE`. */
const ZERO_END_OPEN = Buffer.from([0xfe])
const ZERO_END_CLOSE = Buffer.from([0x01])

/**
 * The bytes a password is hashed and compared as: its UTF-8, one encoding per text. UTF-8 turns every unpaired
 * surrogate into U+FFFD, which made `'\ud800'` and `'\udbff'` one password; text holding one is encoded as 0xFF and
 * its UTF-16 code units instead, which no well-formed text's UTF-8 can equal (and whose stored hashes stay valid).
 * scrypt keys HMAC-SHA256 with these bytes, and HMAC pads a key with zero bytes, which made `'x'` and `'x\0'` one
 * password: bytes ending in a zero byte are framed as 0xFE, the bytes, 0x01, so no encoding ends in one.
 */
export function password_bytes(password: string): Buffer {
  const bytes = UNPAIRED_SURROGATE.test(password)
    ? Buffer.concat([UTF16_MARK, Buffer.from(password, 'utf16le')])
    : Buffer.from(password, 'utf8')
  return bytes.at(-1) === 0 ? Buffer.concat([ZERO_END_OPEN, bytes, ZERO_END_CLOSE]) : bytes
}

/** Equality of two texts in time that depends on neither: their SHA-256 digests, compared with `timingSafeEqual`. */
export function same_text(a: string, b: string): boolean {
  const digest = (s: string): Buffer => createHash('sha256').update(password_bytes(s)).digest()
  return timingSafeEqual(digest(a), digest(b))
}

/** A record `ScryptPasswords` wrote: at least 122 characters, so never a password demonstration mode kept (8 to 64). */
const SCRYPT_RECORD = /^scrypt\$[0-9]+\$[0-9]+\$[0-9]+\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{86}$/

/**
 * Demonstration mode: the record keeps the password as sent (the spec's in-memory demonstration). A scrypt record (a
 * production user in a database shared with a demonstration) is refused, else its hash would be its password.
 */
export const plain_passwords: PasswordHasher = {
  hash: (password) => Promise.resolve(password),
  verify: (password, stored) =>
    Promise.resolve(same_text(password, stored ?? '') && stored !== undefined && !SCRYPT_RECORD.test(stored)),
}

/** scrypt's cost parameters. */
export interface ScryptCost {
  /** CPU/memory cost, a power of two (default 16384, node's). */
  cost?: number
  /** Block size (default 8). */
  block_size?: number
  /** Parallelization (default 1). */
  parallelization?: number
}

const KEY_LENGTH = 64
const SALT_BYTES = 16

function derive(password: string, salt: Buffer, o: ScryptOptions): Promise<Buffer> {
  // 128 * N * r bytes are needed; twice that leaves room above node's 32 MiB default for costs beyond 16384.
  const maxmem = 256 * (o.N ?? 16384) * (o.r ?? 8)
  return new Promise((resolve, reject) =>
    scrypt(password_bytes(password), salt, KEY_LENGTH, { ...o, maxmem }, (err, key) =>
      err ? reject(err) : resolve(key),
    ),
  )
}

/**
 * Production mode: `scrypt$<N>$<r>$<p>$<salt>$<key>` with a random 16-byte salt per password (base64url), checked with
 * `timingSafeEqual`. A stored hash keeps its own parameters, so raising the cost later still verifies old hashes.
 * @example
 * const hasher = new ScryptPasswords({ cost: 32768 })
 * const stored = await hasher.hash('correct horse battery')
 */
export class ScryptPasswords implements PasswordHasher {
  readonly #options: { N: number; r: number; p: number }
  #dummy: Promise<string> | undefined

  constructor({ cost = 16384, block_size = 8, parallelization = 1 }: ScryptCost = {}) {
    const power_of_two = Number.isInteger(cost) && cost >= 2 && Number.isInteger(Math.log2(cost))
    if (!power_of_two) throw ERR_AUTHAPI_BAD_OPTION('scrypt.cost', 'a power of two >= 2', cost)
    for (const [name, v] of [
      ['scrypt.block_size', block_size],
      ['scrypt.parallelization', parallelization],
    ] as const) {
      if (!Number.isInteger(v) || v < 1) throw ERR_AUTHAPI_BAD_OPTION(name, 'a whole number >= 1', v)
    }
    // scrypt needs 128 * N * r bytes per hash; beyond 1 GiB every login would fail (or swap), so it is refused at
    // startup.
    if (128 * cost * block_size > 2 ** 30)
      throw ERR_AUTHAPI_BAD_OPTION('scrypt.cost', 'at most 2^30 / (128 * block_size)', cost)
    this.#options = { N: cost, r: block_size, p: parallelization }
  }

  /** A new salted hash of `password`. */
  async hash(password: string): Promise<string> {
    const salt = randomBytes(SALT_BYTES)
    const key = await derive(password, salt, this.#options)
    const { N, r, p } = this.#options
    return ['scrypt', N, r, p, salt.toString('base64url'), key.toString('base64url')].join('$')
  }

  /**
   * Whether `password` derives the stored key; with no user, a throwaway hash is checked so the answer takes as long.
   */
  async verify(password: string, stored: string | undefined): Promise<boolean> {
    const checked = stored ?? (await (this.#dummy ??= this.hash(randomBytes(12).toString('base64url'))))
    const [tag, n, r, p, salt, key] = checked.split('$')
    if (tag !== 'scrypt' || salt === undefined || key === undefined) return false
    const expected = Buffer.from(key, 'base64url')
    if (expected.length !== KEY_LENGTH) return false
    const actual = await derive(password, Buffer.from(salt, 'base64url'), { N: Number(n), r: Number(r), p: Number(p) })
    return timingSafeEqual(actual, expected) && stored !== undefined
  }
}

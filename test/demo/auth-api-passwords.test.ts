// How the reference authentication API keeps passwords: scrypt hashes in production, the text itself in demo mode.
import t from 'tap'
import { plain_passwords, same_text, ScryptPasswords } from '../../demo/auth-api/index.js'

t.test('ScryptPasswords', async (t) => {
  t.test('verifies the password it hashed and nothing else', async (t) => {
    const hasher = new ScryptPasswords({ cost: 1024 })
    const stored = await hasher.hash('correct horse')
    t.match(stored, /^scrypt\$1024\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{86}$/)
    t.equal(await hasher.verify('correct horse', stored), true)
    for (const other of ['correct horsE', 'correct horse ', '', 'correct hors'])
      t.equal(await hasher.verify(other, stored), false, other)
  })

  t.test('salts every hash', async (t) => {
    const hasher = new ScryptPasswords({ cost: 1024 })
    const [a, b] = await Promise.all([hasher.hash('same password'), hasher.hash('same password')])
    t.not(a, b)
    t.not(a.split('$')[4], b.split('$')[4])
  })

  t.test('verifies a hash made with other parameters by the ones it carries', async (t) => {
    const old = await new ScryptPasswords({ cost: 1024, block_size: 4 }).hash('correct horse')
    t.equal(await new ScryptPasswords({ cost: 2048 }).verify('correct horse', old), true)
  })

  t.test('answers false for no user and for a stored value that is not its hash', async (t) => {
    const hasher = new ScryptPasswords({ cost: 1024 })
    const good = await hasher.hash('correct horse')
    const [, n, r, p, salt, key] = good.split('$')
    for (const stored of [
      undefined,
      '',
      'correct horse',
      `bcrypt$${n}$${r}$${p}$${salt}$${key}`,
      `scrypt$${n}$${r}$${p}$${salt}`,
      `scrypt$${n}$${r}$${p}$${salt}$${key!.slice(0, 40)}`,
    ]) {
      t.equal(await hasher.verify('correct horse', stored), false, String(stored))
    }
  })

  t.test('tells apart passwords that differ only in trailing NUL characters', async (t) => {
    // scrypt keys HMAC-SHA256 with the password, and HMAC pads a key with zero bytes: 'x' and 'x\0' were one key.
    const hasher = new ScryptPasswords({ cost: 1024 })
    const cases: Array<[string, string]> = [
      ['correct horse', 'correct horse\u0000'],
      ['correct horse\u0000', 'correct horse\u0000\u0000'],
      ['\ud800correct horse', '\ud800correct horse\u0000'],
      ['\ud800correct horse', '\ud800correct horsf'],
    ]
    for (const [a, b] of cases) {
      const [ha, hb] = await Promise.all([hasher.hash(a), hasher.hash(b)])
      t.same(
        [
          await hasher.verify(a, ha),
          await hasher.verify(b, ha),
          await hasher.verify(a, hb),
          await hasher.verify(b, hb),
        ],
        [true, false, false, true],
        JSON.stringify([a, b]),
      )
    }
  })

  t.test('refuses unusable cost parameters at creation with FW_ERR_AUTHAPI_BAD_OPTION', async (t) => {
    const cases: Array<[ConstructorParameters<typeof ScryptPasswords>[0], string]> = [
      [{ cost: 1000 }, 'auth_api: scrypt.cost must be a power of two >= 2; got 1000'],
      [{ cost: 1 }, 'auth_api: scrypt.cost must be a power of two >= 2; got 1'],
      [
        { cost: 2 ** 21, block_size: 8 },
        'auth_api: scrypt.cost must be at most 2^30 / (128 * block_size); got 2097152',
      ],
      [{ block_size: 0 }, 'auth_api: scrypt.block_size must be a whole number >= 1; got 0'],
      [{ parallelization: 1.5 }, 'auth_api: scrypt.parallelization must be a whole number >= 1; got 1.5'],
    ]
    for (const [options, message] of cases) {
      t.throws(() => new ScryptPasswords(options), { code: 'FW_ERR_AUTHAPI_BAD_OPTION', message })
    }
  })
})

t.test('plain_passwords', async (t) => {
  t.test('keeps the password as sent and compares it exactly', async (t) => {
    t.equal(await plain_passwords.hash('correct horse'), 'correct horse')
    t.equal(await plain_passwords.verify('correct horse', 'correct horse'), true)
    t.equal(await plain_passwords.verify('correct horsE', 'correct horse'), false)
    t.equal(await plain_passwords.verify('', undefined), false, 'no user matches even an empty password')
  })
})

t.test('same_text', async (t) => {
  t.test('compares texts of any lengths', async (t) => {
    t.equal(same_text('abc', 'abc'), true)
    t.equal(same_text('abc', 'abcd'), false)
    t.equal(same_text('', ''), true)
    t.equal(same_text('é', 'e\u0301'), false, 'no normalisation')
  })

  t.test('tells apart texts that differ only in unpaired surrogates', async (t) => {
    t.equal(same_text('a\ud800', 'a\udbff'), false)
    t.equal(same_text('a\ud800', 'a\ufffd'), false)
    t.equal(same_text('a\ud800', 'a\ud800'), true)
    t.equal(same_text('\ud83d\ude00', '😀'), true, 'a pair is one code point, as in UTF-8')
  })
})

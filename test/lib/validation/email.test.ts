import t from 'tap'
import { is_email } from '../../../lib/validation/index.js'

/** A valid domain of exactly `n` characters: 63-character labels, then a shorter last one. */
function domain(n: number): string {
  const labels: string[] = []
  let left = n
  for (; left > 64; left -= 64) labels.push('d'.repeat(63))
  labels.push('c'.repeat(left))
  return labels.join('.')
}

t.test('is_email', async (t) => {
  t.test('accepts common addresses', async (t) => {
    for (const email of [
      'ada@example.com',
      'Ada.Lovelace@Example.COM',
      'first.last+tag@sub.domain.co.uk',
      "o'brien@example.ie",
      'x@a-b.io',
      'user@xn--p1ai.xn--p1ai',
      '1234@123.example',
    ]) {
      t.equal(is_email(email), true, email)
    }
  })

  t.test('refuses malformed addresses', async (t) => {
    for (const email of [
      '',
      'ada',
      '@example.com',
      'ada@',
      'ada@@example.com',
      'a@b@example.com',
      'ada@localhost',
      'ada@example.',
      'ada@.example.com',
      'ada@example..com',
      'ada@-example.com',
      'ada@example-.com',
      'ada@exa_mple.com',
      'ada@1.2.3.4',
      'ada@[127.0.0.1]',
      '.ada@example.com',
      'ada.@example.com',
      'a..da@example.com',
      'a da@example.com',
      ' ada@example.com',
      'ada@example.com ',
      '"ada"@example.com',
      'ada(comment)@example.com',
      'ädä@example.com',
      'ada@exämple.com',
      '<script>@example.com',
    ]) {
      t.equal(is_email(email), false, JSON.stringify(email))
    }
  })

  t.test('holds the local part to 64 characters, a label to 63 and the address to 254', async (t) => {
    t.equal(is_email(`${'a'.repeat(64)}@example.com`), true)
    t.equal(is_email(`${'a'.repeat(65)}@example.com`), false)
    t.equal(is_email(`ada@${'b'.repeat(63)}.com`), true)
    t.equal(is_email(`ada@${'b'.repeat(64)}.com`), false)
    t.equal(`a@${domain(252)}`.length, 254)
    t.equal(is_email(`a@${domain(252)}`), true)
    t.equal(is_email(`a@${domain(253)}`), false)
  })

  t.test('refuses long adversarial inputs', async (t) => {
    const inputs = [
      'a'.repeat(100_000),
      `${'a'.repeat(100_000)}@example.com`,
      `a@${'a.'.repeat(100_000)}`,
      `${'.'.repeat(50_000)}@${'-'.repeat(50_000)}`,
      `${'a'.repeat(60)}@${'a-'.repeat(30)}!`,
      `${'a!'.repeat(31)}@${'a.'.repeat(90)}-`,
    ]
    for (const input of inputs) t.equal(is_email(input), false, `${input.slice(0, 20)}... (${input.length})`)
  })
})

// The token maps of the reference authentication API: fixed demonstration tokens and random expiring ones.
import t from 'tap'
import { DevTokens, RandomTokens } from '../../demo/auth-api/index.js'

t.test('DevTokens', async (t) => {
  t.test('issues dev-token-<id> and knows only the tokens it issued', async (t) => {
    const tokens = new DevTokens()
    t.same(tokens.issue(7), { token: 'dev-token-7' })
    t.equal(tokens.user_id('dev-token-7'), 7)
    t.equal(tokens.user_id('dev-token-8'), undefined)
    t.equal(tokens.user_id('dev-token-07'), undefined)
  })
})

t.test('RandomTokens', async (t) => {
  t.test('issues 43-character base64url tokens that expire after ttl seconds', async (t) => {
    const tokens = new RandomTokens(10)
    const issued = tokens.issue(3, 1000)
    t.match(issued.token, /^[A-Za-z0-9_-]{43}$/)
    t.equal(issued.expires_in, 10)
    t.equal(tokens.user_id(issued.token, 10_999), 3)
    t.equal(tokens.user_id(issued.token, 11_000), undefined)
    t.equal(tokens.size, 0, 'an expired token is forgotten when looked up')
    t.equal(tokens.user_id(issued.token, 1000), undefined, 'and stays forgotten')
  })

  t.test('does not keep the token itself', async (t) => {
    const tokens = new RandomTokens(10)
    const { token } = tokens.issue(1, 0)
    t.equal(tokens.user_id(token.toUpperCase(), 0), undefined)
    t.equal(tokens.user_id(token, 0), 1)
  })

  t.test('sweeps expired tokens every 256 logins, so the map stays bounded', async (t) => {
    const tokens = new RandomTokens(1)
    for (let i = 0; i < 255; i++) tokens.issue(i, 0)
    t.equal(tokens.size, 255)
    tokens.issue(999, 1000)
    t.equal(tokens.size, 1)
  })
})

// The reference authentication API without HTTP: register, login and the user behind a token, in the spec's processing
// order.
import type { ValidationError } from '../../lib/validation/index.js'
import { LoginBody, RegisterBody } from './bodies.js'
import type { AuthApiConfig, AuthMode } from './options.js'
import { plain_passwords, ScryptPasswords, type PasswordHasher } from './passwords.js'
import { DevTokens, RandomTokens, type IssuedToken, type TokenStore } from './token-store.js'
import { public_user, UserStore, type PublicUser, type Users } from './user-store.js'

/** What `register` decided. */
export type RegisterOutcome =
  | { readonly kind: 'created'; readonly user: PublicUser }
  | { readonly kind: 'invalid'; readonly errors: readonly ValidationError[] }
  | { readonly kind: 'taken' }

/** What `login` decided. */
export type LoginOutcome =
  | { readonly kind: 'ok'; readonly issued: IssuedToken }
  | { readonly kind: 'invalid'; readonly errors: readonly ValidationError[] }
  | { readonly kind: 'refused' }

/**
 * The spec's AppState (users and tokens) and its operations. Demonstration mode keeps passwords as sent and hands out
 * `dev-token-<id>`; production mode keeps scrypt hashes and hands out random tokens that expire.
 * @example
 * const auth = new AuthService(auth_api_config({ mode: 'production' }))
 * await auth.register({ email: 'ada@example.com', password: 'correct horse', confirm: 'correct horse' })
 */
export class AuthService {
  /** The users: the `users` option's store, else in memory. */
  readonly users: Users
  /** The mode the service runs in. */
  readonly mode: AuthMode
  readonly #tokens: TokenStore
  readonly #passwords: PasswordHasher
  readonly #config: AuthApiConfig

  constructor(config: AuthApiConfig) {
    this.#config = config
    this.mode = config.mode
    const production = config.mode === 'production'
    this.users = config.users ?? new UserStore()
    this.#tokens = config.tokens ?? (production ? new RandomTokens(config.ttl) : new DevTokens())
    this.#passwords = production ? (config.passwords ?? new ScryptPasswords(config.scrypt)) : plain_passwords
  }

  /** Validates, refuses a taken email, creates the user (role `admin` when listed in `admins`). */
  async register(body: unknown, ip = ''): Promise<RegisterOutcome> {
    const result = RegisterBody.validate(body)
    if (!result.ok) return { kind: 'invalid', errors: result.errors }
    const { email, password } = result.value
    // The duplicate check reserves the email at once, so racing registrations of one email get one user and do not all
    // hash.
    if (!(await this.users.reserve(email))) {
      this.#log('register refused', `reason=email_taken ip=${ip}`)
      return { kind: 'taken' }
    }
    try {
      const user = await this.users.create(
        email,
        await this.#passwords.hash(password),
        this.#config.admins.has(email) ? 'admin' : 'user',
      )
      // Another instance on the same database registered the email between the check and the insert.
      if (user === undefined) {
        this.#log('register refused', `reason=email_taken ip=${ip}`)
        return { kind: 'taken' }
      }
      this.#log('registered', `user_id=${user.id} role=${user.role} ip=${ip}`)
      return { kind: 'created', user: public_user(user) }
    } finally {
      await this.users.release(email)
    }
  }

  /** Validates, checks the credentials (as long for an unknown email as for a wrong password), issues a token. */
  async login(body: unknown, ip = ''): Promise<LoginOutcome> {
    const result = LoginBody.validate(body)
    if (!result.ok) return { kind: 'invalid', errors: result.errors }
    const user = await this.users.by_email(result.value.email)
    const match = await this.#passwords.verify(result.value.password, user?.password)
    if (user === undefined || !match) {
      this.#log('login refused', `reason=invalid_credentials ip=${ip}`)
      return { kind: 'refused' }
    }
    this.#log('logged in', `user_id=${user.id} ip=${ip}`)
    return { kind: 'ok', issued: await this.#tokens.issue(user.id, this.#config.now()) }
  }

  /** The user a valid token belongs to. */
  async user_for(token: string): Promise<PublicUser | undefined> {
    const id = await this.#tokens.user_id(token, this.#config.now())
    const user = id === undefined ? undefined : await this.users.by_id(id)
    return user === undefined ? undefined : public_user(user)
  }

  #log(event: string, fields: string): void {
    this.#config.log(`auth ${event} ${fields}`)
  }
}

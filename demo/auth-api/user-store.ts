// The spec's in-memory users: a list of records, an index by email, and reservations that make "one email, one user"
// atomic.

/** A role; `admin` grants the admin-only route. */
export type Role = 'user' | 'admin'

/** The spec's User record. `password` is the text itself in demonstration mode and a scrypt hash in production mode. */
export interface User {
  readonly id: number
  readonly email: string
  readonly password: string
  readonly role: Role
}

/** A user as answers show it: never the password. */
export interface PublicUser {
  readonly id: number
  readonly email: string
  readonly role: Role
}

/** The answer-safe view of a user. */
export function public_user({ id, email, role }: User): PublicUser {
  return { id, email, role }
}

/**
 * Where users are kept: in memory (`UserStore`) or in a database (`SqlUsers`). Each method may answer at once or with a
 * promise (the house convention for stores that may be async).
 */
export interface Users {
  /** Claims `email` for a registration in progress; false when a user has it or another registration claimed it. */
  reserve(email: string): boolean | Promise<boolean>
  /** Gives up a claim (the registration ended). */
  release(email: string): void | Promise<void>
  /**
   * Creates the user for a reserved email; undefined when the email was taken after all (another instance on the same
   * database registered it first).
   */
  create(email: string, password: string, role: Role): User | undefined | Promise<User | undefined>
  /** The user with this (normalised) email. */
  by_email(email: string): User | undefined | Promise<User | undefined>
  /** The user with this id. */
  by_id(id: number): User | undefined | Promise<User | undefined>
  /** Every user, in registration order. */
  list(): readonly User[] | Promise<readonly User[]>
}

/**
 * Users in memory (they do not survive a restart). Registration reserves the email first, then creates the user, so
 * requests for one email racing each other (even across an `await` for hashing) end with exactly one user.
 * @example
 * const users = new UserStore()
 * if (users.reserve('ada@example.com')) users.create('ada@example.com', 'secret-hash', 'user')
 */
export class UserStore implements Users {
  readonly #users: User[] = []
  readonly #by_email = new Map<string, User>()
  readonly #by_id = new Map<number, User>()
  readonly #reserved = new Set<string>()

  /** Claims `email` for a registration in progress; false when a user has it or another registration claimed it. */
  reserve(email: string): boolean {
    if (this.#by_email.has(email) || this.#reserved.has(email)) return false
    this.#reserved.add(email)
    return true
  }

  /** Gives up a claim (the registration failed before it created the user). */
  release(email: string): void {
    this.#reserved.delete(email)
  }

  /** Creates the user for a reserved email, with the next id (1, 2, ...). */
  create(email: string, password: string, role: Role): User {
    const user: User = Object.freeze({ id: this.#users.length + 1, email, password, role })
    this.#users.push(user)
    this.#by_email.set(email, user)
    this.#by_id.set(user.id, user)
    this.#reserved.delete(email)
    return user
  }

  /** The user with this (normalised) email. */
  by_email(email: string): User | undefined {
    return this.#by_email.get(email)
  }

  /** The user with this id. */
  by_id(id: number): User | undefined {
    return this.#by_id.get(id)
  }

  /** Every user, in registration order. */
  list(): readonly User[] {
    return this.#users
  }
}

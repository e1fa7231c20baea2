// Values that throw when a logger reads them: the log calls given them must not throw.

/** An Error whose `prop` getter throws; its stack is read first, as a thrown error's usually is. */
export function throwing(prop: 'message' | 'name' | 'stack'): Error {
  const err = new Error('hidden')
  void err.stack
  return Object.defineProperty(err, prop, {
    get: () => {
      throw new Error(`no ${prop}`)
    },
  })
}

/** A Proxy every trap of which throws: prototype lookup (instanceof), keys, members. */
export function hostile(): object {
  const fail = (): never => {
    throw new Error('trap')
  }
  return new Proxy({}, { getPrototypeOf: fail, ownKeys: fail, get: fail, has: fail, getOwnPropertyDescriptor: fail })
}

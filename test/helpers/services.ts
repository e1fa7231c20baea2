// The Debian packages some tests need (redis-server, chromium, postgresql): found, or installed once outside CI, never silently
// skipped.
import { spawnSync } from 'node:child_process'
import { existsSync, readdirSync } from 'node:fs'

/** Where the browser tests expect Debian's Chromium. */
export const CHROMIUM = '/usr/bin/chromium'

/** The flags every browser test launches Chromium with: headless, no sandbox (CI runs as root), nothing in the background. */
export const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
]

/** Debian's initdb (`/usr/lib/postgresql/<version>/bin/initdb`), when one is installed. */
function postgres_initdb(): string | undefined {
  const versions = readdirSync('/usr/lib/postgresql')
  return versions.map((v) => `/usr/lib/postgresql/${v}/bin/initdb`).find((p) => existsSync(p))
}

interface Service {
  /** The Debian package. */
  package: string
  /** Whether it is installed. */
  present(): boolean
  /** What the tests that need it are. */
  for_tests: string
}

const SERVICES = {
  'redis-server': {
    package: 'redis-server',
    present: () => spawnSync('redis-server', ['--version']).status === 0,
    for_tests: 'Redis tests',
  },
  chromium: { package: 'chromium', present: () => existsSync(CHROMIUM), for_tests: 'browser tests' },
  postgresql: {
    package: 'postgresql',
    present: () => existsSync('/usr/lib/postgresql') && postgres_initdb() !== undefined,
    for_tests: 'PostgreSQL tests (conduit, auth-api storage)',
  },
} satisfies Record<string, Service>

const ready = new Set<string>()

/**
 * Makes sure a package the tests need is installed. In CI (`CI` set) a missing one is an error, since `.ci/run`
 * installs them first; elsewhere it is installed with apt-get (after `apt-get update` if the first try fails), loudly,
 * and an install that fails throws with the command to run by hand.
 */
export function ensure(name: keyof typeof SERVICES): void {
  if (ready.has(name)) return
  const s: Service = SERVICES[name]
  if (!s.present()) {
    const command = `apt-get install -y ${s.package}`
    if (process.env.CI) throw new Error(`${s.package} is missing: CI must install it (${command}) before the tests`)
    console.error(`# ${s.package} is missing; installing it for the ${s.for_tests}: ${command}`)
    let r = spawnSync('apt-get', ['install', '-y', s.package], { stdio: 'inherit' })
    if (r.status !== 0) {
      spawnSync('apt-get', ['update'], { stdio: 'inherit' })
      r = spawnSync('apt-get', ['install', '-y', s.package], { stdio: 'inherit' })
    }
    if (!s.present())
      throw new Error(
        `${s.package} is missing and '${command}' failed (exit ${r.status}); install it to run the ${s.for_tests}`,
      )
  }
  ready.add(name)
}

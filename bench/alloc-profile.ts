// The bytes a bench server allocates, by allocating function: V8's sampling heap profiler, driven over the inspector
// protocol from the harness, with the objects later collected kept in the profile (a server's per-request garbage is
// what matters, and `--heap-prof` keeps only what is still alive). The server process loads nothing more: it runs with
// `--inspect` on a loopback port, and the harness connects to it. bench/cpu-profile.ts runs it when FW_PROFILE=alloc.
import { once } from 'node:events'
import WebSocket from 'ws'
import { source_of, type CallFrame } from './source-position.js'

/** One frame of a sampled allocation profile (`HeapProfiler.SamplingHeapProfileNode`). */
interface AllocNode {
  callFrame: CallFrame
  selfSize: number
  children: AllocNode[]
}

/** A sampling session on a server's inspector: `stop()` ends it and gives bytes per function (`name file:line`). */
export interface AllocSampling {
  stop(): Promise<Map<string, number>>
}

/** Bytes between two samples: small enough that a per-request object of a few dozen bytes shows. */
const SAMPLING_INTERVAL = 64

/** Connects to the inspector on `port` and starts sampling every allocation, collected or not. */
export async function start_alloc_sampling(port: number): Promise<AllocSampling> {
  const targets = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as Array<{
    webSocketDebuggerUrl: string
  }>
  const socket = new WebSocket(targets[0]!.webSocketDebuggerUrl)
  await once(socket, 'open')
  const pending = new Map<number, (result: unknown) => void>()
  let last_id = 0
  socket.on('message', (data: Buffer) => {
    const m = JSON.parse(data.toString()) as { id?: number; result?: unknown }
    if (m.id !== undefined) pending.get(m.id)?.(m.result)
  })
  const call = (method: string, params: object = {}): Promise<unknown> =>
    new Promise((resolve) => {
      pending.set(++last_id, resolve)
      socket.send(JSON.stringify({ id: last_id, method, params }))
    })
  await call('HeapProfiler.enable')
  await call('HeapProfiler.startSampling', {
    samplingInterval: SAMPLING_INTERVAL,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  })
  return {
    async stop() {
      const { profile } = (await call('HeapProfiler.stopSampling')) as { profile: { head: AllocNode } }
      socket.close()
      const bytes = new Map<string, number>()
      const walk = (node: AllocNode): void => {
        const { key } = source_of(node.callFrame)
        if (node.selfSize > 0) bytes.set(key, (bytes.get(key) ?? 0) + node.selfSize)
        for (const child of node.children) walk(child)
      }
      walk(profile.head)
      return bytes
    },
  }
}

/** The functions that allocated most, in bytes per unit (request, message) of the `units` the load served. */
export function alloc_summary(bytes: Map<string, number>, units: number, top = 25): string {
  const total = [...bytes.values()].reduce((a, b) => a + b, 0)
  const per = (b: number): string => `${(b / units).toFixed(1).padStart(8)} B`
  return [
    `sampled allocations: ${per(total).trim()} per unit over ${units} units`,
    '',
    'functions (bytes allocated per unit):',
    ...[...bytes]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([k, v]) => `${per(v)}  ${k}`),
  ].join('\n')
}

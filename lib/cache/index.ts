// `fw/cache`: the response cache module (policy, facade, stores, keys, network probe). It never loads fastify.
export { Cache, type PruneAnswer } from './cache.js'
export { CacheEntry, type CacheEntryInit } from './cache-entry.js'
export { CachePolicy, type CachePolicyOptions } from './cache-policy.js'
export { CacheContext, RequestOutcome, type CacheContextInit } from './cache-context.js'
export {
  contextFromProbe,
  contextFromProbeAndOutcome,
  contextOnline,
  contextOffline,
  contextNetworkError,
} from './context-mapper.js'
export type { CacheStore, StoreAnswer, EntryPredicate, MaybePromise } from './cache-store.js'
export { MemoryStore } from './memory-store.js'
export { LruMemoryStore, type LruMemoryStoreOptions } from './lru-memory-store.js'
export { FileStore, type FileStoreOptions } from './file-store.js'
export { CacheKey, key_builder, type KeyBuilder, type RequestHeaders } from './cache-key.js'
export { HeaderUtil, type HeaderMap } from './header-util.js'
export { NetworkProbe, type NetworkProbeConfig, type ProbeCheck, type OnlineState } from './network-probe.js'
export {
  ERR_CACHE_BAD_OPTION,
  ERR_CACHE_BAD_ENTRY,
  ERR_CACHE_BAD_TIME,
  ERR_CACHE_FILE_CORRUPT,
  ERR_CACHE_FILE_UNREADABLE,
  ERR_CACHE_FILE_UNWRITABLE,
} from './errors.js'

// `fw/redis`: Redis-backed stores for sessions, rate limits and the response cache, and the WebSocket room bus, so
// several instances share them.
export { RedisSessionStore, type RedisSessionStoreOptions } from './redis-session-store.js'
export { RedisRateLimitStore } from './redis-rate-limit-store.js'
export { RedisCacheStore, type RedisCacheStoreOptions } from './redis-cache-store.js'
export { RedisRoomBus } from './redis-room-bus.js'
export {
  create_redis_client,
  FAIL_FAST_OPTIONS,
  type RedisClientOption,
  type RedisStoreOptions,
} from './redis-connection.js'
export { ERR_REDIS_BAD_OPTION, ERR_REDIS_UNAVAILABLE, ERR_REDIS_COMMAND_FAILED } from './errors.js'

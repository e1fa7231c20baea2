// `fw` WebSockets: routes under the App's middleware, rooms, and the bus that carries broadcasts between instances.
// Internal helpers (`frame_of`, `encoded`, `ws_settings`) are imported from their own files.
export { WebSocketConnection, type RawSocket, type WsMessage, type Outgoing, type Frame } from './connection.js'
export { WsEndpoint, type WsHandler } from './endpoint.js'
export { Rooms, type BroadcastOptions } from './rooms.js'
export { type RoomBus, type BusMessage } from './room-bus.js'
export { type WsOptions, type WsRateLimit } from './options.js'
export { ERR_WS_BAD_OPTION, CODE_UPGRADE_REQUIRED, CODE_ORIGIN_FORBIDDEN, CLOSE } from './errors.js'

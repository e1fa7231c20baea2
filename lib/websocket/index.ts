// `fw` WebSockets: routes under the App's middleware, rooms, and the bus that carries broadcasts between instances.
export {
  WebSocketConnection,
  frame_of,
  encoded,
  type RawSocket,
  type WsMessage,
  type Outgoing,
  type Frame,
} from './connection.js'
export { WsEndpoint, type WsHandler } from './endpoint.js'
export { Rooms, type BroadcastOptions } from './rooms.js'
export { type RoomBus, type BusMessage } from './room-bus.js'
export { ws_settings, type WsOptions, type WsSettings, type WsRateLimit } from './options.js'
export { ERR_WS_BAD_OPTION, CODE_UPGRADE_REQUIRED, CODE_ORIGIN_FORBIDDEN, CLOSE } from './errors.js'

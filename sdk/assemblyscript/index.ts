// othismo: the module side of the Othismo host ABI (book: reference/wire.md), for
// AssemblyScript. Generated bindings (`othc gen --lang as`) stand on it.

export { Verb, FLAG_OPERATOR, FLAG_READONLY } from "./abi"
export { Payload, Status } from "./payload"
export { Box, Uuid } from "./box"
export { StatRecord, STAT, KIND_FILE, KIND_DIRECTORY } from "./stat"
export { Answers, OnDone, OnPayload, OnText, OnStat, OnMessage, OnAnyMessage } from "./callbacks"
export { Request, Ticket, send } from "./request"
export { Client } from "./client"
export { Server, run, segments, rest, restOf } from "./server"
export { bind, unmount, expose } from "./view"
import * as bson from "./bson"
export { bson }

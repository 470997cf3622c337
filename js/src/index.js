// spawnhost: child processes without blocking the event loop.
export { ProcessHost } from "./host/host.js";
export { HostPool } from "./host/pool.js";
export { HostChild } from "./launch/host-child.js";
export {
  SpawnhostError, HostExecError, HostSpawnError, HelperExitedError, HelperVersionError,
  HelperNotFoundError, HostShutdownError, ProtocolError, AbortError,
} from "./core/errors.js";

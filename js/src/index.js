// spawnhost: child processes without blocking the event loop.
export { ProcessHost } from "./host.js";
export { HostPool } from "./host-pool.js";
export { HostChild } from "./host-child.js";
export {
  SpawnhostError, HostExecError, HostSpawnError, HelperExitedError, HelperVersionError,
  HelperNotFoundError, HostShutdownError, ProtocolError, AbortError,
} from "./errors.js";

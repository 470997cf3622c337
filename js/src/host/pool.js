// HostPool: several ProcessHosts (usually each over a transport to another machine)
// behind the ProcessHost launch API. Each launch goes to the up host with the fewest
// launches in flight, or to the one its `host` option pins. A host whose helper went
// away is taken out until a probe (host.info(), which reconnects) succeeds again.
//
// Nothing runs twice: a launch that reached a helper is never sent again, whatever
// happens to it; it fails as it would on that host alone. Only launches that provably
// reached no helper are moved to another host: those still queued in the pool, and
// those whose host's connection failed before its helper said hello.
import { HelperExitedError, HelperNotFoundError, HelperVersionError, HostShutdownError, invalidOption } from "../core/errors.js";
import { ProcessHost } from "./host.js";

const PROBE_FIRST_MS = 500;
const PROBE_MAX_MS = 30_000;

/** Many ProcessHosts, one API: execFile, exec and spawn pick a host per launch. */
export class HostPool {
  /** @type {{ host: ProcessHost, inFlight: number, down: Error|null, probeMs: number, probe: NodeJS.Timeout|null }[]} */
  #members;
  #maxPerHost;
  /** launches waiting for a host with room: { run, pinned, resolve, reject } */
  #queue = [];
  #closed = false;

  /**
   * @param {ProcessHost[]} hosts
   * @param {{ strategy?: "least-busy", maxPerHost?: number }} [options] maxPerHost: launches
   *   in flight per host before the pool queues further ones (default 32)
   */
  constructor(hosts, options) {
    const { strategy = "least-busy", maxPerHost = 32 } = { __proto__: null, ...options };
    if (!Array.isArray(hosts) || hosts.length === 0 || !hosts.every((h) => h instanceof ProcessHost)) {
      throw invalidOption("hosts", hosts, "a non-empty array of ProcessHost");
    }
    if (strategy !== "least-busy") throw invalidOption("strategy", strategy, "\"least-busy\"", "ERR_INVALID_ARG_VALUE");
    if (!(Number.isInteger(maxPerHost) && maxPerHost >= 1)) throw invalidOption("maxPerHost", maxPerHost, "a positive integer", "ERR_OUT_OF_RANGE");
    this.#maxPerHost = maxPerHost;
    this.#members = hosts.map((host) => ({ host, inFlight: 0, down: null, probeMs: PROBE_FIRST_MS, probe: null }));
  }

  /** Like ProcessHost.execFile; `options.host` (a ProcessHost of the pool, or its index) pins it. */
  execFile(file, args, options) {
    const [list, rest, pinned] = this.#split(args, options);
    return this.#enqueue(pinned, (host) => host.execFile(file, list, rest), null);
  }

  /** Like ProcessHost.exec; `options.host` pins it. */
  exec(command, options) {
    const [, rest, pinned] = this.#split([], options);
    return this.#enqueue(pinned, (host) => host.exec(command, rest), null);
  }

  /** Like ProcessHost.spawn; the child counts as in flight on its host until `close`. */
  spawn(file, args, options) {
    const [list, rest, pinned] = this.#split(args, options);
    return this.#enqueue(pinned, (host) => host.spawn(file, list, rest), (child, done) => child.once("close", done));
  }

  /** Per host: launches in flight, and the error that took it out (null while up). */
  stats() {
    return this.#members.map(({ host, inFlight, down }) => ({ host, inFlight, down }));
  }

  /** Ends every host (ProcessHost.shutdown); launches still queued reject. */
  async shutdown() {
    this.#closed = true;
    for (const member of this.#members) clearTimeout(member.probe);
    const error = new HostShutdownError("the HostPool was shut down before this launch started");
    for (const job of this.#queue.splice(0)) job.reject(error);
    await Promise.all(this.#members.map(({ host }) => host.shutdown()));
  }

  #split(args, options) {
    let list = args;
    let rest = options;
    if (!Array.isArray(args)) {
      rest = args;
      list = [];
    }
    if (rest == null || typeof rest !== "object" || !Object.hasOwn(rest, "host")) return [list, rest, null];
    const { host, ...others } = rest;
    const member = typeof host === "number" ? this.#members[host] : this.#members.find((m) => m.host === host);
    if (!member) throw invalidOption("host", host, "a ProcessHost of this pool, or its index");
    return [list, others, member];
  }

  #enqueue(pinned, run, holdUntil) {
    if (this.#closed) return Promise.reject(new HostShutdownError("this HostPool was shut down"));
    return new Promise((resolve, reject) => {
      this.#queue.push({ pinned, run, holdUntil, resolve, reject });
      this.#dispatch();
    });
  }

  #dispatch() {
    for (let i = 0; i < this.#queue.length;) {
      const job = this.#queue[i];
      const unavailable = this.#unavailable(job);
      if (unavailable) {
        this.#queue.splice(i, 1);
        job.reject(unavailable);
        continue;
      }
      const member = this.#pick(job);
      if (!member) {
        i++;
        continue;
      }
      this.#queue.splice(i, 1);
      this.#start(member, job);
    }
  }

  // A job that no host can take now nor later without a reconnect: pinned to a down
  // host, or every host down. It fails with the reason rather than waiting for ever.
  #unavailable(job) {
    if (job.pinned?.down) return poolError(`the host this launch is pinned to is down: ${job.pinned.down.message}`, job.pinned.down);
    if (!job.pinned && this.#members.every((m) => m.down)) {
      const last = this.#members.at(-1).down;
      return poolError(`every host of the pool is down; the last said: ${last.message}`, last);
    }
    return null;
  }

  #pick(job) {
    if (job.pinned) return job.pinned.inFlight < this.#maxPerHost ? job.pinned : null;
    let best = null;
    for (const member of this.#members) {
      if (member.down || member.inFlight >= this.#maxPerHost) continue;
      if (!best || member.inFlight < best.inFlight) best = member;
    }
    return best;
  }

  #start(member, job) {
    member.inFlight++;
    let finished = false;
    const done = () => {
      if (finished) return;
      finished = true;
      member.inFlight--;
      this.#dispatch();
    };
    let result;
    try {
      result = Promise.resolve(job.run(member.host));
    } catch (error) {
      result = Promise.reject(error); // a TypeError from the options: the caller's
    }
    result.then((value) => {
      if (job.holdUntil) {
        value.on("error", (error) => this.#noteFailure(member, error));
        job.holdUntil(value, done);
      } else {
        done();
      }
      job.resolve(value);
    }, (error) => {
      const reachedNoHelper = this.#noteFailure(member, error);
      done();
      if (reachedNoHelper && !this.#closed) {
        // Its host's connection failed before any helper heard of it: move it.
        this.#queue.unshift(job);
        this.#dispatch();
      } else {
        job.reject(error);
      }
    });
  }

  // Takes a host out when its helper went away; returns true when the failed launch
  // never reached a helper (the connection failed before hello), so may go elsewhere.
  #noteFailure(member, error) {
    if (!(error instanceof HelperExitedError || error instanceof HelperVersionError || error instanceof HelperNotFoundError)) return false;
    if (!member.down) {
      member.down = error;
      member.probeMs = PROBE_FIRST_MS;
      this.#scheduleProbe(member);
    }
    return error.helperStarted === false;
  }

  #scheduleProbe(member) {
    if (this.#closed) return;
    member.probe = setTimeout(() => {
      member.host.info().then(() => {
        member.down = null;
        this.#dispatch();
      }, (error) => {
        member.down = error;
        member.probeMs = Math.min(member.probeMs * 2, PROBE_MAX_MS);
        this.#scheduleProbe(member);
      });
    }, member.probeMs);
    member.probe.unref();
  }
}

function poolError(message, cause) {
  const error = new HelperExitedError(message);
  error.cause = cause;
  error.helperStarted = false;
  return error;
}

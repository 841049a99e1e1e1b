import type { ChildProcess } from 'node:child_process';
import { postMessages } from './post-messages';
import { backendsOf, cpuBetween, readCpu, redisServers, type Roles } from './process-cpu';
import type { SmtpSink } from './smtp-sink';

/** The port the delivery benchmarks' sinks listen on. */
export const SINK_PORT = 2600;
/**
 * Keep-alive connections the benchmark's client posts on: as many as the SMTP sessions
 * postfix_relay.sh's smtp-source injects on, so that both sides are offered the same concurrency.
 */
export const CONNECTIONS = 20;
/** A run fails when the sinks count nothing new for this long. */
export const STALL_MS = 60_000;

/** The roles whose CPU a run reads from /proc: the worker, the API, the PostgreSQL backends serving them and Redis. */
export const CPU_ROLES = ['worker', 'api', 'postgres', 'redis'] as const;

/** A running API and daemon, and what sending through them takes. */
export interface DeliveryTarget {
  baseUrl: string;
  sendingKey: string;
  worker: ChildProcess;
  roles: Roles;
}

/** A running API and daemon whose PostgreSQL backends serve `database`, sending with `sendingKey`. */
export function deliveryTarget(api: { baseUrl: string; pid: number }, worker: ChildProcess, sendingKey: string, database: string): DeliveryTarget {
  return { baseUrl: api.baseUrl, sendingKey, worker, roles: { worker: () => [worker.pid!], api: () => [api.pid], postgres: () => backendsOf(database), redis: redisServers } };
}

export interface Run {
  seconds: number;
  acceptSeconds: number;
  accepted: number;
  refused: number;
  /** CPU milliseconds per delivery of the service's processes, by role (see CPU_ROLES). */
  cpuMs: Record<string, number>;
}

/**
 * `amount` messages posted through the API, timed from the first request until `sinks` count
 * `perMessage` deliveries for each one accepted.
 */
export async function measureDelivery(target: DeliveryTarget, amount: number, body: string, sinks: SmtpSink[], perMessage: number): Promise<Run> {
  const before = sinks.reduce((total, sink) => total + sink.count(), 0);
  const cpuBefore = readCpu(target.roles);
  const started = Date.now();
  const result = await postMessages({
    url: target.baseUrl,
    path: '/v1/emails',
    connections: CONNECTIONS,
    amount,
    headers: { authorization: `Bearer ${target.sendingKey}`, 'content-type': 'application/json' },
    body,
    timeoutMs: 30_000,
  });
  const acceptSeconds = (Date.now() - started) / 1000;
  const expected = before + result.accepted * perMessage;
  let seen = -1;
  let progressAt = Date.now();
  for (;;) {
    const count = sinks.reduce((total, sink) => total + sink.count(), 0);
    if (count >= expected) break;
    if (count > seen) [seen, progressAt] = [count, Date.now()];
    if (Date.now() - progressAt > STALL_MS) throw new Error(`the sinks stalled at ${count - before} of ${expected - before}`);
    if (target.worker.exitCode !== null) throw new Error('the worker exited');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const seconds = (Date.now() - started) / 1000;
  const cpu = cpuBetween(cpuBefore, readCpu(target.roles));
  const cpuMs = Object.fromEntries(CPU_ROLES.map((role) => [role, ((cpu[role] ?? 0) * 1000) / (result.accepted * perMessage)]));
  return { seconds, acceptSeconds, accepted: result.accepted, refused: result.refused, cpuMs };
}

/** CPU share (of one core) under which the service's processes count as idle between runs. */
const QUIET_SHARE = 0.05;
const QUIET_WINDOW_MS = 1_000;
const QUIET_BOUND_MS = 60_000;

/**
 * Waits until the target's processes (worker, API, their PostgreSQL backends) use less than
 * QUIET_SHARE of a core over a second: work a run left behind (webhook outbox, counters,
 * autovacuum) must not run during the next measurement. Gives up after QUIET_BOUND_MS and
 * says so, rather than hang a benchmark.
 */
export async function settle(target: DeliveryTarget): Promise<void> {
  const roles = { worker: target.roles.worker!, api: target.roles.api!, postgres: target.roles.postgres! };
  const bound = Date.now() + QUIET_BOUND_MS;
  for (;;) {
    const before = readCpu(roles);
    await new Promise((resolve) => setTimeout(resolve, QUIET_WINDOW_MS));
    const used = Object.values(cpuBetween(before, readCpu(roles))).reduce((a, b) => a + b, 0);
    if (used < (QUIET_SHARE * QUIET_WINDOW_MS) / 1000) return;
    if (Date.now() > bound) {
      console.error(`the service still used ${(used * 100).toFixed(0)}% of a core after ${QUIET_BOUND_MS / 1000} s; measuring anyway`);
      return;
    }
  }
}

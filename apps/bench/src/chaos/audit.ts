import { median } from '../median';
import type { FaultKind } from './fault-timeline';

/** A fault as it was carried out (epoch ms). */
export interface FaultDone {
  kind: FaultKind;
  at: number;
  /** When the fault's action returned: a failover's promotion and new standby take a while. */
  endedAt?: number;
}

/** A copy of a message received by a sink: the email id its Message-ID names (null if none), and when. */
export interface Receipt {
  emailId: string | null;
  at: number;
}

export interface AuditInput {
  /** Messages the client set out to send (one Idempotency-Key each). */
  messages: number;
  /** The email id of each Idempotency-Key that got a 2xx. */
  acceptedIds: string[];
  /** Every email the account holds in PostgreSQL. */
  storedEmailIds: string[];
  /** Keys whose last answer was a final 4xx, and keys the client gave up on. */
  refused: number;
  abandoned: number;
  /** Every answer, by HTTP status or `network_error`. */
  answers: Record<string, number>;
  /** Bodies of 5xx answers other than 503, as sampled by the client. */
  serverErrorSamples: string[];
  receipts: Receipt[];
  faults: FaultDone[];
  /** When daemons died without being killed (epoch ms): for duplicates, the same as a kill. */
  daemonCrashes: number[];
  /** Deliveries of the accepted messages by status, when the audit stopped waiting. */
  deliveryStatuses: Record<string, number>;
  /** Recorded attempts of the accepted messages by `outcome/cause`. */
  attempts: Record<string, number>;
  /** When every accepted message's deliveries were terminal and at the sinks, or null if the cap came first. */
  drainedAt: number | null;
  /** A copy received this long before a daemon kill or a PostgreSQL restart is put down to it. */
  attributionWindowMs: number;
  /** When the load started (epoch ms): sample times are given from it, as the fault timeline is. */
  originAt: number;
}

/** Why a message arrived more than once, as far as the timeline can tell. */
export interface DuplicateCauses {
  /** The copy before it arrived just before a daemon was killed or crashed: the attempt's outcome died with the daemon (the final-dot case). */
  daemon_killed: number;
  /** It arrived just before PostgreSQL restarted: the attempt could not be recorded. */
  database_restarted: number;
  unexplained: number;
}

export interface AuditSummary {
  messages: number;
  accepted: number;
  refused: number;
  abandoned: number;
  /** Accepted messages received at least once. */
  delivered: number;
  /** Extra copies at the sinks, beyond the first of each accepted message. */
  duplicates: number;
  duplicate_causes: DuplicateCauses;
  /** Daemons that died (killed, or crashed by themselves). */
  daemon_deaths: number;
  /** Copies put down to a daemon's death, per death: what one kill costs; null when none died. */
  duplicates_per_daemon_death: number | null;
  /** Each daemon death (seconds from the load's start) with the copies put down to it. */
  duplicates_by_daemon_death: { at_s: number; copies: number }[];
  /**
   * For the copies put down to a daemon's death: seconds from that death to the next copy, i.e.
   * how soon another daemon took the delivery over (the contract allows 60 s). Null when none.
   */
  takeover_after_daemon_death_s: { median: number; max: number } | null;
  /** A few messages with an unexplained extra copy: the seconds (from the load's start) at which each copy arrived. */
  unexplained_duplicate_samples: { email_id: string; copies_at_s: number[] }[];
  undelivered: number;
  /** Emails stored that no 2xx answer named (a retry that created a second message would show here). */
  stored_not_accepted: number;
  /** Copies at the sinks of messages that no 2xx answer named. */
  unknown_at_sinks: number;
  answers: Record<string, number>;
  server_errors_other_than_503: number;
  server_error_samples: string[];
  delivery_statuses: Record<string, number>;
  attempts: Record<string, number>;
  /** Seconds from the last fault until everything accepted was delivered and terminal; null if it never was. */
  drain_seconds: number | null;
}

export const SERVER_ERROR_SAMPLES = 5;

export function audit(input: AuditInput): AuditSummary {
  const accepted = new Set(input.acceptedIds);
  const copies = new Map<string, number[]>();
  let unknown = 0;
  for (const receipt of input.receipts) {
    if (receipt.emailId === null || !accepted.has(receipt.emailId)) {
      unknown++;
      continue;
    }
    copies.set(receipt.emailId, [...(copies.get(receipt.emailId) ?? []), receipt.at]);
  }
  const causes: DuplicateCauses = { daemon_killed: 0, database_restarted: 0, unexplained: 0 };
  const unexplained: AuditSummary['unexplained_duplicate_samples'] = [];
  const takeovers: number[] = [];
  const byDeath = new Map<number, number>();
  for (const [emailId, times] of copies) {
    const sorted = [...times].sort((a, b) => a - b);
    for (const [i, previous] of sorted.slice(0, -1).entries()) {
      const { cause, at } = duplicateCause(previous, input, input.attributionWindowMs);
      causes[cause]++;
      if (cause === 'daemon_killed') {
        takeovers.push((sorted[i + 1]! - at!) / 1000);
        byDeath.set(at!, (byDeath.get(at!) ?? 0) + 1);
      }
      if (cause === 'unexplained' && unexplained.length < SERVER_ERROR_SAMPLES && unexplained.at(-1)?.email_id !== emailId) {
        unexplained.push({ email_id: emailId, copies_at_s: sorted.map((t) => Math.round((t - input.originAt) / 100) / 10) });
      }
    }
  }
  const lastFault = Math.max(...input.faults.map((f) => f.at));
  const deaths = input.faults.filter((f) => f.kind === 'kill-daemon').length + input.daemonCrashes.length;
  const serverErrors = Object.entries(input.answers)
    .filter(([status]) => /^5\d\d$/.test(status) && status !== '503')
    .reduce((total, [, count]) => total + count, 0);
  return {
    messages: input.messages,
    accepted: accepted.size,
    refused: input.refused,
    abandoned: input.abandoned,
    delivered: copies.size,
    duplicates: causes.daemon_killed + causes.database_restarted + causes.unexplained,
    duplicate_causes: causes,
    daemon_deaths: deaths,
    duplicates_per_daemon_death: deaths === 0 ? null : causes.daemon_killed / deaths,
    duplicates_by_daemon_death: [...input.faults.filter((f) => f.kind === 'kill-daemon').map((f) => f.at), ...input.daemonCrashes]
      .sort((a, b) => a - b)
      .map((at) => ({ at_s: Math.round((at - input.originAt) / 100) / 10, copies: byDeath.get(at) ?? 0 })),
    unexplained_duplicate_samples: unexplained,
    takeover_after_daemon_death_s: takeovers.length === 0 ? null : { median: median(takeovers), max: Math.max(...takeovers) },
    undelivered: accepted.size - copies.size,
    stored_not_accepted: input.storedEmailIds.filter((id) => !accepted.has(id)).length,
    unknown_at_sinks: unknown,
    answers: input.answers,
    server_errors_other_than_503: serverErrors,
    server_error_samples: input.serverErrorSamples.slice(0, SERVER_ERROR_SAMPLES),
    delivery_statuses: input.deliveryStatuses,
    attempts: input.attempts,
    drain_seconds: input.drainedAt === null || input.faults.length === 0 ? null : Math.max(0, (input.drainedAt - lastFault) / 1000),
  };
}

/**
 * The sink may read a copy a killed daemon had already written a moment after the kill was
 * sent (the run's own event loop is busy too): a copy this soon after a fault still counts.
 */
const SINK_READ_SLACK_MS = 1_000;

/** The fault a copy sent again is put down to, and when it happened. */
function duplicateCause(copyAt: number, input: Pick<AuditInput, 'faults' | 'daemonCrashes'>, windowMs: number): { cause: keyof DuplicateCauses; at?: number } {
  const soonAfter = (at: number) => at - copyAt >= -SINK_READ_SLACK_MS && at - copyAt <= windowMs;
  const timesOf = (kind: FaultKind) => input.faults.filter((f) => f.kind === kind).map((f) => f.at);
  const death = [...timesOf('kill-daemon'), ...input.daemonCrashes].find(soonAfter);
  if (death !== undefined) return { cause: 'daemon_killed', at: death };
  // A copy sent while the primary was away or waiting for its standby, and recorded too late.
  const whileDatabaseAway = (f: FaultDone) => copyAt >= f.at - windowMs && copyAt <= (f.endedAt ?? f.at) + SINK_READ_SLACK_MS;
  const crash = input.faults.find((f) => (f.kind === 'pg-restart' || f.kind === 'pg-failover') && whileDatabaseAway(f));
  if (crash !== undefined) return { cause: 'database_restarted', at: crash.at };
  return { cause: 'unexplained' };
}

export interface Targets {
  undelivered: boolean;
  server_errors: boolean;
  drain: boolean;
  duplicates_per_kill: boolean;
}

/** What a run must show: nothing undelivered, no 5xx but 503, drained in time after the last fault, few copies per daemon death. */
export interface TargetBounds {
  drainSeconds: number;
  duplicatesPerKill: number;
}

export function targetsMet(summary: AuditSummary, bounds: TargetBounds): Targets {
  return {
    undelivered: summary.undelivered === 0,
    server_errors: summary.server_errors_other_than_503 === 0,
    drain: summary.drain_seconds !== null && summary.drain_seconds <= bounds.drainSeconds,
    duplicates_per_kill: summary.duplicates_per_daemon_death === null || summary.duplicates_per_daemon_death <= bounds.duplicatesPerKill,
  };
}

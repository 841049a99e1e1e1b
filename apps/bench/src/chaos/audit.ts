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
  /** When the load started (epoch ms): sample times are given from it, as the fault timeline is. */
  originAt: number;
}

/** A fault of the run (a daemon that crashed by itself counts as `daemon-crash`) and the extra copies put down to it. */
export interface FaultDuplicates {
  kind: FaultKind | 'daemon-crash';
  /** Seconds from the load's start. */
  at_s: number;
  copies: number;
}

export interface AuditSummary {
  messages: number;
  accepted: number;
  refused: number;
  abandoned: number;
  /** Accepted messages received at least once. */
  delivered: number;
  /**
   * Extra copies at the sinks, beyond the first of each accepted message. Each is put down to
   * the fault that came last before the copy it repeats (the first, for a second copy), as
   * measured at the sink: what went wrong came before the copy that should have been the only one.
   */
  duplicates: number;
  /** Every fault of the run, in time order, with the copies put down to it. */
  duplicates_by_fault: FaultDuplicates[];
  /** The same, summed by kind of fault. */
  duplicates_by_kind: Record<string, number>;
  /** Copies whose copy before came before any fault. */
  duplicates_before_any_fault: number;
  /** Daemons that died (killed, or crashed by themselves). */
  daemon_deaths: number;
  /** Copies put down to a daemon's death, per death: what one kill costs; null when none died. */
  duplicates_per_daemon_death: number | null;
  /**
   * For the copies put down to a daemon's death: seconds from that death to the next copy, i.e.
   * how soon another daemon took the delivery over (the contract allows 60 s). Null when none.
   */
  takeover_after_daemon_death_s: { median: number; max: number } | null;
  /** A few messages sent more than once: the seconds (from the load's start) at which each copy arrived. */
  duplicate_samples: { email_id: string; copies_at_s: number[] }[];
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
  const timeline = [
    ...input.faults.map((f) => ({ kind: f.kind as FaultDuplicates['kind'], at: f.at })),
    ...input.daemonCrashes.map((at) => ({ kind: 'daemon-crash' as const, at })),
  ].sort((a, b) => a.at - b.at);
  const byFault = new Map<(typeof timeline)[number], number>();
  let beforeAnyFault = 0;
  const samples: AuditSummary['duplicate_samples'] = [];
  const takeovers: number[] = [];
  for (const [emailId, times] of copies) {
    const sorted = [...times].sort((a, b) => a - b);
    for (const [i, previous] of sorted.slice(0, -1).entries()) {
      const fault = faultBefore(timeline, previous);
      if (fault) byFault.set(fault, (byFault.get(fault) ?? 0) + 1);
      else beforeAnyFault++;
      if (fault && isDeath(fault.kind)) takeovers.push((sorted[i + 1]! - fault.at) / 1000);
    }
    if (sorted.length > 1 && samples.length < SERVER_ERROR_SAMPLES) {
      samples.push({ email_id: emailId, copies_at_s: sorted.map((t) => Math.round((t - input.originAt) / 100) / 10) });
    }
  }
  const duplicatesByFault = timeline.map((f) => ({ kind: f.kind, at_s: Math.round((f.at - input.originAt) / 100) / 10, copies: byFault.get(f) ?? 0 }));
  const byKind: Record<string, number> = {};
  for (const f of duplicatesByFault) byKind[f.kind] = (byKind[f.kind] ?? 0) + f.copies;
  const duplicates = beforeAnyFault + duplicatesByFault.reduce((total, f) => total + f.copies, 0);
  const deathCopies = duplicatesByFault.filter((f) => isDeath(f.kind)).reduce((total, f) => total + f.copies, 0);
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
    duplicates,
    duplicates_by_fault: duplicatesByFault,
    duplicates_by_kind: byKind,
    duplicates_before_any_fault: beforeAnyFault,
    daemon_deaths: deaths,
    duplicates_per_daemon_death: deaths === 0 ? null : deathCopies / deaths,
    duplicate_samples: samples,
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
 * sent (the run's own event loop is busy too): a fault this soon after a copy still came before it.
 */
const SINK_READ_SLACK_MS = 1_000;

const isDeath = (kind: FaultDuplicates['kind']) => kind === 'kill-daemon' || kind === 'daemon-crash';

/** The last fault before a copy (`timeline` in time order), if any. */
function faultBefore<F extends { at: number }>(timeline: readonly F[], copyAt: number): F | undefined {
  let last: F | undefined;
  for (const f of timeline) if (f.at <= copyAt + SINK_READ_SLACK_MS) last = f;
  return last;
}

export interface Targets {
  undelivered: boolean;
  server_errors: boolean;
  drain: boolean;
  duplicates_per_kill: boolean;
  /** No copy put down to a failover of PostgreSQL or of Redis. */
  failover_duplicates: boolean;
}

/** What a run must show: nothing undelivered, no 5xx but 503, drained in time after the last fault, few copies per daemon death, none from a failover. */
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
    failover_duplicates: (summary.duplicates_by_kind['pg-failover'] ?? 0) + (summary.duplicates_by_kind['redis-failover'] ?? 0) === 0,
  };
}

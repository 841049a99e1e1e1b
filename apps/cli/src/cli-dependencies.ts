import type { Database } from '@mailer/operations';
import type { DnsResolver } from '@mailer/dns';
import type { ReturnPathSettings } from '@mailer/domain';
import type { DaemonSnapshot, DeliveryQueue } from '@mailer/queue';
import type { CliOutput } from './output';

/** What the commands work with; main.ts builds it from the environment, tests from a test database. */
export interface CliDependencies {
  db: Database;
  stdout: CliOutput;
  stderr: CliOutput;
  /** Opened on first use: only the queue and email commands need Redis, only `domain check` DNS. */
  deliveryQueue: () => Promise<DeliveryQueue>;
  dns: () => DnsResolver;
  /** How return-path hosts are published (RETURN_PATH_LABEL, INBOUND_HOST, SPF_INCLUDE, OUTBOUND_IPS), for `domain check`. */
  returnPath: ReturnPathSettings;
  /** The live daemons' destination snapshots in Redis (docs/api-decisions.md, "Scheduling"). */
  destinationSnapshots: () => Promise<DaemonSnapshot[]>;
  /** Asks the live daemons to lift a destination's suspension (requestDestinationLift). */
  requestLift: (destination: string, at: Date) => Promise<void>;
  /** ENCRYPTION_KEY as configured: what `secrets reseal` seals under. */
  encryptionKey: Buffer;
  /** The environment, for the variable `secrets reseal --from-key-env` names. */
  env: Record<string, string | undefined>;
  now: () => Date;
}

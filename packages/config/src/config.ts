import { readFileSync } from 'node:fs';
import { availableParallelism, hostname } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { bodyBudgetLimits, DEFAULT_BODY_BYTES_IN_FLIGHT, MAX_BODY_BYTES } from '@mailer/domain';
import { parseDatabaseUrl } from './database-url';
import { withDotEnv } from './dot-env';
import { parseDuration } from './duration';
import { replyRulesSetting } from './reply-rules';
import { DEVELOPMENT_HELO_NAME, HELO_NAME_PROBLEM, isFullyQualifiedHostName, isPlaceholderHostName, PLACEHOLDER_HOST_PROBLEM } from './helo-name';

const duration = (fallback: string) =>
  z
    .string()
    .default(fallback)
    .transform((text, ctx) => {
      const ms = parseDuration(text);
      if (ms === undefined || ms <= 0) {
        ctx.addIssue({ code: 'custom', message: `"${text}" is not a duration such as 30s, 5m or 72h` });
        return z.NEVER;
      }
      return ms;
    });

/** A duration of at least `minimumMs`, or unset (also empty or `off`): null, the feature off. */
const optionalDuration = (minimum: string) =>
  z
    .string()
    .optional()
    .transform((text, ctx) => {
      if (text === undefined || text === '' || text === 'off') return null;
      const ms = parseDuration(text);
      if (ms === undefined || ms < parseDuration(minimum)!) {
        ctx.addIssue({ code: 'custom', message: `"${text}" is not \`off\` or a duration of at least ${minimum} such as 90d or 2160h` });
        return z.NEVER;
      }
      return ms;
    });

/** Comma-separated durations such as `1m,5m,1h`, each positive. */
const durationList = (fallback: string) =>
  z
    .string()
    .default(fallback)
    .transform((text, ctx) => {
      const steps = text.split(',').map((s) => parseDuration(s));
      if (steps.length === 0 || steps.some((s) => s === undefined || s <= 0)) {
        ctx.addIssue({ code: 'custom', message: 'expected comma-separated durations such as 1m,5m,1h' });
        return z.NEVER;
      }
      return steps as number[];
    });

const bool = (fallback: boolean) =>
  z
    .enum(['true', 'false', '1', '0', 'yes', 'no'])
    .default(fallback ? 'true' : 'false')
    .transform((v) => v === 'true' || v === '1' || v === 'yes');

const int = (fallback: number, min: number, max: number) =>
  z.coerce.number().int().min(min).max(max).default(fallback);

const MIB = 1024 * 1024;

const positive = z.number().int().min(1);
const limitRule = z.strictObject({
  pattern: z.string().min(1),
  connections: positive.optional(),
  messagesPerConnection: positive.optional(),
  messagesPerMinute: positive.optional(),
});

/**
 * DESTINATION_LIMITS: the operator's limits per MX-host pattern, a JSON array of rules
 * (`[{"pattern":"*.outlook.com","connections":10,"messagesPerMinute":600}]`), given inline or
 * as the path of a file holding it (docs/api-decisions.md, "Scheduling").
 */
const destinationLimits = z
  .string()
  .default('[]')
  .transform((text, ctx) => {
    let json: unknown;
    try {
      json = JSON.parse(text.trimStart().startsWith('[') ? text : readFileSync(text, 'utf8'));
    } catch (error) {
      ctx.addIssue({ code: 'custom', message: `expected a JSON array of rules or the path of a file holding one (${(error as Error).message})` });
      return z.NEVER;
    }
    const rules = z.array(limitRule).safeParse(json);
    if (!rules.success) {
      ctx.addIssue({ code: 'custom', message: `invalid rule: ${rules.error.issues.map((i) => `${i.path.join('.')} ${i.message}`).join('; ')}` });
      return z.NEVER;
    }
    return rules.data;
  });

const provider = z.strictObject({
  name: z.string().regex(/^[a-z0-9][a-z0-9-]{0,62}$/, 'expected lower-case letters, digits and dashes'),
  suffixes: z.array(z.string().regex(/^[A-Za-z0-9.-]+$/, 'expected a host name suffix').transform((s) => s.toLowerCase().replace(/^\.|\.$/g, ''))).min(1),
  connections: positive.optional(),
  messagesPerConnection: positive.optional(),
  messagesPerMinute: positive.optional(),
});

/** Reads a JSON array of providers (docs/api-decisions.md, "Providers and egress pools"); `where` names it in the error. */
function readProviders(path: string, where: string) {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new ConfigError(`${where}: expected the path of a JSON array of providers (${(error as Error).message})`);
  }
  const parsed = z.array(provider).safeParse(json);
  if (!parsed.success) throw new ConfigError(`${where}: invalid provider: ${parsed.error.issues.map((i) => `${i.path.join('.')} ${i.message}`).join('; ')}`);
  return parsed.data;
}

/** The table of big mailbox providers shipped with the service, beside this package's sources and build. */
const SHIPPED_PROVIDERS = join(__dirname, '..', 'providers.json');

/** WARMUP_SCHEDULE: messages per day and provider on each day of an address's warm-up, e.g. `50,100,200`. */
const warmUpSchedule = z
  .string()
  .default('50,100,200,400,800,1500,3000,6000,12000,25000,50000,100000')
  .transform((text, ctx) => {
    const steps = text.split(',').map((s) => Number(s.trim()));
    if (steps.some((n) => !Number.isInteger(n) || n < 1)) {
      ctx.addIssue({ code: 'custom', message: 'expected comma-separated positive whole numbers such as 50,100,200' });
      return z.NEVER;
    }
    return steps;
  });

const hostPort = z.string().regex(/^(\[[0-9a-fA-F:.]+\]|[^\s:,]+)(:\d{1,5})?$/, 'expected host or host:port');

/** `host` or `host:port` (as hostPort admits it) split, with the port given when none is. */
const toHostPort = (defaultPort: number) => (text: string) => {
  const [, host, port] = /^\[?(.*?)\]?(?::(\d+))?$/.exec(text)!;
  return { host: host!, port: port ? Number(port) : defaultPort };
};

/**
 * A development-only key so that `npm ci && npm start` works on a fresh machine.
 * In production ENCRYPTION_KEY is required: it protects DKIM private keys at rest
 * and signs pagination cursors.
 */
/** The inbound listener's port outside production: unprivileged, so any user can run `npm start`. */
export const DEVELOPMENT_INBOUND_PORT = 2525;

const DEVELOPMENT_ENCRYPTION_KEY = Buffer.alloc(32, 'mailer-development-only-key').toString('base64');

const encryptionKey = z.string().refine((v) => Buffer.from(v, 'base64').length === 32, 'must be 32 bytes, base64-encoded');

const envSchema = z
  .object({
    NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
    LOG_LEVEL: z.enum(['error', 'warn', 'info', 'debug']).default('info'),
    DATABASE_URL: z
      .string()
      .default('postgres://postgres@127.0.0.1:5432/mailer')
      .superRefine((text, ctx) => {
        const parsed = parseDatabaseUrl(text);
        if ('error' in parsed) ctx.addIssue({ code: 'custom', message: parsed.error });
      }),
    DATABASE_POOL_SIZE: int(20, 1, 500),
    REDIS_URL: z.url({ protocol: /^rediss?$/ }).default('redis://127.0.0.1:6379'),
    REDIS_SENTINELS: z
      .string()
      .default('')
      .transform((s) => s.split(',').map((x) => x.trim()).filter(Boolean))
      .pipe(z.array(hostPort)),
    REDIS_SENTINEL_MASTER: z.string().regex(/^[A-Za-z0-9_.-]+$/).default('mailer'),
    REDIS_PREFIX: z.string().regex(/^[A-Za-z0-9_.-]+$/).default('mailer'),
    HOST: z.string().min(1).default('0.0.0.0'),
    PORT: int(3000, 0, 65535),
    WORKER_METRICS_PORT: int(3001, 0, 65535),
    // At least one body of the API's 16 MiB limit must fit, in the whole budget and in one account's share of it.
    MAX_BODY_BYTES_IN_FLIGHT: int(DEFAULT_BODY_BYTES_IN_FLIGHT, MAX_BODY_BYTES, 2 ** 40),
    MAX_BODY_BYTES_PER_ACCOUNT: z.coerce.number().int().min(MAX_BODY_BYTES).max(2 ** 40).optional(),
    BODY_IDLE_TIMEOUT: duration('10s'),
    BODY_TIMEOUT: duration('60s'),
    HTTP_HEADERS_TIMEOUT: duration('10s'),
    DNS_SERVERS: z
      .string()
      .default('')
      .transform((s) => s.split(',').map((x) => x.trim()).filter(Boolean))
      .pipe(z.array(hostPort)),
    DNS_TIMEOUT: duration('2s'),
    SMTP_PORT: int(25, 1, 65535),
    SMTP_HELO_NAME: z.string().min(1).optional(),
    SMTP_CA_FILE: z.string().optional(),
    SMTP_CONNECT_TIMEOUT: duration('30s'),
    SMTP_COMMAND_TIMEOUT: duration('5m'),
    SMTP_DATA_TIMEOUT: duration('10m'),
    ALLOW_PRIVATE_MX: bool(false),
    WORKER_CONCURRENCY: int(200, 1, 1000),
    DESTINATION_CONCURRENCY: int(20, 1, 1000),
    DESTINATION_SUSPEND_AFTER: int(5, 1, 1000),
    DESTINATION_SUSPENSION: duration('60s'),
    DESTINATION_LIMITS: destinationLimits,
    PROVIDERS_FILE: z.string().optional(),
    WARMUP_SCHEDULE: warmUpSchedule,
    REPLY_RULES_FILE: replyRulesSetting,
    WORKER_ACTIVE_LIMIT: int(20_000, 1, 10_000_000),
    COMPOSITION_THREADS: int(availableParallelism(), 0, 64),
    DELIVERY_LEASE: duration('30s'),
    SMTP_POOL_IDLE: duration('5s'),
    WORKER_SHUTDOWN_GRACE: duration('20s'),
    DELIVERY_JOURNAL_FILE: z.string().min(1).default('data/delivery-journal.jsonl'),
    RECONCILE_INTERVAL: duration('30s'),
    DOMAIN_RECHECK_INTERVAL: duration('24h'),
    // Each rotation asks the domain's owner to publish records, so not more often than daily (docs/api-decisions.md, "DKIM keys").
    DKIM_ROTATION_INTERVAL: optionalDuration('24h'),
    REPUTATION_CHECK_INTERVAL: duration('1m'),
    RETRY_SCHEDULE: durationList('1m,5m,15m,30m,1h,2h,4h'),
    MAX_DELIVERY_AGE: duration('72h'),
    WEBHOOK_ALLOW_PRIVATE: bool(false),
    WEBHOOK_RETRY_SCHEDULE: durationList('5s,5m,30m,2h,5h,10h,10h'),
    WEBHOOK_DISABLE_AFTER: duration('5d'),
    WEBHOOK_CONCURRENCY: int(20, 1, 1000),
    RETENTION_DAYS: int(30, 1, 3650),
    OPERATOR_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
    CONSOLE_SESSION_IDLE_TIMEOUT: duration('30m'),
    TRUST_PROXY: bool(false),
    // The API as recipients' mail clients reach it: the one-click unsubscribe links (docs/api-decisions.md, "Unsubscribe").
    PUBLIC_URL: z.url({ protocol: /^https?$/ }).optional(),
    // What the domains' tracking hosts CNAME to (docs/api-decisions.md, "Opens and clicks"); the host of PUBLIC_URL unless set.
    TRACKING_HOST: z.string().regex(/^[A-Za-z0-9.-]+$/, 'expected a host name').optional(),
    ENCRYPTION_KEY: encryptionKey.optional(),
    RETURN_PATH_LABEL: z.string().regex(/^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/, 'expected one lower-case DNS label').default('bounces'),
    INBOUND_HOST: z.string().regex(/^[A-Za-z0-9.-]+$/, 'expected a host name').optional(),
    // 25 in production; an unprivileged port elsewhere, so that `npm start` runs as any user (toConfig).
    INBOUND_PORT: z.coerce.number().int().min(0).max(65535).optional(),
    INBOUND_METRICS_PORT: int(3002, 0, 65535),
    INBOUND_MAX_MESSAGE_BYTES: int(2 * MIB, 64 * 1024, 64 * MIB),
    INBOUND_MAX_CONNECTIONS: int(50, 1, 10_000),
    INBOUND_MAX_CONNECTIONS_PER_ADDRESS: int(5, 1, 10_000),
    INBOUND_REPORT_CONCURRENCY: int(4, 1, 64),
    INBOUND_FEEDBACK_ADDRESS: z.email('expected an email address').optional(),
    INBOUND_TIMEOUT: duration('60s'),
    INBOUND_RATE_LIMIT: int(600, 1, 10_000_000),
    INBOUND_RATE_WINDOW: duration('1m'),
    INBOUND_TLS_CERT: z.string().min(1).optional(),
    INBOUND_TLS_KEY: z.string().min(1).optional(),
    SUBMISSION_PORT: z.coerce.number().int().min(0).max(65535).optional(),
    SUBMISSION_TLS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
    SUBMISSION_TLS_CERT: z.string().min(1).optional(),
    SUBMISSION_TLS_KEY: z.string().min(1).optional(),
    SUBMISSION_TLS_DIR: z.string().min(1).default('data/submission-tls'),
    SUBMISSION_METRICS_PORT: int(3003, 0, 65535),
    SUBMISSION_MAX_CONNECTIONS: int(100, 1, 10_000),
    SUBMISSION_MAX_CONNECTIONS_PER_ADDRESS: int(20, 1, 10_000),
    SUBMISSION_AUTH_TIMEOUT: duration('20s'),
    SPF_INCLUDE: z.string().regex(/^[A-Za-z0-9._-]+$/, 'expected a domain name').optional(),
    OUTBOUND_IPS: z
      .string()
      .default('')
      .transform((s) => s.split(',').map((x) => x.trim()).filter(Boolean))
      .pipe(z.array(z.union([z.ipv4(), z.ipv6(), z.cidrv4(), z.cidrv6()]))),
    MTA_STS_CA_FILE: z.string().optional(),
    MTA_STS_POLICY_PORT: int(443, 1, 65535),
    DNSSEC_VALIDATING_RESOLVER: bool(false),
    TLSRPT_FROM: z.email('expected an email address').optional(),
    TLSRPT_ORGANIZATION: z.string().min(1).optional(),
    TLSRPT_DKIM_SELECTOR: z.string().regex(/^[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?$/, 'expected a DKIM selector').optional(),
    TLSRPT_DKIM_KEY_FILE: z.string().optional(),
  })
  .superRefine((env, ctx) => {
    if (env.MAX_BODY_BYTES_PER_ACCOUNT !== undefined && env.MAX_BODY_BYTES_PER_ACCOUNT > env.MAX_BODY_BYTES_IN_FLIGHT) {
      ctx.addIssue({ code: 'custom', path: ['MAX_BODY_BYTES_PER_ACCOUNT'], message: 'must not exceed MAX_BODY_BYTES_IN_FLIGHT' });
    }
    if ((env.SUBMISSION_TLS_CERT === undefined) !== (env.SUBMISSION_TLS_KEY === undefined)) {
      ctx.addIssue({ code: 'custom', path: [env.SUBMISSION_TLS_CERT ? 'SUBMISSION_TLS_KEY' : 'SUBMISSION_TLS_CERT'], message: 'SUBMISSION_TLS_CERT and SUBMISSION_TLS_KEY are set together' });
    }
    if ((env.INBOUND_TLS_CERT === undefined) !== (env.INBOUND_TLS_KEY === undefined)) {
      ctx.addIssue({ code: 'custom', path: [env.INBOUND_TLS_CERT ? 'INBOUND_TLS_KEY' : 'INBOUND_TLS_CERT'], message: 'INBOUND_TLS_CERT and INBOUND_TLS_KEY are set together' });
    }
    if ((env.TLSRPT_DKIM_SELECTOR === undefined) !== (env.TLSRPT_DKIM_KEY_FILE === undefined) || (env.TLSRPT_DKIM_SELECTOR && !env.TLSRPT_FROM)) {
      ctx.addIssue({ code: 'custom', path: ['TLSRPT_DKIM_SELECTOR'], message: 'TLSRPT_DKIM_SELECTOR and TLSRPT_DKIM_KEY_FILE go together, with TLSRPT_FROM' });
    }
    if (env.NODE_ENV === 'production' && !env.ENCRYPTION_KEY) {
      ctx.addIssue({ code: 'custom', path: ['ENCRYPTION_KEY'], message: 'is required in production' });
    }
    const heloName = heloNameOf(env);
    if (env.NODE_ENV === 'production' && !isFullyQualifiedHostName(heloName)) {
      ctx.addIssue({ code: 'custom', path: ['SMTP_HELO_NAME'], message: `"${heloName}" ${HELO_NAME_PROBLEM}` });
    } else if (env.NODE_ENV === 'production' && isPlaceholderHostName(heloName)) {
      ctx.addIssue({ code: 'custom', path: ['SMTP_HELO_NAME'], message: `"${heloName}" ${PLACEHOLDER_HOST_PROBLEM}` });
    }
  });

/** SMTP_HELO_NAME, else the machine's host name in production and the placeholder DEVELOPMENT_HELO_NAME elsewhere. */
const heloNameOf = (env: { NODE_ENV: string; SMTP_HELO_NAME?: string | undefined }): string =>
  env.SMTP_HELO_NAME ?? (env.NODE_ENV === 'production' ? hostname() : DEVELOPMENT_HELO_NAME);

/** What is allowed outside production but wrong for it: a HELO name that is not fully qualified, or a placeholder. */
function heloNameWarnings(heloName: string): { variable: string; message: string }[] {
  if (!isFullyQualifiedHostName(heloName)) {
    return [{ variable: 'SMTP_HELO_NAME', message: `SMTP_HELO_NAME "${heloName}" ${HELO_NAME_PROBLEM}; set it (an error with NODE_ENV=production)` }];
  }
  if (isPlaceholderHostName(heloName)) return [{ variable: 'SMTP_HELO_NAME', message: `SMTP_HELO_NAME "${heloName}" ${PLACEHOLDER_HOST_PROBLEM} (an error with NODE_ENV=production)` }];
  return [];
}

function publicUrlOf(env: z.infer<typeof envSchema>): string {
  return (env.PUBLIC_URL ?? `http://127.0.0.1:${env.PORT}`).replace(/\/+$/, '');
}

export type Config = ReturnType<typeof toConfig>;

function toConfig(env: z.infer<typeof envSchema>) {
  const heloName = heloNameOf(env);
  return {
    env: env.NODE_ENV,
    logLevel: env.LOG_LEVEL,
    databaseUrl: env.DATABASE_URL,
    databasePoolSize: env.DATABASE_POOL_SIZE,
    /**
     * Redis at REDIS_URL, or, with REDIS_SENTINELS, the master the Sentinels name
     * REDIS_SENTINEL_MASTER; REDIS_URL then gives only the credentials and database number
     * (docs/api-decisions.md, "Running several machines").
     */
    redis: {
      url: env.REDIS_URL,
      sentinels: env.REDIS_SENTINELS.map(toHostPort(26379)),
      sentinelMaster: env.REDIS_SENTINEL_MASTER,
    },
    redisPrefix: env.REDIS_PREFIX,
    host: env.HOST,
    port: env.PORT,
    workerMetricsPort: env.WORKER_METRICS_PORT,
    /**
     * Body bytes one process holds at once, over everything and for one account's bodies: the API's
     * request bodies, the submission listener's message data (docs/api-decisions.md, "Request bodies").
     */
    bodyBudget: bodyBudgetLimits(env.MAX_BODY_BYTES_IN_FLIGHT, env.MAX_BODY_BYTES_PER_ACCOUNT),
    /** The API's slow-client bounds (docs/api-decisions.md, "Request bodies"). */
    http: {
      /** A body is cut off when nothing of it arrives for this long, or when it is not all there after this long. */
      bodyIdleTimeoutMs: env.BODY_IDLE_TIMEOUT,
      bodyTimeoutMs: env.BODY_TIMEOUT,
      /** A connection whose request headers are not all there this long after they began is closed. */
      headersTimeoutMs: env.HTTP_HEADERS_TIMEOUT,
    },
    dns: { servers: env.DNS_SERVERS, timeoutMs: env.DNS_TIMEOUT },
    smtp: {
      port: env.SMTP_PORT,
      heloName,
      caFile: env.SMTP_CA_FILE,
      connectTimeoutMs: env.SMTP_CONNECT_TIMEOUT,
      commandTimeoutMs: env.SMTP_COMMAND_TIMEOUT,
      dataTimeoutMs: env.SMTP_DATA_TIMEOUT,
      allowPrivateMx: env.ALLOW_PRIVATE_MX,
      /** An idle pooled connection to an MX is closed after this. */
      poolIdleMs: env.SMTP_POOL_IDLE,
    },
    worker: {
      /** SMTP transactions in flight at once in one daemon, over all destinations. */
      concurrency: env.WORKER_CONCURRENCY,
      /** The most a destination's adaptive concurrency grows to, unless an operator rule says otherwise. */
      destinationConcurrency: env.DESTINATION_CONCURRENCY,
      /** Consecutive connection failures that suspend a destination, and for how long. */
      destinationSuspendAfter: env.DESTINATION_SUSPEND_AFTER,
      destinationSuspensionMs: env.DESTINATION_SUSPENSION,
      /** Operator limits per MX-host pattern, shared by every daemon through Redis. */
      destinationLimits: env.DESTINATION_LIMITS,
      /**
       * The big mailbox providers by MX host suffix, each one destination with its own limits:
       * the shipped table and the operator's (PROVIDERS_FILE), merged by mergeProviders.
       */
      providers: { shipped: readProviders(SHIPPED_PROVIDERS, 'the shipped providers.json'), operator: env.PROVIDERS_FILE ? readProviders(env.PROVIDERS_FILE, 'PROVIDERS_FILE') : [] },
      /** Messages per UTC day and provider an address may send on each day of its warm-up; none past the last. */
      warmUpSchedule: env.WARMUP_SCHEDULE,
      /** Replies that throttle or suspend their destination for a while: shipped and the operator's (docs/api-decisions.md, "Reply rules"). */
      replyRules: env.REPLY_RULES_FILE,
      /** Leased deliveries one daemon holds in memory at most; claiming waits while it is full. */
      activeLimit: env.WORKER_ACTIVE_LIMIT,
      /**
       * Threads that build and DKIM-sign messages (0: on the event loop). One per core by
       * default: a message costs a few ms there, so a single thread would cap the daemon.
       */
      compositionThreads: env.COMPOSITION_THREADS,
      reconcileIntervalMs: env.RECONCILE_INTERVAL,
      /** A ready domain whose last DNS check is older than this is checked again by a daemon. */
      domainRecheckIntervalMs: env.DOMAIN_RECHECK_INTERVAL,
      /** DKIM_ROTATION_INTERVAL: rotations start once a domain's keys have signed this long; null: only on request. */
      dkimRotationIntervalMs: env.DKIM_ROTATION_INTERVAL,
      /** How often a daemon judges the accounts' bounce and complaint rates (docs/api-decisions.md, "Reputation"). */
      reputationCheckIntervalMs: env.REPUTATION_CHECK_INTERVAL,
      retryScheduleMs: env.RETRY_SCHEDULE,
      maxDeliveryAgeMs: env.MAX_DELIVERY_AGE,
      /**
       * How long a lease lasts from its claim or latest renewal; renewed every third of it
       * while the attempt runs. A dead daemon's deliveries are taken over once it ran out.
       */
      leaseMs: env.DELIVERY_LEASE,
      /** On SIGTERM, how long in-flight attempts may finish before their leases are released. */
      shutdownGraceMs: env.WORKER_SHUTDOWN_GRACE,
      /**
       * Where this daemon keeps, fsync'd, the attempt records the database did not take, until it
       * does (docs/api-decisions.md, "Delivery"); one file per daemon, kept across restarts.
       */
      journalFile: env.DELIVERY_JOURNAL_FILE,
    },
    webhooks: {
      /** http:// and private, loopback or reserved addresses allowed (tests and private networks). */
      allowPrivate: env.WEBHOOK_ALLOW_PRIVATE,
      /** After the n-th failed attempt, the next one comes this much later; past the last step the delivery is failed. */
      retryScheduleMs: env.WEBHOOK_RETRY_SCHEDULE,
      /** An endpoint whose deliveries have all failed for this long is disabled. */
      disableAfterMs: env.WEBHOOK_DISABLE_AFTER,
      /** Webhook requests one daemon has in flight at most. */
      concurrency: env.WEBHOOK_CONCURRENCY,
    },
    returnPath: {
      /** The return-path host of a domain is `<label>.<domain>` (docs/api-decisions.md, "Return path"). */
      label: env.RETURN_PATH_LABEL,
      /** What every return-path host's MX names: the host the inbound listener is reachable at. */
      inboundHost: (env.INBOUND_HOST ?? heloName).toLowerCase().replace(/\.$/, ''),
      /** Published in the return-path SPF record: `include:` this domain, and these addresses as ip4:/ip6:. */
      spfInclude: env.SPF_INCLUDE,
      outboundIps: env.OUTBOUND_IPS,
      /** What every tracking host's CNAME names: TRACKING_HOST, else the host of PUBLIC_URL (docs/api-decisions.md, "Opens and clicks"). */
      trackingHost: (env.TRACKING_HOST ?? new URL(publicUrlOf(env)).hostname).toLowerCase().replace(/\.$/, ''),
    },
    inbound: {
      port: env.INBOUND_PORT ?? (env.NODE_ENV === 'production' ? 25 : DEVELOPMENT_INBOUND_PORT),
      metricsPort: env.INBOUND_METRICS_PORT,
      /** A report larger than this is refused (552); DSNs and ARF reports carry at most the returned message's start. */
      maxMessageBytes: env.INBOUND_MAX_MESSAGE_BYTES,
      /** Connections open at once; one more is answered 421. */
      maxConnections: env.INBOUND_MAX_CONNECTIONS,
      /** Connections open at once from one IPv4 address or IPv6 /64; one more from there is answered 421 4.7.0. */
      maxConnectionsPerAddress: env.INBOUND_MAX_CONNECTIONS_PER_ADDRESS,
      /** Messages parsed at once; the others wait their turn, each held in memory (at most INBOUND_MAX_MESSAGE_BYTES). */
      reportConcurrency: env.INBOUND_REPORT_CONCURRENCY,
      /**
       * An address of the operator's, registered with mailbox providers' feedback loops, taken at RCPT as
       * it is: its complaints name their delivery by the return-path address they report.
       */
      feedbackAddress: env.INBOUND_FEEDBACK_ADDRESS?.toLowerCase(),
      /** An idle connection is closed after this. */
      socketTimeoutMs: env.INBOUND_TIMEOUT,
      /** Routed messages an account may receive within the rolling window; RCPT beyond is `452 4.2.1` (docs/api-decisions.md, "Inbound mail"). */
      rateLimit: { messages: env.INBOUND_RATE_LIMIT, windowMs: env.INBOUND_RATE_WINDOW },
      /** STARTTLS's certificate and key (PEM paths); without them a self-signed certificate is made at start. */
      tlsCertFile: env.INBOUND_TLS_CERT,
      tlsKeyFile: env.INBOUND_TLS_KEY,
    },
    /** SMTP submission (docs/api-decisions.md, "SMTP submission"): the standard ports in production, unprivileged ones otherwise. */
    submission: {
      /** STARTTLS. */
      port: env.SUBMISSION_PORT ?? (env.NODE_ENV === 'production' ? 587 : 2587),
      /** Implicit TLS. */
      tlsPort: env.SUBMISSION_TLS_PORT ?? (env.NODE_ENV === 'production' ? 465 : 2465),
      /** Paths of the PEM certificate (chain) and key; without them a self-signed certificate kept in selfSignedDir. */
      tlsCertFile: env.SUBMISSION_TLS_CERT,
      tlsKeyFile: env.SUBMISSION_TLS_KEY,
      /** Where the self-signed certificate and key are kept across starts (relative: to the working directory). */
      selfSignedDir: env.SUBMISSION_TLS_DIR,
      /** `/metrics` (behind OPERATOR_TOKEN) and `/healthz`. */
      metricsPort: env.SUBMISSION_METRICS_PORT,
      /** Open sessions of one IPv4 address or IPv6 /64, and in all: `421 4.7.0` beyond. */
      connections: { perAddress: env.SUBMISSION_MAX_CONNECTIONS_PER_ADDRESS, total: env.SUBMISSION_MAX_CONNECTIONS },
      /** A session not authenticated this long after it connected is closed. */
      authTimeoutMs: env.SUBMISSION_AUTH_TIMEOUT,
    },
    /** Receivers' transport policies (docs/api-decisions.md, "Receivers' TLS policies"). */
    receiverPolicies: {
      /** CAs a policy host's certificate may chain to besides the system's (MTA-STS policy fetches). */
      mtaStsCaFile: env.MTA_STS_CA_FILE,
      /** The port policy hosts are fetched from: 443 (RFC 8461); another value is for tests only. */
      mtaStsPolicyPort: env.MTA_STS_POLICY_PORT,
      /**
       * The resolvers of DNS_SERVERS validate DNSSEC and the path to them is trusted: their AD bit is
       * believed, and MX hosts with authenticated TLSA records get DANE (RFC 7672). Off by default.
       */
      dnssecValidatingResolver: env.DNSSEC_VALIDATING_RESOLVER,
      /** TLS reports (RFC 8460): the submitter named in them, and the address `mailto:` reports come from (none sent without it). */
      tlsReports: {
        organization: env.TLSRPT_ORGANIZATION ?? heloName,
        from: env.TLSRPT_FROM?.toLowerCase(),
        /** Mailed reports are DKIM-signed for TLSRPT_FROM's domain with this selector and PEM key (RSA or Ed25519) when set. */
        dkim: env.TLSRPT_DKIM_SELECTOR && env.TLSRPT_DKIM_KEY_FILE ? { selector: env.TLSRPT_DKIM_SELECTOR, keyFile: env.TLSRPT_DKIM_KEY_FILE } : undefined,
      },
    },
    retentionDays: env.RETENTION_DAYS,
    operatorToken: env.OPERATOR_TOKEN,
    /** The operator console (docs/api-decisions.md, "Operator console"). */
    console: {
      /** A session unused for this long is gone; each request of it starts the period again. */
      sessionIdleTimeoutMs: env.CONSOLE_SESSION_IDLE_TIMEOUT,
    },
    /**
     * The API runs behind a reverse proxy that sets X-Forwarded-Proto and X-Forwarded-For (and
     * overwrites what clients sent): requests count as HTTPS when it says so, and the console's
     * cookie is then marked Secure.
     */
    trustProxy: env.TRUST_PROXY,
    /** The API's public origin, without a trailing slash; http://127.0.0.1:PORT unless PUBLIC_URL is set. */
    publicUrl: publicUrlOf(env),
    encryptionKey: Buffer.from(env.ENCRYPTION_KEY ?? DEVELOPMENT_ENCRYPTION_KEY, 'base64'),
    /** ENCRYPTION_KEY is unset and the development key seals secrets: the API and the daemon warn at start. */
    usesDevelopmentEncryptionKey: env.ENCRYPTION_KEY === undefined,
    /** What is allowed outside production but wrong for it: each process logs these at start. */
    warnings: heloNameWarnings(heloName),
  };
}

export class ConfigError extends Error {
  override readonly name = 'ConfigError';

  constructor(
    message: string,
    /** Each variable with a bad value, and what is wrong with it. */
    readonly problems: readonly { variable: string; message: string }[] = [],
  ) {
    super(message);
  }
}

/**
 * PostgreSQL's answer that the database DATABASE_URL names does not exist (3D000) or refuses its
 * credentials (class 28), as a problem of that variable; undefined for any other error.
 */
export function databaseUrlProblem(error: unknown): { variable: 'DATABASE_URL'; message: string } | undefined {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (typeof code !== 'string' || !/^(3D000|28)/.test(code)) return undefined;
  const what = code === '3D000' ? 'create it (npm run migrate does) or' : 'fix its user and password, or';
  return { variable: 'DATABASE_URL', message: `${String(message)}: DATABASE_URL names this database; ${what} set DATABASE_URL in the environment or in .env` };
}

/**
 * The fields of a start-up failure's log line (runService of @mailer/logger): a configuration
 * problem names each variable and what is wrong with it, with no stack (nothing is wrong with the
 * code); any other failure carries its stack as a field of the same one line.
 */
export function describeStartupFailure(error: unknown): Record<string, unknown> {
  const database = databaseUrlProblem(error);
  if (database) return { error: 'invalid configuration', problems: [database] };
  if (error instanceof ConfigError) return error.problems.length > 0 ? { error: 'invalid configuration', problems: error.problems } : { error: error.message };
  if (error instanceof Error) return { error: error.message, stack: error.stack };
  return { error: String(error) };
}

/**
 * Parses the environment once at boot; a bad value fails with a message naming the variable.
 * Without an argument it reads the process's environment, to which `.env` of the working
 * directory adds what it does not set (withDotEnv): what every role and the CLI do.
 */
export function loadConfig(env: NodeJS.ProcessEnv = withDotEnv(process.env, process.cwd())): Config {
  const blankToUnset = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = envSchema.safeParse(blankToUnset);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => ({ variable: issue.path.join('.') || '(environment)', message: issue.message }));
    throw new ConfigError(`invalid configuration:\n${problems.map((p) => `  ${p.variable}: ${p.message}`).join('\n')}`, problems);
  }
  return toConfig(parsed.data);
}

/**
 * A key of the ENCRYPTION_KEY format held in another variable (`secrets reseal --from-key-env VAR`);
 * throws a ConfigError naming the variable when it is unset or malformed.
 */
export function parseEncryptionKey(variable: string, value: string | undefined): Buffer {
  const parsed = encryptionKey.safeParse(value ?? '');
  if (!value || !parsed.success) throw new ConfigError(`${variable}: must be set to 32 bytes, base64-encoded, like ENCRYPTION_KEY`);
  return Buffer.from(value, 'base64');
}

import { mkdtempSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import { describeStartupFailure, loadConfig, ConfigError, parseEncryptionKey } from './config';

describe('loadConfig', () => {
  it('applies the contract defaults', () => {
    const config = loadConfig({});
    expect(config.databaseUrl).toBe('postgres://postgres@127.0.0.1:5432/mailer');
    expect(config.redis.url).toBe('redis://127.0.0.1:6379');
    expect(config.port).toBe(3000);
    expect(config.host).toBe('0.0.0.0');
    expect(config.smtp.port).toBe(25);
    expect(config.smtp.allowPrivateMx).toBe(false);
    expect(config.worker.reconcileIntervalMs).toBe(30_000);
    expect(config.worker.leaseMs).toBe(30_000);
    expect(config.worker.retryScheduleMs).toEqual([60_000, 300_000, 900_000, 1_800_000, 3_600_000, 7_200_000, 14_400_000]);
    expect(config.worker.maxDeliveryAgeMs).toBe(72 * 3_600_000);
    expect(config.retentionDays).toBe(30);
    expect(config.smtp.dataTimeoutMs).toBe(600_000);
    expect(config.encryptionKey).toHaveLength(32);
    expect(config.worker.compositionThreads).toBe(availableParallelism());
  });

  it('derives the public origin from PORT unless PUBLIC_URL says otherwise', () => {
    expect(loadConfig({ PORT: '3100' }).publicUrl).toBe('http://127.0.0.1:3100');
    expect(loadConfig({ PUBLIC_URL: 'https://mail.example.com/' }).publicUrl).toBe('https://mail.example.com');
    expect(() => loadConfig({ PUBLIC_URL: 'ftp://mail.example.com' })).toThrow(/PUBLIC_URL/);
  });

  it('names the tracking hosts\' CNAME target by TRACKING_HOST, else the host of PUBLIC_URL', () => {
    expect(loadConfig({ PUBLIC_URL: 'https://Mail.Example.com:8443/' }).returnPath.trackingHost).toBe('mail.example.com');
    expect(loadConfig({ PUBLIC_URL: 'https://mail.example.com', TRACKING_HOST: 'track.example.net.' }).returnPath.trackingHost).toBe('track.example.net');
  });

  it('takes DESTINATION_LIMITS inline or from a file, and names a bad rule', () => {
    const rules = [{ pattern: '*.outlook.com', connections: 2, messagesPerMinute: 60 }];
    expect(loadConfig({}).worker.destinationLimits).toEqual([]);
    expect(loadConfig({ DESTINATION_LIMITS: JSON.stringify(rules) }).worker.destinationLimits).toEqual(rules);
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'limits-')), 'limits.json');
    writeFileSync(file, JSON.stringify(rules));
    expect(loadConfig({ DESTINATION_LIMITS: file }).worker.destinationLimits).toEqual(rules);
    expect(() => loadConfig({ DESTINATION_LIMITS: '[{"pattern":"*","connections":0}]' })).toThrow(/DESTINATION_LIMITS: invalid rule: 0.connections/);
    expect(() => loadConfig({ DESTINATION_LIMITS: '/no/such/file.json' })).toThrow(/DESTINATION_LIMITS/);
  });

  it('reads the shipped providers table, PROVIDERS_FILE beside it, and names a bad entry', () => {
    const { shipped, operator } = loadConfig({}).worker.providers;
    expect(operator).toEqual([]);
    expect(shipped.find((p) => p.name === 'gmail')?.suffixes).toContain('google.com');
    expect(new Set(shipped.map((p) => p.name)).size).toBe(shipped.length);
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'providers-')), 'providers.json');
    writeFileSync(file, JSON.stringify([{ name: 'corp', suffixes: ['MX.Corp.Example.'], connections: 3 }]));
    expect(loadConfig({ PROVIDERS_FILE: file }).worker.providers.operator).toEqual([{ name: 'corp', suffixes: ['mx.corp.example'], connections: 3 }]);
    writeFileSync(file, JSON.stringify([{ name: 'Corp', suffixes: [] }]));
    expect(() => loadConfig({ PROVIDERS_FILE: file })).toThrow(/PROVIDERS_FILE: invalid provider: 0.name .*; 0.suffixes/);
    expect(() => loadConfig({ PROVIDERS_FILE: '/no/such/file.json' })).toThrow(/PROVIDERS_FILE/);
  });

  it('takes WARMUP_SCHEDULE as positive whole numbers per day', () => {
    expect(loadConfig({}).worker.warmUpSchedule[0]).toBe(50);
    expect(loadConfig({ WARMUP_SCHEDULE: '10, 20,40' }).worker.warmUpSchedule).toEqual([10, 20, 40]);
    expect(() => loadConfig({ WARMUP_SCHEDULE: '10,0' })).toThrow(/WARMUP_SCHEDULE/);
    expect(() => loadConfig({ WARMUP_SCHEDULE: '10,x' })).toThrow(/WARMUP_SCHEDULE/);
  });

  it('takes COMPOSITION_THREADS from 0 (the event loop) up', () => {
    expect(loadConfig({ COMPOSITION_THREADS: '0' }).worker.compositionThreads).toBe(0);
    expect(loadConfig({ COMPOSITION_THREADS: '' }).worker.compositionThreads).toBe(availableParallelism());
  });

  it('takes MAX_BODY_BYTES_IN_FLIGHT in bytes, 128 MiB by default and at least one 16 MiB body', () => {
    expect(loadConfig({}).bodyBudget.total).toBe(128 * 1024 * 1024);
    expect(loadConfig({ MAX_BODY_BYTES_IN_FLIGHT: '16777216' }).bodyBudget.total).toBe(16 * 1024 * 1024);
    expect(() => loadConfig({ MAX_BODY_BYTES_IN_FLIGHT: '16777215' })).toThrow(/MAX_BODY_BYTES_IN_FLIGHT/);
  });

  it('takes MAX_BODY_BYTES_PER_ACCOUNT from one 16 MiB body up to the whole budget, four bodies (at most the budget) by default', () => {
    expect(loadConfig({}).bodyBudget.perAccount).toBe(64 * 1024 * 1024);
    expect(loadConfig({ MAX_BODY_BYTES_IN_FLIGHT: '33554432' }).bodyBudget.perAccount).toBe(32 * 1024 * 1024);
    expect(loadConfig({ MAX_BODY_BYTES_PER_ACCOUNT: '33554432' }).bodyBudget.perAccount).toBe(32 * 1024 * 1024);
    expect(() => loadConfig({ MAX_BODY_BYTES_PER_ACCOUNT: '16777215' })).toThrow(/MAX_BODY_BYTES_PER_ACCOUNT/);
    expect(() => loadConfig({ MAX_BODY_BYTES_IN_FLIGHT: '16777216', MAX_BODY_BYTES_PER_ACCOUNT: '16777217' })).toThrow(
      /MAX_BODY_BYTES_PER_ACCOUNT: must not exceed MAX_BODY_BYTES_IN_FLIGHT/,
    );
  });

  it('caps submission sessions, 20 per address and 100 in all, and gives one 20 s to authenticate by default', () => {
    expect(loadConfig({}).submission).toMatchObject({ connections: { perAddress: 20, total: 100 }, authTimeoutMs: 20_000 });
    expect(loadConfig({ SUBMISSION_MAX_CONNECTIONS_PER_ADDRESS: '3', SUBMISSION_AUTH_TIMEOUT: '2s' }).submission).toMatchObject({ connections: { perAddress: 3 }, authTimeoutMs: 2_000 });
    expect(() => loadConfig({ SUBMISSION_MAX_CONNECTIONS: '0' })).toThrow(/SUBMISSION_MAX_CONNECTIONS/);
  });

  it('bounds slow HTTP clients by default: 10 s idle body, 60 s whole body, 10 s headers', () => {
    expect(loadConfig({}).http).toMatchObject({ bodyIdleTimeoutMs: 10_000, bodyTimeoutMs: 60_000, headersTimeoutMs: 10_000 });
    expect(() => loadConfig({ BODY_IDLE_TIMEOUT: 'never' })).toThrow(/BODY_IDLE_TIMEOUT/);
  });

  it('finds Redis through REDIS_SENTINELS when given, naming REDIS_SENTINEL_MASTER', () => {
    expect(loadConfig({}).redis).toEqual({ url: 'redis://127.0.0.1:6379', sentinels: [], sentinelMaster: 'mailer' });
    expect(loadConfig({ REDIS_SENTINELS: '127.0.0.1:26380, sentinel-b, [::1]:26382', REDIS_SENTINEL_MASTER: 'main' }).redis).toEqual({
      url: 'redis://127.0.0.1:6379',
      sentinels: [
        { host: '127.0.0.1', port: 26380 },
        { host: 'sentinel-b', port: 26379 },
        { host: '::1', port: 26382 },
      ],
      sentinelMaster: 'main',
    });
  });

  it('parses DNS_SERVERS as a host:port list', () => {
    expect(loadConfig({ DNS_SERVERS: '127.0.0.1:5300, [::1]:53' }).dns.servers).toEqual(['127.0.0.1:5300', '[::1]:53']);
  });

  it.each([
    ['PORT', 'http'],
    ['RETRY_SCHEDULE', '1m,soon'],
    ['MAX_DELIVERY_AGE', 'forever'],
    ['ALLOW_PRIVATE_MX', 'maybe'],
    ['COMPOSITION_THREADS', '-1'],
    ['DATABASE_URL', 'mysql://x'],
    ['DATABASE_URL', 'postgres://db1:5432,:5432/mailer'],
    ['REDIS_SENTINELS', '127.0.0.1:26379 127.0.0.2:26379'],
    ['ENCRYPTION_KEY', 'c2hvcnQ='],
    ['INBOUND_FEEDBACK_ADDRESS', 'not-an-address'],
    ['INBOUND_MAX_CONNECTIONS_PER_ADDRESS', '0'],
  ])('names %s when its value %s is invalid', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(name);
  });

  it("reads the receivers' TLS policy settings, DANE off and the standard policy port by default", () => {
    expect(loadConfig({ SMTP_HELO_NAME: 'mx.example.net' }).receiverPolicies).toEqual({
      mtaStsCaFile: undefined,
      mtaStsPolicyPort: 443,
      dnssecValidatingResolver: false,
      tlsReports: { organization: 'mx.example.net', from: undefined, dkim: undefined },
    });
    const set = loadConfig({ DNSSEC_VALIDATING_RESOLVER: 'true', TLSRPT_FROM: 'TLSRPT@Example.net', TLSRPT_ORGANIZATION: 'Example' }).receiverPolicies;
    expect(set).toMatchObject({ dnssecValidatingResolver: true, tlsReports: { organization: 'Example', from: 'tlsrpt@example.net' } });
    for (const [name, value] of [['DNSSEC_VALIDATING_RESOLVER', 'maybe'], ['TLSRPT_FROM', 'not-an-address'], ['MTA_STS_POLICY_PORT', '0'], ['TLSRPT_DKIM_SELECTOR', 'tlsrpt']]) {
      expect(() => loadConfig({ [name!]: value })).toThrow(name);
    }
  });

  it('publishes the return path at bounces.<domain>, its MX naming INBOUND_HOST (SMTP_HELO_NAME unless set), with the listener on port 2525 outside production', () => {
    const defaults = loadConfig({ SMTP_HELO_NAME: 'Mail.Example.NET.' });
    expect(defaults.returnPath).toEqual({ label: 'bounces', inboundHost: 'mail.example.net', spfInclude: undefined, outboundIps: [], trackingHost: '127.0.0.1' });
    expect(defaults.inbound).toEqual({
      port: 2525,
      metricsPort: 3002,
      maxMessageBytes: 2 * 1024 * 1024,
      maxConnections: 50,
      maxConnectionsPerAddress: 5,
      reportConcurrency: 4,
      feedbackAddress: undefined,
      socketTimeoutMs: 60_000,
      rateLimit: { messages: 600, windowMs: 60_000 },
      tlsCertFile: undefined,
      tlsKeyFile: undefined,
    });
    const set = loadConfig({ RETURN_PATH_LABEL: 'rp', INBOUND_HOST: 'in.example.net', OUTBOUND_IPS: '192.0.2.1, 2001:db8::/48', SPF_INCLUDE: '_spf.example.net' });
    expect(set.returnPath).toEqual({ label: 'rp', inboundHost: 'in.example.net', spfInclude: '_spf.example.net', outboundIps: ['192.0.2.1', '2001:db8::/48'], trackingHost: '127.0.0.1' });
    expect(loadConfig({ INBOUND_FEEDBACK_ADDRESS: 'FBL@In.Example.NET' }).inbound.feedbackAddress).toBe('fbl@in.example.net');
  });

  it('refuses return-path settings that could not be published', () => {
    expect(() => loadConfig({ OUTBOUND_IPS: '192.0.2.1,mail.example.net' })).toThrow(/OUTBOUND_IPS/);
    expect(() => loadConfig({ RETURN_PATH_LABEL: 'Bounces.x' })).toThrow(/RETURN_PATH_LABEL/);
    expect(() => loadConfig({ SPF_INCLUDE: 'a b' })).toThrow(/SPF_INCLUDE/);
  });

  it('requires ENCRYPTION_KEY in production', () => {
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow('ENCRYPTION_KEY');
  });

  it('re-checks ready domains every 24 hours unless DOMAIN_RECHECK_INTERVAL says otherwise', () => {
    expect(loadConfig({}).worker.domainRecheckIntervalMs).toBe(24 * 3_600_000);
    expect(loadConfig({ DOMAIN_RECHECK_INTERVAL: '30m' }).worker.domainRecheckIntervalMs).toBe(1_800_000);
  });

  it('rotates DKIM keys only on request unless DKIM_ROTATION_INTERVAL sets a schedule of at least a day', () => {
    expect(loadConfig({}).worker.dkimRotationIntervalMs).toBeNull();
    expect(loadConfig({ DKIM_ROTATION_INTERVAL: 'off' }).worker.dkimRotationIntervalMs).toBeNull();
    expect(loadConfig({ DKIM_ROTATION_INTERVAL: '' }).worker.dkimRotationIntervalMs).toBeNull();
    expect(loadConfig({ DKIM_ROTATION_INTERVAL: '90d' }).worker.dkimRotationIntervalMs).toBe(90 * 86_400_000);
    expect(() => loadConfig({ DKIM_ROTATION_INTERVAL: '1h' })).toThrow(/DKIM_ROTATION_INTERVAL/);
    expect(() => loadConfig({ DKIM_ROTATION_INTERVAL: 'monthly' })).toThrow(/DKIM_ROTATION_INTERVAL/);
  });

  it('says when the development ENCRYPTION_KEY is in use', () => {
    expect(loadConfig({}).usesDevelopmentEncryptionKey).toBe(true);
    expect(loadConfig({ ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64') }).usesDevelopmentEncryptionKey).toBe(false);
  });
});

describe('parseEncryptionKey', () => {
  it('reads a key of the ENCRYPTION_KEY format and names the variable otherwise', () => {
    expect(parseEncryptionKey('OLD_KEY', Buffer.alloc(32, 7).toString('base64'))).toEqual(Buffer.alloc(32, 7));
    expect(() => parseEncryptionKey('OLD_KEY', undefined)).toThrow(/^OLD_KEY: /);
    expect(() => parseEncryptionKey('OLD_KEY', 'c2hvcnQ=')).toThrow(ConfigError);
  });
  it('listens for SMTP submission on 587 and 465 in production, on 2587 and 2465 otherwise, and takes a certificate only with its key', () => {
    expect(loadConfig({ NODE_ENV: 'production', ENCRYPTION_KEY: Buffer.alloc(32, 1).toString('base64'), SMTP_HELO_NAME: 'mail.example.com' }).submission).toMatchObject({ port: 587, tlsPort: 465 });
    expect(loadConfig({}).submission).toMatchObject({ port: 2587, tlsPort: 2465, tlsCertFile: undefined, tlsKeyFile: undefined, selfSignedDir: 'data/submission-tls', metricsPort: 3003 });
    expect(loadConfig({ SUBMISSION_PORT: '1587', SUBMISSION_TLS_PORT: '0' }).submission).toMatchObject({ port: 1587, tlsPort: 0 });
    expect(() => loadConfig({ SUBMISSION_TLS_CERT: '/etc/ssl/cert.pem' })).toThrow(/SUBMISSION_TLS_KEY/);
    expect(() => loadConfig({ SUBMISSION_PORT: 'smtp' })).toThrow(/SUBMISSION_PORT/);
  });
});

describe('first-run defaults (docs/api-decisions.md, "First run")', () => {
  const key = Buffer.alloc(32, 7).toString('base64');

  it('listens for inbound mail on 2525 outside production and on 25 in production, unless INBOUND_PORT says otherwise', () => {
    expect(loadConfig({}).inbound.port).toBe(2525);
    expect(loadConfig({ NODE_ENV: 'test' }).inbound.port).toBe(2525);
    expect(loadConfig({ NODE_ENV: 'production', ENCRYPTION_KEY: key, SMTP_HELO_NAME: 'mail.example.com' }).inbound.port).toBe(25);
    expect(loadConfig({ INBOUND_PORT: '2600' }).inbound.port).toBe(2600);
    expect(loadConfig({ INBOUND_PORT: '' }).inbound.port).toBe(2525);
  });

  it('defaults SMTP_HELO_NAME to the placeholder mailer.invalid outside production, with a warning; refuses a placeholder in production', () => {
    for (const env of [{}, { NODE_ENV: 'test' }]) {
      const config = loadConfig(env);
      expect([config.smtp.heloName, config.returnPath.inboundHost]).toEqual(['mailer.invalid', 'mailer.invalid']);
      expect(config.warnings).toEqual([{ variable: 'SMTP_HELO_NAME', message: expect.stringContaining('"mailer.invalid" is a placeholder') }]);
    }
    expect(() => loadConfig({ NODE_ENV: 'production', ENCRYPTION_KEY: key, SMTP_HELO_NAME: 'mta.example.invalid' })).toThrow(/SMTP_HELO_NAME: "mta.example.invalid" is a placeholder/);
  });

  it('warns of an SMTP_HELO_NAME that is not fully qualified, and refuses it in production', () => {
    for (const name of ['vm', 'localhost', 'mail.localhost', '10.0.0.1', '-bad.example.com', 'mail_1.example.com']) {
      expect(loadConfig({ SMTP_HELO_NAME: name }).warnings).toEqual([{ variable: 'SMTP_HELO_NAME', message: expect.stringContaining(`"${name}" is not a fully qualified host name`) }]);
      expect(() => loadConfig({ NODE_ENV: 'production', ENCRYPTION_KEY: key, SMTP_HELO_NAME: name })).toThrow(/SMTP_HELO_NAME: .* is not a fully qualified host name/);
    }
    for (const name of ['mail.example.com', 'MX1.Example.COM.', 'a.b']) {
      expect(loadConfig({ SMTP_HELO_NAME: name }).warnings).toEqual([]);
      expect(loadConfig({ NODE_ENV: 'production', ENCRYPTION_KEY: key, SMTP_HELO_NAME: name }).smtp.heloName).toBe(name);
    }
  });
});

describe('a start-up failure of the database DATABASE_URL names', () => {
  it('names the variable when the database does not exist or refuses the credentials', () => {
    for (const code of ['3D000', '28P01']) {
      const fields = describeStartupFailure(Object.assign(new Error('database "mailer" does not exist'), { code }));
      expect(fields).toEqual({ error: 'invalid configuration', problems: [{ variable: 'DATABASE_URL', message: expect.stringContaining('DATABASE_URL names this database') }] });
    }
    expect(describeStartupFailure(Object.assign(new Error('boom'), { code: '42P01' }))).toMatchObject({ error: 'boom' });
  });
});

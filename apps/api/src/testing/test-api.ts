import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PassThrough } from 'node:stream';
import request from 'supertest';
import { loadConfig, type Config } from '@mailer/config';
import { createAccount, type ProvisionedAccount } from '@mailer/operations';
import { createLogger } from '@mailer/logger';
import { createTestDatabase, testRedisPrefix } from '@mailer/testing';
import { closeContainer, createContainer, type ApiDependencies } from '../container';
import { createHttpServer } from '../http/http-server';
import { buildApi } from '../server';
import { checkedAgainstDocument } from './openapi-traffic';

export interface TestApi {
  deps: ApiDependencies;
  config: Config;
  /** Supertest on the API; every request and answer is checked against its OpenAPI document (openapi-traffic). */
  http: ReturnType<typeof request>;
  /** Every log line the API wrote, parsed. */
  logLines: () => Record<string, unknown>[];
  /** The clock the API reads; tests set it to move time. */
  clock: { now: Date | undefined };
  createAccount(name?: string): Promise<ProvisionedAccount>;
  /** The API listening on loopback, for clients that speak HTTP themselves (the providers' SDKs); its base URL. */
  listen(): Promise<string>;
  close(): Promise<void>;
}

/**
 * The API as it runs in production, against a database and Redis prefix of this test
 * file's own. `env` overrides the environment the config is parsed from.
 */
export async function startTestApi(env: Record<string, string> = {}): Promise<TestApi> {
  const databaseUrl = await createTestDatabase();
  const config = loadConfig({ NODE_ENV: 'test', DATABASE_URL: databaseUrl, REDIS_PREFIX: testRedisPrefix(), LOG_LEVEL: 'debug', ...env });
  const stream = new PassThrough();
  const lines: string[] = [];
  stream.on('data', (chunk: Buffer) => lines.push(...chunk.toString('utf8').split('\n').filter(Boolean)));
  const clock: { now: Date | undefined } = { now: undefined };
  const deps = createContainer(config, {
    logger: createLogger({ level: 'debug', service: 'api', stream }),
    now: () => clock.now ?? new Date(),
  });
  const app = buildApi(deps);
  let listening: Server | undefined;
  return {
    deps,
    config,
    http: checkedAgainstDocument(request(createHttpServer(app, config.http))),
    clock,
    logLines: () => lines.map((line) => JSON.parse(line) as Record<string, unknown>),
    createAccount: (name = 'Test account') => createAccount(deps.db, name),
    async listen() {
      listening ??= await new Promise<Server>((resolve) => {
        const server = createHttpServer(app, config.http).listen(0, '127.0.0.1', () => resolve(server));
      });
      return `http://127.0.0.1:${(listening.address() as AddressInfo).port}`;
    },
    async close() {
      if (listening) {
        listening.closeAllConnections();
        await new Promise((resolve) => listening!.close(resolve));
      }
      await closeContainer(deps);
    },
  };
}

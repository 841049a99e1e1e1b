import type { Command } from 'commander';
import { addEgressAddress, createEgressPool, listEgressPools, setAccountEgressPool, type EgressAddress } from '@mailer/operations';
import type { DnsResolver } from '@mailer/dns';
import { checkHeloName, checkPoolName, checkSourceAddress, DEFAULT_POOL, EMAIL_TYPES, heloIdentityProblem, utcDay, type Checked } from '@mailer/domain';
import { CliError, printResult } from '../output';
import type { CliDependencies } from '../cli-dependencies';

function valid<T>(checked: Checked<T>, code: string): T {
  if (!checked.ok) throw new CliError(code, `${checked.message}.`);
  return checked.value;
}

/**
 * Whether the HELO name is the address's forward-confirmed reverse DNS (heloIdentityProblem),
 * through the configured resolver; a lookup that fails counts as no answer.
 */
async function heloProblem(dns: DnsResolver, address: string, heloName: string): Promise<string | null> {
  const ipv6 = address.includes(':');
  const [ptr, forward] = await Promise.all([
    dns.query((r) => r.reverse(address)),
    dns.query((r) => (ipv6 ? r.resolve6(heloName) : r.resolve4(heloName))),
  ]);
  return heloIdentityProblem(address, heloName, {
    ptrNames: ptr.kind === 'found' ? ptr.values : [],
    heloAddresses: forward.kind === 'found' ? forward.values : [],
  });
}

const addressView = (a: EgressAddress) => ({ address: a.address, helo_name: a.heloName, warm_up_started_on: a.warmUpStartedOn });

/**
 * Egress pools (docs/api-decisions.md, "Providers and egress pools"): named sets of local source
 * addresses, each with its HELO name, which its PTR must name: `add-address` refuses a mismatch
 * (unless --skip-ptr-check) and `check` looks again.
 */
export function registerPoolCommands(program: Command, deps: CliDependencies): void {
  const pool = program.command('pool').description('manage egress pools: the local addresses mail leaves from');

  pool
    .command('create <name>')
    .description(`create an empty pool; accounts without a pool of their own send from the pool named "${DEFAULT_POOL}" when it exists`)
    .option('--json', 'print {"name"}')
    .action(async (raw: string, options: { json?: boolean }) => {
      const name = valid(checkPoolName(raw), 'invalid_pool_name');
      if (!(await createEgressPool(deps.db, name))) throw new CliError('pool_already_exists', `A pool named ${name} exists already.`);
      printResult(deps.stdout, options.json, { name }, `Created pool ${name}.`);
    });

  pool
    .command('add-address <pool> <address>')
    .description("add a local address to a pool; its HELO name must be the address's PTR and resolve back to it; warm-up starts today (WARMUP_SCHEDULE)")
    .requiredOption('--helo <name>', 'the name it greets with in EHLO')
    .option('--no-warm-up', 'an address already warm: no daily cap per provider')
    .option('--skip-ptr-check', 'add it although DNS does not (yet) confirm the HELO name')
    .option('--json', 'print {"pool","address","helo_name","warm_up_started_on"}')
    .action(async (rawPool: string, rawAddress: string, options: { helo: string; warmUp: boolean; skipPtrCheck?: boolean; json?: boolean }) => {
      const poolName = valid(checkPoolName(rawPool), 'invalid_pool_name');
      const address = valid(checkSourceAddress(rawAddress), 'invalid_address');
      const heloName = valid(checkHeloName(options.helo), 'invalid_helo_name');
      if (!options.skipPtrCheck) {
        const problem = await heloProblem(deps.dns(), address, heloName);
        if (problem) throw new CliError('helo_ptr_mismatch', `Not added: ${problem}. Publish the PTR and A/AAAA records, or pass --skip-ptr-check.`);
      }
      const row: EgressAddress = { address, pool: poolName, heloName, warmUpStartedOn: options.warmUp ? utcDay(deps.now()) : null };
      const added = await addEgressAddress(deps.db, row);
      if (!added.ok) {
        if (added.reason === 'pool_not_found') throw new CliError('pool_not_found', `No pool named ${poolName}.`);
        throw new CliError('address_in_use', `${address} belongs to pool ${added.pool} already.`);
      }
      printResult(
        deps.stdout,
        options.json,
        { pool: poolName, ...addressView(row) },
        `Added ${address} (HELO ${heloName}) to pool ${poolName}${row.warmUpStartedOn ? `, warming up from ${row.warmUpStartedOn}` : ''}.`,
      );
    });

  pool
    .command('list')
    .description('every pool with its addresses, HELO names and warm-up start, and how many accounts it has')
    .option('--json', 'print {"pools":[{"name","accounts","addresses":[{"address","helo_name","warm_up_started_on"}]}]}')
    .action(async (options: { json?: boolean }) => {
      const pools = (await listEgressPools(deps.db)).map((p) => ({ name: p.name, accounts: p.accounts, addresses: p.addresses.map(addressView) }));
      const lines = pools.flatMap((p) => [
        `${p.name}  accounts ${p.accounts}`,
        ...p.addresses.map((a) => `  ${a.address}  HELO ${a.helo_name}${a.warm_up_started_on ? `  warming up from ${a.warm_up_started_on}` : ''}`),
      ]);
      printResult(deps.stdout, options.json, { pools }, lines.join('\n') || 'No pools: mail leaves from the machine’s own address.');
    });

  pool
    .command('check')
    .description("look up each address's PTR and its HELO name's A/AAAA again; exits 1 when one does not match")
    .option('--json', 'print {"addresses":[{"pool","address","helo_name","problem"}]} (problem null when it matches)')
    .action(async (options: { json?: boolean }) => {
      const addresses = (await listEgressPools(deps.db)).flatMap((p) => p.addresses);
      const checked = await Promise.all(
        addresses.map(async (a) => ({ pool: a.pool, address: a.address, helo_name: a.heloName, problem: await heloProblem(deps.dns(), a.address, a.heloName) })),
      );
      printResult(
        deps.stdout,
        options.json,
        { addresses: checked },
        checked.map((c) => `${c.pool}  ${c.address}  ${c.problem ?? `PTR and HELO ${c.helo_name} match`}`).join('\n') || 'No addresses.',
      );
      const failing = checked.filter((c) => c.problem !== null).length;
      if (failing > 0) throw new CliError('helo_ptr_mismatch', `${failing} address(es) whose PTR does not match their HELO name.`);
    });
}

/** `account set-pool`: the account's mail leaves from that pool's addresses; `default` gives it back to the default pool. */
export function registerAccountPoolCommand(account: Command, deps: CliDependencies): void {
  account
    .command('set-pool <account> <pool>')
    .description(`send the account's mail from the addresses of a pool ("${DEFAULT_POOL}": back to the default pool)`)
    .option('--stream <stream>', `only that stream's mail (${EMAIL_TYPES.join(' or ')}); "${DEFAULT_POOL}" gives the stream the account's pool again`)
    .option('--json', 'print {"id","egress_pool"} (and "stream" with --stream)')
    .action(async (accountId: string, rawPool: string, options: { stream?: string; json?: boolean }) => {
      const name = valid(checkPoolName(rawPool), 'invalid_pool_name');
      const pool = name === DEFAULT_POOL ? null : name;
      const stream = options.stream === undefined ? undefined : EMAIL_TYPES.find((s) => s === options.stream);
      if (options.stream !== undefined && !stream) throw new CliError('invalid_stream', `--stream must be one of: ${EMAIL_TYPES.join(', ')}.`);
      if (pool !== null) {
        const found = (await listEgressPools(deps.db)).find((p) => p.name === pool);
        // A delivery always leaves from an address of its account's pool: an empty one would have none.
        if (found && found.addresses.length === 0) throw new CliError('pool_empty', `Pool ${pool} has no addresses; add one first (pool add-address).`);
      }
      const result = await setAccountEgressPool(deps.db, accountId, pool, stream);
      if (result === 'account_not_found') throw new CliError('account_not_found', `No account with id ${accountId}.`);
      if (result === 'pool_not_found') throw new CliError('pool_not_found', `No pool named ${name}.`);
      const shown = stream === undefined ? { id: accountId, egress_pool: name } : { id: accountId, stream, egress_pool: name };
      const text = stream === undefined ? `Account ${accountId} sends from pool ${name}.` : `Account ${accountId} sends its ${stream} mail from pool ${pool === null ? "the account's" : name}.`;
      printResult(deps.stdout, options.json, shown, text);
    });
}

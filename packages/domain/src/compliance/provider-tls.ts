import { providerFor, type Provider } from '../scheduling/providers';
import type { ProviderTlsCounts } from './compliance-report';
import { MAILBOX_PROVIDERS, type MailboxProvider } from './provider-requirements';

/** Accepted attempts at one MX host, by whether the session had TLS. */
export interface MxHostTlsCount {
  mxHost: string;
  tls: boolean;
  attempts: number;
}

const isMailboxProvider = (name: string): name is MailboxProvider => (MAILBOX_PROVIDERS as readonly string[]).includes(name);

/** The counts per mailbox provider, each MX host given to the provider the daemons' table (`providerFor`) names for it. */
export function tlsCountsByProvider(providers: readonly Provider[], counts: readonly MxHostTlsCount[]): Partial<Record<MailboxProvider, ProviderTlsCounts>> {
  const byProvider: Partial<Record<MailboxProvider, ProviderTlsCounts>> = {};
  for (const count of counts) {
    const name = providerFor(providers, [count.mxHost])?.name;
    if (!name || !isMailboxProvider(name)) continue;
    const sum = byProvider[name] ?? { withTls: 0, inClear: 0 };
    if (count.tls) sum.withTls += count.attempts;
    else sum.inClear += count.attempts;
    byProvider[name] = sum;
  }
  return byProvider;
}

import { listSuppressions, removeSuppression } from '@mailer/operations';
import { suppressionKeyOf, suppressionNotFound } from '../../routes/suppressions/suppression-lookup';
import { field, type ConsoleRoute } from '../console-route';
import { html } from '../html';
import { actionButton, page, table, when } from '../layout';
import { accountPath, requireAccount } from './accounts';
import { LIST_LIMIT } from './domains';

const listSuppressionsPage: ConsoleRoute = {
  method: 'get',
  path: '/accounts/:accountId/suppressions',
  title: 'Suppressions',
  async handle(c) {
    const account = await requireAccount(c);
    const base = `${accountPath(account.id)}/suppressions`;
    const email = field(c.query, 'email');
    const rows = await listSuppressions(c.deps.db, account.id, { emailKey: email === undefined ? undefined : suppressionKeyOf(email), limit: LIST_LIMIT });
    return page(
      c.session,
      `Suppressions of ${account.name}`,
      html`<form method="get" action="${base}" role="search" class="row"><label for="s-email">Address</label>
<input id="s-email" name="email" type="email" value="${email ?? ''}"><button type="submit">Find</button></form>
${table(
  `Suppressed addresses (newest ${LIST_LIMIT})`,
  ['Address', 'Reason', 'Message', 'Since', ''],
  rows.map((s) => [
    s.email,
    s.reason,
    s.emailId ?? '—',
    when(s.createdAt),
    actionButton(c.session, `${base}/remove`, `Remove ${s.email}`, { email: s.email }, `Remove ${s.email} from the suppression list?`),
  ]),
  'No suppressed address.',
)}`,
    );
  },
};

const removeSuppressionChange: ConsoleRoute = {
  method: 'post',
  path: '/accounts/:accountId/suppressions/remove',
  title: 'Suppressions',
  async handle(c) {
    const account = await requireAccount(c);
    if (!(await removeSuppression(c.deps.db, account.id, suppressionKeyOf(field(c.form, 'email') ?? '')))) throw suppressionNotFound();
    c.res.redirect(303, `${accountPath(account.id)}/suppressions`);
  },
};

export const suppressionRoutes: ConsoleRoute[] = [listSuppressionsPage, removeSuppressionChange];

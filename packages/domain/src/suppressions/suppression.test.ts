import { suppressesRecipient } from './suppression';

const cause = (code: string) => ({ code, permanent: true, smtp_code: 550, enhanced_status: '5.1.1' }) as never;

describe('suppressesRecipient', () => {
  it('suppresses a to or cc recipient that bounced for a hard cause', () => {
    for (const code of ['recipient_unknown', 'mailbox_disabled', 'recipient_domain_not_found', 'no_mail_server']) {
      expect(suppressesRecipient({ kind: 'to', status: 'bounced', cause: cause(code) })).toBe(true);
      expect(suppressesRecipient({ kind: 'cc', status: 'bounced', cause: cause(code) })).toBe(true);
    }
  });

  it('never suppresses a BCC recipient, a soft bounce, or anything but a bounce', () => {
    expect(suppressesRecipient({ kind: 'bcc', status: 'bounced', cause: cause('recipient_unknown') })).toBe(false);
    expect(suppressesRecipient({ kind: 'to', status: 'bounced', cause: cause('mailbox_full') })).toBe(false);
    expect(suppressesRecipient({ kind: 'to', status: 'bounced', cause: cause('message_rejected') })).toBe(false);
    expect(suppressesRecipient({ kind: 'to', status: 'failed', cause: cause('recipient_unknown') })).toBe(false);
    expect(suppressesRecipient({ kind: 'to', status: 'accepted', cause: null })).toBe(false);
  });
});

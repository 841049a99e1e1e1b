import { classifySmtpReply, parseSmtpReply } from './classify-smtp-reply';

const classify = (raw: string) => classifySmtpReply(parseSmtpReply(raw));

describe('parseSmtpReply', () => {
  it('splits code, enhanced status and text of single and multi-line replies', () => {
    expect(parseSmtpReply('550 5.1.1 <a@b.test>: Recipient address rejected')).toEqual({
      code: 550,
      enhancedStatus: '5.1.1',
      text: '<a@b.test>: Recipient address rejected',
    });
    expect(parseSmtpReply('421-4.7.28 Our system has detected an unusual rate\n421 4.7.28 of mail')).toMatchObject({
      code: 421,
      enhancedStatus: '4.7.28',
    });
    expect(parseSmtpReply('250 OK')).toEqual({ code: 250, enhancedStatus: null, text: 'OK' });
    expect(parseSmtpReply('garbage').code).toBe(0);
  });
});

describe('classifySmtpReply', () => {
  it.each([
    ['250 2.0.0 Ok: queued as ABC', 'accepted', null],
    ['550 5.1.1 <x@y.test>: Recipient address rejected: User unknown', 'bounced', 'recipient_unknown'],
    ['550 5.1.10 RESOLVER.ADR.RecipientNotFound; null MX', 'bounced', 'no_mail_server'],
    ['552 5.2.2 Mailbox full', 'bounced', 'mailbox_full'],
    ['452 4.2.2 The email account is over quota', 'deferred', 'mailbox_full'],
    ['550 5.2.1 The email account that you tried to reach is disabled', 'bounced', 'mailbox_disabled'],
    ['552 5.3.4 Message size exceeds fixed limit', 'bounced', 'message_too_large'],
    ['552 5.2.3 Message too big', 'bounced', 'message_too_large'],
    ['550 5.7.1 Message rejected as spam', 'bounced', 'message_rejected'],
    ['550 5.7.26 Unauthenticated email is not accepted (DMARC)', 'bounced', 'message_rejected'],
    ['421 4.7.28 Our system has detected an unusual rate of unsolicited mail', 'deferred', 'rate_limited_by_recipient'],
    ['450 4.2.1 The user is receiving mail at a rate that prevents additional messages', 'deferred', 'rate_limited_by_recipient'],
    ['452 4.5.3 Too many recipients', 'deferred', 'rate_limited_by_recipient'],
    ['450 4.2.0 <x@y.test>: Recipient address rejected: Greylisted, see https://postgrey.schweikert.ch/', 'deferred', 'greylisted'],
    ['451 Greylisting in action, please come back later', 'deferred', 'greylisted'],
    ['451 4.3.0 Temporary local problem', 'deferred', 'remote_temporary_failure'],
    ['421 Service not available, closing transmission channel', 'deferred', 'remote_temporary_failure'],
    ['554 5.0.0 Transaction failed', 'bounced', 'remote_permanent_failure'],
    ['550 No such user here', 'bounced', 'recipient_unknown'],
    ['550 Requested action not taken: mailbox unavailable', 'bounced', 'recipient_unknown'],
    ['552 Requested mail action aborted: exceeded storage allocation (quota)', 'bounced', 'mailbox_full'],
    ['554 Message too large', 'bounced', 'message_too_large'],
    ['554 Blocked by policy', 'bounced', 'message_rejected'],
  ])('%s → %s %s', (reply, outcome, code) => {
    const result = classify(reply);
    expect(result.outcome).toBe(outcome);
    expect(result.cause?.code ?? null).toBe(code);
  });

  it('keeps the reply code and enhanced status and says whether retrying can help', () => {
    expect(classify('550 5.1.1 User unknown').cause).toEqual({
      code: 'recipient_unknown',
      permanent: true,
      smtp_code: 550,
      enhanced_status: '5.1.1',
    });
    expect(classify('451 4.7.1 Greylisted').cause).toEqual({
      code: 'greylisted',
      permanent: false,
      smtp_code: 451,
      enhanced_status: '4.7.1',
    });
  });

  it('lets the basic code decide the class when the enhanced status contradicts it', () => {
    const result = classify('450 5.1.1 User unknown');
    expect(result.outcome).toBe('deferred');
    expect(result.cause).toMatchObject({ permanent: false, smtp_code: 450, enhanced_status: null });
  });

  it('treats replies outside 2xx/4xx/5xx as unknown, hence temporary', () => {
    expect(classify('354 go ahead')).toMatchObject({ outcome: 'deferred', cause: { code: 'remote_temporary_failure' } });
    expect(classify('503 5.5.1 Error: need MAIL command')).toMatchObject({ outcome: 'deferred', cause: { smtp_code: 503, permanent: false } });
    expect(classify('what?')).toMatchObject({ outcome: 'deferred', cause: { code: 'remote_temporary_failure', smtp_code: null } });
  });
});

describe('replies of hostile size', () => {
  const MB = 1024 * 1024;

  it('keeps at most 512 characters of reply text', () => {
    const reply = parseSmtpReply(`550 5.1.1 ${'x'.repeat(MB)}`);
    expect(reply).toMatchObject({ code: 550, enhancedStatus: '5.1.1' });
    expect(reply.text).toBe('x'.repeat(512));
  });

  it.each([
    ['one line of "user " without the closing word', `550 ${'user '.repeat(MB / 5)}`, 'remote_permanent_failure'],
    ['many lines of "user"', `${'550-user\r\n'.repeat(MB / 10)}550 end`, 'remote_permanent_failure'],
    ['"address" then a megabyte of spaces and the closing word', `550 address${' '.repeat(MB)}unknown`, 'remote_permanent_failure'],
    ['the situation within the text kept, a megabyte of words after it', `550 mailbox unavailable ${'user '.repeat(MB / 5)}`, 'recipient_unknown'],
    ['a megabyte of "gray" and "rate" fragments', `451 ${'grey rate too many '.repeat(MB / 19)}`, 'remote_temporary_failure'],
  ])('classifies a megabyte reply in linear time: %s', (_name, raw, cause) => {
    expect(classify(raw).cause?.code).toBe(cause);
  });
});

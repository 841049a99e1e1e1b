import { parseMailbox } from '../senders/sender-email';
import { collectRecipients } from './recipients';

const boxes = (...addresses: string[]) => addresses.map((a) => parseMailbox(a)!);

describe('collectRecipients', () => {
  it('collapses duplicates across kinds, to before cc before bcc', () => {
    const set = collectRecipients({
      to: boxes('Ann@Example.test', 'ann@example.TEST'),
      cc: boxes('ANN@example.test', 'bob@example.test'),
      bcc: boxes('bob@example.test', 'carol@bücher.de', 'Carol@XN--BCHER-KVA.DE'),
    });
    expect(set.recipients).toEqual([
      { address: 'Ann@example.test', domain: 'example.test', kind: 'to' },
      { address: 'bob@example.test', domain: 'example.test', kind: 'cc' },
      { address: 'carol@xn--bcher-kva.de', domain: 'xn--bcher-kva.de', kind: 'bcc' },
    ]);
    expect(set.to).toEqual(['Ann@example.test']);
    expect(set.cc).toEqual(['bob@example.test']);
    expect(set.bccCount).toBe(1);
    expect(set.overLimitAt).toBeUndefined();
  });

  it('points at the first unique recipient beyond 50', () => {
    const many = Array.from({ length: 30 }, (_, i) => `r${i}@example.test`);
    const set = collectRecipients({ to: boxes(...many), cc: boxes(...many), bcc: boxes(...many.map((a) => `b${a}`)) });
    expect(set.overLimitAt).toEqual({ field: 'bcc', index: 20 });
    expect(set.recipients).toHaveLength(50);
  });

  it('allows exactly 50', () => {
    const fifty = Array.from({ length: 50 }, (_, i) => `r${i}@example.test`);
    expect(collectRecipients({ to: boxes(...fifty), cc: [], bcc: [] }).overLimitAt).toBeUndefined();
  });
});

import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { matchReplyRule, parseSmtpReply } from '@mailer/domain';
import { loadConfig } from './config';
import { SHIPPED_REPLY_RULES_FILE } from './reply-rules';

const operatorFile = (rules: unknown) => {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'reply-rules-')), 'rules.json');
  writeFileSync(file, JSON.stringify(rules));
  return file;
};

describe('REPLY_RULES_FILE and the shipped reply rules', () => {
  it("ships rules that each match their own example reply first, Gmail's, Yahoo's, Microsoft's and Apple's among them", () => {
    const rules = loadConfig({}).worker.replyRules;
    const shipped = JSON.parse(readFileSync(SHIPPED_REPLY_RULES_FILE, 'utf8')) as { name: string; provider: string; reply: string }[];
    expect(rules.map((r) => r.name)).toEqual(shipped.map((r) => r.name));
    expect(new Set(shipped.map((r) => r.provider))).toEqual(new Set(['Gmail', 'Yahoo', 'Microsoft', 'Apple iCloud', 'any']));
    for (const entry of shipped) expect([entry.name, matchReplyRule(rules, parseSmtpReply(entry.reply))?.name]).toEqual([entry.name, entry.name]);
    expect(rules.find((r) => r.name === 'yahoo-ts04')).toMatchObject({ action: { kind: 'concurrency', connections: 1 }, durationMs: 3_600_000 });
  });

  it("puts the operator's rules first, replacing or disabling shipped ones by name", () => {
    const file = operatorFile([
      { name: 'my-relay', code: 421, pattern: 'slow down', action: 'rate', messagesPerMinute: 5, duration: '5m' },
      { name: 'yahoo-ts04', pattern: '\\[TSS?04\\]', action: 'suspend', duration: '2h' },
      { name: 'microsoft-s3150', disabled: true },
    ]);
    const rules = loadConfig({ REPLY_RULES_FILE: file }).worker.replyRules;
    expect(rules.slice(0, 2)).toMatchObject([
      { name: 'my-relay', code: 421, action: { kind: 'rate', messagesPerMinute: 5 }, durationMs: 300_000 },
      { name: 'yahoo-ts04', action: { kind: 'suspend' }, durationMs: 7_200_000 },
    ]);
    expect(rules.filter((r) => r.name === 'yahoo-ts04')).toHaveLength(1);
    expect(rules.some((r) => r.name === 'microsoft-s3150')).toBe(false);
    expect(matchReplyRule(rules, parseSmtpReply('421 4.7.0 Please SLOW DOWN'))?.name).toBe('my-relay');
  });

  it('names what is wrong with a rule', () => {
    const fails = (rules: unknown) => () => loadConfig({ REPLY_RULES_FILE: operatorFile(rules) });
    expect(fails([{ name: 'x', action: 'suspend', duration: '1m' }])).toThrow(/REPLY_RULES_FILE: .*x: give a code, an enhancedStatus or a pattern/);
    expect(fails([{ name: 'x', code: 421, action: 'rate', duration: '1m' }])).toThrow(/x: give an action/);
    expect(fails([{ name: 'x', code: 421, action: 'suspend' }])).toThrow(/x: give a duration/);
    expect(fails([{ name: 'x', pattern: '(', action: 'suspend', duration: '1m' }])).toThrow(/x: pattern/);
    expect(fails([{ name: 'x', code: 250, action: 'suspend', duration: '1m' }])).toThrow(/code/);
    expect(fails([{ name: 'x', code: 421, action: 'suspend', duration: '1m', colour: 'red' }])).toThrow(/colour/);
    expect(fails([{ name: 'x', code: 421, action: 'suspend', duration: '1m' }, { name: 'x', code: 451, action: 'suspend', duration: '1m' }])).toThrow(/x appears twice/);
    expect(() => loadConfig({ REPLY_RULES_FILE: '/no/such/rules.json' })).toThrow(/REPLY_RULES_FILE: cannot read/);
  });
});

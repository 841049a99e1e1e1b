import { readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { mergeReplyRules, type OperatorReplyRule, type ReplyAction, type ReplyRule } from '@mailer/domain';
import { parseDuration } from './duration';

/** The shipped reply rules (docs/api-decisions.md, "Reply rules"): the big providers' well-known throttling replies. */
export const SHIPPED_REPLY_RULES_FILE = path.resolve(__dirname, '..', 'reply-rules.json');

const positive = z.number().int().min(1);

/** One entry of a rules file; `provider` and `reply` (an example of the reply) document it. */
const ruleEntry = z
  .strictObject({
    name: z.string().regex(/^[a-z0-9][a-z0-9_.-]{0,63}$/, 'expected 1 to 64 characters: a-z, 0-9, _ . -'),
    provider: z.string().optional(),
    reply: z.string().optional(),
    disabled: z.literal(true).optional(),
    code: z.number().int().min(400).max(599).optional(),
    enhancedStatus: z.string().regex(/^[45]\.\d{1,3}\.\d{1,3}$/, 'expected an enhanced status such as 4.7.28').optional(),
    pattern: z.string().min(1).optional(),
    action: z.enum(['suspend', 'concurrency', 'rate']).optional(),
    connections: positive.optional(),
    messagesPerMinute: positive.optional(),
    duration: z.string().optional(),
  })
  .transform((entry, ctx): OperatorReplyRule => {
    if (entry.disabled) return { name: entry.name, disabled: true };
    const fail = (message: string) => {
      ctx.addIssue({ code: 'custom', message: `${entry.name}: ${message}` });
      return z.NEVER;
    };
    if (entry.code === undefined && entry.enhancedStatus === undefined && entry.pattern === undefined) return fail('give a code, an enhancedStatus or a pattern');
    let pattern: RegExp | undefined;
    try {
      pattern = entry.pattern === undefined ? undefined : new RegExp(entry.pattern, 'i');
    } catch (error) {
      return fail(`pattern: ${(error as Error).message}`);
    }
    const durationMs = entry.duration === undefined ? undefined : parseDuration(entry.duration);
    if (durationMs === undefined || durationMs <= 0) return fail('give a duration such as 10m or 1h');
    let action: ReplyAction;
    if (entry.action === 'suspend') action = { kind: 'suspend' };
    else if (entry.action === 'concurrency' && entry.connections !== undefined) action = { kind: 'concurrency', connections: entry.connections };
    else if (entry.action === 'rate' && entry.messagesPerMinute !== undefined) action = { kind: 'rate', messagesPerMinute: entry.messagesPerMinute };
    else return fail('give an action: suspend, concurrency with connections, or rate with messagesPerMinute');
    const rule: ReplyRule = { name: entry.name, action, durationMs };
    if (entry.code !== undefined) rule.code = entry.code;
    if (entry.enhancedStatus !== undefined) rule.enhancedStatus = entry.enhancedStatus;
    if (pattern !== undefined) rule.pattern = pattern;
    return rule;
  });

/** A rules file's entries, or the problems found in it (names repeated within one file are one). */
function readRulesFile(file: string): { entries: OperatorReplyRule[] } | { problem: string } {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    return { problem: `cannot read ${file} as JSON (${(error as Error).message})` };
  }
  const parsed = z.array(ruleEntry).safeParse(json);
  if (!parsed.success) return { problem: `${file}: ${parsed.error.issues.map((i) => `${i.path.join('.')} ${i.message}`).join('; ')}` };
  const names = parsed.data.map((r) => r.name);
  const repeated = names.find((name, i) => names.indexOf(name) !== i);
  return repeated ? { problem: `${file}: rule ${repeated} appears twice` } : { entries: parsed.data };
}

/**
 * REPLY_RULES_FILE: the operator's rules file, whose rules come first and replace (or, with
 * `"disabled": true`, remove) the shipped rules of the same name; the rules in force.
 */
export const replyRulesSetting = z
  .string()
  .optional()
  .transform((operatorFile, ctx): ReplyRule[] => {
    const shipped = readRulesFile(SHIPPED_REPLY_RULES_FILE);
    const operator = operatorFile ? readRulesFile(operatorFile) : { entries: [] };
    for (const read of [shipped, operator]) if ('problem' in read) ctx.addIssue({ code: 'custom', message: read.problem });
    if ('problem' in shipped || 'problem' in operator) return z.NEVER;
    return mergeReplyRules(shipped.entries.filter((r): r is ReplyRule => !('disabled' in r)), operator.entries);
  });

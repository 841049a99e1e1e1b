import { execFile } from 'node:child_process';

/**
 * dkimpy (Debian's python3-dkim, with PyNaCl for ed25519-sha256), run by the system Python: a
 * verifier independent of mailauth and of nodemailer's canonicalization, which ours reuses.
 * It is given the TXT records by name, as a receiver's DNS would answer them.
 */
const SCRIPT = `
import base64, json, sys, dkim
request = json.load(sys.stdin)
records = {name.lower(): value.encode() for name, value in request['records'].items()}
def dnsfunc(name, timeout=5):
    name = name.decode() if isinstance(name, bytes) else name
    return records.get(name.rstrip('.').lower())
def verified(verifier, i):
    try:
        return bool(verifier.verify(idx=i, dnsfunc=dnsfunc))
    except dkim.DKIMException:
        return False
verdicts = []
for raw in request['messages']:
    verifier = dkim.DKIM(base64.b64decode(raw))
    signatures = [value for field, value in verifier.headers if field.lower() == b'dkim-signature']
    verdicts.append([
        {'algorithm': dkim.util.parse_tag_value(value.replace(b'\\r\\n', b''))[b'a'].decode(), 'pass': verified(verifier, i)}
        for i, value in enumerate(signatures)
    ])
print(json.dumps(verdicts))
`;

export interface DkimpyVerdict {
  /** `a=` of the signature. */
  algorithm: string;
  pass: boolean;
}

/** dkimpy's verdict on each DKIM-Signature of each message, top down. */
export function verifyWithDkimpy(messages: readonly Buffer[], records: Record<string, string>): Promise<DkimpyVerdict[][]> {
  return new Promise((resolve, reject) => {
    const child = execFile('/usr/bin/python3', ['-c', SCRIPT], { maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) return reject(new Error(`dkimpy failed: ${stderr || error.message}`));
      resolve(JSON.parse(stdout) as DkimpyVerdict[][]);
    });
    child.stdin!.end(JSON.stringify({ messages: messages.map((m) => m.toString('base64')), records }));
  });
}

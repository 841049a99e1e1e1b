import { spawnSync } from 'node:child_process';
import path from 'node:path';

describe('the generated SDK files', () => {
  it('match the OpenAPI document of the current routes (npm run generate:sdk)', () => {
    const result = spawnSync(process.execPath, [path.resolve(__dirname, '../../../scripts/generate-sdk.js'), '--check'], { encoding: 'utf8' });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
  });
});

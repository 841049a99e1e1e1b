import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/**
 * `npm run build` compiles the projects of tsconfig.build.json, `npm run typecheck` those of
 * tsconfig.json. What each project emits is its own source files, read here from the configs
 * (docs/api-decisions.md, "Operations").
 */
const root = path.resolve(__dirname, '..');
const scripts = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')).scripts as Record<string, string>;

function parse(configFile: string): ts.ParsedCommandLine {
  const host = { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (d: ts.Diagnostic) => { throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n')); } };
  const parsed = ts.getParsedCommandLineOfConfigFile(configFile, {}, host)!;
  expect(parsed.errors).toEqual([]);
  return parsed;
}

/** Every project a solution config reaches through its references, itself included. */
function projects(configFile: string, seen = new Map<string, ts.ParsedCommandLine>()): Map<string, ts.ParsedCommandLine> {
  if (seen.has(configFile)) return seen;
  const parsed = parse(configFile);
  seen.set(configFile, parsed);
  for (const reference of parsed.projectReferences ?? []) projects(ts.resolveProjectReferencePath(reference), seen);
  return seen;
}

const relative = (file: string) => path.relative(root, file).split(path.sep).join('/');
const TEST_CODE = /\.test\.ts$|\/src\/testing\/|^packages\/testing\/|^apps\/bench\//;

describe('the production build', () => {
  it('is what `npm run build` runs', () => {
    expect(scripts.build).toBe('tsc -b tsconfig.build.json');
  });

  it('compiles no test, no test helper and no benchmark', () => {
    const emitted = [...projects(path.join(root, 'tsconfig.build.json')).values()].flatMap((p) => p.fileNames.map(relative));
    expect(emitted.length).toBeGreaterThan(100);
    expect(emitted.filter((file) => TEST_CODE.test(file))).toEqual([]);
  });
});

describe('the type check', () => {
  it('covers every test file and test helper', () => {
    const checked = new Set([...projects(path.join(root, 'tsconfig.json')).values()].flatMap((p) => p.fileNames.map(relative)));
    const workspaces = ['apps', 'packages'].flatMap((dir) => readdirSync(path.join(root, dir)).map((name) => `${dir}/${name}/src`));
    const sources = workspaces.flatMap((src) =>
      (readdirSync(path.join(root, src), { recursive: true }) as string[]).map((file) => `${src}/${file.split(path.sep).join('/')}`).filter((file) => file.endsWith('.ts')),
    );
    expect(sources.filter((file) => TEST_CODE.test(file)).length).toBeGreaterThan(100);
    expect(sources.filter((file) => !checked.has(file))).toEqual([]);
  });
});

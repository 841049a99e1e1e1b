import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';

export const BENCHMARKS_FILE = path.resolve(__dirname, '../../../BENCHMARKS.md');

/** Replaces (or appends) the `## <title>` section of BENCHMARKS.md, keeping every other section. */
export async function writeBenchmarkSection(title: string, body: string): Promise<void> {
  const current = existsSync(BENCHMARKS_FILE) ? await readFile(BENCHMARKS_FILE, 'utf8') : '# Benchmarks\n';
  const heading = `## ${title}`;
  const section = `${heading}\n\n${body.trim()}\n`;
  const start = current.split('\n').findIndex((line) => line.trim() === heading);
  let next: string;
  if (start < 0) {
    next = `${current.trimEnd()}\n\n${section}`;
  } else {
    const lines = current.split('\n');
    const end = lines.findIndex((line, i) => i > start && line.startsWith('## '));
    next = [...lines.slice(0, start), ...section.trimEnd().split('\n'), '', ...(end < 0 ? [] : lines.slice(end))].join('\n');
  }
  await writeFile(BENCHMARKS_FILE, `${next.trimEnd()}\n`);
}

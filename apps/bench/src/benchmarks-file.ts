import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';

export const BENCHMARKS_FILE = path.resolve(__dirname, '../../../BENCHMARKS.md');
export const RELIABILITY_FILE = path.resolve(__dirname, '../../../RELIABILITY.md');

/** Replaces (or appends) the `## <title>` section of a Markdown file, keeping every other section; `heading` starts a new file. */
export async function writeMarkdownSection(file: string, heading: string, title: string, body: string): Promise<void> {
  const current = existsSync(file) ? await readFile(file, 'utf8') : `${heading}\n`;
  const sectionHeading = `## ${title}`;
  const section = `${sectionHeading}\n\n${body.trim()}\n`;
  const start = current.split('\n').findIndex((line) => line.trim() === sectionHeading);
  let next: string;
  if (start < 0) {
    next = `${current.trimEnd()}\n\n${section}`;
  } else {
    const lines = current.split('\n');
    const end = lines.findIndex((line, i) => i > start && line.startsWith('## '));
    next = [...lines.slice(0, start), ...section.trimEnd().split('\n'), '', ...(end < 0 ? [] : lines.slice(end))].join('\n');
  }
  await writeFile(file, `${next.trimEnd()}\n`);
}

/** Replaces (or appends) the `## <title>` section of BENCHMARKS.md. */
export function writeBenchmarkSection(title: string, body: string): Promise<void> {
  return writeMarkdownSection(BENCHMARKS_FILE, '# Benchmarks', title, body);
}

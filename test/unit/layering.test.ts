import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

// surface.md: seams and session import nothing of ours but the shared types (kernel/); tools import seams; machines
// import seams, session, tools, model; bridges only seams and session (a bridge is a plugin); visualize
// imports machines; the entries import the layers; nothing imports cli.
// `process/` (process trees, no spec row) is a leaf that tools and bridges use.
// `kernel/` (the shared vocabulary) imports nothing of ours and every layer but the CLI may import it.
const layers: Record<string, readonly string[]> = {
  kernel: [],
  seams: [],
  session: [],
  process: [],
  model: ['seams'],
  tools: ['seams', 'process'],
  machines: ['seams', 'session', 'tools', 'model'],
  bridges: ['seams', 'session', 'process'],
  visualize: ['machines'],
  inspect: ['machines', 'session', 'visualize'],
  telemetry: ['seams'],
  testing: ['seams', 'session', 'tools', 'model', 'machines'],
  // Workers and senders of sessions in PostgreSQL: they build agents (machines) over the PostgreSQL store.
  distributed: ['machines', 'session'],
  entry: [
    'seams',
    'session',
    'tools',
    'model',
    'machines',
    'bridges',
    'visualize',
    'inspect',
    'telemetry',
    'testing',
    'process',
    'distributed',
  ],
  // The CLI is a user of the package: it imports the public entries (index.ts, testing.ts) only.
  cli: ['entry'],
};
const allowedLayers: Record<string, readonly string[]> = Object.fromEntries(
  Object.entries(layers).map(([layer, allowed]) => [
    layer,
    layer === 'kernel' || layer === 'cli' ? allowed : [...allowed, 'kernel'],
  ]),
);

const root = path.resolve(import.meta.dirname, '../..');
const layerOf = (file: string): string => (file.includes('/') ? file.split('/')[0]! : 'entry');

function sourceFiles(): string[] {
  const listed = execFileSync('git', ['ls-files', '*.ts'], { cwd: root, encoding: 'utf8' });
  return listed.split('\n').filter((file) => file !== '' && !/^(test|bench|scripts|examples)\//.test(file));
}

/** Every relative import of every source file, as `file: specifier → target`. */
function relativeImports(): { file: string; specifier: string; target: string }[] {
  const found: { file: string; specifier: string; target: string }[] = [];
  for (const file of sourceFiles()) {
    const text = readFileSync(path.join(root, file), 'utf8');
    for (const match of text.matchAll(/(?:\bfrom|\bimport)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g)) {
      const specifier = match[1]!;
      const target = path.posix
        .normalize(path.posix.join(path.posix.dirname(file), specifier))
        .replace(/\.js$/, '.ts');
      found.push({ file, specifier, target });
    }
  }
  return found;
}

function forbiddenArrows(): string[] {
  const forbidden: string[] = [];
  for (const { file, specifier, target } of relativeImports()) {
    const from = layerOf(file);
    const to = layerOf(target);
    if (from === to) continue;
    const allowed = allowedLayers[from];
    if (allowed === undefined) forbidden.push(`${file}: the folder "${from}" has no row in the layering`);
    else if (to === 'cli' || !allowed.includes(to))
      forbidden.push(`${file} imports ${specifier} (${from} → ${to} is not allowed)`);
  }
  return forbidden;
}

describe('layering', () => {
  it('K03 no relative import points against the layering of surface.md', () => {
    expect(forbiddenArrows()).toEqual([]);
  });

  it('finds the imports it checks (a parser that sees nothing would pass anything)', () => {
    const imports = relativeImports();
    expect(imports.some(({ file, target }) => file === 'index.ts' && target === 'machines/index.ts')).toBe(
      true,
    );
    expect(imports.length).toBeGreaterThan(300);
  });
});

import { execFile } from 'node:child_process';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, '../..');

it('the README usage example runs and prints no invariant violations', async () => {
  const readme = await readFile(path.join(root, 'README.md'), 'utf8');
  const block = /## Using it\s+```ts\n([\s\S]*?)```/.exec(readme)?.[1];
  expect(block, 'README.md has a "## Using it" ts block').toBeDefined();
  // Inside the repository the package is its own source: point the import at the entry file.
  const dir = path.join(root, '.tmp');
  await mkdir(dir, { recursive: true });
  const file = path.join(dir, `readme-example-${process.pid}.ts`);
  await writeFile(file, block!.replaceAll("from 'seamchart'", `from '${path.join(root, 'index.js')}'`));
  try {
    const { stdout } = await run(process.execPath, ['--import', 'tsx', file], { cwd: root, timeout: 30_000 });
    expect(stdout.trim()).toBe('[]');
  } finally {
    await rm(file, { force: true });
  }
}, 30_000);

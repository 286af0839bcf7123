import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
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

it('the README command-line session prints what the README shows (run from a clone)', async () => {
  const readme = await readFile(path.join(root, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## The command line'));
  const commands = /```sh\n([\s\S]*?)```/.exec(section)?.[1];
  const shown = /```text\n([\s\S]*?)```/.exec(section)?.[1];
  expect(commands, 'README.md shows the session commands').toBeDefined();
  expect(shown, 'README.md shows the session output').toBeDefined();
  const scratch = await mkdtemp(path.join(tmpdir(), 'seamchart-try-'));
  try {
    // The README's commands, as a shell script: its scratch folder moved to a temporary one, and
    // `npm run build` left out (the suite's global setup built dist/, which `npx seamchart` runs).
    const script = commands!
      .split('\n')
      .filter((line) => !line.startsWith('npm run build'))
      .join('\n')
      .replaceAll('/tmp/try', scratch)
      .replaceAll('npx seamchart', `${JSON.stringify(process.execPath)} dist/cli/bin.js`);
    const { stdout } = await run('sh', ['-c', script], { cwd: root, timeout: 30_000 });
    const timeless = (text: string) => text.trimEnd().replace(/ · \d+(\.\d+)?s$/gm, ' · <time>');
    expect(timeless(stdout)).toBe(timeless(shown!));
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}, 30_000);

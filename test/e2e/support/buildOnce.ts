import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, '../../..');

/**
 * vitest global setup: builds `dist/` once before any test file runs, so the end-to-end tests run
 * the CLI a user installs. The build is incremental (`dist/.tsbuildinfo`): unchanged sources cost
 * about a second.
 */
export default async function buildOnce(): Promise<void> {
  const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  await run(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: root, timeout: 300_000 });
}

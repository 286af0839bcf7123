import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';

const root = path.resolve(import.meta.dirname, '../..');
// Inside node_modules, so the built files resolve their dependencies like an installed package.
const outDir = path.join(root, 'node_modules', '.cache', 'seamchart-acp-build');

/** Builds the CLI with the package's own build config (incrementally) and returns its entry. */
export async function buildCli(): Promise<string> {
  // tsc reports on stdout; a failed build shows it.
  await promisify(execFile)(
    process.execPath,
    [
      path.join(root, 'node_modules', 'typescript', 'bin', 'tsc'),
      '-p',
      path.join(root, 'tsconfig.build.json'),
      '--outDir',
      outDir,
      '--incremental',
      '--tsBuildInfoFile',
      path.join(outDir, 'build.tsbuildinfo'),
      '--declaration',
      'false',
    ],
    { cwd: root },
  ).catch((error: { stdout?: string; message: string }) => {
    throw new Error(`building the CLI failed: ${error.stdout || error.message}`);
  });
  const entry = path.join(outDir, 'cli', 'bin.js');
  if (!existsSync(entry)) throw new Error(`the build did not produce ${entry}`);
  return entry;
}

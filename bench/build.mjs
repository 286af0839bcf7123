// Runs the benchmarks from a tsc build, as a user runs the package: tsx would compile with esbuild's
// `keepNames`, which defines `name` on every closure (slower, and ~6–10 KiB more heap per agent).
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const root = join(import.meta.dirname, '..');
const out = join(root, 'node_modules/.cache/seamchart-bench');
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
execFileSync(process.execPath, [tsc, '-p', join(root, 'bench/tsconfig.json')], { stdio: 'inherit' });
// The build sits under node_modules, where the repository's `"type": "module"` does not reach.
writeFileSync(join(out, 'package.json'), '{ "type": "module" }\n');
await import(pathToFileURL(join(out, 'bench/run.js')).href);

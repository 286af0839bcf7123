import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The package as a user gets it: `npm pack` of the built dist/ (test/e2e/support/buildOnce.ts),
// installed from the tarball into a fresh project; its dependencies come from the registry (or npm's
// cache), never from this repository.
const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, '../..');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

let scratch: string;
let project: string;
let installed: string;

async function node(args: string[], cwd = project) {
  return run(process.execPath, args, { cwd, timeout: 60_000 });
}

/** The fenced block after `heading` in a Markdown file of this repository. */
async function codeBlock(file: string, heading: string): Promise<string> {
  const text = await readFile(path.join(root, file), 'utf8');
  const start = text.indexOf(heading);
  expect(start, `${file} has "${heading}"`).toBeGreaterThanOrEqual(0);
  const block = /```ts\n([\s\S]*?)```/.exec(text.slice(start))?.[1];
  expect(block, `${file} has a ts block after "${heading}"`).toBeDefined();
  return block!;
}

beforeAll(async () => {
  scratch = await mkdtemp(path.join(tmpdir(), 'seamchart-packed-'));
  const { stdout } = await run(npm, ['pack', '--ignore-scripts', '--pack-destination', scratch], {
    cwd: root,
    timeout: 60_000,
  });
  const tarball = path.join(scratch, stdout.trim().split('\n').at(-1)!);
  project = path.join(scratch, 'project');
  await mkdir(project);
  await writeFile(
    path.join(project, 'package.json'),
    JSON.stringify({ name: 'trying-seamchart', private: true, type: 'module' }),
  );
  await run(npm, ['install', tarball, '--no-audit', '--no-fund', '--prefer-offline'], {
    cwd: project,
    timeout: 180_000,
  });
  installed = path.join(project, 'node_modules', 'seamchart');
}, 240_000);

afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

describe('the packed tarball', () => {
  it('ships a license, built code with self-contained source maps, and no sources or build state', async () => {
    const files = (await readdir(installed, { recursive: true })).map(String);
    expect(files).toContain('LICENSE');
    expect(files).toContain(path.join('dist', 'cli', 'bin.js'));
    expect(files.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))).toEqual([]);
    expect(files.some((f) => f.includes('tsbuildinfo'))).toBe(false);
    const maps = files.filter((f) => f.endsWith('.js.map'));
    expect(maps.length).toBeGreaterThan(10);
    for (const map of maps) {
      const json = JSON.parse(await readFile(path.join(installed, map), 'utf8')) as {
        sources: string[];
        sourcesContent?: (string | null)[];
      };
      expect(json.sourcesContent?.length, map).toBe(json.sources.length);
      expect(
        json.sourcesContent?.every((c) => typeof c === 'string' && c.length > 0),
        map,
      ).toBe(true);
    }
  });

  it('has zod as a peer (installed once, at the project) and Graphviz as an optional peer, not installed', async () => {
    const manifest = JSON.parse(await readFile(path.join(installed, 'package.json'), 'utf8')) as Record<
      string,
      Record<string, unknown>
    >;
    expect(manifest.dependencies).not.toHaveProperty('zod');
    expect(manifest.dependencies).not.toHaveProperty('@viz-js/viz');
    expect(manifest.peerDependencies).toMatchObject({ zod: expect.stringMatching(/^\^4/) });
    // Graphviz for toSvg, and the OpenTelemetry pieces the tracing plugin and the CLI's exporter load.
    expect(manifest.peerDependenciesMeta).toEqual({
      '@viz-js/viz': { optional: true },
      '@opentelemetry/api': { optional: true },
      '@opentelemetry/exporter-trace-otlp-http': { optional: true },
      '@opentelemetry/sdk-trace-base': { optional: true },
    });
    await expect(stat(path.join(project, 'node_modules', '@opentelemetry', 'api'))).rejects.toThrow();
    await expect(stat(path.join(project, 'node_modules', 'zod'))).resolves.toBeDefined();
    await expect(stat(path.join(project, 'node_modules', '@viz-js', 'viz'))).rejects.toThrow();
  });

  it('toSvg without @viz-js/viz says how to install it; the other diagrams work', async () => {
    await writeFile(
      path.join(project, 'svg.mjs'),
      `import { toMermaid, toSvg, turnMachine } from 'seamchart';
console.log(toMermaid(turnMachine).split('\\n')[0]);
try { await toSvg(turnMachine); } catch (error) { console.log(error.message); }`,
    );
    const { stdout } = await node(['svg.mjs']);
    expect(stdout).toContain('stateDiagram-v2');
    expect(stdout).toContain('npm install @viz-js/viz');
  });

  it("runs the README's usage example with plain node", async () => {
    const block = await codeBlock('README.md', '## Using it');
    await writeFile(path.join(project, 'readme.mjs'), block);
    const { stdout } = await node(['readme.mjs']);
    expect(stdout.trim()).toBe('[]');
  });

  it("type-checks docs/testing.md's examples and runs its createTestAgent test with vitest", async () => {
    const everyday = await codeBlock('docs/testing.md', '## Everyday: `createTestAgent`');
    await writeFile(
      path.join(project, 'reminder.test.ts'),
      `import { expect, it } from 'vitest';\nimport type { SeamPlugin } from 'seamchart';\nimport { coreTurnEvents, createTestAgent } from 'seamchart/testing';\n\n${everyday}`,
    );
    const exhaustive = await codeBlock('docs/testing.md', '## Exhaustive: every path of a machine');
    await writeFile(path.join(project, 'exhaustive.ts'), `export {};\n${exhaustive}`);
    // The reader's test runner and compiler: this repository's, linked in as a user's would be installed.
    for (const tool of ['vitest', 'typescript']) {
      await symlink(path.join(root, 'node_modules', tool), path.join(project, 'node_modules', tool)).catch(
        () => {},
      );
    }
    await writeFile(
      path.join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          noEmit: true,
          skipLibCheck: true,
          types: [],
        },
        include: ['reminder.test.ts', 'exhaustive.ts'],
      }),
    );
    await node([path.join(project, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json']).catch(
      (error: { stdout?: string }) => {
        throw new Error(`the docs examples do not type-check against the package:\n${error.stdout}`);
      },
    );
    const { stdout } = await node([
      path.join(project, 'node_modules', 'vitest', 'vitest.mjs'),
      'run',
      'reminder.test.ts',
      '--root',
      project,
    ]);
    expect(stdout).toMatch(/1 passed/);
  });

  it('installs the seamchart command', async () => {
    await writeFile(path.join(project, 'script.json'), JSON.stringify([{ text: 'Hello from the package.' }]));
    const bin = path.join(project, 'node_modules', '.bin', 'seamchart');
    const { stdout } = await run(bin, ['run', 'hi', '--model', 'scripted:script.json'], {
      cwd: project,
      timeout: 30_000,
    });
    expect(stdout).toContain('Hello from the package.');
    expect(stdout).toMatch(/── turn 1 completed/);
  });
});

import { describe, expect, it } from 'vitest';
import {
  exportedNames,
  type ImportEdge,
  importCycles,
  importsBesideIndex,
  importsOf,
  readLibrarySources,
  runtimeImportsOfMachines,
  type Sources,
} from './support/importGraph.js';

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

const layerOf = (file: string): string => (file.includes('/') ? file.split('/')[0]! : 'entry');

const sources = readLibrarySources();
const edges = importsOf(sources);
const relativeImports = (): ImportEdge[] => edges;

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

// engine.md, "What a newcomer must find": runtime internals a user never needs stay out of the public entry.
const runtimeInternals = [
  'ScopeTable',
  'RunScope',
  'liveHandlesOf',
  'LiveHandles',
  'RequestDeriver',
  'createRequestDeriver',
  'StoredEventSchema',
  'resultSchemas',
];
// The services types are what the public `create*Logic(services)` factories take.
const publicRuntimeNames = new Set(['ToolMachineServices', 'TurnMachineServices']);

function exportedInternals(files: Sources): string[] {
  const exported = exportedNames(files, 'index.ts');
  const engineNames = [...exportedNames(files, 'machines/runtime/index.ts')].filter(
    (name) => !publicRuntimeNames.has(name),
  );
  return [...new Set([...runtimeInternals, ...engineNames])]
    .filter((name) => exported.has(name))
    .map((name) => `index.ts exports ${name}, a runtime internal`);
}

describe('E07 layering inside the library', () => {
  it('E07 machines/runtime/ imports no machine folder', () => {
    expect(runtimeImportsOfMachines(relativeImports())).toEqual([]);
  });

  it('E07 there is no import cycle in the library', () => {
    expect(importCycles(relativeImports())).toEqual([]);
  });

  it('E07 a folder is entered from outside only through its index.ts', () => {
    expect(importsBesideIndex(relativeImports())).toEqual([]);
  });

  it('E07 index.ts exports none of the runtime internals engine.md lists', () => {
    expect(exportedInternals(sources)).toEqual([]);
  });

  it('E07 each rule names the file and import it finds (a check that sees nothing would pass anything)', () => {
    const fixture: Sources = new Map([
      [
        'machines/runtime/host.ts',
        "import { turnMachine } from '../turn.js';\nimport { once } from './once.js';\n",
      ],
      ['machines/runtime/once.ts', 'export const once = 1;\n'],
      ['machines/runtime/index.ts', "export { once } from './once.js';\n"],
      ['machines/index.ts', "export { once } from './runtime/index.js';\n"],
      ['machines/turn.ts', "import { turnSetup } from './turn/setup.js';\n"],
      ['machines/turn/setup.ts', "import { helper } from '../helper.js';\n"],
      ['machines/helper.ts', "import { turnSetup } from './turn/setup.js';\nexport const helper = 1;\n"],
      ['seams/errors.ts', "import type { SeamName } from './types.js';\n"],
      ['seams/types.ts', "import type { SeamError } from './errors.js';\n"],
      ['model/index.ts', "export * from './request.js';\n"],
      ['model/request.ts', 'export function createRequestDeriver(): void {}\nexport const MAX = 1;\n'],
      [
        'index.ts',
        "export * from './model/index.js';\nexport { once } from './machines/index.js';\nexport type { RunScope } from './machines/runtime/scopeTable.js';\n",
      ],
    ]);
    const edges = importsOf(fixture);
    expect(runtimeImportsOfMachines(edges)).toEqual([
      "machines/runtime/host.ts:1 imports '../turn.js': machines/runtime/ imports no machine folder",
    ]);
    expect(importCycles(edges)).toEqual([
      "machines/helper.ts:1 imports './turn/setup.js' → machines/turn/setup.ts:1 imports '../helper.js'",
    ]);
    expect(importsBesideIndex(edges)).toEqual([
      "machines/helper.ts:1 imports './turn/setup.js': enter machines/turn/ through machines/turn/index.ts",
      "index.ts:3 imports './machines/runtime/scopeTable.js': enter machines/ through machines/index.ts",
    ]);
    expect(exportedInternals(fixture)).toEqual([
      'index.ts exports RunScope, a runtime internal',
      'index.ts exports createRequestDeriver, a runtime internal',
      'index.ts exports once, a runtime internal',
    ]);
  });
});

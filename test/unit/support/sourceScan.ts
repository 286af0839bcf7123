import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';

/** One finding of the engine scan: where, and which rule of engine.md it breaks. */
export interface ScanFinding {
  readonly file: string;
  readonly line: number;
  readonly rule: string;
  readonly text: string;
}

export const repositoryRoot = path.resolve(import.meta.dirname, '../../..');

/** The library's own TypeScript sources (what ships; not tests, benches, scripts or examples). */
export function librarySources(): string[] {
  const listed = execFileSync('git', ['ls-files', '*.ts'], { cwd: repositoryRoot, encoding: 'utf8' });
  return listed.split('\n').filter((file) => file !== '' && !/^(test|bench|scripts|examples)\//.test(file));
}

// A comment line or the comment tail of a line says why; only code is scanned.
const codeOf = (line: string): string => {
  const trimmed = line.trimStart();
  if (trimmed.startsWith('//') || trimmed.startsWith('*') || trimmed.startsWith('/*')) return '';
  return line.replace(/\s\/\/.*$/, '').replace(/(['"`])(?:\\.|(?!\1).)*\1/g, "''");
};

// A member read (`x._parent`, `x?._send`) or declared as a key (`{ _parent?: … }`, `readonly _logger: …`).
const underscoreMember =
  /(?:\.|\?\.)_[A-Za-z]\w*|\{\s*(?:readonly\s+)?_[A-Za-z]\w*\??\s*:|^\s*(?:readonly\s+)?_[A-Za-z]\w*\??\s*:/;
const patchedLogic = /\.(?:transition|provide)\s*=[^=]/;
const timingImitation =
  /\bqueueMicrotask\s*\(|\bawait\s+(?:(?:undefined|null|void\s+0)\b|Promise\.resolve\(\s*\))/;
const topLevelLet = /^(?:export\s+)?let\s/;
const topLevelCollection =
  /^(?:export\s+)?const\s+(\w+)\s*(?::[^=]+)?=\s*(new\s+(?:Map|Set|WeakMap|WeakSet)\b|\[\s*\]|\{\s*\})/;
// A call that changes a collection, an indexed write, or a property write (`state.count = 1`).
const mutationOf = (name: string): RegExp =>
  new RegExp(
    `\\b${name}\\s*(?:\\.(?:set|add|delete|clear|push|pop|shift|unshift|splice)\\s*\\(|\\[[^\\]]*\\]\\s*=[^=]|\\.\\w+\\s*=[^=])`,
  );

/**
 * Scans `files` for what engine.md's contract 1 and 2 forbid: XState members whose names start with
 * `_`, logic objects whose `transition`/`provide` are replaced, `queueMicrotask`/`await undefined`
 * timing imitation, and module-level mutable state (a top-level `let`, or a top-level collection that
 * is mutated) outside `allowedSideTables` (`file:name` of the documented WeakMap side tables).
 */
export function scanSources(files: readonly string[], allowedSideTables: ReadonlySet<string>): ScanFinding[] {
  const findings: ScanFinding[] = [];
  for (const file of files) {
    const source = readFileSync(path.join(repositoryRoot, file), 'utf8');
    const lines = source.split('\n');
    // A template literal that spans lines (a worker's source, a page) is text: blanked, its line count kept.
    const code = source
      .replace(/`[^`]*`/g, (text) => text.replace(/[^\n]/g, ' '))
      .split('\n')
      .map(codeOf);
    const usesXState = /from 'xstate'/.test(source);
    const report = (index: number, rule: string): void =>
      void findings.push({ file, line: index + 1, rule, text: lines[index]!.trim() });
    code.forEach((line, index) => {
      if (usesXState && underscoreMember.test(line))
        report(index, 'an XState member whose name starts with _');
      if (patchedLogic.test(line)) report(index, "an assignment to a logic object's transition/provide");
      if (timingImitation.test(line)) report(index, 'queueMicrotask / await undefined timing imitation');
      if (topLevelLet.test(line)) report(index, 'module-level mutable state (let)');
      const collection = topLevelCollection.exec(line);
      // Only a WeakMap may be a side table: a Map or Set keyed by its owner would keep the owner alive.
      const sideTable = collection?.[2]?.startsWith('new WeakMap') === true;
      if (collection !== null && !(sideTable && allowedSideTables.has(`${file}:${collection[1]}`))) {
        const mutated = mutationOf(collection[1]!);
        if (code.some((other, at) => at !== index && mutated.test(other)))
          report(index, 'module-level mutable state (a mutated collection)');
      }
    });
  }
  return findings;
}

/**
 * The side tables `docs/architecture.md` documents, as `file:name`: the bullets under "Side tables" that name
 * a file and its tables in backticks (`` - `tools/seal.ts` `definitions` — … ``).
 */
export function documentedSideTables(): Set<string> {
  const text = readFileSync(path.join(repositoryRoot, 'docs/architecture.md'), 'utf8');
  const section = /\*\*Side tables\.\*\*[^\n]*\n(?:[^\n]*\n)*?((?:\s+- `[^\n]*\n)+)/.exec(text)?.[1] ?? '';
  const tables = new Set<string>();
  for (const bullet of section.split('\n')) {
    const [file, ...names] = [...bullet.split(' — ')[0]!.matchAll(/`([^`]+)`/g)].map((match) => match[1]!);
    for (const name of names) tables.add(`${file}:${name}`);
  }
  return tables;
}

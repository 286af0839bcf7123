import { readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { librarySources, repositoryRoot } from './sourceScan.js';

/** Source texts by repository-relative path. */
export type Sources = ReadonlyMap<string, string>;

/** One relative import or re-export of a source file. */
export interface ImportEdge {
  readonly file: string;
  readonly line: number;
  readonly specifier: string;
  readonly target: string;
  /** `import type` / `export type`: erased, so it orders nothing at runtime. */
  readonly typeOnly: boolean;
}

/** The library's sources (what ships), read from the work tree. */
export function readLibrarySources(): Sources {
  return new Map(
    librarySources().map((file) => [file, readFileSync(path.join(repositoryRoot, file), 'utf8')]),
  );
}

const parse = (file: string, text: string): ts.SourceFile =>
  ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);

const resolveFrom = (file: string, specifier: string): string =>
  path.posix.normalize(path.posix.join(path.posix.dirname(file), specifier)).replace(/\.js$/, '.ts');

/** Every relative `import … from` / `export … from` / `import('…')` of every source. */
export function importsOf(sources: Sources): ImportEdge[] {
  const edges: ImportEdge[] = [];
  for (const [file, text] of sources) {
    const source = parse(file, text);
    const add = (node: ts.Node, specifier: string, typeOnly: boolean): void => {
      if (!specifier.startsWith('.')) return;
      const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
      edges.push({ file, line, specifier, target: resolveFrom(file, specifier), typeOnly });
    };
    const visit = (node: ts.Node): void => {
      if (
        (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
        node.moduleSpecifier !== undefined
      ) {
        const typeOnly = ts.isImportDeclaration(node)
          ? node.importClause?.isTypeOnly === true
          : node.isTypeOnly;
        add(node, (node.moduleSpecifier as ts.StringLiteral).text, typeOnly);
      } else if (
        ts.isCallExpression(node) &&
        node.expression.kind === ts.SyntaxKind.ImportKeyword &&
        node.arguments[0] !== undefined &&
        ts.isStringLiteral(node.arguments[0])
      ) {
        add(node, node.arguments[0].text, false);
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return edges;
}

const where = ({ file, line, specifier }: ImportEdge): string => `${file}:${line} imports '${specifier}'`;

/** Imports from `machines/runtime/` into any other part of `machines/` (the engine knows no chart). */
export function runtimeImportsOfMachines(edges: readonly ImportEdge[]): string[] {
  return edges
    .filter(
      ({ file, target }) =>
        file.startsWith('machines/runtime/') &&
        target.startsWith('machines/') &&
        !target.startsWith('machines/runtime/'),
    )
    .map((edge) => `${where(edge)}: machines/runtime/ imports no machine folder`);
}

// A chart file beside its folder (`machines/turn.ts` for `machines/turn/`) is that folder's own face.
const isWithin = (file: string, folder: string): boolean =>
  file.startsWith(`${folder}/`) || file === `${folder}.ts`;

/** Imports that enter a folder from outside through a file other than its `index.ts`. */
export function importsBesideIndex(edges: readonly ImportEdge[]): string[] {
  const found: string[] = [];
  for (const edge of edges) {
    const parts = edge.target.split('/');
    for (let depth = 1; depth < parts.length; depth++) {
      const folder = parts.slice(0, depth).join('/');
      if (isWithin(edge.file, folder)) continue;
      if (edge.target !== `${folder}/index.ts`)
        found.push(`${where(edge)}: enter ${folder}/ through ${folder}/index.ts`);
      break;
    }
  }
  return found;
}

/** Runtime import cycles (type-only imports are erased and left out), each as its chain of imports. */
export function importCycles(edges: readonly ImportEdge[]): string[] {
  const out = new Map<string, ImportEdge[]>();
  for (const edge of edges) {
    if (edge.typeOnly) continue;
    out.set(edge.file, [...(out.get(edge.file) ?? []), edge]);
  }
  // Depth-first search; a back edge to a file on the current path closes a cycle.
  const cycles: string[] = [];
  const done = new Set<string>();
  const path: ImportEdge[] = [];
  const onPath = new Map<string, number>();
  const visit = (file: string): void => {
    onPath.set(file, path.length);
    for (const edge of out.get(file) ?? []) {
      const at = onPath.get(edge.target);
      if (at !== undefined) cycles.push([...path.slice(at), edge].map(where).join(' → '));
      else if (!done.has(edge.target)) {
        path.push(edge);
        visit(edge.target);
        path.pop();
      }
    }
    onPath.delete(file);
    done.add(file);
  };
  for (const file of [...out.keys()].sort()) if (!done.has(file)) visit(file);
  return cycles;
}

/** The names a module exports, following `export * from` through the given sources. */
export function exportedNames(sources: Sources, file: string, seen = new Set<string>()): Set<string> {
  const names = new Set<string>();
  const text = sources.get(file);
  if (text === undefined || seen.has(file)) return names;
  seen.add(file);
  for (const statement of parse(file, text).statements) {
    if (ts.isExportDeclaration(statement)) {
      const clause = statement.exportClause;
      if (clause === undefined && statement.moduleSpecifier !== undefined) {
        const from = resolveFrom(file, (statement.moduleSpecifier as ts.StringLiteral).text);
        for (const name of exportedNames(sources, from, seen)) names.add(name);
      } else if (clause !== undefined && ts.isNamespaceExport(clause)) names.add(clause.name.text);
      else if (clause !== undefined) for (const element of clause.elements) names.add(element.name.text);
      continue;
    }
    const exported = ts.canHaveModifiers(statement)
      ? ts.getModifiers(statement)?.some((modifier) => modifier.kind === ts.SyntaxKind.ExportKeyword)
      : false;
    if (!exported) continue;
    if (ts.isVariableStatement(statement)) {
      for (const declaration of statement.declarationList.declarations)
        if (ts.isIdentifier(declaration.name)) names.add(declaration.name.text);
    } else if (
      (ts.isFunctionDeclaration(statement) ||
        ts.isClassDeclaration(statement) ||
        ts.isInterfaceDeclaration(statement) ||
        ts.isTypeAliasDeclaration(statement) ||
        ts.isEnumDeclaration(statement)) &&
      statement.name !== undefined
    ) {
      names.add(statement.name.text);
    }
  }
  return names;
}

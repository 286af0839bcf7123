import type { VizGraph } from './graph.js';

/**
 * Mermaid-safe node ids for every state (`toolCall.preExecute` → `toolCall_preExecute`), unique per graph.
 * @param graph the machine graph
 * @example
 * const ids = toMermaidIds(readGraph(machine)); // ids.get('toolCall.sealing') === 'toolCall_sealing'
 */
export function toMermaidIds(graph: VizGraph): ReadonlyMap<string, string> {
  const ids = new Map<string, string>();
  const taken = new Set<string>();
  for (const id of graph.states.keys()) {
    const base = id.replace(/[^A-Za-z0-9_]/g, '_');
    let safe = base;
    for (let n = 2; taken.has(safe); n++) safe = `${base}_${n}`;
    taken.add(safe);
    ids.set(id, safe);
  }
  return ids;
}

const MERMAID_ESCAPES: Readonly<Record<string, string>> = { '#': '#35;', ';': '#59;', '"': "'" };

/** Text safe inside a Mermaid label: no quotes, `#` and `;` as entity codes, one line. */
export function escapeMermaid(text: string): string {
  return text.replace(/[#;"\r\n]/g, (char) => MERMAID_ESCAPES[char] ?? ' ');
}

import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { AnyStateMachine } from 'xstate';
import { agentMachine, toolBatchMachine, toolCallMachine, turnMachine } from '../machines/index.js';
import { toDot, toMermaid, toStatelyImport, toSvg } from '../visualize/index.js';
import { UsageError } from './usage.js';

const machines: Record<string, AnyStateMachine> = {
  agent: agentMachine,
  turn: turnMachine,
  toolBatch: toolBatchMachine,
  toolCall: toolCallMachine,
};
const formats = {
  mermaid: { extension: 'mmd', render: async (m: AnyStateMachine) => toMermaid(m) },
  dot: { extension: 'dot', render: async (m: AnyStateMachine) => toDot(m) },
  svg: { extension: 'svg', render: toSvg },
  stately: { extension: 'stately.js', render: async (m: AnyStateMachine) => toStatelyImport(m) },
} as const;

/**
 * `seamchart visualize [--machine NAME|all] [--format mermaid|dot|svg|stately] [--out DIR]`:
 * prints one machine's diagram, or writes one file per machine into `--out`.
 * @returns the exit code (2 on an unknown machine or format)
 */
export async function runVisualizeCommand(argv: string[], write: (line: string) => void): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      machine: { type: 'string', default: 'all' },
      format: { type: 'string', default: 'mermaid' },
      out: { type: 'string' },
    },
    allowPositionals: false,
    strict: true,
  });
  const format = formats[values.format as keyof typeof formats];
  if (format === undefined) {
    throw new UsageError(
      `--format expects one of ${Object.keys(formats).join(', ')}, got "${values.format}"`,
    );
  }
  const names = values.machine === 'all' ? Object.keys(machines) : [values.machine];
  for (const name of names) {
    if (machines[name] === undefined) {
      throw new UsageError(
        `--machine expects one of ${Object.keys(machines).join(', ')} or all, got "${name}"`,
      );
    }
  }
  if (values.out !== undefined) await mkdir(values.out, { recursive: true });
  for (const name of names) {
    const text = await format.render(machines[name]!);
    if (values.out === undefined) write(text.trimEnd());
    else {
      const file = path.join(values.out, `${name}.${format.extension}`);
      await writeFile(file, text);
      write(`wrote ${file}`);
    }
  }
  return 0;
}

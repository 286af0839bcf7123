import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { type Command, Option } from 'commander';
import type { AnyStateMachine } from 'xstate';
import {
  agentMachine,
  toDot,
  toMermaid,
  toolBatchMachine,
  toolCallMachine,
  toStatelyImport,
  toSvg,
  turnMachine,
} from '../index.js';
import type { CliCommand, CliIO } from './command.js';

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

/** `seamchart visualize`: prints one machine's diagram, or writes one file per machine into `--out`. */
export const visualizeCommand: CliCommand = {
  name: 'visualize',
  configure(command: Command) {
    command
      .description("print the machines' diagrams, or write one file per machine")
      .addOption(
        new Option('--machine <name>', 'which machine')
          .choices([...Object.keys(machines), 'all'])
          .default('all'),
      )
      .addOption(
        new Option('--format <format>', 'diagram format').choices(Object.keys(formats)).default('mermaid'),
      )
      .option('--out <dir>', 'write <machine>.<ext> files into this directory instead of printing')
      .addHelpText('after', '\nExample:\n  seamchart visualize --machine turn --format dot\n');
  },
  async run(command: Command, io: CliIO) {
    const options = command.opts<{ machine: string; format: keyof typeof formats; out?: string }>();
    const format = formats[options.format];
    const names = options.machine === 'all' ? Object.keys(machines) : [options.machine];
    if (options.out !== undefined) await mkdir(options.out, { recursive: true });
    for (const name of names) {
      const text = await format.render(machines[name]!);
      if (options.out === undefined) io.stdout.write(`${text.trimEnd()}\n`);
      else {
        const file = path.join(options.out, `${name}.${format.extension}`);
        await writeFile(file, text);
        io.stdout.write(`wrote ${file}\n`);
      }
    }
    return 0;
  },
};

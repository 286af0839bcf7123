import { z } from 'zod';
import {
  createAgent,
  createSeams,
  createToolRegistry,
  defineTool,
  type ModelAdapter,
  type ModelStep,
  type Seams,
  scriptedModel,
} from '../index.js';

/** Benchmarks (`npm run bench`): medians over several runs, measured side by side in one process. */
const RUNS = Number(process.env.BENCH_RUNS ?? 7);

interface Row {
  name: string;
  unit: string;
  median: number;
  baseline?: string;
  ratio?: number;
}
const rows: Row[] = [];

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

async function measure(iterations: number, body: () => Promise<void>): Promise<number> {
  const samples: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < iterations; i++) await body();
    samples.push(Number(process.hrtime.bigint() - start) / 1000 / iterations);
  }
  return median(samples);
}

function echoTool() {
  return defineTool({
    name: 'echo',
    description: 'Echo text',
    parameters: z.object({ text: z.string() }),
    concurrency: 'parallel',
    execute: ({ text }) => text,
  });
}

function addNoopListeners(seams: Seams, perSeam: number): void {
  for (let i = 0; i < perSeam; i++) {
    seams.on('tools/pre-execute', (_ctx, next) => next());
    seams.on('tools/execute', (_ctx, next) => next());
    seams.on('tools/post-execute', (_ctx, next) => next());
    seams.on('tools/result', () => {});
  }
}

const echoArgs = z.object({ text: z.string() });

/** The floor: a plain async function doing the same work as one tool call. */
async function plainToolCall(listeners: number): Promise<void> {
  const args = Object.freeze(JSON.parse('{"text":"hi"}') as { text: string });
  let decision: { kind: string } = { kind: 'allow' };
  for (let i = 0; i < listeners; i++) decision = await Promise.resolve(decision);
  if (decision.kind !== 'allow') return;
  const parsed = echoArgs.parse(args);
  const value = await Promise.resolve(parsed.text);
  for (let i = 0; i < listeners; i++) await Promise.resolve(value);
  Object.freeze({ isError: false, value, content: [{ type: 'text', text: value }] });
}

async function benchToolCalls(): Promise<void> {
  for (const perSeam of [0, 3]) {
    const seams = createSeams();
    addNoopListeners(seams, perSeam);
    const tools = createToolRegistry();
    tools.register(echoTool());
    const plain = await measure(2000, () => plainToolCall(perSeam));
    const machine = await measure(500, async () => {
      await tools.execute({ name: 'echo', arguments: '{"text":"hi"}' }, { seams });
    });
    rows.push({ name: `tool call, ${perSeam} listeners/seam: plain async fn`, unit: 'µs', median: plain });
    rows.push({
      name: `tool call, ${perSeam} listeners/seam: seamchart`,
      unit: 'µs',
      median: machine,
      baseline: 'plain async fn',
      ratio: machine / plain,
    });
  }
}

/** A model that answers every request with the same text, for long sessions. */
function constantModel(step: ModelStep): ModelAdapter {
  return { request: async () => step };
}

async function benchTurns(): Promise<void> {
  const step: ModelStep = { content: [{ type: 'text', text: 'ok' }], finish: 'stop' };
  const fresh = await measure(100, async () => {
    const agent = createAgent({
      seams: createSeams(),
      tools: createToolRegistry(),
      model: constantModel(step),
    });
    agent.followup('hi');
    await agent.whenIdle();
    await agent.dispose();
  });
  rows.push({ name: 'turn, fresh agent', unit: 'µs', median: fresh });

  const agent = createAgent({
    seams: createSeams(),
    tools: createToolRegistry(),
    model: constantModel(step),
  });
  const first: number[] = [];
  const last: number[] = [];
  for (let turn = 1; turn <= 2000; turn++) {
    const start = process.hrtime.bigint();
    agent.followup('hi');
    await agent.whenIdle();
    const micros = Number(process.hrtime.bigint() - start) / 1000;
    if (turn <= 200) first.push(micros);
    if (turn > 1800) last.push(micros);
  }
  await agent.dispose();
  rows.push({ name: 'turn, one session: turns 1–200', unit: 'µs', median: median(first) });
  rows.push({
    name: 'turn, one session: turns 1801–2000',
    unit: 'µs',
    median: median(last),
    baseline: 'turns 1–200',
    ratio: median(last) / median(first),
  });
}

async function benchParallelBatch(): Promise<void> {
  const calls = Array.from({ length: 10 }, (_, i) => ({
    id: `c${i}`,
    name: 'echo',
    arguments: { text: `t${i}` },
  }));
  const perCall = await measure(20, async () => {
    const tools = createToolRegistry();
    tools.register(echoTool());
    const agent = createAgent({
      seams: createSeams(),
      tools,
      model: scriptedModel([{ toolCalls: calls }, { text: 'done' }]),
    });
    agent.followup('go');
    await agent.whenIdle();
    await agent.dispose();
  });
  rows.push({ name: 'turn with a 10-call parallel batch (per call)', unit: 'µs', median: perCall / 10 });
}

async function benchHeap(): Promise<void> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) {
    rows.push({ name: 'heap per agent (run with --expose-gc)', unit: 'KiB', median: Number.NaN });
    return;
  }
  const count = 10_000;
  gc();
  const before = process.memoryUsage().heapUsed;
  const agents = [];
  for (let i = 0; i < count; i++) {
    agents.push(createAgent({ seams: createSeams(), tools: createToolRegistry(), model: scriptedModel([]) }));
  }
  await Promise.all(agents.map((a) => a.whenIdle()));
  gc();
  const idle = (process.memoryUsage().heapUsed - before) / count / 1024;
  rows.push({ name: `heap per idle agent (${count})`, unit: 'KiB', median: idle });
  const hang: ModelAdapter = {
    request: (req) =>
      new Promise((_, reject) => req.signal.addEventListener('abort', () => reject(new Error('aborted')))),
  };
  const busy = [];
  gc();
  const beforeBusy = process.memoryUsage().heapUsed;
  for (let i = 0; i < count; i++) {
    const agent = createAgent({ seams: createSeams(), tools: createToolRegistry(), model: hang });
    agent.followup('hi');
    busy.push(agent);
  }
  await new Promise((r) => setTimeout(r, 50));
  gc();
  const inFlight = (process.memoryUsage().heapUsed - beforeBusy) / count / 1024;
  rows.push({ name: `heap per agent with an in-flight turn (${count})`, unit: 'KiB', median: inFlight });
  await Promise.all([...agents, ...busy].map((a) => a.dispose()));
}

async function main(): Promise<void> {
  await benchToolCalls();
  await benchTurns();
  await benchParallelBatch();
  await benchHeap();
  printRows();
}

function printRows(): void {
  const width = Math.max(...rows.map((r) => r.name.length));
  console.log(`${'benchmark'.padEnd(width)}  median      ratio`);
  for (const row of rows) {
    const value = `${row.median.toFixed(1)} ${row.unit}`.padStart(11);
    const ratio = row.ratio === undefined ? '' : `${row.ratio.toFixed(1)}× ${row.baseline}`;
    console.log(`${row.name.padEnd(width)}  ${value}  ${ratio}`);
  }
}

const only = process.env.BENCH_ONLY;
if (only === 'tools') await benchToolCalls();
else if (only === 'turns') await benchTurns();
if (only) printRows();
else await main();

import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import * as otelApi from '@opentelemetry/api';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { assign, createActor, createMachine } from 'xstate';
import { z } from 'zod';
import {
  createAgent,
  createSeams,
  createToolRegistry,
  defineTool,
  type ModelAdapter,
  type ModelStep,
  openTelemetry,
  type Seams,
  scriptedModel,
} from '../index.js';
import { benchDistributed } from './distributed.js';

/**
 * Benchmarks (`npm run bench [-- --json FILE]`): medians over several runs, measured side by side in one
 * process; `--json` also writes the rows as `[{ name, unit, median, floor?, ratio? }]` (names in surface.md).
 */
const RUNS = Number(process.env.BENCH_RUNS ?? 7);
const { values: flags } = parseArgs({ options: { json: { type: 'string' }, only: { type: 'string' } } });

interface Row {
  /** The stable name in the JSON (`toolCall.0`, `turn.10k`, …). */
  name: string;
  /** What the row measures, for the printed table. */
  label: string;
  unit: string;
  median: number;
  /** The median of the baseline measured in the same run, when the row has one. */
  floor?: number;
  /** What `floor` is, for the printed table. */
  baseline?: string;
  ratio?: number;
}
const rows: Row[] = [];

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

// `BENCH_CLOCK=cpu`: this process's CPU time (user + system) instead of wall time, which on a
// machine shared with other work leaves out the time spent waiting for a core.
const cpuClock = process.env.BENCH_CLOCK === 'cpu';
function nowMicros(): number {
  if (!cpuClock) return Number(process.hrtime.bigint()) / 1000;
  const { user, system } = process.cpuUsage();
  return user + system;
}

async function measure(iterations: number, body: () => Promise<void>): Promise<number> {
  const samples: number[] = [];
  // One run first, not counted: the JIT's first tiers and the first old-space growth are not the steady state.
  for (let i = 0; i < iterations; i++) await body();
  for (let run = 0; run < RUNS; run++) {
    const start = nowMicros();
    for (let i = 0; i < iterations; i++) await body();
    samples.push((nowMicros() - start) / iterations);
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
    const machine = await measure(5000, async () => {
      await tools.execute({ name: 'echo', arguments: '{"text":"hi"}' }, { seams });
    });
    rows.push({
      name: `toolCall.${perSeam}`,
      label: `tool call, ${perSeam} listeners/seam`,
      unit: 'µs',
      median: machine,
      floor: plain,
      baseline: `plain async fn ${plain.toFixed(1)} µs`,
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
  const fresh = await measure(1000, async () => {
    const agent = createAgent({
      seams: createSeams(),
      tools: createToolRegistry(),
      model: constantModel(step),
    });
    agent.followup('hi');
    await agent.whenIdle();
    await agent.dispose();
  });
  rows.push({ name: 'turn.fresh', label: 'turn, fresh agent', unit: 'µs', median: fresh });

  const agent = createAgent({
    seams: createSeams(),
    tools: createToolRegistry(),
    model: constantModel(step),
  });
  const first: number[] = [];
  const at2k: number[] = [];
  const at10k: number[] = [];
  for (let turn = 1; turn <= 10_000; turn++) {
    const start = process.hrtime.bigint();
    agent.followup('hi');
    await agent.whenIdle();
    const micros = Number(process.hrtime.bigint() - start) / 1000;
    if (turn <= 200) first.push(micros);
    else if (turn > 1800 && turn <= 2000) at2k.push(micros);
    else if (turn > 9800) at10k.push(micros);
  }
  await agent.dispose();
  const floor = median(first);
  rows.push({ name: 'turn.first200', label: 'turn, one session: turns 1–200', unit: 'µs', median: floor });
  for (const [name, label, samples] of [
    ['turn.last200', 'turns 1,801–2,000', at2k],
    ['turn.10k', 'turns 9,801–10,000', at10k],
  ] as const) {
    rows.push({
      name,
      label: `turn, one session: ${label}`,
      unit: 'µs',
      median: median(samples),
      floor,
      baseline: 'turns 1–200',
      ratio: median(samples) / floor,
    });
  }
}

async function benchParallelBatch(): Promise<void> {
  const calls = Array.from({ length: 10 }, (_, i) => ({
    id: `c${i}`,
    name: 'echo',
    arguments: { text: `t${i}` },
  }));
  // Without listeners the calls take the direct path; with 3 no-op listeners per tool seam each is its
  // toolCall machine, stepped inside the batch.
  for (const [name, label, perSeam] of [
    ['batch10.perCall', 'turn with a 10-call parallel batch, per call', 0],
    ['batch10.listened.perCall', 'same, 3 listeners per tool seam, per call', 3],
  ] as const) {
    const perCall = await measure(200, async () => {
      const tools = createToolRegistry();
      tools.register(echoTool());
      const seams = createSeams();
      addNoopListeners(seams, perSeam);
      const agent = createAgent({
        seams,
        tools,
        model: scriptedModel([{ toolCalls: calls }, { text: 'done' }]),
      });
      agent.followup('go');
      await agent.whenIdle();
      await agent.dispose();
    });
    rows.push({ name, label, unit: 'µs', median: perCall / 10 });
  }
}

/** What XState interprets for one session, counted through the agent's inspection channel. */
async function countSteps(calls: number, perSeam: number): Promise<{ microsteps: number; actions: number }> {
  const counted = { microsteps: 0, actions: 0 };
  const tools = createToolRegistry();
  tools.register(echoTool());
  const seams = createSeams();
  addNoopListeners(seams, perSeam);
  const toolCalls = Array.from({ length: calls }, (_, i) => ({
    id: `c${i}`,
    name: 'echo',
    arguments: { text: `t${i}` },
  }));
  const agent = createAgent({
    seams,
    tools,
    model: scriptedModel(calls === 0 ? [{ text: 'ok' }] : [{ toolCalls }, { text: 'done' }]),
    inspect: (event) => {
      if (event.type === '@xstate.microstep') counted.microsteps++;
      else if (event.type === '@xstate.action') counted.actions++;
    },
  });
  agent.followup('go');
  await agent.whenIdle();
  await agent.dispose();
  return counted;
}

/** Microsteps (and executed actions) per fresh text turn and per call of a 10-call batch (engine.md, contract 6). */
async function benchSteps(): Promise<void> {
  const text = await countSteps(0, 0);
  rows.push({
    name: 'steps.textTurn',
    label: 'microsteps, fresh text turn (agent + turn + dispose)',
    unit: 'steps',
    median: text.microsteps,
  });
  rows.push({
    name: 'actions.textTurn',
    label: 'actions run, fresh text turn',
    unit: 'actions',
    median: text.actions,
  });
  for (const [suffix, label, perSeam] of [
    ['', '', 0],
    ['.listened', ', 3 listeners per tool seam', 3],
  ] as const) {
    const batch = await countSteps(10, perSeam);
    const one = await countSteps(0, perSeam);
    // The batch session has one more model step than the text session: counted in, as a batch call's share.
    rows.push({
      name: `steps.batch10${suffix}.perCall`,
      label: `microsteps per call of a 10-call batch${label}`,
      unit: 'steps',
      median: (batch.microsteps - one.microsteps) / 10,
    });
    rows.push({
      name: `actions.batch10${suffix}.perCall`,
      label: `actions run per call of a 10-call batch${label}`,
      unit: 'actions',
      median: (batch.actions - one.actions) / 10,
    });
  }
}

/**
 * A chart of XState alone: one GO walks `hops` states by eventless transitions (one microstep each) and
 * comes back to rest; `withAssign` gives each hop one assign, as most of our steps have.
 */
function flatChart(hops: number, withAssign: boolean) {
  const states: Record<string, object> = {
    idle: { on: { GO: 'hop0' } },
  };
  for (let hop = 0; hop < hops; hop++) {
    const target = hop + 1 === hops ? 'idle' : `hop${hop + 1}`;
    states[`hop${hop}`] = {
      always: {
        target,
        ...(withAssign
          ? { actions: assign({ count: ({ context }: { context: { count: number } }) => context.count + 1 }) }
          : {}),
      },
    };
  }
  return createMachine({ id: 'flat', context: { count: 0 }, initial: 'idle', states } as never);
}

/**
 * What XState's interpreter costs per microstep here, with no code of ours (engine.md, contract 6): the
 * floor under a chart whose every phase is a step. Multiply by the microsteps per call (the steps rows).
 */
async function benchFloor(): Promise<void> {
  const HOPS = 10;
  for (const [suffix, label, withAssign] of [
    ['', 'an eventless hop', false],
    ['.assign', 'an eventless hop with one assign', true],
  ] as const) {
    const actor = createActor(flatChart(HOPS, withAssign));
    actor.start();
    const perEvent = await measure(2_000, async () => {
      actor.send({ type: 'GO' });
    });
    actor.stop();
    // One GO is HOPS + 1 microsteps (the GO itself and each hop).
    rows.push({
      name: `floor.microstep${suffix}`,
      label: `XState alone: one microstep (${label})`,
      unit: 'µs',
      median: perEvent / (HOPS + 1),
    });
  }
}

/**
 * Heap per agent over `count` agents. `shared`: the host passes every agent the same seams, tool registry
 * and model (what a server with many sessions does); otherwise each agent gets its own.
 */
async function heapPerAgent(count: number, shared: boolean, model: ModelAdapter, busy: boolean) {
  const gc = (globalThis as { gc?: () => void }).gc!;
  const seams = createSeams();
  const tools = createToolRegistry();
  const settle = async () => {
    for (let i = 0; i < 3; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      gc();
    }
  };
  await settle();
  const before = process.memoryUsage().heapUsed;
  const agents = [];
  for (let i = 0; i < count; i++) {
    const agent = shared
      ? createAgent({ seams, tools, model })
      : createAgent({ seams: createSeams(), tools: createToolRegistry(), model });
    if (busy) agent.followup('hi');
    agents.push(agent);
  }
  if (!busy) await Promise.all(agents.map((a) => a.whenIdle()));
  await settle();
  const perAgent = (process.memoryUsage().heapUsed - before) / count / 1024;
  await Promise.all(agents.map((a) => a.dispose()));
  return perAgent;
}

async function benchHeap(): Promise<void> {
  if (!(globalThis as { gc?: () => void }).gc) {
    rows.push({
      name: 'heap.idleAgent',
      label: 'heap per agent (run with --expose-gc)',
      unit: 'KiB',
      median: Number.NaN,
    });
    return;
  }
  const count = 10_000;
  const idle = scriptedModel([]);
  for (const [name, label, shared, model, busy] of [
    ['heap.idleAgent', `heap per idle agent (${count}), host-shared seams/tools/model`, true, idle, false],
    ['heap.turnInFlight', `heap per agent with an in-flight turn (${count}), host-shared`, true, hang, true],
    [
      'heap.idleAgent.ownRegistries',
      `heap per idle agent (${count}), own seams/tools/model`,
      false,
      idle,
      false,
    ],
    [
      'heap.turnInFlight.ownRegistries',
      `heap per agent with an in-flight turn (${count}), own`,
      false,
      hang,
      true,
    ],
  ] as const) {
    rows.push({ name, label, unit: 'KiB', median: await heapPerAgent(count, shared, model, busy) });
  }
}

/** A model that never answers until the turn is aborted: keeps a turn in flight. */
const hang: ModelAdapter = {
  request: (req) =>
    new Promise((_, reject) => req.signal.addEventListener('abort', () => reject(new Error('aborted')))),
};

/**
 * `count` new agents each with a turn in flight (its model request issued): wall time until the last
 * request is issued, and the heap of all of them. `shared`: the host passes every agent the same seams
 * and tool registry (a server with many sessions); otherwise each agent gets its own.
 */
async function inFlight(count: number, shared: boolean, runs: number): Promise<{ ms: number; mib: number }> {
  const gc = (globalThis as { gc?: () => void }).gc;
  const times: number[] = [];
  const heaps: number[] = [];
  const seams = createSeams();
  const tools = createToolRegistry();
  for (let run = 0; run < runs; run++) {
    // The previous run's agents must be collectable before `before` is read (see the end of the loop).
    for (let i = 0; i < 3; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      gc?.();
    }
    const before = process.memoryUsage().heapUsed;
    let requested = 0;
    let allRequested: () => void = () => {};
    const ready = new Promise<void>((resolve) => {
      allRequested = resolve;
    });
    const model: ModelAdapter = {
      request: (req) => {
        if (++requested === count) allRequested();
        return hang.request(req);
      },
    };
    const start = process.hrtime.bigint();
    const agents = [];
    for (let i = 0; i < count; i++) {
      const agent = shared
        ? createAgent({ seams, tools, model })
        : createAgent({ seams: createSeams(), tools: createToolRegistry(), model });
      agent.followup('hi');
      agents.push(agent);
    }
    await ready;
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
    gc?.();
    heaps.push((process.memoryUsage().heapUsed - before) / 1024 / 1024);
    await Promise.all(agents.map((a) => a.dispose()));
    // Emptied, not just left behind: the suspended async frame keeps the array alive into the next run,
    // whose `before` then counted this run's agents and halved its figure.
    agents.length = 0;
  }
  return { ms: median(times), mib: median(heaps) };
}

/** 1,000 agents (own seams and registry each) and 10,000 agents (host-shared) with a turn in flight. */
async function benchInFlight(): Promise<void> {
  const small = await inFlight(1000, false, Math.min(RUNS, 5));
  rows.push({
    name: 'inFlight.1000agents',
    label: '1,000 agents to a turn in flight (all model requests issued)',
    unit: 'ms',
    median: small.ms,
  });
  rows.push({
    name: 'inFlight.1000agents.heap',
    label: 'heap of 1,000 agents with a turn in flight',
    unit: 'MiB',
    median: small.mib,
  });
  const large = await inFlight(10_000, true, Math.min(RUNS, 3));
  rows.push({
    name: 'inFlight.10000agents',
    label: '10,000 agents to a turn in flight, host-shared seams/tools',
    unit: 'ms',
    median: large.ms,
  });
  rows.push({
    name: 'inFlight.10000agents.heap',
    label: 'heap of 10,000 agents with a turn in flight',
    unit: 'MiB',
    median: large.mib,
  });
}

/** Wall time of one `node ARGS` process, in ms. */
function processMs(args: string[]): number {
  const started = performance.now();
  execFileSync(process.execPath, args, { stdio: 'ignore' });
  return performance.now() - started;
}

/** CLI start-up (`--version`, `--help`) beside bare node, measured alternately in one run. */
async function benchCliStartup(): Promise<void> {
  const bin = path.join(import.meta.dirname, '..', 'cli', 'bin.js');
  const bare: number[] = [];
  const version: number[] = [];
  const help: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    bare.push(processMs(['-e', '0']));
    version.push(processMs([bin, '--version']));
    help.push(processMs([bin, '--help']));
  }
  const floor = median(bare);
  for (const [name, label, times] of [
    ['cli.version', 'seamchart --version (process start to exit)', version],
    ['cli.help', 'seamchart --help (process start to exit)', help],
  ] as const) {
    const value = median(times);
    rows.push({ name, label, unit: 'ms', median: value, floor, baseline: 'node -e 0', ratio: value / floor });
  }
}

/** How a run is traced in the telemetry rows: not at all, the plugin with no SDK (no-op tracer), in-memory spans. */
const tracings = ['none', 'noop', 'memory'] as const;

async function tracedSeams(tracing: (typeof tracings)[number]): Promise<Seams> {
  const seams = createSeams();
  if (tracing === 'noop') seams.use(await openTelemetry({ api: otelApi }));
  if (tracing === 'memory') {
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    seams.use(await openTelemetry({ api: otelApi, tracer: provider.getTracer('bench') }));
    // Kept from growing without end: the cost measured is recording, not holding a million spans.
    setInterval(() => exporter.reset(), 200).unref();
  }
  return seams;
}

/** The tool-call and turn rows again, with the OpenTelemetry plugin: not used, the no-op tracer, in-memory spans. */
async function benchTelemetry(): Promise<void> {
  const toolCalls: Record<string, number> = {};
  const turns: Record<string, number> = {};
  const answer: ModelStep = { content: [{ type: 'text', text: 'ok' }], finish: 'stop' };
  const callStep: ModelStep = {
    content: [{ type: 'tool-call', id: 'c1', name: 'echo', arguments: '{"text":"hi"}' }],
    finish: 'tool-calls',
  };
  // Twice in turn, the first pass only warming up: whichever ran first would otherwise pay for the JIT.
  for (const tracing of [...tracings, ...tracings]) {
    const seams = await tracedSeams(tracing);
    const tools = createToolRegistry();
    tools.register(echoTool());
    toolCalls[tracing] = await measure(5000, async () => {
      await tools.execute({ name: 'echo', arguments: '{"text":"hi"}' }, { seams });
    });
    const agent = createAgent({
      seams,
      tools,
      model: { request: async (request) => (request.messages.at(-1)?.role === 'tool' ? answer : callStep) },
    });
    turns[tracing] = await measure(300, async () => {
      agent.followup('hi');
      await agent.whenIdle();
    });
    await agent.dispose();
  }
  for (const [kind, label, values] of [
    ['toolCall', 'tool call (standalone), 0 listeners', toolCalls],
    ['turn', 'turn with one tool call, one session', turns],
  ] as const) {
    rows.push({
      name: `telemetry.${kind}.none`,
      label: `${label}: no tracing`,
      unit: 'µs',
      median: values.none!,
    });
    for (const tracing of ['noop', 'memory'] as const)
      rows.push({
        name: `telemetry.${kind}.${tracing}`,
        label: `${label}: ${tracing === 'noop' ? 'plugin, no SDK (no-op tracer)' : 'plugin, in-memory spans'}`,
        unit: 'µs',
        median: values[tracing]!,
        floor: values.none!,
        baseline: 'no tracing',
        ratio: values[tracing]! / values.none!,
      });
  }
}

async function main(): Promise<void> {
  if (flags.only === 'telemetry') {
    await benchTelemetry();
    return;
  }
  await benchCliStartup();
  await benchSteps();
  await benchFloor();
  await benchToolCalls();
  await benchTurns();
  await benchParallelBatch();
  await benchHeap();
  await benchInFlight();
  await benchTelemetry();
  await benchDistributedRows();
}

/** Sessions in PostgreSQL run by worker processes (needs the server of docs/distributed.md). */
async function benchDistributedRows(): Promise<void> {
  for (const row of await benchDistributed(Math.min(RUNS, 3))) rows.push(row);
}

function printRows(): void {
  const width = Math.max(...rows.map((r) => r.label.length));
  console.log(`${'benchmark'.padEnd(width)}  ${'name'.padEnd(24)}  median        ratio`);
  for (const row of rows) {
    const value = `${row.median.toFixed(1)} ${row.unit}`.padStart(12);
    const ratio = row.ratio === undefined ? '' : `${row.ratio.toFixed(2)}× ${row.baseline}`;
    console.log(`${row.label.padEnd(width)}  ${row.name.padEnd(24)}  ${value}  ${ratio}`);
  }
}

function writeJson(file: string): void {
  const table = rows.map(({ name, unit, median, floor, ratio }) => ({
    name,
    unit,
    // JSON has no NaN: a figure that could not be measured is null.
    median: Number.isFinite(median) ? median : null,
    ...(floor === undefined ? {} : { floor }),
    ...(ratio === undefined ? {} : { ratio }),
  }));
  writeFileSync(file, `${JSON.stringify(table, null, 2)}\n`);
}

const only = process.env.BENCH_ONLY;
if (only === 'tools') await benchToolCalls();
else if (only === 'turns') await benchTurns();
else if (only === 'inflight') await benchInFlight();
else if (only === 'heap') await benchHeap();
else if (only === 'batch') await benchParallelBatch();
else if (only === 'steps') await benchSteps();
else if (only === 'floor') await benchFloor();
else if (only === 'cli') await benchCliStartup();
else if (only === 'distributed') await benchDistributedRows();
else await main();
printRows();
if (flags.json !== undefined) writeJson(flags.json);

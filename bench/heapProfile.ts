/**
 * What an idle agent holds: two heap snapshots around N agents (host-shared seams, tools and model),
 * the difference per agent by V8 node type and name; `OWNERS=1` also lists the owners of slow-mode
 * property stores. Run after `npm run bench` built it:
 * `N=2000 node --expose-gc node_modules/.cache/seamchart-bench/bench/heapProfile.js`
 */

import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeHeapSnapshot } from 'node:v8';
import { createAgent, createSeams, createToolRegistry, scriptedModel } from '../index.js';

const gc = (globalThis as { gc?: () => void }).gc!;
const N = Number(process.env.N ?? 2000);
const settleGc = async () => {
  for (let i = 0; i < 3; i++) {
    await new Promise((r) => setTimeout(r, 20));
    gc();
  }
};

function summarize(file: string): Map<string, { count: number; size: number }> {
  const snap = JSON.parse(readFileSync(file, 'utf8'));
  const { node_fields, node_types } = snap.snapshot.meta;
  const types: string[] = node_types[0];
  const F = node_fields.length;
  const iType = node_fields.indexOf('type'),
    iName = node_fields.indexOf('name'),
    iSize = node_fields.indexOf('self_size');
  const out = new Map<string, { count: number; size: number }>();
  const nodes: number[] = snap.nodes;
  const strings: string[] = snap.strings;
  for (let i = 0; i < nodes.length; i += F) {
    const type = types[nodes[i + iType]!]!;
    let name = strings[nodes[i + iName]!]!;
    if (type === 'string' || type === 'concatenated string' || type === 'sliced string') name = '(string)';
    if (type === 'number') name = '(number)';
    if (name.length > 60) name = name.slice(0, 60);
    const key = `${type}:${name}`;
    const e = out.get(key) ?? { count: 0, size: 0 };
    e.count++;
    e.size += nodes[i + iSize]!;
    out.set(key, e);
  }
  // Owners of the out-of-object property stores, by owner name and their property names.
  if (process.env.OWNERS) {
    const E = snap.snapshot.meta.edge_fields.length;
    const iEdges = node_fields.indexOf('edge_count');
    const edges: number[] = snap.edges;
    const edgeTypes: string[] = snap.snapshot.meta.edge_types[0];
    let e = 0;
    const owners = new Map<string, number>();
    for (let i = 0; i < nodes.length; i += F) {
      const count = nodes[i + iEdges]!;
      for (let j = 0; j < count; j++, e += E) {
        const to = edges[e + 2]!;
        const toName = strings[nodes[to + iName]!];
        if (
          types[nodes[to + iType]!] === 'array' &&
          toName === '(object properties)' &&
          nodes[to + iSize]! > 100
        ) {
          // list the owner's named properties
          const names: string[] = [];
          let e2 = 0;
          for (let k = 0; k < i; k += F) e2 += nodes[k + iEdges]! * E;
          for (let m = 0; m < count && names.length < 12; m++) {
            const et = edgeTypes[edges[e2 + m * E]!];
            if (et === 'property') {
              const pname = strings[edges[e2 + m * E + 1]!]!;
              const target = edges[e2 + m * E + 2]!;
              names.push(pname === 'name' ? `name=${strings[nodes[target + iName]!]}` : pname);
            }
          }
          const key = `${types[nodes[i + iType]!]} ${strings[nodes[i + iName]!]} {${names.join(',')}}`;
          owners.set(key, (owners.get(key) ?? 0) + nodes[to + iSize]!);
        }
      }
    }
    for (const [k, v] of [...owners].sort((x, y) => y[1] - x[1]).slice(0, 25))
      console.log(`owner ${v} B  ${k.slice(0, 200)}`);
  }
  return out;
}
const seams = createSeams();
const tools = createToolRegistry();
const model = scriptedModel([]);
const keep: unknown[] = [];
// warm-up: one agent so lazily built shared logic is not counted
const w = createAgent({ seams, tools, model });
await w.whenIdle();
keep.push(w);
await settleGc();
const a = writeHeapSnapshot(join(tmpdir(), 'seamchart-h0.heapsnapshot'));
for (let i = 0; i < N; i++) keep.push(createAgent({ seams, tools, model }));
await Promise.all((keep as ReturnType<typeof createAgent>[]).map((x) => x.whenIdle()));
await settleGc();
const b = writeHeapSnapshot(join(tmpdir(), 'seamchart-h1.heapsnapshot'));
const s0 = summarize(a),
  s1 = summarize(b);
const rows = [...s1]
  .map(([k, v]) => {
    const o = s0.get(k) ?? { count: 0, size: 0 };
    return { k, count: (v.count - o.count) / N, size: (v.size - o.size) / N };
  })
  .filter((r) => r.size > 8)
  .sort((x, y) => y.size - x.size);
let total = 0;
for (const r of rows) total += r.size;
console.log(`total per agent ~${(total / 1024).toFixed(2)} KiB (self sizes, rows > 8 B)`);
for (const r of rows.slice(0, 45))
  console.log(`${r.size.toFixed(0).padStart(6)} B  ${r.count.toFixed(1).padStart(6)}×  ${r.k}`);
rmSync(a);
rmSync(b);

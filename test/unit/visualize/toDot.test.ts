import { describe, expect, it } from 'vitest';
import { toDot } from '../../../visualize/index.js';
import { demoMachine } from './demoMachine.js';

describe('toDot', () => {
  const dot = toDot(demoMachine);

  it('draws compound and parallel states as clusters, with an initial marker in each compound one', () => {
    expect(dot).toContain('compound=true;');
    expect(dot).toContain('subgraph "cluster_demo.work" {');
    expect(dot).toContain('label="work"; style="rounded,dashed";');
    expect(dot).toContain('"demo.work.fetch" -> "demo.work.fetch.loading";');
    expect(dot).toContain('"demo.work.fetch.loaded" [label="loaded", peripheries=2];');
  });

  it('clips edges into and out of a cluster with lhead and ltail, labelled like toMermaid', () => {
    expect(dot).toContain('"demo.idle" -> "demo.work" [label="GO [isReady]", lhead="cluster_demo.work"];');
    expect(dot).toContain('"demo.work" -> "demo.done" [label="onDone", ltail="cluster_demo.work"];');
    expect(dot).toContain('"demo.work.fetch.loading" -> "demo.failed" [label="error: load"];');
    expect(dot).toContain('"demo.idle" -> "demo.timedOut" [label="after 500ms"];');
    expect(dot).toContain('[label="loading\\ninvoke load (src: fetcher) → tools/execute"]');
  });
});

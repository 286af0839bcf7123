import { instance } from '@viz-js/viz';
import { describe, expect, it } from 'vitest';
import { readGraph } from '../../../visualize/graph.js';
import { toDot } from '../../../visualize/index.js';
import { allMachines } from './machines.js';

interface LabelBox {
  readonly text: string;
  readonly x0: number;
  readonly x1: number;
  readonly y0: number;
  readonly y1: number;
}

/** Gap, in points, that two edge labels keep on every side. */
const GAP = 3;

/** Every edge label's box as Graphviz placed it (its own text metrics, from the `json` output). */
async function labelBoxes(dot: string): Promise<LabelBox[]> {
  const viz = await instance();
  const layout = viz.renderJSON(dot) as {
    edges?: {
      _ldraw_?: { op: string; size?: number; pt?: number[]; align?: string; width?: number; text?: string }[];
    }[];
  };
  const boxes: LabelBox[] = [];
  for (const edge of layout.edges ?? []) {
    let size = 14;
    let box: LabelBox | undefined;
    for (const op of edge._ldraw_ ?? []) {
      if (op.op === 'F') size = op.size!;
      if (op.op !== 'T') continue;
      const [x, y] = op.pt!;
      const width = op.width!;
      const x0 = op.align === 'c' ? x! - width / 2 : op.align === 'r' ? x! - width : x!;
      const line = { text: op.text!, x0, x1: x0 + width, y0: y! - size * 0.25, y1: y! + size * 0.85 };
      // The lines of one label form one box.
      box =
        box === undefined
          ? line
          : {
              text: `${box.text} / ${line.text}`,
              x0: Math.min(box.x0, line.x0),
              x1: Math.max(box.x1, line.x1),
              y0: Math.min(box.y0, line.y0),
              y1: Math.max(box.y1, line.y1),
            };
    }
    if (box !== undefined) boxes.push(box);
  }
  return boxes;
}

function collisions(boxes: readonly LabelBox[]): string[] {
  const found: string[] = [];
  boxes.forEach((a, index) => {
    for (const b of boxes.slice(index + 1)) {
      const apart = a.x1 + GAP <= b.x0 || b.x1 + GAP <= a.x0 || a.y1 + GAP <= b.y0 || b.y1 + GAP <= a.y0;
      if (!apart) found.push(`"${a.text}" ~ "${b.text}"`);
    }
  });
  return found;
}

describe.each(allMachines)('%s diagram', (_name, machine) => {
  const dot = toDot(machine);
  const drawn = [...dot.matchAll(/^ {2}"([^"]+)" -> "([^"]+)" \[label=/gm)].map(
    ([, from, to]) => `${from} -> ${to}`,
  );

  it('lays out its edge labels apart from each other (3pt on every side, by Graphviz’s own metrics)', async () => {
    const boxes = await labelBoxes(dot);
    expect(boxes.length).toBeGreaterThan(10);
    expect(collisions(boxes)).toEqual([]);
  });

  it('draws one edge per pair of states, a label line per transition', () => {
    expect(new Set(drawn).size).toBe(drawn.length);
    // Every transition is still drawn: its label text stands on some edge.
    for (const { label } of readGraph(machine).edges) expect(dot).toContain(label);
  });
});

describe('turn diagram', () => {
  const dot = toDot(allMachines.find(([name]) => name === 'turn')![1]);
  const intoClosing = dot.split('\n').filter((line) => line.includes('-> "turn.closing"'));

  it("draws the turn's one failure exit, from `open` (E06: no longer bundled from each step state)", () => {
    const failure = intoClosing.filter((line) => line.includes('always [hasFailure]'));
    expect(failure).toHaveLength(2);
    expect(failure[0]).toContain('"turn.open" -> "turn.closing"');
    expect(failure[0]).not.toContain('from ');
    // The refused turn/suspended: its calls are repaired on the way.
    expect(failure[1]).toContain('"turn.open.step.suspended.recording" -> "turn.closing"');
  });

  it('has 6 edges into closing (13 before E06 gathered failures at `open` and endings in `deciding`)', () => {
    expect(intoClosing).toHaveLength(6);
  });

  it('names its fonts with Helvetica-metric fallbacks, so a viewer draws the labels at the widths laid out', () => {
    expect(dot).toContain('fontname="Helvetica,Arial,Liberation Sans,sans-serif"');
  });
});

import type { AnyStateMachine } from 'xstate';
import { toDot } from './toDot.js';

type VizInstance = Awaited<ReturnType<typeof import('@viz-js/viz').instance>>;

/**
 * Render a machine to an SVG document with Graphviz compiled to wasm (`@viz-js/viz`; no system package).
 * @param machine any XState v5 machine
 * @example
 * writeFileSync('toolCall.svg', await toSvg(toolCallMachine));
 */
export async function toSvg(machine: AnyStateMachine): Promise<string> {
  // A fresh instance per call: no process-wide cache to own; Node keeps the imported module and its wasm hot.
  const viz = await loadViz();
  return viz.renderString(toDot(machine), { format: 'svg', engine: 'dot' });
}

// Loaded on first use, so importing seamchart stays cheap.
async function loadViz(): Promise<VizInstance> {
  try {
    return await (await import('@viz-js/viz')).instance();
  } catch (cause) {
    throw new Error('toSvg needs the `@viz-js/viz` package; install it with `npm install @viz-js/viz`', {
      cause,
    });
  }
}

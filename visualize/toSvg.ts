import type { AnyStateMachine } from 'xstate';
import { toDot } from './toDot.js';

type VizInstance = Awaited<ReturnType<typeof import('@viz-js/viz').instance>>;

// One Graphviz wasm instance per process, loaded on first use so importing seamchart stays cheap.
let vizInstance: Promise<VizInstance> | undefined;

/**
 * Render a machine to an SVG document with Graphviz compiled to wasm (`@viz-js/viz`; no system package).
 * @param machine any XState v5 machine
 * @example
 * writeFileSync('toolCall.svg', await toSvg(toolCallMachine));
 */
export async function toSvg(machine: AnyStateMachine): Promise<string> {
  vizInstance ??= loadViz();
  const viz = await vizInstance;
  return viz.renderString(toDot(machine), { format: 'svg', engine: 'dot' });
}

async function loadViz(): Promise<VizInstance> {
  try {
    return await (await import('@viz-js/viz')).instance();
  } catch (cause) {
    vizInstance = undefined; // let a later call retry once the package is installed
    throw new Error('toSvg needs the `@viz-js/viz` package; install it with `npm install @viz-js/viz`', {
      cause,
    });
  }
}

import type { AnyStateMachine } from 'xstate';
import type { LogEvent } from '../kernel/index.js';
import { agentMachine, toolBatchMachine, toolCallMachine, turnMachine } from '../machines/index.js';
import { checkInvariants } from '../session/index.js';
import { toSvg } from '../visualize/index.js';
import { clientScript } from './client.js';
import { buildInspectModel, type InspectModel } from './model.js';
import { pageStyle } from './style.js';

/** What the page is written for: a session's events and how to name it. */
export interface InspectSource {
  readonly events: readonly LogEvent[];
  /** Shown as the page title: the session file, or the session id. */
  readonly title: string;
  readonly sessionId?: string;
  /** Still being written (its last turn may be open): the invariants allow an open turn. */
  readonly live?: boolean;
  /** The page is served and follows the session over server-sent events (`/events`). */
  readonly follow?: boolean;
}

const charts: readonly [string, AnyStateMachine][] = [
  ['toolCall', toolCallMachine],
  ['turn', turnMachine],
  ['toolBatch', toolBatchMachine],
  ['agent', agentMachine],
];

/**
 * The model the page renders: turns, steps, calls, deciders, hooks, events, invariant violations.
 * @param source the session's events and title
 */
export function inspectModelOf(source: InspectSource): InspectModel {
  return buildInspectModel(source.events, {
    title: source.title,
    ...(source.sessionId === undefined ? {} : { sessionId: source.sessionId }),
    live: source.follow ?? false,
    violations: checkInvariants(source.events, { open: source.live ?? false }),
  });
}

/** JSON that can sit inside a `<script>` element (no `</script>`, no `<!--`). */
export function scriptSafeJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

/**
 * Writes the inspector page for a session: one self-contained HTML document (styles, script, data
 * and the four charts inline; nothing is fetched).
 * @param source the session's events and title
 * @example
 * const { events } = await readJsonlLog('s.jsonl');
 * writeFileSync('s.inspect.html', await renderInspectorPage({ events, title: 's.jsonl' }));
 */
export async function renderInspectorPage(source: InspectSource): Promise<string> {
  const model = inspectModelOf(source);
  const svgs = await renderCharts();
  const escapeHtml = (text: string): string =>
    text.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);
  const tabs = charts.map(([name]) => `<button type="button" data-chart="${name}">${name}</button>`).join('');
  const chartDivs = charts
    .map(([name], index) => `<div class="chart" data-chart="${name}">${svgs[index]}</div>`)
    .join('\n');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(source.title)} · seamchart inspector</title>
<style>${pageStyle}</style>
</head>
<body>
<header class="top">
  <div class="brand"><span class="logo">◆</span> seamchart <span class="muted">inspector</span></div>
  <h1>${escapeHtml(source.title)}</h1>
  <div class="status"><span id="live" class="badge live" hidden>live</span><span id="invariants" class="badge"></span></div>
  <div id="summary" class="summary"></div>
</header>
<main class="layout">
  <section class="card timeline-card">
    <div class="card-head"><h2>Timeline</h2><span class="muted">turns → steps → model requests and tool calls; bars share their turn's time scale</span></div>
    <div id="tl" class="vlist"><div id="tl-spacer" class="spacer"></div><div id="tl-rows"></div></div>
  </section>
  <aside class="card details-card">
    <div class="card-head"><h2>Details</h2></div>
    <div id="details-body" class="details"></div>
  </aside>
  <section class="card events-card">
    <div class="card-head"><h2>Events</h2><span id="ev-count" class="muted"></span></div>
    <div class="filters">
      <input id="filter" type="search" placeholder="Filter events: a type, a call id, a word…" aria-label="Filter events">
      <select id="type-filter" aria-label="Event kind">
        <option value="">all kinds</option><option value="turn/">turns</option><option value="step/">steps</option>
        <option value="tool/">tool calls</option><option value="hook/">hooks</option><option value="assistant/">model answers</option>
        <option value="context/">contexts</option><option value="steering/">steering</option><option value="inbox/">inbox</option>
        <option value="violations">violations</option>
      </select>
    </div>
    <div id="ev" class="vlist events"><div id="ev-spacer" class="spacer"></div><div id="ev-rows"></div></div>
    <ul id="violations" class="violations"></ul>
  </section>
  <section class="card charts-card">
    <div class="card-head"><h2>Charts</h2><div id="chart-tabs" class="tabs">${tabs}</div></div>
    <p id="chart-caption" class="muted caption"></p>
    <div class="chart-box">${chartDivs}</div>
  </section>
</main>
<script type="application/json" id="model">${scriptSafeJson(model)}</script>
<script>${clientScript}</script>
</body>
</html>
`;
}

// A chart that cannot be drawn (the optional Graphviz package missing) leaves a note, not a broken page.
async function renderCharts(): Promise<string[]> {
  return Promise.all(
    charts.map(async ([name, machine]) => {
      try {
        return stripXmlProlog(await toSvg(machine));
      } catch (error) {
        return `<p class="muted">The ${name} chart needs the optional <code>@viz-js/viz</code> package (${String((error as Error).message)}).</p>`;
      }
    }),
  );
}

function stripXmlProlog(svg: string): string {
  const start = svg.indexOf('<svg');
  return start < 0 ? svg : svg.slice(start);
}

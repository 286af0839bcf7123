/** The page's stylesheet: calm colours, clear type, a two-column layout that folds to one on narrow screens. */
export const pageStyle = `
:root {
  --bg: #f6f5f2; --card: #ffffff; --ink: #1f2328; --muted: #6b7280; --line: #e6e3dd; --soft: #f1efea;
  --accent: #3a66c4; --accent-soft: #e7eefb; --ok: #2f7d5b; --ok-soft: #e3f2ea; --err: #b9443b; --err-soft: #fbe9e7;
  --warn: #a8671a; --warn-soft: #fbf0dd; --run: #6b5fb5; --run-soft: #eeecf8;
  --mono: ui-monospace, "SF Mono", "JetBrains Mono", "DejaVu Sans Mono", Menlo, Consolas, monospace;
  --sans: system-ui, -apple-system, "Segoe UI", "Inter", "DejaVu Sans", Roboto, sans-serif;
}
* { box-sizing: border-box; }
html, body { margin: 0; background: var(--bg); color: var(--ink); font: 14px/1.5 var(--sans); }
.muted { color: var(--muted); }
code, pre, .id, .seq, .time { font-family: var(--mono); }
.top { display: grid; grid-template-columns: auto 1fr auto; grid-template-areas: "brand title status" "summary summary summary";
  gap: 6px 18px; align-items: center; padding: 18px 28px 14px; border-bottom: 1px solid var(--line); background: var(--card); }
.brand { grid-area: brand; font-weight: 600; letter-spacing: .01em; }
.logo { color: var(--accent); }
.top h1 { grid-area: title; margin: 0; font-size: 17px; font-weight: 600; font-family: var(--mono); overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.status { grid-area: status; display: flex; gap: 8px; }
.summary { grid-area: summary; display: flex; flex-wrap: wrap; gap: 8px; }
.chip { background: var(--soft); border-radius: 999px; padding: 2px 10px; color: #3f4650; font-size: 13px; }
.badge { border-radius: 999px; padding: 3px 12px; font-size: 13px; font-weight: 600; }
.badge.good { background: var(--ok-soft); color: var(--ok); }
.badge.bad { background: var(--err-soft); color: var(--err); }
.badge.live { background: var(--run-soft); color: var(--run); }
.layout { display: grid; grid-template-columns: minmax(0, 1.45fr) minmax(380px, 1fr);
  grid-template-areas: "timeline details" "events charts"; gap: 18px; padding: 18px 28px 40px; }
@media (max-width: 1100px) { .layout { grid-template-columns: 1fr; grid-template-areas: "timeline" "details" "events" "charts"; } }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 12px; padding: 14px 16px; min-width: 0;
  box-shadow: 0 1px 2px rgba(31, 35, 40, .04); }
.card-head { display: flex; align-items: baseline; gap: 12px; margin-bottom: 10px; flex-wrap: wrap; }
.card-head h2 { margin: 0; font-size: 15px; font-weight: 600; }
.card-head .muted { font-size: 12.5px; }
.timeline-card { grid-area: timeline; }
.details-card { grid-area: details; align-self: start; position: sticky; top: 12px; max-height: calc(100vh - 24px); overflow: auto; }
.events-card { grid-area: events; }
.charts-card { grid-area: charts; }
.vlist { position: relative; overflow-y: auto; border: 1px solid var(--line); border-radius: 8px; background: #fcfcfb; }
#tl { height: 56vh; min-height: 320px; }
#ev { height: 44vh; min-height: 260px; }
.spacer { width: 1px; }
#tl-rows, #ev-rows { position: absolute; inset: 0 0 auto 0; }
.row { position: absolute; left: 0; right: 0; height: 30px; display: grid; grid-template-columns: minmax(0, 40%) 1fr 86px;
  align-items: center; gap: 10px; padding: 0 10px; cursor: pointer; border-bottom: 1px solid #f2f0ec; }
.row:hover { background: #f7f6f3; }
.row.selected { background: var(--accent-soft); box-shadow: inset 3px 0 0 var(--accent); }
.row.turn { background: #f4f2ee; font-weight: 600; }
.row.turn.selected { background: var(--accent-soft); }
.row.note { cursor: pointer; }
.label { white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.indent1 { padding-left: 14px; }
.indent2 { padding-left: 30px; }
.meta { text-align: right; color: var(--muted); font-size: 12px; line-height: 1.15; font-variant-numeric: tabular-nums; }
.tokens { font-size: 12px; font-weight: 400; color: var(--muted); margin-left: 6px; }
.track { position: relative; height: 12px; background: transparent; border-radius: 6px; }
.bar { position: absolute; top: 0; height: 12px; border-radius: 6px; }
.turnbar { background: #d8d3ca; }
.reqbar { background: #b9c9ea; }
.callbar.ok { background: #8cc5a8; }
.callbar.deny { background: #e8b96b; }
.callbar.err { background: #e29a92; }
.callbar.run { background: #b6aee3; }
.turn-name { margin-right: 10px; }
.end { font-weight: 500; font-size: 12.5px; color: var(--muted); }
.end-completed { color: var(--ok); }
.end-error, .end-aborted, .end-interrupted, .end-disposed { color: var(--err); }
.end-rejected, .end-max-steps, .end-max-tokens { color: var(--warn); }
.kind { font-size: 11.5px; text-transform: uppercase; letter-spacing: .05em; color: var(--muted); font-weight: 600; margin-right: 4px; }
.kind.context { color: #4b7a9b; } .kind.steering { color: #7a5fa8; } .kind.blocked { color: var(--warn); } .kind.prompt { color: var(--accent); }
.tool { font-weight: 600; }
.id { color: #59616b; font-size: 12.5px; }
.pill { display: inline-block; border-radius: 999px; padding: 0 8px; font-size: 11.5px; font-weight: 600; line-height: 18px; vertical-align: 1px; }
.pill.ok { background: var(--ok-soft); color: var(--ok); }
.pill.deny { background: var(--warn-soft); color: var(--warn); }
.pill.err { background: var(--err-soft); color: var(--err); }
.pill.run { background: var(--run-soft); color: var(--run); }
.pill.neutral { background: var(--soft); color: #4b525c; }
.details { font-size: 13.5px; }
.placeholder { color: var(--muted); padding: 24px 4px; }
.detail-head { display: flex; align-items: center; gap: 10px; }
.detail-head h3 { margin: 0; font-size: 16px; }
.details h4 { margin: 16px 0 6px; font-size: 12px; text-transform: uppercase; letter-spacing: .06em; color: var(--muted); }
pre { background: var(--soft); border-radius: 6px; padding: 8px 10px; margin: 6px 0; white-space: pre-wrap; word-break: break-word;
  font-size: 12.5px; max-height: 220px; overflow: auto; }
.phases { list-style: none; margin: 12px 0 0; padding: 0; border-left: 2px solid var(--line); }
.phase { position: relative; padding: 4px 0 8px 16px; }
.phase::before { content: ""; position: absolute; left: -6px; top: 10px; width: 10px; height: 10px; border-radius: 50%; background: #cfd6e0; border: 2px solid var(--card); }
.phase.changed::before { background: var(--accent); }
.phase.stopped::before { background: var(--warn); }
.phase-head { display: flex; gap: 10px; align-items: baseline; flex-wrap: wrap; }
.phase-name { font-weight: 600; min-width: 92px; }
.verdict { color: #3f4650; }
.who { margin-left: auto; font-size: 12.5px; }
.who b { font-family: var(--mono); font-weight: 600; color: var(--accent); }
table { border-collapse: collapse; width: 100%; font-size: 12.5px; }
th { text-align: left; color: var(--muted); font-weight: 600; border-bottom: 1px solid var(--line); padding: 4px 6px; }
td { padding: 4px 6px; border-bottom: 1px solid #f2f0ec; vertical-align: top; }
tr.hook-failed td { background: #fdf4f2; }
tr.hook-output td { border-bottom: 1px solid var(--line); }
tr.total td { font-weight: 600; }
.notes { list-style: none; padding: 0; margin: 0; }
.notes li { padding: 4px 0; }
.filters { display: flex; gap: 8px; margin-bottom: 8px; }
.filters input { flex: 1; padding: 6px 10px; border: 1px solid var(--line); border-radius: 8px; font: inherit; background: #fff; }
.filters select { padding: 6px 8px; border: 1px solid var(--line); border-radius: 8px; font: inherit; background: #fff; }
.erow { position: absolute; left: 0; right: 0; height: 26px; display: grid; grid-template-columns: 64px 78px 150px 1fr; gap: 8px;
  align-items: center; padding: 0 10px; font-size: 12.5px; cursor: pointer; border-bottom: 1px solid #f4f2ee; white-space: nowrap; }
.erow:hover { background: #f7f6f3; }
.erow.selected { background: var(--accent-soft); }
.erow.bad { background: var(--err-soft); }
.erow .seq { color: var(--muted); text-align: right; }
.erow .time { color: var(--muted); }
.erow .sum { overflow: hidden; text-overflow: ellipsis; }
.type { font-family: var(--mono); font-size: 12px; }
.t-tool { color: #2f6a55; } .t-hook { color: #8a5a12; } .t-turn, .t-step { color: #4b525c; } .t-assistant { color: var(--accent); }
.t-context, .t-steering { color: #6f54a0; } .t-prompt { color: var(--warn); } .t-inbox { color: #7b8794; }
.vmark { color: var(--err); font-weight: 600; }
.violations { margin: 10px 0 0; padding: 0; list-style: none; }
.violation { color: var(--err); padding: 2px 0; }
.tabs { display: flex; gap: 4px; margin-left: auto; }
.tabs button { border: 1px solid var(--line); background: #fff; border-radius: 8px; padding: 3px 10px; font: inherit; font-size: 12.5px; cursor: pointer; color: #3f4650; }
.tabs button.active { background: var(--accent); border-color: var(--accent); color: #fff; }
.caption { margin: 0 0 8px; font-size: 12.5px; }
.chart-box { overflow: auto; max-height: 78vh; border: 1px solid var(--line); border-radius: 8px; background: #fff; }
.chart svg { display: block; max-width: 100%; height: auto; }
.chart svg text { font-family: var(--sans) !important; }
.chart.dim g.node:not(.hl), .chart.dim g.edge { opacity: .35; }
.chart g.hl > path, .chart g.hl > polygon, .chart g.hl > ellipse { stroke: var(--accent); stroke-width: 2.4px; }
.chart g.node.hl > path, .chart g.node.hl > polygon, .chart g.node.hl > ellipse { fill: var(--accent-soft); }
.chart g.cluster.hl > path { fill: #f5f8fe; }
`;

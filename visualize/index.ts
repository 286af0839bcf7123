// The visualize folder's only public face.
export { createInspectionLog, type InspectionLog } from './inspectLog.js';
export { toDot } from './toDot.js';
export { type JsonSafe, toJsonSafe } from './toJsonSafe.js';
export { toMermaid } from './toMermaid.js';
export { toStatelyImport } from './toStatelyImport.js';
export { toSvg } from './toSvg.js';

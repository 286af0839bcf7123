// The machines/turn folder's only public face.
export { doneEvent, errorEvent } from './graph.js';
export { createTurnLogic, provideTurnLogic } from './logic.js';
export type { ScopedTurnInput, SeamsPresent, TurnInput, TurnOutput, TurnSteeringReport } from './types.js';
export { turnSeams } from './types.js';

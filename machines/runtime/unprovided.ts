import { fromPromise, type PromiseActorLogic } from 'xstate';

/**
 * Placeholder actors for an un-provided machine (Stately, diagrams and graph traversal never run
 * them): one started anyway fails and names the factory that binds the real one.
 * @param machine the machine's exported name
 * @param fix how to build the machine with services
 * @example
 * const unprovided = unprovidedActors('turnMachine', 'build the turn with createTurnLogic(services)');
 * setup({ actors: { model: unprovided<AcceptedAnswer, TurnSeamInput>('model') } });
 */
export function unprovidedActors(
  machine: string,
  fix: string,
): <TOutput, TInput>(actor: string) => PromiseActorLogic<TOutput, TInput> {
  return <TOutput, TInput>(actor: string) =>
    fromPromise<TOutput, TInput>(async () => {
      throw new Error(`${machine} actor "${actor}" is not provided; ${fix}`);
    });
}

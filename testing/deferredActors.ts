import { type AnyActorRef, fromPromise, type PromiseActorLogic } from 'xstate';

/** One running stubbed invocation, waiting for the test to settle it. */
export interface PendingInvoke {
  /** The invoke id (`invoke.id`), which is the child actor's id. */
  readonly id: string;
  /** The actor implementation name (`invoke.src`) the stub replaced. */
  readonly src: string;
  /** The input the machine computed for the invoke. */
  readonly input: unknown;
  /** The stub actor itself; `getSnapshot().status` tells whether the parent still waits for it. */
  readonly actor: AnyActorRef;
  resolve(output: unknown): void;
  reject(error: unknown): void;
}

/** Deferred stubs for a set of actor implementations, and what they are waiting for. */
export interface DeferredActors {
  /** Pass to `machine.provide({ actors })`. */
  readonly actors: Record<string, PromiseActorLogic<unknown, unknown>>;
  /** Running invocations keyed by invoke id; an entry leaves when it is settled or its actor stops. */
  readonly pending: Map<string, PendingInvoke>;
}

/**
 * Replaces actor implementations with promise stubs that wait until the test resolves or rejects them,
 * so the machine's own invoke machinery delivers the done/error events.
 * @param names the actor implementation names (`invoke.src`) to stub
 * @example
 * const { actors, pending } = createDeferredActors(['preExecute']);
 * const actor = createActor(machine.provide({ actors }), { input }).start();
 * pending.get('preExecute')?.resolve({ kind: 'allow' });
 */
export function createDeferredActors(names: Iterable<string>): DeferredActors {
  const pending = new Map<string, PendingInvoke>();
  const actors: Record<string, PromiseActorLogic<unknown, unknown>> = {};
  for (const src of names) {
    actors[src] = fromPromise<unknown, unknown>(
      ({ self, input, signal }) =>
        new Promise<unknown>((resolve, reject) => {
          const id = self.id;
          const leave = (): void => {
            if (pending.get(id) === entry) pending.delete(id);
          };
          const entry: PendingInvoke = {
            id,
            src,
            input,
            actor: self,
            resolve: (output) => {
              leave();
              resolve(output);
            },
            reject: (error) => {
              leave();
              reject(error);
            },
          };
          // A stopped stub (its state was left) is no longer something the machine waits for.
          signal.addEventListener('abort', leave, { once: true });
          pending.set(id, entry);
        }),
    );
  }
  return { actors, pending };
}

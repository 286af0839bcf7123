import { type Actor, type ActorOptions, type ActorSystem, type AnyActorLogic, createActor } from 'xstate';

/** The actor system every action, guard, delay and actor creator receives in its args. */
type AnyActorSystem = ActorSystem<any>;

/**
 * Where an implementation (action, actor creator, delay) finds the services it runs with. Its args
 * always carry the actor `system`, which every actor of one run shares (an agent and all its turns,
 * batches and calls; or one standalone call), so one provided logic can serve every run.
 */
export type ServicesResolver<TServices> = (args: { readonly system: AnyActorSystem }) => TServices;

/** A resolver that always answers `services`: the logic it builds is bound to them (`create*Logic`). */
export function fixedServices<TServices>(services: TServices): ServicesResolver<TServices> {
  return () => services;
}

// A side table, as XState keeps its own: the system holds no reference to its services.
const servicesBySystem = new WeakMap<AnyActorSystem, object>();
// The services of the root actor being constructed: its initial state (entry actions, delays) is
// resolved inside `createActor`, before its system can be registered here.
let constructing: object | undefined;

/**
 * Answers the services registered for the args' system (by `createActorWithServices`).
 * Only shared logic built with it may run, and only under an actor made by `createActorWithServices`.
 */
export function servicesOfSystem<TServices extends object>({
  system,
}: {
  readonly system: AnyActorSystem;
}): TServices {
  let services = servicesBySystem.get(system);
  if (services === undefined && constructing !== undefined) {
    services = constructing;
    servicesBySystem.set(system, services);
  }
  if (services === undefined) {
    throw new Error(
      'No services are registered for this actor system: start shared machine logic with createActorWithServices()',
    );
  }
  return services as TServices;
}

/**
 * Creates a root actor of shared logic (built with `servicesOfSystem`) and registers `services` for its
 * system, which all its descendants share. Not started.
 * @param logic shared logic that resolves its services from the system
 * @param services what this run's actors use
 * @param options the usual `createActor` options
 */
export function createActorWithServices<TLogic extends AnyActorLogic>(
  logic: TLogic,
  services: object,
  options: ActorOptions<TLogic>,
): Actor<TLogic> {
  const outer = constructing;
  constructing = services;
  try {
    const actor = createActor(logic, options as never) as Actor<TLogic>;
    servicesBySystem.set(actor.system, services);
    return actor;
  } finally {
    constructing = outer;
  }
}

/**
 * A lazily built value, once per module: shared logic is provided on first use, not at import.
 * @param build builds the value
 */
export function once<T>(build: () => T): () => T {
  let value: T | undefined;
  let built = false;
  return () => {
    if (!built) {
      value = build();
      built = true;
    }
    return value as T;
  };
}

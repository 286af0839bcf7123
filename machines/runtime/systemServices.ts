import {
  type Actor,
  type ActorOptions,
  type ActorSystem,
  type AnyActorLogic,
  createActor,
  fromTransition,
} from 'xstate';
import { registerInspector } from './inspection.js';

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

// The root of a run is registered in its system under this id (XState registers it before building its
// initial state), and carries its services in its input under this key (no context sees it).
const rootSystemId = 'seamchart.root';
const servicesKey = Symbol('seamchart.services');

/** Thrown by `servicesOfSystem` where the system has no run's services (an actor not made by `createActorWithServices`). */
class NoRunServicesError extends Error {
  constructor() {
    super(
      'No services are registered for this actor system: start shared machine logic with createActorWithServices()',
    );
    this.name = 'NoRunServicesError';
  }
}

/**
 * Answers the services of the args' system: those its root actor was created with (by `createActorWithServices`).
 * Only shared logic built with it may run, and only under an actor made by `createActorWithServices`.
 */
export function servicesOfSystem<TServices extends object>({
  system,
}: {
  readonly system: AnyActorSystem;
}): TServices {
  const root = system.get(rootSystemId) as Actor<AnyActorLogic> | undefined;
  const services = (root?.options.input as { [servicesKey]?: object } | undefined)?.[servicesKey];
  if (services === undefined) throw new NoRunServicesError();
  return services as TServices;
}

/**
 * The services of a run, or `undefined` where there is none: graph traversal (`xstate/graph`, pure
 * `transition`) resolves enqueueActions in a system of its own, and an effect resolved there acts on nothing.
 * @param servicesOf the logic's resolver
 * @param system the system of the args
 */
export function servicesOfRun<TServices>(
  servicesOf: ServicesResolver<TServices>,
  system: AnyActorSystem,
): TServices | undefined {
  try {
    return servicesOf({ system });
  } catch (error) {
    if (error instanceof NoRunServicesError) return undefined;
    throw error;
  }
}

/**
 * Creates a root actor of shared logic (built with `servicesOfSystem`) with `services`, which all its
 * descendants share; its `inspect` option is the system's inspection channel for stepped machines. Not started.
 * @param logic shared logic that resolves its services from the system
 * @param services what this run's actors use
 * @param options the usual `createActor` options (its `systemId` is the engine's)
 */
export function createActorWithServices<TLogic extends AnyActorLogic>(
  logic: TLogic,
  services: object,
  options: ActorOptions<TLogic>,
): Actor<TLogic> {
  const input = { ...(options.input as object | undefined), [servicesKey]: services };
  const actor = createActor(logic, { ...options, systemId: rootSystemId, input } as never) as Actor<TLogic>;
  registerInspector(actor.system, actor.sessionId, options.inspect);
  return actor;
}

// The root of a system whose machines the engine steps: it never starts, it only holds their services.
const stepHostLogic = fromTransition((state: null) => state, null);

/**
 * An unstarted root that gives machines the engine steps (`createSteppedActor`) a system of their own,
 * with `services` (and `inspect`, the system's inspection channel); no actor runs.
 * @param services what the stepped machines use
 * @param inspect the inspection observer of that system, if any
 */
export function createStepHost(
  services: object,
  inspect?: ActorOptions<AnyActorLogic>['inspect'],
): Actor<typeof stepHostLogic> {
  return createActorWithServices(stepHostLogic, services, inspect === undefined ? {} : { inspect });
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

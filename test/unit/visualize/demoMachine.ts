import { fromPromise, not, setup } from 'xstate';

/** A small machine with every shape the renderers handle: parallel regions, finals, always, after, invoke. */
export const demoMachine = setup({
  actors: { fetcher: fromPromise(async () => 1) },
  guards: { isReady: () => true, ok: (_, _params: { level: number }) => true },
}).createMachine({
  id: 'demo',
  initial: 'idle',
  states: {
    idle: { on: { GO: { target: 'work', guard: 'isReady' } }, after: { 500: 'timedOut' } },
    work: {
      type: 'parallel',
      onDone: 'done',
      states: {
        fetch: {
          initial: 'loading',
          states: {
            loading: {
              meta: { seam: 'tools/execute' },
              invoke: { id: 'load', src: 'fetcher', onDone: 'loaded', onError: '#demo.failed' },
            },
            loaded: { type: 'final' },
          },
        },
        watch: {
          initial: 'on',
          states: {
            on: { always: { guard: { type: 'ok', params: { level: 2 } }, target: 'off' } },
            off: { type: 'final' },
          },
        },
      },
    },
    timedOut: { on: { RETRY: { target: 'idle', guard: not('isReady') } } },
    failed: {},
    done: { type: 'final' },
  },
});

import { describe, expect, it } from 'vitest';
import { toMermaid } from '../../../visualize/index.js';
import { demoMachine } from './demoMachine.js';

describe('toMermaid', () => {
  it('draws regions, initial and final markers, labelled edges and invoke notes, each edge in its LCA block', () => {
    expect(toMermaid(demoMachine)).toMatchInlineSnapshot(`
      "stateDiagram-v2
        state "demo" as demo {
          [*] --> demo_idle
          state "idle" as demo_idle
          state "work" as demo_work {
            state "fetch" as demo_work_fetch {
              [*] --> demo_work_fetch_loading
              state "loading" as demo_work_fetch_loading
              demo_work_fetch_loading : invoke load (src: fetcher) → tools/execute
              state "loaded" as demo_work_fetch_loaded
              demo_work_fetch_loaded --> [*]
              demo_work_fetch_loading --> demo_work_fetch_loaded : done: load
            }
            --
            state "watch" as demo_work_watch {
              [*] --> demo_work_watch_on
              state "on" as demo_work_watch_on
              state "off" as demo_work_watch_off
              demo_work_watch_off --> [*]
              demo_work_watch_on --> demo_work_watch_off : always [ok(level=2)]
            }
          }
          state "timedOut" as demo_timedOut
          state "failed" as demo_failed
          state "done" as demo_done
          demo_done --> [*]
          demo_idle --> demo_work : GO [isReady]
          demo_idle --> demo_timedOut : after 500ms
          demo_work --> demo_done : onDone
          demo_work --> demo_failed : error: load (from fetch.loading)
          demo_timedOut --> demo_idle : RETRY [not(isReady)]
        }
      "
    `);
  });
});

import type { AcpServer, ServeAcpOptions } from './types.js';

/**
 * Serves seamchart agents over the Agent Client Protocol: one agent per ACP session, on JSONL files
 * under `sessionsDir`; closing the connection disposes every agent. The ACP SDK is loaded here, on
 * first use, so a program that never serves ACP never loads it.
 * @param options `createSession` (builds the agent of one session), `sessionsDir`, the stream, …
 * @example
 * serveAcp({
 *   sessionsDir: '/home/me/.local/share/seamchart/sessions',
 *   createSession: ({ store, approval, cwd }) => {
 *     const seams = createSeams();
 *     const tools = createToolRegistry();
 *     return { agent: createAgent({ seams, tools, model, store, approval, cwd }), seams, tools };
 *   },
 * });
 */
export function serveAcp(options: ServeAcpOptions): AcpServer {
  const started = import('./acpServer.js').then((module) => module.startAcpServer(options));
  return {
    closed: started.then((server) => server.closed),
    close: () => started.then((server) => server.close()),
  };
}

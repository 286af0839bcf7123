// The ACP bridge's only public face.
export { serveAcp } from './serveAcp.js';
export type {
  AcpAgent,
  AcpMcpServer,
  AcpServer,
  AcpSession,
  AcpSessionRequest,
  ServeAcpOptions,
} from './types.js';

// The session/stores folder's only public face.
export {
  type CreateJsonlStoreOptions,
  createJsonlStore,
  type JsonlStore,
  type OpenJsonlStoreOptions,
  openJsonlStore,
} from './jsonl.js';
export { type MemoryStoreOptions, memoryStore } from './memory.js';
export {
  createPostgresStore,
  type OpenPostgresStoreOptions,
  openPostgresStore,
  type PostgresStore,
  type PostgresStoreOptions,
  readPostgresLog,
} from './postgres.js';
export { type PoolClientOptions, withPoolClient } from './postgresClient.js';
export {
  DEFAULT_SESSION_SCHEMA,
  migrateSessionTables,
  SESSION_SCHEMA_VERSION,
  sessionSchemaVersion,
} from './postgresSchema.js';
export { type JsonlLog, type ReadJsonlLogOptions, readJsonlLog } from './readJsonlLog.js';

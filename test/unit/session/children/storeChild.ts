// A second process for the storage tests: holds a session lock, or races to create a session file.
import { createJsonlStore, createSessionLog, openJsonlStore } from '../../../../session/index.js';

const [command, path, id] = process.argv.slice(2);
if (path === undefined) throw new Error('usage: storeChild hold|create|open PATH [ID]');

if (command === 'hold') {
  // Writes one turn's start and waits to be killed: a live writer.
  const store = await createJsonlStore(path, { id: id ?? 'held' });
  const log = createSessionLog({ store });
  log.appendCore('turn/start', { turn: 1, trigger: { kind: 'message', source: { kind: 'user' } } });
  process.stdout.write('READY\n');
  setInterval(() => {}, 60_000);
} else if (command === 'create' || command === 'open') {
  // Races: the parent starts several of these, then releases them together with one byte on stdin.
  process.stdout.write('WAITING\n');
  await new Promise((go) => process.stdin.once('data', go));
  process.stdin.pause();
  try {
    const store =
      command === 'create' ? await createJsonlStore(path, { id: id ?? 'racer' }) : await openJsonlStore(path);
    process.stdout.write(`${JSON.stringify({ ok: true, id: store.sessionId })}\n`);
    await store.close();
  } catch (error) {
    const { name, code } = error as { name?: string; code?: string };
    process.stdout.write(`${JSON.stringify({ ok: false, name, code })}\n`);
  }
}

// A live process holding a session file's lock: prints READY once it holds it, lets go when stdin ends.
import { openJsonlStore } from '../../../session/index.js';

const [file] = process.argv.slice(2);
if (file === undefined) throw new Error('usage: holdSession FILE');
const store = await openJsonlStore(file);
process.stdout.write(`READY ${process.pid}\n`);
process.stdin.resume();
process.stdin.on('end', () => {
  void store.close().then(() => process.exit(0));
});

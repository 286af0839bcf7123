#!/usr/bin/env node
// The installed `seamchart` command (npm links it under a different path, so it always runs main).
import { ignoreBrokenPipes } from './brokenPipe.js';
import { main } from './main.js';

ignoreBrokenPipes();

main(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});

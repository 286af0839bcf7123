import type { Command } from 'commander';
import { type CliCommand, type CliIO, UsageError } from './command.js';
import { databaseUrlOf, positiveIntegerFlag } from './databaseFlags.js';
import { deferredApproval, durationFlag } from './runApprovals.js';
import { type AgentFlags, addAgentFlags, loadBridges, resolveCwd, resolveModel } from './runFlags.js';

interface WorkerFlags extends AgentFlags {
  databaseUrl?: string;
  concurrency?: number;
  executorId?: string;
  applicationVersion?: string;
  leaseMs?: number;
  deadAfterMs?: number;
  heartbeatMs?: number;
  pollingIntervalMs?: number;
  graceMs?: number;
  approve?: 'defer' | 'no' | 'yes';
  approveExpiresIn?: number;
}

/**
 * `seamchart worker`: joins the worker pool of a PostgreSQL database and runs sessions' turns until SIGTERM
 * (which stops taking work, lets running turns finish within --grace-ms, disposes the rest and exits 143).
 */
export const workerCommand: CliCommand = {
  name: 'worker',
  configure(command: Command) {
    command
      .description('run sessions stored in PostgreSQL: join the worker pool (DBOS) until SIGTERM')
      .option('--database-url <url>', 'the PostgreSQL database (migrated with `seamchart db migrate`)')
      .option('--concurrency <n>', 'sessions this worker runs at once (default 8)', positiveIntegerFlag)
      .option('--executor-id <id>', 'this worker’s id in the fleet (default <host>-<pid>-<random>)')
      .option('--application-version <v>', 'the DBOS application version to run (pin it for rolling deploys)')
      .option('--lease-ms <n>', 'a session lease’s length (default 5000)', positiveIntegerFlag)
      .option(
        '--dead-after-ms <n>',
        'a worker silent this long is dead; its turns resume elsewhere (default 5000)',
        positiveIntegerFlag,
      )
      .option(
        '--heartbeat-ms <n>',
        'how often the worker beats and sweeps (default 1000)',
        positiveIntegerFlag,
      )
      .option('--polling-interval-ms <n>', 'DBOS queue polling interval (default 200)', positiveIntegerFlag)
      .option(
        '--grace-ms <n>',
        'on SIGTERM, how long running turns may finish before they are disposed (default 10000)',
        positiveIntegerFlag,
      )
      .option(
        '--approve <mode>',
        'tool approvals: defer (answered later with `seamchart approve --database-url`), yes or no (default no)',
      )
      .option(
        '--approve-expires-in <duration>',
        'with --approve defer: a request not answered within this (90s, 30m, 2h, 1d) resolves expired',
        durationFlag,
      );
    addAgentFlags(command);
  },
  async run(command: Command, io: CliIO) {
    const flags = command.opts<WorkerFlags>();
    const databaseUrl = databaseUrlOf(flags.databaseUrl, io.env);
    const approve = flags.approve ?? 'no';
    if (!['defer', 'no', 'yes'].includes(approve)) {
      throw new UsageError(`--approve expects defer, yes or no, got "${approve}"`);
    }
    const cwd = await resolveCwd(flags.cwd);
    // Checked once up front, so a bad flag fails here rather than in every delivery.
    await resolveModel(flags, io.env);
    await loadBridges(flags, undefined);
    const lib = await import('../index.js');
    const { createWorker } = lib;
    const log = (line: string): void => {
      io.stderr.write(`seamchart worker: ${line}\n`);
    };
    let worker: Awaited<ReturnType<typeof createWorker>>;
    try {
      worker = await createWorker({
        databaseUrl,
        log,
        ...(flags.concurrency === undefined ? {} : { concurrency: flags.concurrency }),
        ...(flags.executorId === undefined ? {} : { executorId: flags.executorId }),
        ...(flags.applicationVersion === undefined ? {} : { applicationVersion: flags.applicationVersion }),
        ...(flags.leaseMs === undefined ? {} : { leaseMs: flags.leaseMs }),
        ...(flags.deadAfterMs === undefined ? {} : { deadAfterMs: flags.deadAfterMs }),
        ...(flags.heartbeatMs === undefined ? {} : { heartbeatMs: flags.heartbeatMs }),
        ...(flags.pollingIntervalMs === undefined ? {} : { pollingIntervalMs: flags.pollingIntervalMs }),
        agent: async () => {
          const seams = lib.createSeams({
            logger: {
              error: (message: string) => log(message),
              warn: (message: string) => log(message),
            },
          });
          for (const bridge of await loadBridges(flags, undefined)) seams.use(bridge);
          const tools = lib.createToolRegistry();
          if (flags.tools === 'demo')
            for (const tool of lib.createDemoTools({ root: cwd })) tools.register(tool);
          return {
            seams,
            tools,
            model: await resolveModel(flags, io.env),
            cwd,
            approval:
              approve === 'defer'
                ? deferredApproval(flags.approveExpiresIn)
                : {
                    request: async () =>
                      approve === 'yes' ? ('allowed-once' as const) : ('rejected' as const),
                  },
          };
        },
      });
    } catch (error) {
      if (error instanceof lib.SessionLoadError && error.code === 'NOT_MIGRATED')
        throw new UsageError(error.message);
      throw error;
    }
    log(`executor ${worker.executorId} serving the sessions queue`);
    const signal = await new Promise<'SIGINT' | 'SIGTERM'>((resolve) => {
      const off = io.onSignal((received) => {
        off();
        resolve(received);
      });
    });
    log(`${signal}: stopping (running turns may finish, then they are disposed)`);
    await worker.stop(flags.graceMs === undefined ? {} : { graceMs: flags.graceMs });
    log('stopped');
    return signal === 'SIGINT' ? 130 : 143;
  },
};

import { userInfo } from 'node:os';
import type { Command } from 'commander';
import type { ApprovalAnswerInput } from '../index.js';
import { type ApprovalBackend, type ApprovalTarget, openApprovalTarget } from './approvalTarget.js';
import { describeApproval, howToAnswer } from './approvalText.js';
import { type CliCommand, type CliIO, UsageError } from './command.js';
import { databaseUrlOf } from './databaseFlags.js';

interface TargetFlags {
  databaseUrl?: string;
  session?: string;
}

/**
 * The session a command names: `FILE`, or `--session ID` of the database `--database-url` (or
 * `$SEAMCHART_DATABASE_URL`) names; returns it with the positional arguments left after the file.
 */
function parseTarget(
  args: readonly string[],
  flags: TargetFlags,
  io: CliIO,
  usage: string,
): { target: ApprovalTarget; rest: string[] } {
  if (flags.session !== undefined || flags.databaseUrl !== undefined) {
    if (flags.session === undefined || flags.session === '')
      throw new UsageError(`name the session with --session ID (${usage})`);
    return {
      target: {
        kind: 'database',
        databaseUrl: databaseUrlOf(flags.databaseUrl, io.env),
        sessionId: flags.session,
      },
      rest: [...args],
    };
  }
  const [file, ...rest] = args;
  if (file === undefined || file === '') throw new UsageError(`name the session file (${usage})`);
  return { target: { kind: 'file', file }, rest };
}

/**
 * `seamchart approvals FILE [--json]`: lists the pending deferred approvals of a suspended session, read only.
 */
export const approvalsCommand: CliCommand = {
  name: 'approvals',
  configure(command: Command) {
    command
      .description("list a suspended session's pending tool approvals (read only)")
      .argument('[file]', 'a session file written by seamchart run --session')
      .option('--database-url <url>', 'the PostgreSQL database of a session run by `seamchart worker`')
      .option('--session <id>', 'that session (with --database-url)')
      .option('--json', 'print each pending request as one JSON line')
      .addHelpText(
        'after',
        '\nExamples:\n  seamchart approvals session.jsonl\n  seamchart approvals --database-url postgres://localhost/app --session s1\n',
      );
  },
  async run(command: Command, io: CliIO) {
    const flags = command.opts<TargetFlags & { json?: boolean }>();
    const { target, rest } = parseTarget(command.args, flags, io, 'seamchart approvals FILE');
    if (rest.length > 0) throw new UsageError(`approvals: unexpected argument "${rest[0]}"`);
    return listApprovals(openApprovalTarget(target), io, flags.json === true);
  },
};

/** Prints a target's pending requests (or JSON lines), then how to answer them. */
async function listApprovals(backend: ApprovalBackend, io: CliIO, json: boolean): Promise<number> {
  const listing = await backend.list(new Date());
  for (const note of listing.notes) io.stderr.write(`seamchart: ${note}\n`);
  if (json) {
    for (const { request, expired } of listing.approvals)
      io.stdout.write(`${JSON.stringify({ ...request, expired })}\n`);
    return 0;
  }
  const write = (line: string): void => {
    io.stdout.write(`${line}\n`);
  };
  if (!listing.suspended) {
    write('no turn is suspended: nothing to approve');
    return 0;
  }
  const { approvals } = listing;
  const turn = approvals[0]?.request.turn;
  write(
    approvals.length === 0
      ? 'the suspended turn has every request answered'
      : `turn ${turn} is suspended on ${approvals.length} deferred approval${approvals.length === 1 ? '' : 's'}:`,
  );
  for (const approval of approvals) for (const line of describeApproval(approval)) write(`  ${line}`);
  for (const line of howToAnswer(approvals, backend)) write(line);
  return 0;
}

interface ApproveFlags {
  deny?: boolean;
  reason?: string;
  by?: string;
  argsHash?: string;
}

/** Who answered when `--by` is not given: the user running the command. */
function defaultAnswerer(): string | undefined {
  try {
    return userInfo().username;
  } catch {
    return undefined;
  }
}

/** An answer from the flags: allowed once, or `--deny` (rejected), with the reason, answerer and hash given. */
function parseAnswer(flags: ApproveFlags): ApprovalAnswerInput {
  const by = flags.by ?? defaultAnswerer();
  return {
    outcome: flags.deny === true ? 'rejected' : 'allowed-once',
    ...(flags.reason === undefined ? {} : { reason: flags.reason }),
    ...(by === undefined ? {} : { by }),
    ...(flags.argsHash === undefined ? {} : { argsHash: flags.argsHash }),
  };
}

/**
 * `seamchart approve FILE REQUEST_ID [--deny] [--reason TEXT]`: records an answer while no run holds the session;
 * `seamchart run --resume` then continues the turn. A locked, unsuspended or crashed session or an unknown id
 * exits 2 and writes nothing.
 */
export const approveCommand: CliCommand = {
  name: 'approve',
  configure(command: Command) {
    command
      .description('answer a pending tool approval of a suspended session (allow once, or --deny)')
      .argument('[file]', 'the session file (not with --database-url)')
      .argument('[request-id]', 'the request to answer (listed by seamchart approvals FILE)')
      .option('--database-url <url>', 'the PostgreSQL database of a session run by `seamchart worker`')
      .option(
        '--session <id>',
        'that session: the answer goes through the queue and a worker resumes the turn',
      )
      .option('--deny', 'reject the call (the model is told, with --reason)')
      .option('--reason <text>', 'why; shown to the model with a denial, recorded with either answer')
      .option('--by <name>', 'who answers (default: your user name)')
      .option('--args-hash <hash>', 'refuse unless the request is about these exact arguments (its argsHash)')
      .addHelpText(
        'after',
        '\nExamples:\n  seamchart approve session.jsonl a1\n  seamchart approve session.jsonl a2 --deny --reason "not on a Friday"\n  seamchart run --resume --session session.jsonl\n  seamchart approve --database-url postgres://localhost/app --session s1 a1\n',
      );
  },
  async run(command: Command, io: CliIO) {
    const flags = command.opts<ApproveFlags & TargetFlags>();
    const usage = 'seamchart approve FILE REQUEST_ID, or --database-url URL --session ID REQUEST_ID';
    const { target, rest } = parseTarget(command.args, flags, io, usage);
    const [requestId, ...extra] = rest;
    if (requestId === undefined || requestId === '')
      throw new UsageError(`name the request to answer (${usage})`);
    if (extra.length > 0) throw new UsageError(`approve: unexpected argument "${extra[0]}"`);
    const answer = parseAnswer(flags);
    return answerApproval(openApprovalTarget(target), requestId, answer, io);
  },
};

/** Records one answer through a backend and says what is left to do; a refused answer is exit 2. */
async function answerApproval(
  backend: ApprovalBackend,
  requestId: string,
  answer: ApprovalAnswerInput,
  io: CliIO,
): Promise<number> {
  const { ApprovalError } = await import('../index.js');
  let recorded: Awaited<ReturnType<ApprovalBackend['answer']>>;
  try {
    recorded = await backend.answer(requestId, answer, new Date());
  } catch (error) {
    if (!(error instanceof ApprovalError)) throw error;
    throw new UsageError(
      error.code === 'UNKNOWN_APPROVAL'
        ? `approve: no approval request "${requestId}" in this session; list the pending ones with seamchart approvals`
        : `approve: ${error.message}`,
    );
  }
  const write = (line: string): void => {
    io.stdout.write(`${line}\n`);
  };
  const { resolution, written, pending } = recorded;
  write(
    written
      ? `${requestId}: ${resolution.outcome} recorded`
      : `${requestId} was already answered ${resolution.outcome}; nothing written`,
  );
  if (pending.length > 0)
    write(`still pending: ${pending.map((request) => `${request.requestId} (${request.tool})`).join(', ')}`);
  else write(backend.whenAnswered);
  return 0;
}

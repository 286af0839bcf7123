import type { ListedApproval } from '../index.js';

/** A path or value as one shell word: as it is when plain, else single-quoted. */
export function shellWord(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replaceAll("'", `'\\''`)}'`;
}

const ARGUMENTS_WIDTH = 200;

/** One pending request in two lines: id, tool and arguments; then the reason, who asked, and its expiry. */
export function describeApproval({ request, expired }: ListedApproval): string[] {
  const args = JSON.stringify(request.arguments);
  const shown = args.length > ARGUMENTS_WIDTH ? `${args.slice(0, ARGUMENTS_WIDTH - 1)}…` : args;
  const details = [
    ...(request.reason === undefined ? [] : [`reason: ${request.reason}`]),
    `asked by ${request.askedBy}`,
    `turn ${request.turn} step ${request.step}`,
    ...(request.expiresAt === undefined
      ? []
      : [
          expired
            ? `expired at ${request.expiresAt} (answered expired on resume)`
            : `expires ${request.expiresAt}`,
        ]),
    `argsHash ${request.argsHash.slice(0, 12)}`,
  ];
  return [`${request.requestId}  ${request.tool} ${shown}`, `    ${details.join(' · ')}`];
}

/** What a person does next about a suspended session: answer each request, then resume. */
export function howToAnswer(
  approvals: readonly ListedApproval[],
  commands: { approveCommand: string; resumeCommand: string },
): string[] {
  const open = approvals.filter((approval) => !approval.expired);
  return [
    ...(open.length === 0 ? [] : [`answer each with: ${commands.approveCommand}`]),
    `then continue with: ${commands.resumeCommand}`,
  ];
}

/** How a person answers and continues a session file (the resume needs the run's model and hook flags again). */
export function fileCommands(file: string): { approveCommand: string; resumeCommand: string } {
  const word = shellWord(file);
  return {
    approveCommand: `seamchart approve ${word} REQUEST_ID [--deny] [--reason TEXT]`,
    resumeCommand: `seamchart run --resume --session ${word} (with the run's --model and hook flags)`,
  };
}

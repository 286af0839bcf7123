// Control operators that separate subcommands (longest first, so `&&` wins over `&`).
const OPERATORS = ['&&', '||', '|&', ';;', ';', '|', '&', '\n'] as const;
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;

/**
 * Splits a shell command into its simple subcommands (at `&&`, `||`, `;`, `|`, `&` and newlines,
 * outside quotes), each as its words with leading `NAME=value` assignments dropped (kept with `keepAssignments`). Returns
 * `undefined` for what this splitter does not model — unbalanced quotes, `$(…)`, backticks,
 * subshells and groups, here-documents — so the caller can fail toward enforcement.
 * @param command the command as the model wrote it
 * @example
 * splitSubcommands('cd repo && FOO=1 git push'); // [['cd', 'repo'], ['git', 'push']]
 */
export function splitSubcommands(
  command: string,
  options: { readonly keepAssignments?: boolean } = {},
): string[][] | undefined {
  const commands: string[][] = [];
  let words: string[] = [];
  let word = '';
  let inWord = false;
  let quote: "'" | '"' | undefined;
  const endWord = (): void => {
    if (inWord) words.push(word);
    word = '';
    inWord = false;
  };
  const endCommand = (): void => {
    endWord();
    if (words.length > 0) commands.push(words);
    words = [];
  };
  for (let i = 0; i < command.length; i++) {
    const char = command[i] as string;
    if (quote === "'") {
      word += char;
      if (char === "'") quote = undefined;
      continue;
    }
    if (char === '\\') {
      if (i + 1 >= command.length) return undefined;
      // A backslash-newline continues the line.
      if (command[i + 1] !== '\n') word += char + command[i + 1];
      inWord = inWord || command[i + 1] !== '\n';
      i++;
      continue;
    }
    if (char === '`' || (char === '$' && command[i + 1] === '(')) return undefined;
    if (quote === '"') {
      word += char;
      if (char === '"') quote = undefined;
      continue;
    }
    if (char === "'" || char === '"') {
      quote = char;
      word += char;
      inWord = true;
      continue;
    }
    if (char === '(' || char === ')' || char === '{' || char === '}') {
      // `{` and `}` inside a word (`a{b,c}`, `${VAR}`) are not groups.
      if ((char === '{' || char === '}') && inWord) {
        word += char;
        continue;
      }
      return undefined;
    }
    if (char === '<' && command[i + 1] === '<') return undefined;
    const operator = OPERATORS.find((op) => command.startsWith(op, i));
    if (operator !== undefined) {
      endCommand();
      i += operator.length - 1;
      continue;
    }
    if (char === ' ' || char === '\t') {
      endWord();
      continue;
    }
    if (char === '#' && !inWord) {
      // A comment runs to the end of the line.
      const newline = command.indexOf('\n', i);
      if (newline === -1) break;
      i = newline - 1;
      continue;
    }
    word += char;
    inWord = true;
  }
  if (quote !== undefined) return undefined;
  endCommand();
  if (options.keepAssignments === true) return commands;
  return commands.map((list) => {
    let first = 0;
    while (first < list.length - 1 && ASSIGNMENT.test(list[first] as string)) first++;
    return list.slice(first);
  });
}

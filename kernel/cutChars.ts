/** The first `max` UTF-16 units of a text, one fewer when the cut would split a surrogate pair (half a character). */
export function cutChars(text: string, max: number): string {
  if (max <= 0) return '';
  const code = text.charCodeAt(max - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? max - 1 : max);
}

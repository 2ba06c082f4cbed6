/**
 * Text from outside (an upstream error, a receiver's answer, a rule id) made safe to
 * show on a terminal: no control character of it — an escape sequence, a line break —
 * can move the cursor, clear the screen, hide a link or write the clipboard.
 */

/** The text of `value` with every control character (ESC, newline, tab …) made a space. */
export function cleanText(value: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: removing them is the point.
  return value.replace(/[\u0000-\u001f\u007f-\u009f]/g, " ");
}

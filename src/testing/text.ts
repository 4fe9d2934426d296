/** Text helpers for tests of what the views write. */

/** `line` with the thin and narrow no-break spaces the number formatters put between digit groups as plain spaces. */
export const plainSpaces = (line: string): string => line.replace(/[\u2009\u202f]/gu, ' ');

/** Tokens named in the values views' sentences: `<|eot_id|> (128 009)`, or `id 55` where no token text is known. */
import { groupDigits } from '../../core/number-format';

export function tokenText(token: { id: number; text: string | null }): string {
  return token.text === null ? `id ${groupDigits(token.id)}` : `${token.text} (${groupDigits(token.id)})`;
}

/** The first `shown` tokens, and "…" when `count` says there are more. */
export function inlineTokens(
  tokens: ReadonlyArray<{ id: number; text: string | null }>,
  count: number,
  shown: number,
): string {
  return tokens.slice(0, shown).map(tokenText).join(', ') + (count > shown ? ', …' : '');
}

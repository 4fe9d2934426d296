/**
 * A file, tensor or Python name that may wrap after its separators (`.`, `_`, `-`, `/`, `:`) rather than inside a
 * word: `…lokr.` / `safetensors`, not `…lokr.safe` / `tensors`. The break points are `<wbr>` elements, so the text
 * itself (what is copied, read aloud or matched by a test) is unchanged.
 */
import { Fragment } from 'react';

/** A separator and what follows it up to the next one: the pieces between which a line may break. */
const PIECES = /[^._\-/:]*[._\-/:]*/g;

export function BreakableName({ text }: { text: string }) {
  const pieces = text.match(PIECES)?.filter((piece) => piece !== '') ?? [text];
  return (
    <>
      {pieces.map((piece, i) => (
        <Fragment key={i}>
          {i > 0 && <wbr />}
          {piece}
        </Fragment>
      ))}
    </>
  );
}

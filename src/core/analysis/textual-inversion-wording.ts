/** Textual inversion wording shared by the Model tab's card and the verdict line. */
import { plural } from '../number-format';
import type { TextualInversionSection } from './textual-inversion';

/** "8 vectors for Stable Diffusion 1.x": what the verdict line says of an embedding. */
export function textualInversionClause(section: TextualInversionSection): string {
  return `Textual inversion embedding: ${plural(section.vectors, 'vector')}${section.base ? ` for ${section.base}` : ''}`;
}

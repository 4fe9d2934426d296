/** A textual inversion embedding: its vectors, which text encoder they are for, and how the prompt calls them. */
import type { TextualInversionSection } from '../../core/analysis/textual-inversion';
import { groupDigits } from '../../core/number-format';
import { Evidence, Fact } from './QuantizationPanel';

const FORMATS: Readonly<Record<TextualInversionSection['format'], string>> = {
  a1111: 'AUTOMATIC1111',
  'per-encoder': 'one set of vectors per text encoder',
  diffusers: "diffusers' learned_embeds",
};

export function TextualInversionCard({ section }: { section: TextualInversionSection }) {
  return (
    <section className="insight textual-inversion" aria-label="Textual inversion">
      <h3>Textual inversion embedding{section.base ? ` for ${section.base}` : ''}</h3>
      <dl className="facts">
        <Fact label="Vectors (prompt tokens it takes)" value={groupDigits(section.vectors)} testId="ti-vectors" />
        <Fact
          label="Text encoder"
          value={section.encoders
            .map((entry) => `${entry.encoder}, ${groupDigits(entry.width)} wide (${entry.tensor})`)
            .join(' · ')}
          testId="ti-encoders"
        />
        <Fact label="Layout" value={FORMATS[section.format]} />
        {section.token !== null && <Fact label="Placeholder in the file" value={section.token} />}
        {section.name !== null && <Fact label="Name" value={section.name} />}
        {section.step !== null && <Fact label="Trained steps" value={groupDigits(section.step)} />}
        {section.trainedOn !== null && <Fact label="Trained on" value={section.trainedOn} />}
      </dl>
      <p className="muted">
        {section.format === 'diffusers'
          ? 'diffusers loads it with pipe.load_textual_inversion(path) and adds its placeholder to the tokenizer.'
          : 'AUTOMATIC1111 and Forge call it by its file name in the prompt; ComfyUI by embedding:<file name>.'}
      </p>
      <Evidence items={section.evidence} />
    </section>
  );
}

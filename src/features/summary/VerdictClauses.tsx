/**
 * The start of the verdict line: the words it leads with (the format and its labels), then the "what is this file"
 * clauses built from the analyses: architecture, then quantization and what stayed in high precision, then the
 * adapter. Each clause opens the tab with its evidence.
 */
import type { ArchitectureSection, LoraSection, QuantizationSection } from '../../core/analysis/report-sections';
import { familyTitle, PACKED_UNKNOWN_FORMAT, withFormat } from '../../core/analysis/quant/wording';
import { isPartial, sampleWords } from '../../core/analysis/sampling';
import { groupDigits, plural } from '../../core/number-format';
import { useAppStore } from '../../state/store';
import type { Panel } from '../../state/view-slice';
import type { LoadResult } from '../../core/result';
import { RANKLESS_FAMILIES } from '../../core/analysis/lora-markers';
import { SENTENCE_TITLES, sentenceOutput } from '../../core/analysis/sentence-model/sentence-wording';
import { textualInversionClause } from '../../core/analysis/textual-inversion-wording';

function architectureClause(arch: ArchitectureSection): string | null {
  if (arch.diffusion) {
    const blocks = Object.entries(arch.diffusion.blocks)
      .map(([name, count]) => `${count} ${name.replace(/_/g, ' ')}`)
      .join(' + ');
    const family =
      arch.family && arch.family.toLowerCase() !== arch.diffusion.kind.toLowerCase() ? ` (${arch.family})` : '';
    return `${arch.diffusion.kind}${family}${blocks ? `, ${blocks}` : ''}`;
  }
  if (arch.layers === null) {
    return arch.family ?? null;
  }
  const parts = [`${arch.family ?? 'Transformer'}, ${plural(arch.layers, 'layer')}`];
  if (arch.hiddenSize) {
    parts.push(`hidden ${groupDigits(arch.hiddenSize)}`);
  }
  if (arch.attention) {
    parts.push(arch.attention);
  }
  if (arch.experts > 0) {
    parts.push(`${plural(arch.experts, 'expert')}${arch.expertsPacked ? ' (packed)' : ''}`);
  }
  return parts.join(', ');
}

function quantizationClause(quant: QuantizationSection): string | null {
  if (quant.format === PACKED_UNKNOWN_FORMAT) {
    return `packed low-bit weights${quant.weightDtype ? ` (${quant.weightDtype})` : ''}, scheme not identified`;
  }
  if (quant.family === 'none') {
    return null;
  }
  const kept = quant.highPrecisionLayers.count;
  const bpw = quant.bitsPerWeight !== null ? ` at ${quant.bitsPerWeight.toFixed(2)} bits/weight` : '';
  // A sampled read (remote budget) settles the format only for the configs read: say so rather than imply all.
  const sample =
    quant.configSample && isPartial(quant.configSample) ? `, format from ${sampleWords(quant.configSample)}` : '';
  // Counted per quantized weight matrix (an MoE layer holds hundreds), never per transformer layer.
  return `${withFormat(familyTitle(quant.family), quant.family, quant.format)} on ${plural(quant.quantizedLayers.count, 'quantized matrix', 'quantized matrices')}${bpw}${sample}${kept > 0 ? `, ${groupDigits(kept)} kept in high precision` : ''}`;
}

function loraClause(lora: LoraSection): string {
  // IA³ and BOFT learn no low-rank factors: they have no rank to state.
  const rank = lora.rank !== null ? `, rank ${lora.rank}` : RANKLESS_FAMILIES.has(lora.family) ? '' : ', rank full';
  // Prompt learning adapts no module: what it learned is its virtual tokens.
  const what = lora.promptEmbedding
    ? `, ${plural(lora.promptEmbedding.virtualTokens, 'virtual token')}`
    : ` on ${plural(lora.modules, 'module')}`;
  return `${lora.family} adapter${rank}${what}${lora.baseModel ? ` for ${lora.baseModel}` : ''}`;
}

/** The clauses the verdict line shows for `result`, each with the tab that holds its evidence. */
function verdictClauses(result: LoadResult): Array<{ text: string; panel: Panel }> {
  const { architecture, quantization, lora, sentenceModel, textualInversion } = result.sections;
  const clauses: Array<{ text: string; panel: Panel }> = [];
  if (lora) {
    clauses.push({ text: loraClause(lora), panel: 'model' });
  } else if (architecture) {
    const text = architectureClause(architecture);
    if (text) {
      clauses.push({ text, panel: 'model' });
    }
  }
  if (textualInversion) {
    clauses.push({ text: textualInversionClause(textualInversion), panel: 'model' });
  }
  if (sentenceModel) {
    clauses.push({ text: `${SENTENCE_TITLES[sentenceModel.kind]}: ${sentenceOutput(sentenceModel)}`, panel: 'model' });
  }
  if (quantization) {
    const text = quantizationClause(quantization);
    if (text) {
      clauses.push({ text, panel: 'quantization' });
    }
  }
  return clauses;
}

/** A word the verdict line leads with (the format, its architecture, name and labels). */
export interface LeadWord {
  text: string;
  testId: string;
}

/**
 * The lead words, then the clauses' row when there is one (the clauses, or the note that they are coming). The row
 * starts a line of its own, so the last word before it takes no separator, which would be left dangling.
 */
export function VerdictClauses({ result, lead }: { result: LoadResult; lead: readonly LeadWord[] }) {
  const setPanel = useAppStore((state) => state.setPanel);
  const clauses = verdictClauses(result);
  const row = result.analysisPending || clauses.length > 0;
  return (
    <>
      {lead.map(({ text, testId }, index) => (
        <span key={`${testId}-${index}`} data-testid={testId}>
          {text}
          {index < lead.length - 1 || !row ? ' · ' : ''}
        </span>
      ))}
      {result.analysisPending ? (
        <span className="verdict-clauses muted" data-testid="verdict-pending">
          Analysing quantization, architecture and adapters…
        </span>
      ) : (
        clauses.length > 0 && (
          <span className="verdict-clauses" data-testid="verdict-clauses">
            {clauses.map((clause, index) => (
              // Each clause carries its own bullet, so a narrow window wraps whole clauses and never leaves a lone "·".
              <span key={`${clause.panel}-${index}`} className="verdict-clause">
                <span aria-hidden="true">{index === 0 ? '●' : '·'}</span>
                <button type="button" className="link-button" onClick={() => setPanel(clause.panel)}>
                  {clause.text}
                </button>
              </span>
            ))}
          </span>
        )
      )}
    </>
  );
}

/** What the model is: architecture inferred from names and shapes, and, for adapters, what they adapt. */
import type { ArchitectureSection, LoraSection } from '../../core/analysis/report-sections';
import { RANKLESS_FAMILIES } from '../../core/analysis/lora-markers';
import { keyNamesLabel } from './lora-naming';
import { layerSpanLabel } from '../../core/analysis/lora-layer-span';
import { formatCount, groupDigits, plural } from '../../core/number-format';
import { Evidence, Fact } from './QuantizationPanel';
import { sampleWords } from '../../core/analysis/sampling';
import { relatedRepoSource } from '../../core/hub-repo';
import { useAppStore } from '../../state/store';

function orDash(value: number | null | undefined): string {
  return value === null || value === undefined ? '—' : groupDigits(value);
}

export function ArchitectureCard({ section }: { section: ArchitectureSection }) {
  return (
    <section className="insight architecture" aria-label="Architecture">
      <h3>Architecture{section.family ? `: ${section.family}` : ''}</h3>
      <dl className="facts">
        {section.diffusion ? (
          <Fact
            label={`Diffusion ${section.diffusion.kind}`}
            value={Object.entries(section.diffusion.blocks)
              .map(([name, count]) => `${count} ${name}`)
              .join(' + ')}
          />
        ) : (
          <Fact
            label="Layers"
            value={`${orDash(section.layers)}${section.partialLayers ? ' (partial)' : ''}${section.encoderLayers === undefined ? '' : ` decoder + ${groupDigits(section.encoderLayers)} encoder`}`}
            testId="arch-layers"
          />
        )}
        <Fact label="Hidden size" value={orDash(section.hiddenSize)} />
        <Fact label="Intermediate size" value={orDash(section.intermediateSize)} />
        <Fact
          label="Attention"
          value={
            section.attention
              ? `${section.attention}${section.heads ? ` · ${section.heads} heads` : ''}${section.kvHeads ? ` / ${section.kvHeads} KV` : ''}${section.headDim ? ` · head dim ${section.headDim}${section.headDimSource ? ` (from ${section.headDimSource})` : ''}` : ''}`
              : '—'
          }
          testId="arch-attention"
        />
        {section.experts > 0 && (
          <Fact
            label="Experts"
            value={`${groupDigits(section.experts)} per layer on ${plural(section.moeLayers, 'layer')}, ${section.expertsPacked ? 'packed (3-D tensors)' : 'one tensor per expert'}${section.sharedExperts ? `, ${section.sharedExperts} shared` : ''}`}
            testId="arch-experts"
          />
        )}
        {section.mla && (
          <Fact
            label="MLA"
            value={`q rank ${orDash(section.mla.qLoraRank)}, kv rank ${orDash(section.mla.kvLoraRank)}, rope dim ${orDash(section.mla.ropeHeadDim)}`}
          />
        )}
        {section.mtpLayers > 0 && <Fact label="MTP layers (not counted)" value={String(section.mtpLayers)} />}
        <Fact label="Vocabulary" value={orDash(section.vocabSize)} />
        <Fact
          label="Tied embeddings"
          value={section.tiedEmbeddings === null ? '—' : section.tiedEmbeddings ? 'yes' : 'no'}
        />
        {section.towers.length > 0 && <Fact label="Towers" value={section.towers.join(', ')} />}
      </dl>
      <Evidence items={section.evidence} />
    </section>
  );
}

/** PEFT's methods that learn no B·A pair, and what each module learns instead. None of them has an alpha or scale. */
const OTHER_METHODS: Partial<Record<LoraSection['family'], string>> = {
  'peft-ia3': 'IA³: one learned vector per module rescales its activations',
  'peft-oft': 'OFT: r orthogonal blocks rotate each weight',
  'peft-boft': 'BOFT: butterfly-factored orthogonal blocks rotate each weight',
  'peft-vera': 'VeRA: two random projections shared by every module (vera_A, vera_B), scaled per module by λb and λd',
  'peft-prompt-tuning':
    'Prompt tuning: learned embeddings of virtual tokens put before every input; the model is unchanged',
  'peft-prefix-tuning':
    'Prefix tuning: a learned key and value per virtual token for every layer; the model is unchanged',
  'peft-p-tuning':
    'P-tuning: virtual-token embeddings from a trained prompt encoder (saved as its output); the model is unchanged',
  'peft-prompt-learning':
    'Prompt learning (prompt tuning, prefix tuning or P-tuning: adapter_config.json says which): learned virtual tokens; the model is unchanged',
};

/** Prompt learning's virtual tokens and each one's saved width (prefix tuning's: every layer's key and value). */
function PromptFacts({ prompt, family }: { prompt: NonNullable<LoraSection['promptEmbedding']>; family: string }) {
  return (
    <>
      <Fact label="Virtual tokens" value={groupDigits(prompt.virtualTokens)} testId="lora-virtual-tokens" />
      <Fact
        label={family === 'peft-prefix-tuning' ? 'Width per token (layers × 2 × KV width)' : 'Width per token'}
        value={groupDigits(prompt.width)}
      />
    </>
  );
}

export function LoraCard({ section }: { section: LoraSection }) {
  const ranks = Object.entries(section.ranks).sort((a, b) => b[1] - a[1]);
  const method = OTHER_METHODS[section.family];
  const rankless = RANKLESS_FAMILIES.has(section.family);
  return (
    <section className="insight lora" aria-label="Adapter">
      <h3>Adapter: {section.family}</h3>
      <dl className="facts">
        {method && <Fact label="Method" value={method} testId="lora-method" />}
        {section.promptEmbedding && <PromptFacts prompt={section.promptEmbedding} family={section.family} />}
        <Fact
          label={section.family === 'peft-oft' ? 'Blocks (r)' : 'Rank'}
          value={rankless ? 'none' : section.rank === null ? 'full' : String(section.rank)}
          testId="lora-rank"
        />
        {!rankless && (
          <Fact label="Rank distribution" value={ranks.map(([rank, count]) => `r=${rank}: ${count}`).join(', ')} />
        )}
        {!method && <AlphaFacts section={section} />}
        <Fact label="Adapted modules" value={groupDigits(section.modules)} testId="lora-modules" />
        {section.layers && (
          <Fact
            label={`Layers (${section.layers.stack})`}
            value={layerSpanLabel(section.layers)}
            testId="lora-layers"
          />
        )}
        {/* Prompt learning names no module: its one tensor is prompt_embeddings. */}
        {!section.promptEmbedding && (
          <>
            <Fact label="Targets" value={section.targets.join(', ') || '—'} />
            <Fact label="Key names" value={keyNamesLabel(section.naming)} testId="lora-naming" />
            <Fact
              label="Components"
              value={Object.entries(section.components)
                .map(([name, count]) => `${name}: ${count}`)
                .join(', ')}
            />
          </>
        )}
        <Fact label="Adapter parameters" value={formatCount(section.adapterParams)} />
        {section.fullTensors > 0 && (
          <Fact
            label={
              section.family === 'peft-vera' ? 'Full tensors (shared projections)' : 'Full tensors (modules_to_save)'
            }
            value={String(section.fullTensors)}
          />
        )}
        {section.baseModel && <Fact label="Base model" value={section.baseModel} />}
      </dl>
      {section.baseModel && <CompareWithBase baseModel={section.baseModel} />}
      <Evidence items={section.evidence} />
    </section>
  );
}

/**
 * One click from an adapter to the comparison with the base it names: whether it fits, and (Compare values) how far
 * it moves each weight. On the source's own Hub API when the adapter came from a listing, else on huggingface.co;
 * nothing is offered for a local path.
 */
function CompareWithBase({ baseModel }: { baseModel: string }) {
  const load = useAppStore((state) => state.load);
  const openCompareSource = useAppStore((state) => state.openCompareSource);
  const setPanel = useAppStore((state) => state.setPanel);
  const source = load.status === 'ready' ? load.result.source : null;
  const target = relatedRepoSource(baseModel, source?.kind === 'url' ? [source.input, source.url] : []);
  if (target === null) {
    return null;
  }
  return (
    <p className="lora-compare-base">
      <button
        type="button"
        data-testid="lora-compare-base"
        onClick={() => {
          setPanel('compare');
          void openCompareSource({ kind: 'url', url: target });
        }}
      >
        Compare with {baseModel}
      </button>{' '}
      <span className="muted">
        Opens the base model&apos;s headers beside this adapter: whether every module fits it, and with &quot;Compare
        values&quot;, how far the adapter moves each weight.
      </span>
    </p>
  );
}

/** Alpha, the .alpha tensors read and the scale: a LoRA's strength (the low-rank families only). */
function AlphaFacts({ section }: { section: LoraSection }) {
  return (
    <>
      <Fact
        label="Alpha"
        value={
          section.alpha === null
            ? '—'
            : `${section.alpha}${section.alphaSource ? ` (from ${section.alphaSource})` : ''}`
        }
        testId="lora-alpha"
      />
      {section.alphaSample && (
        <Fact
          label=".alpha tensors"
          value={`${sampleWords(section.alphaSample)}${section.alphaSource === 'metadata' && section.alphaSample.read > 0 ? ', to confirm the metadata' : ''}`}
          testId="lora-alpha-sample"
        />
      )}
      <Fact
        label={`Scale (${section.scaleBasis ?? 'alpha / r'})`}
        value={section.scale === null ? '—' : String(Number(section.scale.toFixed(4)))}
      />
    </>
  );
}

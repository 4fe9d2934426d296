/**
 * LoRA factors inside a full model (not an adapter file): a PeftModel's state_dict() saved whole, factors never
 * merged, or adapters the model ships with. The LoRA analysis asks this when the file is no adapter.
 */
import { makeFinding } from '../findings/make-finding';
import type { Finding } from '../model';
import { plural, quoteName } from '../parse/message-format';
import { MAX_LORA_TARGETS } from './analysis-limits';
import { FACTOR_PAIRS, isLoraTensor, splitAdapterTensor, targetOf } from './lora-markers';
import { rowsOfShapes, type TensorIndex } from './tensor-index';

/**
 * A full model whose modules still carry LoRA factors: a PeftModel's state_dict() saved whole (the base weight
 * under `.base_layer.weight`, the factors beside it), or factors left next to the weights they were never merged
 * into. Either way the file does not load as the model it looks like. The adapter patterns match literal segments
 * only, so they are tested once per name shape.
 */
export function unmergedAdapterFinding(index: TensorIndex): Finding | null {
  const shapes = index.shapes();
  const factorShapes: number[] = [];
  for (let s = 0; s < shapes.count; s++) {
    const text = shapes.text[s];
    if (isLoraTensor(text) && !text.endsWith('.alpha')) {
      factorShapes.push(s);
    }
  }
  if (factorShapes.length === 0) {
    return null;
  }
  const factorRows = rowsOfShapes(shapes, factorShapes);
  const modules = new Set<string>();
  const targets = new Set<string>();
  /** Per adapter name ('' when the keys carry none): rank → modules. */
  const ranksByAdapter = new Map<string, Map<number, number>>();
  for (const row of factorRows) {
    const parsed = splitAdapterTensor(index.names[row]);
    if (parsed === null) {
      continue;
    }
    modules.add(parsed.module);
    targets.add(targetOf(parsed.module, 'plain'));
    const adapter = parsed.adapterName ?? '';
    const ranks = ranksByAdapter.get(adapter) ?? new Map<number, number>();
    ranksByAdapter.set(adapter, ranks);
    if (parsed.part.role === 'down' && parsed.part.side === 'in') {
      const rank = index.dim(row, FACTOR_PAIRS.find((pair) => pair.down === parsed.part.suffix)?.downDim ?? 0);
      ranks.set(rank, (ranks.get(rank) ?? 0) + 1);
    }
  }
  const baseLayers = index.rowsEndingWith('.base_layer.weight');
  const rankOf = (ranks: ReadonlyMap<number, number>) => [...ranks.entries()].sort((x, y) => y[1] - x[1])[0]?.[0];
  const tensors = [...baseLayers, ...factorRows];
  const where = `${plural(modules.size, 'module')} (${[...targets].slice(0, MAX_LORA_TARGETS).join(', ')})`;
  const named = [...ranksByAdapter.keys()].filter((name) => name !== '' && name !== 'default').sort();
  if (baseLayers.length > 0 && named.length > 0) {
    // Adapters that ship with the model, one per input kind (Phi-4-multimodal's 'speech' and 'vision'): its own
    // modeling code wraps those layers and switches the adapter; they are the model, not a leftover.
    const adapters = named
      .map((name) => {
        const rank = rankOf(ranksByAdapter.get(name) ?? new Map());
        return `'${name}'${rank === undefined ? '' : ` (rank ${rank})`}`;
      })
      .join(', ');
    return makeFinding(
      'lora-built-in',
      `${where} carry ${plural(named.length, 'named LoRA adapter')}, ${adapters}, beside base weights kept under ` +
        `${quoteName(index.names[baseLayers[0]])}: adapters built into the model, as Phi-4-multimodal ships its ` +
        "speech and vision ones, which the model's own code switches per input. Only that code loads the model as " +
        'meant; a loader without it finds no .weight for those layers.',
      tensors,
    );
  }
  const rank = rankOf(ranksByAdapter.get('default') ?? ranksByAdapter.get('') ?? new Map());
  const what = `${where} ${modules.size === 1 ? 'carries' : 'carry'} LoRA factors${rank !== undefined ? ` (rank ${rank})` : ''}`;
  const message =
    baseLayers.length > 0
      ? `${what} beside ${baseLayers.length === 1 ? 'a base weight' : 'base weights'} kept under ` +
        `${quoteName(index.names[baseLayers[0]])}: a PeftModel's state_dict() saved whole, the adapter not merged. ` +
        `Loaded as the plain model, those layers find no .weight of their own and start from random values ` +
        `(transformers only warns). Merge first ` +
        `(merge_and_unload()) to save a plain model, or save the adapter alone with save_pretrained().`
      : `${what} inside a full model: they were never merged into its weights. Loaders of the model's ` +
        `architecture skip them as unexpected keys, so the model runs without the adapter; merge them, or keep ` +
        `the adapter in a file of its own.`;
  return makeFinding('lora-unmerged', message, tensors);
}

/**
 * PEFT's prompt learning (peft `PromptTuningConfig`, `PrefixTuningConfig`, `PromptEncoderConfig`): no module of the
 * model is adapted; the file holds the learned virtual tokens, `prompt_embeddings` [tokens, width]. Prompt tuning and
 * P-tuning prepend `width` = hidden-size embeddings to the input (P-tuning saves its prompt encoder's output, not the
 * encoder); prefix tuning saves, per virtual token, a key and a value for every layer (width = layers × 2 × the
 * attention's KV width). adapter_config.json's `peft_type` tells which; the file alone does not. Pure.
 */
import { groupDigits } from '../number-format';
import type { LoraFamily, LoraSection } from './report-sections';
import type { TensorIndex } from './tensor-index';
import { asNumber, asString } from './values';

const FAMILY_OF_PEFT_TYPE: Readonly<Record<string, LoraFamily>> = {
  PROMPT_TUNING: 'peft-prompt-tuning',
  MULTITASK_PROMPT_TUNING: 'peft-prompt-tuning',
  PREFIX_TUNING: 'peft-prefix-tuning',
  P_TUNING: 'peft-p-tuning',
};

export function promptLearningSection(index: TensorIndex, adapterConfig: Record<string, unknown> | null): LoraSection {
  const row = index.row('prompt_embeddings');
  const virtualTokens = index.rank(row) === 2 ? index.dim(row, 0) : 0;
  const width = index.rank(row) === 2 ? index.dim(row, 1) : 0;
  const peftType = adapterConfig ? asString(adapterConfig.peft_type) : null;
  const family = (peftType === null ? undefined : FAMILY_OF_PEFT_TYPE[peftType]) ?? 'peft-prompt-learning';
  let adapterParams = 0;
  for (let r = 0; r < index.count; r++) {
    adapterParams += index.elements(r);
  }
  const evidence = [
    `prompt_embeddings [${groupDigits(virtualTokens)}, ${groupDigits(width)}] is the only adapter tensor: PEFT prompt learning, no module adapted`,
    peftType
      ? `adapter_config.json peft_type ${peftType}`
      : 'without adapter_config.json, prompt tuning, prefix tuning and P-tuning save the same name',
  ];
  const layers = adapterConfig ? asNumber(adapterConfig.num_layers) : null;
  if (family === 'peft-prefix-tuning' && layers !== null && layers > 0 && width % (2 * layers) === 0) {
    evidence.push(
      `width ${groupDigits(width)} = ${layers} layers (num_layers) × 2 (key and value) × ${groupDigits(width / (2 * layers))} KV width`,
    );
  }
  const submodules = adapterConfig ? asNumber(adapterConfig.num_transformer_submodules) : null;
  if (submodules !== null && submodules > 1) {
    evidence.push(
      `${submodules} transformer submodules (num_transformer_submodules: an encoder and a decoder) each take ${groupDigits(virtualTokens / submodules)} of the rows`,
    );
  }
  return {
    family,
    naming: 'peft',
    rank: null,
    ranks: {},
    alpha: null,
    alphaSource: null,
    scale: null,
    scaleBasis: null,
    targets: [],
    components: {},
    modules: 0,
    adapterParams,
    fullTensors: 0,
    promptEmbedding: { virtualTokens, width },
    ...(adapterConfig && asString(adapterConfig.base_model_name_or_path)
      ? { baseModel: asString(adapterConfig.base_model_name_or_path) ?? undefined }
      : {}),
    evidence,
  };
}

/**
 * How strongly each module of a LoRA is applied: the multiplier on B·A. One reader of the declared alpha for the LoRA
 * analysis (which reports the adapter's alpha and scale) and the value scan (which measures each module's update).
 *
 * Loaders: PEFT applies lora_alpha / r (lora_alpha / √r under `use_rslora`), with `alpha_pattern` overriding the
 * alpha of the modules its keys match; kohya's sd-scripts and diffusers apply each module's `.alpha` tensor over its
 * rank, and alpha = rank (a scale of 1) when a module has none; llama.cpp applies `adapter.lora.alpha` over the rank;
 * MLX applies `lora_parameters.scale` as it is.
 */
import type { TensorIndex } from './tensor-index';
import { asNumber, isRecord, parseJsonText } from './values';

export interface DeclaredAlpha {
  /** adapter_config.json's lora_alpha (PEFT's LoHa and LoKr configs call it alpha). */
  config: number | null;
  /** Which of the two keys gave it, for messages. */
  configKey: 'lora_alpha' | 'alpha';
  /** kohya's __metadata__ ss_network_alpha. */
  kohya: number | null;
  /** diffusers' __metadata__ lora_adapter_metadata (a LoraConfig as JSON), parsed. */
  diffusersMeta: unknown;
  /** The GGUF key adapter.lora.alpha. */
  gguf: number | null;
}

/** kohya's __metadata__ ss_network_alpha: the alpha its trainer gave every module. */
export function kohyaNetworkAlpha(index: TensorIndex): number | null {
  return asNumber(index.metadata.get('ss_network_alpha'));
}

/** Every place an adapter declares one alpha for all its modules. */
export function declaredAlphaOf(index: TensorIndex, adapterConfig: Record<string, unknown> | null): DeclaredAlpha {
  const loraAlpha = adapterConfig ? asNumber(adapterConfig.lora_alpha) : null;
  const alpha = adapterConfig && loraAlpha === null ? asNumber(adapterConfig.alpha) : null;
  return {
    config: loraAlpha ?? alpha,
    configKey: alpha !== null ? 'alpha' : 'lora_alpha',
    kohya: kohyaNetworkAlpha(index),
    diffusersMeta: parseJsonText(index.metadata.get('lora_adapter_metadata')),
    gguf: index.header.gguf?.adapter?.alpha ?? null,
  };
}

export interface LoraScaling {
  /** The alpha declared for every module, and where; null when none is (each `.alpha` tensor may still give one). */
  alpha: number | null;
  alphaFrom: string | null;
  /** PEFT's alpha_pattern keys that name a module path's end (`layers.1.self_attn.q_proj`, `v_proj`) → alpha. */
  alphaPattern: ReadonlyArray<readonly [string, number]>;
  /**
   * alpha_pattern keys written as other regular expressions (`layers\.[0-9]+\.q_proj`): not applied, since a pattern
   * from a file is never compiled (one can take exponential time); their modules keep the declared alpha.
   */
  unappliedPatterns: readonly string[];
  rsLora: boolean;
  /** MLX's lora_parameters.scale, applied as it is whatever the rank. */
  fixedScale: number | null;
}

/** What a load without metadata or config states: nothing (each module's .alpha, else a scale of 1). */
export const NO_LORA_SCALING: LoraScaling = {
  alpha: null,
  alphaFrom: null,
  alphaPattern: [],
  unappliedPatterns: [],
  rsLora: false,
  fixedScale: null,
};

/** The scaling rules an adapter states in its config and metadata. */
export function loraScalingOf(index: TensorIndex, adapterConfig: unknown): LoraScaling {
  const config = isRecord(adapterConfig) ? adapterConfig : null;
  const declared = declaredAlphaOf(index, config);
  // diffusers writes PEFT's LoraConfig into the metadata: it then says what adapter_config.json would.
  const peft = config ?? (isRecord(declared.diffusersMeta) ? declared.diffusersMeta : null);
  const mlx = config && isRecord(config.lora_parameters) ? config.lora_parameters : null;
  const diffusersAlpha = isRecord(declared.diffusersMeta) ? asNumber(declared.diffusersMeta.lora_alpha) : null;
  // Not kohya's ss_network_alpha: its loader (and diffusers') applies each module's .alpha tensor, and alpha = rank
  // where a module has none, whatever the metadata says.
  const [alpha, alphaFrom] =
    declared.config !== null
      ? [declared.config, `adapter_config.json ${declared.configKey}`]
      : diffusersAlpha !== null
        ? [diffusersAlpha, '__metadata__ lora_adapter_metadata']
        : declared.gguf !== null
          ? [declared.gguf, 'adapter.lora.alpha']
          : [null, null];
  const pattern = peft && isRecord(peft.alpha_pattern) ? peft.alpha_pattern : {};
  const entries = Object.entries(pattern).flatMap(([key, value]) => {
    const number = asNumber(value);
    return number === null ? [] : [[key, number] as const];
  });
  return {
    alpha,
    alphaFrom,
    alphaPattern: entries
      .filter(([key]) => RE_PATH_KEY.test(key))
      .map(([key, value]) => [key.replace(/\\\./g, '.'), value] as const),
    unappliedPatterns: entries.filter(([key]) => !RE_PATH_KEY.test(key)).map(([key]) => key),
    rsLora: peft?.use_rslora === true,
    fixedScale: mlx ? asNumber(mlx.scale) : null,
  };
}

export interface ModuleScale {
  scale: number;
  alpha: number | null;
  /** Where the scale comes from, in words. */
  source:
    'alpha tensor' | 'alpha_pattern' | 'declared alpha' | 'mlx scale' | 'none (1 assumed)' | 'none (LoKr halves whole)';
}

/**
 * The multiplier one module's B·A is applied with. `alphaTensor` is the module's own `.alpha` value when it has one.
 * PEFT matches alpha_pattern keys as `(.*\.)?(key)$` over the module's path (peft's get_pattern_key): for a key that
 * is a dotted path, the path itself or its end after a dot.
 */
export function moduleScale(
  scaling: LoraScaling,
  module: string,
  rank: number,
  alphaTensor: number | null,
): ModuleScale {
  if (scaling.fixedScale !== null) {
    return { scale: scaling.fixedScale, alpha: null, source: 'mlx scale' };
  }
  let alpha: number | null = alphaTensor;
  let source: ModuleScale['source'] = 'alpha tensor';
  if (alpha === null) {
    const key = scaling.alphaPattern.find(([pattern]) => patternMatches(pattern, module));
    if (key !== undefined) {
      alpha = key[1];
      source = 'alpha_pattern';
    }
  }
  if (alpha === null && scaling.alpha !== null) {
    alpha = scaling.alpha;
    source = 'declared alpha';
  }
  // kohya's loader takes alpha = rank where a module has none (a scale of 1); so does diffusers without alphas.
  if (alpha === null || alpha === 0 || rank <= 0) {
    return { scale: 1, alpha: null, source: 'none (1 assumed)' };
  }
  return { scale: scaling.rsLora ? alpha / Math.sqrt(rank) : alpha / rank, alpha, source };
}

/** An alpha_pattern key that names a path: segments of letters, digits, `_` and `-`, dots plain or escaped. */
const RE_PATH_KEY = /^(?:[A-Za-z0-9_-]|\\?\.)+$/;

function patternMatches(path: string, module: string): boolean {
  return module === path || module.endsWith(`.${path}`);
}

/**
 * Whether the config read with the weights describes them: the layer count, width, vocabulary and attention widths
 * that transformers builds the model from (`num_hidden_layers`, `hidden_size`, `vocab_size`, `num_attention_heads` ×
 * `head_dim` for q_proj's rows, `num_key_value_heads` × `head_dim` for k_proj's) against what the tensors hold. A
 * config copied from another model, a fine-tune that added tokens without saving its config, or a pruned model with
 * a stale one loads wrongly: a width or vocabulary that differs makes `from_pretrained` stop with "size mismatch",
 * and a layer count that differs builds layers with no weights (initialized at random, with only a warning) or
 * leaves weights unused. Checked for causal language models (`…ForCausalLM`, `…LMHeadModel`, and the reference
 * code's params.json), whose fields mean the same in every family; composite and encoder configs nest or rename them.
 * Pure.
 */
import { makeFinding } from '../findings/make-finding';
import type { Finding } from '../model';
import { groupDigits } from '../number-format';

/** What the config claims, from its text config; null fields are not given. */
export interface ConfigClaims {
  /** The file it came from, as the finding names it. */
  file: string;
  layers: number | null;
  /** The token embedding's width the config builds: hidden_size, or a projected width (OPT's word_embed_proj_dim). */
  hidden: number | null;
  vocab: number | null;
  heads: number | null;
  kvHeads: number | null;
  /** head_dim as given, else hidden_size / num_attention_heads, as transformers derives it. */
  headDim: number | null;
}

/** What the tensors show; null where they cannot tell (a partial stack, a quantized embedding, fused q/k/v). */
export interface TensorFacts {
  layers: number | null;
  layerPrefix: string | null;
  /** The token embedding's row and its rows and width, when it is a plain float matrix. */
  embedding: { row: number; name: string; rows: number; width: number } | null;
  /** The first layer's q and k output widths and the q projection's module. */
  attention: { q: number; kv: number; qModule: string } | null;
}

/** One line per disagreement, and the worst consequence among them; null when the config and tensors agree. */
export function configDisagreement(claims: ConfigClaims, facts: TensorFacts): Finding | null {
  const size: string[] = [];
  const rows: number[] = [];
  const { embedding, attention } = facts;
  if (embedding !== null && claims.vocab !== null && claims.vocab !== embedding.rows) {
    size.push(`vocab_size ${groupDigits(claims.vocab)}, but ${embedding.name} has ${groupDigits(embedding.rows)} rows`);
    rows.push(embedding.row);
  }
  if (embedding !== null && claims.hidden !== null && claims.hidden !== embedding.width) {
    size.push(
      `a width of ${groupDigits(claims.hidden)}, but ${embedding.name} is ${groupDigits(embedding.width)} wide`,
    );
    rows.push(embedding.row);
  }
  if (attention !== null && claims.heads !== null && claims.headDim !== null) {
    const q = claims.heads * claims.headDim;
    if (q !== attention.q) {
      size.push(
        `${groupDigits(claims.heads)} attention heads × head_dim ${groupDigits(claims.headDim)} = ${groupDigits(q)} ` +
          `query rows, but ${attention.qModule} has ${groupDigits(attention.q)}`,
      );
    }
    const kv = (claims.kvHeads ?? claims.heads) * claims.headDim;
    if (kv !== attention.kv) {
      size.push(
        (claims.kvHeads === null ? 'no num_key_value_heads, so as many key/value heads as attention heads: ' : '') +
          `${groupDigits(claims.kvHeads ?? claims.heads)} key/value heads × head_dim ${groupDigits(claims.headDim)} = ` +
          `${groupDigits(kv)} key rows, but the layer's key projection has ${groupDigits(attention.kv)}`,
      );
    }
  }
  const layers: string[] = [];
  if (facts.layers !== null && claims.layers !== null && claims.layers !== facts.layers) {
    const built = groupDigits(claims.layers);
    const held = groupDigits(facts.layers);
    const stack = facts.layerPrefix?.replace(/\.$/, '') ?? 'the stack';
    layers.push(
      claims.layers > facts.layers
        ? `num_hidden_layers ${built}, but ${stack} holds ${held} layers: transformers ` +
            `would build ${built} and initialize the last ${groupDigits(claims.layers - facts.layers)} at random ` +
            '(it warns of missing weights and loads anyway)'
        : `num_hidden_layers ${built}, but ${stack} holds ${held} layers: transformers ` +
            `would build ${built} and leave the weights of the other ${groupDigits(facts.layers - claims.layers)} unused`,
    );
  }
  if (size.length === 0 && layers.length === 0) {
    return null;
  }
  const consequence =
    size.length > 0
      ? ' transformers refuses these weights with this config ("size mismatch" in from_pretrained).'
      : ' The model would load, but it is not the model these weights are.';
  return makeFinding(
    'config-mismatch',
    `${claims.file} does not describe these tensors: ${[...size, ...layers].join('; ')}.${consequence} ` +
      `Use the ${claims.file} saved with these weights, or fix the fields named here.`,
    [...new Set(rows)],
  );
}

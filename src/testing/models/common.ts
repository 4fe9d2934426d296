/**
 * Shared pieces for the model fixtures: the linear layers of a Llama-style decoder layer with real widths, and
 * small byte encoders for the few tensors whose data analyses read (F16 alphas, I64 shapes, JSON configs).
 * Fixture builders keep real names and shapes but only a couple of layers, so tests stay fast and readable.
 */
import type { TensorSpec } from '../build-safetensors';

export interface LlamaDims {
  hidden: number;
  intermediate: number;
  /** Output width of q_proj (heads × head_dim). */
  q: number;
  /** Output width of k_proj / v_proj (kv heads × head_dim). */
  kv: number;
}

export interface Linear {
  /** Module path, e.g. `model.layers.0.self_attn.q_proj`. */
  module: string;
  out: number;
  in: number;
}

/** The seven linears of one Llama-family layer, in transformers' module order. */
export function llamaLinears(layer: number, dims: LlamaDims, prefix = 'model.layers.'): Linear[] {
  const base = `${prefix}${layer}.`;
  return [
    { module: `${base}self_attn.q_proj`, out: dims.q, in: dims.hidden },
    { module: `${base}self_attn.k_proj`, out: dims.kv, in: dims.hidden },
    { module: `${base}self_attn.v_proj`, out: dims.kv, in: dims.hidden },
    { module: `${base}self_attn.o_proj`, out: dims.hidden, in: dims.q },
    { module: `${base}mlp.gate_proj`, out: dims.intermediate, in: dims.hidden },
    { module: `${base}mlp.up_proj`, out: dims.intermediate, in: dims.hidden },
    { module: `${base}mlp.down_proj`, out: dims.hidden, in: dims.intermediate },
  ];
}

export function llamaNorms(layer: number, hidden: number, dtype: string, prefix = 'model.layers.'): TensorSpec[] {
  return [
    { name: `${prefix}${layer}.input_layernorm.weight`, dtype, shape: [hidden] },
    { name: `${prefix}${layer}.post_attention_layernorm.weight`, dtype, shape: [hidden] },
  ];
}

/** A plain (unquantized) Llama-family layer. */
export function plainLlamaLayer(layer: number, dims: LlamaDims, dtype: string): TensorSpec[] {
  return [
    ...llamaLinears(layer, dims).map((l) => ({ name: `${l.module}.weight`, dtype, shape: [l.out, l.in] })),
    ...llamaNorms(layer, dims.hidden, dtype),
  ];
}

export function jsonBytes(value: unknown, pythonStyle = true): Uint8Array {
  // Python's json.dumps puts a space after ':' and ','; the ComfyUI and bitsandbytes writers use it.
  const text = pythonStyle
    ? JSON.stringify(value, null, 1)
        .replace(/\n\s*/g, ' ')
        .replace(/\{ /g, '{')
        .replace(/ \}/g, '}')
        .replace(/\[ /g, '[')
        .replace(/ \]/g, ']')
    : JSON.stringify(value);
  return new TextEncoder().encode(text);
}

/** IEEE half-precision bytes (little-endian) of a finite number, rounding to nearest. */
export function f16Bytes(value: number): Uint8Array {
  const f32 = new Float32Array([value]);
  const bits = new Uint32Array(f32.buffer)[0];
  const sign = (bits >>> 16) & 0x8000;
  const exponent = ((bits >>> 23) & 0xff) - 127 + 15;
  const mantissa = bits & 0x7fffff;
  let half: number;
  if (exponent <= 0) {
    half = sign; // Subnormals and zero: alphas are never that small.
  } else if (exponent >= 31) {
    half = sign | 0x7c00;
  } else {
    half = sign | (exponent << 10) | Math.round(mantissa / 0x2000);
  }
  return new Uint8Array([half & 0xff, half >> 8]);
}

export function f32Bytes(value: number): Uint8Array {
  return new Uint8Array(new Float32Array([value]).buffer);
}

export function i64Bytes(values: readonly number[]): Uint8Array {
  const out = new Uint8Array(values.length * 8);
  const view = new DataView(out.buffer);
  values.forEach((value, i) => view.setBigInt64(i * 8, BigInt(value), true));
  return out;
}

export function i32Bytes(values: readonly number[]): Uint8Array {
  return new Uint8Array(new Int32Array(values).buffer);
}

/**
 * torchao Float8Tensor (per-row) flattened to safetensors. The `:`-suffixed spelling and metadata keys are
 * those of the real pytorch/ao test file fp8_weights.safetensors (a Linear(32, 256) with bias): `0.weight:qdata`
 * F8_E4M3, `0.weight:scale` F32 [256, 1], `0.bias:data` BF16, metadata `0.weight:tensor_type` and
 * `0.weight:block_size`. Here two such layers in a Sequential (names `0.` and `2.`).
 */
import type { TensorSpec } from '../build-safetensors';
import type { ModelFixture } from './header-from-specs';

export function torchaoFloat8Fixture(): ModelFixture {
  const specs: TensorSpec[] = [];
  const metadata: Record<string, string> = {
    tensor_names: JSON.stringify(['0.weight', '0.bias', '2.weight', '2.bias']),
  };
  for (const [layer, out, k] of [
    [0, 256, 32],
    [2, 64, 256],
  ] as const) {
    specs.push(
      { name: `${layer}.weight:scale`, dtype: 'F32', shape: [out, 1] },
      { name: `${layer}.bias:data`, dtype: 'BF16', shape: [out] },
      { name: `${layer}.weight:qdata`, dtype: 'F8_E4M3', shape: [out, k] },
    );
    metadata[`${layer}.weight:tensor_type`] = "<class 'torchao.quantization.Float8Tensor'>";
    metadata[`${layer}.weight:block_size`] = JSON.stringify([1, k]);
    metadata[`${layer}.bias:tensor_type`] = "<class 'torch.Tensor'>";
  }
  return { fileName: 'fp8_weights.safetensors', specs, metadata };
}

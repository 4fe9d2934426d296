/**
 * Writes the sharded-model fixtures of src/testing/shard-fixtures.ts: every shard as a sparse file (its
 * header, then ftruncate to the full size), the index, config.json, and the fake Hub repository.
 */
import { join } from 'node:path';
import { buildHeaderBytes, buildSafetensors } from '../src/testing/build-safetensors';
import { buildShardedModel } from '../src/testing/build-sharded';
import { HUB_REPO, INDEX_FILE, LLAMA_70B_CONFIG, SHARD_FIXTURES } from '../src/testing/shard-fixtures';
import type { FixtureWriter } from './fixtures-extra';

const encoder = new TextEncoder();

export const writeShardedModels: FixtureWriter = (dir, { write, writeSparse }) => {
  for (const fixture of Object.values(SHARD_FIXTURES)) {
    const folder = join(dir, fixture.dir);
    const built = buildShardedModel(fixture.options);
    for (const file of built.files) {
      writeSparse(join(folder, file.name), file.head, file.head.length + file.dataLength);
    }
    write(join(folder, INDEX_FILE), encoder.encode(built.indexJson));
    if ('config' in fixture && fixture.config) {
      write(join(folder, 'config.json'), encoder.encode(`${JSON.stringify(LLAMA_70B_CONFIG, null, 2)}\n`));
    }
  }

  const repo = join(dir, 'hub', HUB_REPO.org, HUB_REPO.name);
  write(join(repo, 'README.md'), encoder.encode('# tiny-diffusers\n\nA fake repository for the e2e tests.\n'));
  write(
    join(repo, 'model_index.json'),
    encoder.encode(`${JSON.stringify({ _class_name: 'FakePipeline', transformer: ['diffusers', 'Model'] })}\n`),
  );
  const transformer = buildShardedModel(HUB_REPO.transformer);
  for (const file of transformer.files) {
    writeSparse(join(repo, 'transformer', file.name), file.head, file.head.length + file.dataLength);
  }
  write(
    join(repo, 'transformer', `${HUB_REPO.transformer.prefix}.safetensors.index.json`),
    encoder.encode(transformer.indexJson),
  );
  write(join(repo, 'transformer', 'config.json'), encoder.encode(`${JSON.stringify(LLAMA_70B_CONFIG, null, 2)}\n`));
  write(
    join(repo, 'text_encoder', 'model.safetensors'),
    buildSafetensors(HUB_REPO.textEncoder, { metadata: { format: 'pt' } }),
  );
  const vae = buildHeaderBytes(HUB_REPO.vae, { metadata: { format: 'pt' } });
  writeSparse(join(repo, 'vae', 'diffusion_pytorch_model.safetensors'), vae.head, vae.head.length + vae.dataLength);
};

/** The Shards tab of a sharded model, and the model switcher / repository file list shown above any result. */
import { TRAINER_STATE_FILE, TRAINING_ARGS_FILE } from '../../core/analysis/training-run/trainer-state';
import type { LoadResult, ShardInfo } from '../../core/result';
import { selectSidecarsNotFound } from '../../state/selectors';
import { useAppStore } from '../../state/store';
import { isTokenizerFile } from '../../core/analysis/tokenizer/tokenizer-files';
import { isSentenceFile, MODULES_FILE } from '../../core/analysis/sentence-model/sentence-files';
import { SidecarsOnDemandNote } from '../load/SidecarsOnDemand';
import { GgufRepoFiles } from './GgufRepoFiles';
import { RepoFiles } from './RepoFiles';
import { ShardBalanceChart } from './ShardBalanceChart';
import { ShardSummary } from './ShardSummary';
import { IndexEntries } from './IndexEntries';
import { SourceSwitcher } from './SourceSwitcher';

export function ShardsPanel({ shards }: { shards: ShardInfo }) {
  return (
    <div className="shards-panel">
      <ShardSummary report={shards.report} />
      {shards.report.totals.presentShards > 0 ? (
        <ShardBalanceChart shards={shards.report.shards} />
      ) : (
        shards.report.index && <IndexEntries total={shards.report.index.weightMapEntries} />
      )}
    </div>
  );
}

/** What a config file (or the training run's state) read beside the model is used for, in the tabs' words. */
function sidecarUse(path: string, hasMemory: boolean): string {
  if (path.endsWith(TRAINER_STATE_FILE)) {
    return "the run's steps, best checkpoint and logged loss in the Training tab";
  }
  if (path.endsWith(TRAINING_ARGS_FILE)) {
    return "the run's settings in the Training tab (its pickle read as data, never run)";
  }
  return path.endsWith('adapter_config.json')
    ? "the adapter's rank, alpha and target modules in the Model tab"
    : `its layer and attention layout and quantization settings feed the ${hasMemory ? 'Memory, Model and Quantization tabs' : 'Model and Quantization tabs'}`;
}

/** Paths as code, comma-separated. */
function FileList({ paths }: { paths: readonly string[] }) {
  return (
    <>
      {paths.map((path, at) => (
        <span key={path}>
          {at > 0 && ', '}
          <code>{path}</code>
        </span>
      ))}
    </>
  );
}

/** The sidecars read: each config file with what it feeds, the tokenizer's and sentence-transformers' files together. */
function SidecarsRead({ result, paths }: { result: LoadResult; paths: string[] }) {
  const tokenizer = paths.filter(isTokenizerFile);
  // Before the analyses arrive, the modules.json among the files read is the folder's.
  const modulesFile =
    result.sections.sentenceModel?.modulesFile ??
    paths.find((path) => path === MODULES_FILE || path.endsWith(`/${MODULES_FILE}`));
  const sentence = modulesFile === undefined ? [] : paths.filter((path) => isSentenceFile(path, modulesFile));
  const configs = paths.filter((path) => !tokenizer.includes(path) && !sentence.includes(path));
  return (
    <p className="muted" data-testid="sidecars-read">
      {configs.map((path) => (
        <span key={path}>
          Also read <code>{path}</code>:{' '}
          {sidecarUse(path, result.analysisPending || result.sections.memory !== undefined)}.{' '}
        </span>
      ))}
      {sentence.length > 0 && (
        <span data-testid="sidecars-read-sentence">
          Also read <FileList paths={sentence} />: the sentence-transformers modules the Model tab lists.{' '}
        </span>
      )}
      {tokenizer.length > 0 && (
        <span>
          Also read <FileList paths={tokenizer} />: the Tokenizer tab shows{' '}
          {tokenizer.length > 1 ? 'what they say' : 'what it says'}.
        </span>
      )}
    </p>
  );
}

/**
 * The other models of this folder drop or repository, and the config files read alongside or left for later;
 * nothing otherwise.
 */
export function ModelSources({ result }: { result: LoadResult }) {
  const sidecarsNotFound = useAppStore(selectSidecarsNotFound);
  if (!result.choices && !result.repo && !result.sidecarsRead && !result.sidecarsOnDemand && !sidecarsNotFound) {
    return null;
  }
  return (
    <div className="model-sources">
      {result.choices && <SourceSwitcher choices={result.choices} />}
      {result.repo && result.repo.files.length > 0 && <RepoFiles repo={result.repo} choices={result.choices} />}
      {result.repo && result.repo.ggufFiles.length > 0 && <GgufRepoFiles result={result} repo={result.repo} />}
      {result.sidecarsRead && <SidecarsRead result={result} paths={result.sidecarsRead} />}
      <SidecarsOnDemandNote result={result} />
    </div>
  );
}

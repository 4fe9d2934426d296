/**
 * The config.json beside a file or index URL (a PEFT adapter's adapter_config.json) is not read during the load
 * (the load sends only header and index reads); it is read once, when a view that shows what it says is opened:
 * these tabs, or the report. The tokenizer's files over HTTP likewise wait for the Tokenizer tab, and a repository's
 * trainer_state.json for the Training tab. This module holds those rules and the line that tells the user about
 * the config.
 */
import { useEffect } from 'react';
import type { LoadResult } from '../../core/result';
import { selectSidecarsNotFound, selectSidecarsReading } from '../../state/selectors';
import { useAppStore } from '../../state/store';
import type { Panel } from '../../state/view-slice';

/** Tabs whose figures change with the config: KV cache layout, architecture, quantization config, LoRA settings. */
const PANELS_THAT_READ_SIDECARS: ReadonlySet<Panel> = new Set<Panel>(['memory', 'model', 'quantization']);

/** Reads the load's deferred sidecars (config, tokenizer, trainer state) when `panel` is one that shows them. */
export function useSidecarsFor(result: LoadResult, panel: Panel): void {
  const readSidecarsOnDemand = useAppStore((state) => state.readSidecarsOnDemand);
  const readTokenizerOnDemand = useAppStore((state) => state.readTokenizerOnDemand);
  const wanted = result.sidecarsOnDemand !== undefined && PANELS_THAT_READ_SIDECARS.has(panel);
  const readTrainingOnDemand = useAppStore((state) => state.readTrainingOnDemand);
  const tokenizerWanted = result.tokenizerOnDemand !== undefined && panel === 'tokenizer';
  const trainingWanted = result.trainingOnDemand !== undefined && panel === 'training';
  useEffect(() => {
    if (wanted) {
      readSidecarsOnDemand();
    }
  }, [wanted, readSidecarsOnDemand]);
  useEffect(() => {
    if (tokenizerWanted) {
      readTokenizerOnDemand();
    }
  }, [tokenizerWanted, readTokenizerOnDemand]);
  useEffect(() => {
    if (trainingWanted) {
      void readTrainingOnDemand();
    }
  }, [trainingWanted, readTrainingOnDemand]);
}

/** What became of the sidecars left for later: not read yet (with a button), being read, or not found. */
export function SidecarsOnDemandNote({ result }: { result: LoadResult }) {
  const readSidecarsOnDemand = useAppStore((state) => state.readSidecarsOnDemand);
  const reading = useAppStore(selectSidecarsReading);
  const notFound = useAppStore(selectSidecarsNotFound);
  const files = result.sidecarsOnDemand ?? notFound;
  if (!files) {
    return null;
  }
  const names = files.join(', ');
  return (
    <p className="muted sidecars-on-demand" role="status" data-testid="sidecars-on-demand">
      {reading ? (
        <>Reading {names} beside the file (one small request)…</>
      ) : result.sidecarsOnDemand ? (
        <>
          {names} beside the file is read when the Memory, Model or Quantization tab opens or the report is downloaded
          (one small request); until then those figures come from the header alone.{' '}
          <button type="button" className="link-button" onClick={readSidecarsOnDemand}>
            Read it now
          </button>
        </>
      ) : (
        <>No usable {names} beside the file: every figure comes from the header alone.</>
      )}
    </p>
  );
}

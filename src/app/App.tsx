/** The shell: toolbar, drop target, and the view for the current load status. */
import { useEffect, useRef, useState, type ReactNode } from 'react';
import { DtypeChart } from '../features/charts/DtypeChart';
import { FORMAT_TABS, formatView } from '../features/formats/format-views';
import { ComparePanel } from '../features/compare/ComparePanel';
import { ExportMenu } from '../features/export/ExportMenu';
import { FindingsPanel } from '../features/findings/FindingsPanel';
import { DropOverlay, FilePickerButton, FolderPickerButton, useFileDrop } from '../features/load/DropZone';
import { readableFormatsPhrase } from '../features/load/format-names';
import { LoadError } from '../features/load/LoadError';
import { LoadProgress } from '../features/load/LoadProgress';
import { SampleButtons } from '../features/load/SampleButtons';
import { useSidecarsFor } from '../features/load/SidecarsOnDemand';
import { ShareBar, ShareWarnings } from '../features/load/ShareBar';
import { TokenControl, UrlForm } from '../features/load/UrlForm';
import { MetadataPanel } from '../features/metadata/MetadataPanel';
import { MetadataInsights } from '../features/insights/MetadataInsights';
import { ArchitectureCard, LoraCard } from '../features/insights/ModelPanel';
import { SentenceModelCard } from '../features/insights/SentenceModelCard';
import { TextualInversionCard } from '../features/insights/TextualInversionCard';
import { QuantizationPanel } from '../features/insights/QuantizationPanel';
import { MemoryPanel } from '../features/memory/MemoryPanel';
import { ModuleTree } from '../features/modules/ModuleTree';
import { ModelSources, ShardsPanel } from '../features/shards/ShardsPanel';
import { NotSafetensors } from '../features/summary/NotSafetensors';
import { TokenizerPanel } from '../features/tokenizer/TokenizerPanel';
import { TrainingPanel } from '../features/training/TrainingPanel';
import { Summary } from '../features/summary/Summary';
import { PreviewTable } from '../features/table/PreviewTable';
import { TensorTable } from '../features/table/TensorTable';
import { allFindings, selectResult, selectTokenizerNotFound, selectTrainingNotFound } from '../state/selectors';
import { useAppStore } from '../state/store';
import type { Panel } from '../state/view-slice';
import type { LoadResult } from '../core/result';
import { groupDigits } from '../core/number-format';
import { useDocumentTitle } from './document-title';
import { useFocusOnLoad } from './focus-on-load';
import { ThemeSelect } from './ThemeSelect';
import { installTokenStorage } from './token-storage';
import { installUrlSync } from './url-sync';
import { ViewTabs } from './ViewTabs';
import { ValueScanPanel } from '../features/values/ValueScanPanel';

export function App() {
  const dragging = useFileDrop();
  const load = useAppStore((state) => state.load);
  const result = useAppStore(selectResult);
  useDocumentTitle(result?.source.name ?? null);
  useEffect(() => {
    const uninstallToken = installTokenStorage();
    const uninstallUrl = installUrlSync();
    return () => {
      uninstallUrl();
      uninstallToken();
    };
  }, []);
  return (
    <div className="app">
      <header className="topbar">
        <h1 className="brand">Safetensors Lens</h1>
        <UrlForm />
        <div className="topbar-actions">
          <FilePickerButton />
          <FolderPickerButton />
          <TokenControl />
          <ThemeSelect />
        </div>
      </header>
      <main>
        <ShareWarnings />
        <LoadProgress />
        {load.status === 'loading' && load.preview && (
          <PreviewTable rows={load.preview.rows} shard={load.preview.shard} loadId={load.loadId} />
        )}
        <LoadError />
        {load.status === 'idle' && <EmptyState />}
        {result && <ResultView result={result} />}
      </main>
      <DropOverlay visible={dragging} />
    </div>
  );
}

function EmptyState() {
  return (
    <section className="empty-state">
      <h2>What is inside that model file?</h2>
      <p>
        Drop a model file anywhere on this page, choose one, or paste a URL or a Hugging Face repo id. Formats read:{' '}
        <span data-testid="readable-formats">{readableFormatsPhrase()}</span>, and shard indexes (
        <code>.index.json</code>). Safetensors Lens reads only what describes the tensors (a safetensors header, usually
        a few kilobytes; a checkpoint's pickle) and shows every tensor, dtype and shape, the parameter count, the
        metadata, and everything that is wrong with the file, including code a pickle would run.
      </p>
      <p className="privacy">
        <strong>Private by design:</strong> files are read in your browser and never uploaded. The weights are never
        read at all.
      </p>
      <div className="empty-actions">
        <FilePickerButton label="Choose a model file" />
        <FolderPickerButton label="Choose a model folder" />
      </div>
      <SampleButtons />
    </section>
  );
}

interface Tab {
  id: Panel;
  label: string;
  /** Tabs without content for this result are hidden rather than shown empty. */
  available: (result: LoadResult) => boolean;
}

const ALWAYS = () => true;

const TABS: Tab[] = [
  { id: 'tensors', label: 'Tensors', available: ALWAYS },
  // Each format's own tab (Checkpoint, GGUF), shown for files of that format.
  ...FORMAT_TABS.map((tab) => ({
    id: tab.id,
    label: tab.label,
    available: (result: LoadResult) =>
      result.outcome.kind === 'parsed' && formatView(result.outcome.header).tab?.id === tab.id,
  })),
  // Shown while its tree is still being built (after the report), with a line saying so.
  {
    id: 'modules',
    label: 'Modules',
    available: (result) => result.sections.moduleTree !== undefined || result.viewsPending === true,
  },
  { id: 'dtypes', label: 'Dtypes', available: ALWAYS },
  { id: 'shards', label: 'Shards', available: (result) => result.shards !== undefined },
  { id: 'quantization', label: 'Quantization', available: (result) => result.sections.quantization !== undefined },
  {
    id: 'model',
    label: 'Model',
    available: (result) =>
      result.sections.architecture !== undefined ||
      result.sections.lora !== undefined ||
      result.sections.textualInversion !== undefined,
  },
  {
    id: 'tokenizer',
    label: 'Tokenizer',
    available: (result) =>
      result.sections.tokenizer !== undefined ||
      result.tokenizerOnDemand !== undefined ||
      result.vocabularyOnDemand !== undefined,
  },
  {
    id: 'training',
    label: 'Training',
    available: (result) => result.sections.trainingRun !== undefined || result.trainingOnDemand !== undefined,
  },
  { id: 'memory', label: 'Memory', available: (result) => result.sections.memory !== undefined },
  {
    id: 'metadata',
    label: 'Metadata',
    available: (result) => result.outcome.kind !== 'parsed' || formatView(result.outcome.header).keysInOwnTab !== true,
  },
  { id: 'compare', label: 'Compare', available: ALWAYS },
];

/**
 * Mounts its children one frame late. The verdict, summary and findings of a new result paint first; the table,
 * the heaviest part, follows in its own task, so neither task blocks the page for long.
 */
function NextFrame({ children }: { children: ReactNode }) {
  const [ready, setReady] = useState(false);
  useEffect(() => {
    const frame = requestAnimationFrame(() => setReady(true));
    return () => cancelAnimationFrame(frame);
  }, []);
  return ready ? children : null;
}

function ResultView({ result }: { result: LoadResult }) {
  const activePanel = useAppStore((state) => state.activePanel);
  const setPanel = useAppStore((state) => state.setPanel);
  const findings = allFindings(result);
  // A Tokenizer or Training tab whose files turned out missing stays, to say so.
  const tokenizerLooked = useAppStore(selectTokenizerNotFound) !== undefined;
  const trainingLooked = useAppStore(selectTrainingNotFound) !== undefined;
  const tabs = TABS.filter(
    (tab) =>
      tab.available(result) || (tab.id === 'tokenizer' && tokenizerLooked) || (tab.id === 'training' && trainingLooked),
  );
  const panel = tabs.some((tab) => tab.id === activePanel) ? activePanel : 'tensors';
  const head = useRef<HTMLDivElement>(null);
  useSidecarsFor(result, panel);
  useFocusOnLoad(head, result.loadId);
  if (result.outcome.kind === 'rejected') {
    return (
      <>
        <div className="result-head" ref={head}>
          <NotSafetensors name={result.source.name} file={result.outcome.file} />
          <ExportMenu result={result} />
        </div>
        <ShareBar result={result} />
        <ModelSources result={result} />
      </>
    );
  }
  const header = result.outcome.header;
  const { sections } = result;
  return (
    <>
      <div className="result-head" ref={head}>
        <Summary result={result} header={header} />
        <ExportMenu result={result} />
      </div>
      <ShareBar result={result} />
      <ModelSources result={result} />
      <ValueScanPanel result={result} />
      <div className="result-body">
        <FindingsPanel findings={findings} />
        <section className="panels">
          <ViewTabs
            tabs={tabs.map((tab) => ({
              id: tab.id,
              label: tab.id === 'metadata' ? `${tab.label} (${header.metadata.count})` : tab.label,
            }))}
            selected={panel}
            onSelect={setPanel}
          />
          <div role="tabpanel" id={`panel-${panel}`} aria-labelledby={`tab-${panel}`}>
            {panel === 'tensors' && (
              <NextFrame key={result.loadId}>
                <TensorTable
                  header={header}
                  loadId={result.loadId}
                  shards={result.shards}
                  measured={sections.tableWidths}
                />
              </NextFrame>
            )}
            {formatView(header).tab?.id === panel &&
              formatView(header).tab?.render({ header, fileName: result.source.name, sections })}
            {panel === 'modules' && sections.moduleTree && <ModuleTree section={sections.moduleTree} />}
            {panel === 'modules' && !sections.moduleTree && result.viewsPending && (
              <p className="muted" role="status" data-testid="modules-pending">
                Grouping {groupDigits(result.totals.tensors)} tensors into modules…
              </p>
            )}
            {panel === 'dtypes' && <DtypeChart totals={result.totals} />}
            {panel === 'shards' && result.shards && <ShardsPanel shards={result.shards} />}
            {panel === 'quantization' && sections.quantization && <QuantizationPanel section={sections.quantization} />}
            {panel === 'model' && (
              <>
                {sections.lora && <LoraCard section={sections.lora} />}
                {sections.textualInversion && <TextualInversionCard section={sections.textualInversion} />}
                {sections.sentenceModel && <SentenceModelCard section={sections.sentenceModel} />}
                {sections.architecture && <ArchitectureCard section={sections.architecture} />}
              </>
            )}
            {panel === 'tokenizer' && <TokenizerPanel result={result} />}
            {panel === 'training' && <TrainingPanel result={result} />}
            {panel === 'memory' && sections.memory && (
              // Remounted when config.json arrives, so the context input starts at the model's own maximum.
              <MemoryPanel
                key={`${result.loadId}:${sections.memory.config}`}
                section={sections.memory}
                header={header}
              />
            )}
            {panel === 'metadata' && (
              <>
                {sections.metadataInsights && <MetadataInsights section={sections.metadataInsights} />}
                <MetadataPanel header={header} />
              </>
            )}
            {panel === 'compare' && <ComparePanel current={result} />}
          </div>
        </section>
      </div>
    </>
  );
}

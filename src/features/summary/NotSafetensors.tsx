/** When the file is not safetensors at all: say what it is and what to do, instead of an empty table. */
import { codeSpec } from '../../core/findings/codes';
import { GGUF_CODES } from '../../core/findings/codes-gguf';
import type { RejectedFile } from '../../core/model';
import { formatBytes } from '../../core/number-format';
import { useAppStore } from '../../state/store';
import { MAX_HEADER_LENGTH_OVERRIDE } from '../../core/limits';
import { CodeText } from '../../lib/CodeText';

export function NotSafetensors({ name, file }: { name: string; file: RejectedFile }) {
  // GGUF files are judged by llama.cpp's loader, the others by the safetensors crate.
  const gguf = file.findings.some((finding) => finding.code in GGUF_CODES);
  const main = file.findings.find((finding) => finding.severity === 'error') ?? file.findings[0];
  const lastSource = useAppStore((state) => state.lastSource);
  const openSource = useAppStore((state) => state.openSource);
  const canParseAnyway =
    file.findings.some((finding) => finding.code === 'header-too-large') &&
    file.headerLength !== null &&
    file.headerLength <= MAX_HEADER_LENGTH_OVERRIDE &&
    (file.fileSize === null || file.headerLength + 8 <= file.fileSize);
  return (
    <section className="not-safetensors" role="alert" aria-labelledby="not-st-title">
      <h2 id="not-st-title">{main ? codeSpec(main.code).title : 'Not a safetensors file'}</h2>
      <p className="file-name">
        <strong>{name}</strong> · {formatBytes(file.fileSize)}
      </p>
      {file.findings.map((finding, index) => (
        <p key={`${finding.code}-${index}`} data-code={finding.code}>
          <code>{finding.code}</code> <CodeText text={finding.message} />
        </p>
      ))}
      <p className="muted">
        {gguf
          ? "The reference loader would refuse this file (llama.cpp's GGUF loader); no tensor could be listed."
          : "The reference loader would refuse this file (safetensors' own loader)."}
      </p>
      {canParseAnyway && lastSource && (
        <button type="button" onClick={() => void openSource(lastSource, { allowOversizedHeader: true })}>
          Parse anyway ({formatBytes(file.headerLength)} header; the reference loader still refuses it)
        </button>
      )}
    </section>
  );
}

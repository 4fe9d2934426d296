import { useState } from 'react';
import { useAppStore } from '../../state/store';
import { SAMPLES, markSample, sampleUrl } from './samples';

/** Samples are app assets: fetched whole (they are tiny) and opened exactly like a dropped file. */
export function SampleButtons() {
  const openSample = useAppStore((state) => state.openSample);
  const [error, setError] = useState<string | null>(null);
  const open = async (file: string) => {
    setError(null);
    try {
      await openSample(sampleUrl(file), file, markSample);
    } catch (cause) {
      setError(`Could not load the sample (${String(cause)}). Run \`npm run fixtures\` to regenerate it.`);
    }
  };
  return (
    <div className="samples">
      <span className="muted">Try a sample:</span>
      {SAMPLES.map((sample) => (
        <button
          key={sample.file}
          type="button"
          className="link-button"
          title={sample.description}
          onClick={() => void open(sample.file)}
        >
          {sample.label}
        </button>
      ))}
      {error && (
        <span role="alert" className="error-text">
          {error}
        </span>
      )}
    </div>
  );
}

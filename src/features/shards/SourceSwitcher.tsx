/**
 * A folder drop or a repository can hold several models (a sharded model, unrelated files, a diffusers pipeline's
 * parts); this switches between them. Each choice re-opens the same source with another model selected.
 */
import type { ModelChoice } from '../../core/shards/choose-model';
import { formatBytes, groupDigits, plural } from '../../core/number-format';
import { useAppStore } from '../../state/store';
import type { SourceChoices } from '../../core/result';

function choiceLabel(choice: ModelChoice): string {
  const size = choice.bytes === null ? '' : ` · ${formatBytes(choice.bytes)}`;
  if (choice.kind === 'single') {
    return `${choice.label}${size}${choice.trainingState !== undefined ? ` · ${choice.trainingState}` : ''}`;
  }
  const shards =
    choice.shardCount > 0
      ? `${groupDigits(choice.files.length)} of ${plural(choice.shardCount, 'shard')}`
      : 'shards listed in the index';
  return `${choice.label} (${shards}${choice.indexFile !== undefined ? ' + index' : ''})${size}`;
}

/** "3 models", or "1 model and 4 training-state files" in a training checkpoint's folder. */
function countWords(choices: SourceChoices): string {
  const state = choices.items.filter((choice) => choice.trainingState !== undefined).length;
  const models = plural(choices.items.length - state, 'model');
  return state === 0 ? models : `${models} and ${plural(state, 'training-state file')}`;
}

export function SourceSwitcher({ choices }: { choices: SourceChoices }) {
  const switchModel = useAppStore((state) => state.switchModel);
  if (choices.items.length < 2) {
    return null;
  }
  return (
    <div className="source-switcher">
      <label>
        <span>{countWords(choices)} here; showing </span>
        <select
          aria-label="Model to show"
          data-testid="source-switcher"
          value={choices.selected}
          onChange={(event) => void switchModel(event.target.value)}
        >
          {choices.items.map((choice) => (
            <option key={choice.key} value={choice.key}>
              {choiceLabel(choice)}
            </option>
          ))}
        </select>
      </label>
    </div>
  );
}

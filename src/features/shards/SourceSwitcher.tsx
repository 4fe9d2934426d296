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
    return `${choice.label}${size}`;
  }
  const shards =
    choice.shardCount > 0
      ? `${groupDigits(choice.files.length)} of ${plural(choice.shardCount, 'shard')}`
      : 'shards listed in the index';
  return `${choice.label} (${shards}${choice.indexFile !== undefined ? ' + index' : ''})${size}`;
}

export function SourceSwitcher({ choices }: { choices: SourceChoices }) {
  const switchModel = useAppStore((state) => state.switchModel);
  if (choices.items.length < 2) {
    return null;
  }
  return (
    <div className="source-switcher">
      <label>
        <span>{plural(choices.items.length, 'model')} here; showing </span>
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

/** A row of radio buttons that picks one of a few options (a chart metric, a compare view): one labelled radiogroup. */
export function Segmented<Option extends string>({
  label,
  name,
  options,
  value,
  onChange,
  optionLabel = (option) => option,
}: {
  /** The radiogroup's accessible name. */
  label: string;
  /** The radio inputs' shared name (unique on the page). */
  name: string;
  options: readonly Option[];
  value: Option;
  onChange: (option: Option) => void;
  /** What each option reads as; the option itself by default. */
  optionLabel?: (option: Option) => string;
}) {
  return (
    <div className="segmented" role="radiogroup" aria-label={label}>
      {options.map((option) => (
        <label key={option} className="inline">
          <input type="radio" name={name} value={option} checked={value === option} onChange={() => onChange(option)} />{' '}
          {optionLabel(option)}
        </label>
      ))}
    </div>
  );
}

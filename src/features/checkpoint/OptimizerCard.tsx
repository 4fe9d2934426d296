/**
 * The Checkpoint tab's account of an optimizer's state (core/analysis/optimizer-state.ts): the algorithm its state
 * names, the parameters it trains and what share of the model they are, the step, the bytes per trained value, each
 * state key, and the groups' learning rate and decay.
 */
import type { OptimizerState, OptimizerStateSection } from '../../core/analysis/optimizer-state';
import { formatBytes, formatCount, formatPercent, groupDigits, plural } from '../../core/number-format';
import { numeric, TableHead } from '../../lib/TableHead';
import { Fact } from '../insights/QuantizationPanel';

/** Group settings given a column, in this order, when any group has them; the rest stay in the Metadata tab. */
const GROUP_COLUMNS: ReadonlyArray<[string, string]> = [
  ['lr', 'lr'],
  ['initial_lr', 'initial lr'],
  ['weight_decay', 'weight decay'],
  ['betas', 'betas'],
  ['momentum', 'momentum'],
  ['eps', 'eps'],
];

function trainedShare(optimizer: OptimizerState): string {
  const trained = `${groupDigits(optimizer.trainedElements)} values`;
  const model = optimizer.modelParameters;
  if (model === null || model === 0) {
    return trained;
  }
  if (optimizer.trainedElements === model) {
    return `${trained}: every parameter of the model`;
  }
  return `${trained}, ${formatPercent(optimizer.trainedElements, model)} of the model's ${formatCount(model)} parameters`;
}

function Groups({ optimizer }: { optimizer: OptimizerState }) {
  const columns = GROUP_COLUMNS.filter(([key]) =>
    optimizer.groups.some((group) => group.settings.some((setting) => setting.key === key)),
  );
  if (optimizer.groups.length === 0 || columns.length === 0) {
    return null;
  }
  return (
    <div className="table-scroll">
      <table data-testid="optimizer-groups">
        <caption>Parameter groups</caption>
        <TableHead columns={['Group', ...columns.map(([, label]) => numeric(label))]} />
        <tbody>
          {optimizer.groups.map((group) => (
            <tr key={group.index}>
              <td>{group.index}</td>
              {columns.map(([key]) => (
                <td key={key} className="num mono">
                  {group.settings.find((setting) => setting.key === key)?.value ?? '—'}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function OptimizerDetails({ optimizer }: { optimizer: OptimizerState }) {
  const perValue = optimizer.trainedElements > 0 ? optimizer.bytes / optimizer.trainedElements : null;
  return (
    <>
      <dl className="facts">
        <Fact label="Algorithm" value={optimizer.algorithm ?? 'not recognised'} testId="optimizer-algorithm" />
        <Fact label="Parameters with state" value={groupDigits(optimizer.parameters)} testId="optimizer-parameters" />
        <Fact label="Trained" value={trainedShare(optimizer)} testId="optimizer-trained" />
        <Fact
          label="Step"
          value={optimizer.step === null ? 'not read' : groupDigits(optimizer.step)}
          testId="optimizer-step"
        />
        <Fact
          label="State"
          value={`${formatBytes(optimizer.bytes)}${perValue === null ? '' : `, ${perValue.toFixed(1)} bytes per trained value`}`}
          testId="optimizer-bytes"
        />
      </dl>
      <p className="muted">Named from its {optimizer.evidence}.</p>
      <div className="table-scroll">
        <table data-testid="optimizer-keys">
          <caption>State per parameter</caption>
          <TableHead columns={['Key', numeric('Tensors'), numeric('Elements'), 'Dtype', numeric('Bytes')]} />
          <tbody>
            {optimizer.keys.map((entry) => (
              <tr key={entry.key}>
                <td className="mono">{entry.key}</td>
                <td className="num">{groupDigits(entry.tensors)}</td>
                <td className="num">{groupDigits(entry.elements)}</td>
                <td className="mono">{entry.dtypes.join(', ')}</td>
                <td className="num">{formatBytes(entry.bytes)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <Groups optimizer={optimizer} />
    </>
  );
}

export function OptimizerCard({ section }: { section: OptimizerStateSection }) {
  return (
    <section className="insight checkpoint-optimizer" aria-label="Optimizer state" data-testid="optimizer-state">
      <h3>
        Optimizer state
        {section.optimizers.length > 1 ? ` (${plural(section.optimizers.length, 'optimizer')})` : ''}
      </h3>
      {section.optimizers.map((optimizer) => (
        <div key={optimizer.path}>
          {(section.optimizers.length > 1 || optimizer.path !== '') && (
            <h4 className="mono">{optimizer.path || '(root)'}</h4>
          )}
          <OptimizerDetails optimizer={optimizer} />
        </div>
      ))}
    </section>
  );
}

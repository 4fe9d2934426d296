/**
 * The value scan's LoRA card: how much each module changes its weight, ‖ΔW‖ = scale · ‖B·A‖ (Frobenius norms), by
 * layer (or module), by target and strongest first; with where each scale came from and what was not measured.
 */
import { UPDATE_FORMS } from './update-forms';
import { formatValue, groupDigits, plural } from '../../core/number-format';
import type { LoraModuleUpdate, LoraUpdates } from '../../core/values/lora-update';
import { OUTLIER_FACTOR } from '../../core/values/value-scan';
import { strongestUpdates, updateBars, updateOutliers, updatesByTarget } from '../../core/values/lora-update-summary';
import { numeric, TableHead } from '../../lib/TableHead';
import { useAppStore } from '../../state/store';
import { BarChart } from './ValueCharts';
import { UnmeasuredNote } from './UnmeasuredNote';

const STABLE_RANK_TITLE =
  'Stable rank ‖ΔW‖²_F / ‖ΔW‖²₂: how many directions the update uses, from 1 (one) to the rank (all equally)';

/** Modules in the strongest-first table; the report has them all. */
const STRONGEST_LISTED = 10;

/** How the scales were found, one clause per source, with the modules each covers. */
function scaleWords(updates: LoraUpdates): string {
  const counts = new Map<LoraModuleUpdate['scaleSource'], number>();
  for (const module of updates.modules) {
    counts.set(module.scaleSource, (counts.get(module.scaleSource) ?? 0) + 1);
  }
  const over = updates.rsLora ? '√rank' : 'rank';
  const clauses = [...counts].map(([source, count]) => {
    const modules = counts.size > 1 ? ` (${plural(count, 'module')})` : '';
    switch (source) {
      case 'alpha tensor':
        return `alpha / ${over} from each module's .alpha tensor${modules}`;
      case 'alpha_pattern':
        return `alpha / ${over} from adapter_config.json alpha_pattern${modules}`;
      case 'declared alpha':
        return `alpha / ${over} with alpha from ${updates.alphaFrom ?? 'the adapter'}${modules}`;
      case 'mlx scale':
        return `adapter_config.json lora_parameters.scale, as MLX applies it${modules}`;
      case 'none (LoKr halves whole)':
        return `1 for LoKr modules whose halves are both stored whole, to which the loaders apply no alpha${modules}`;
      default:
        return `1 where no alpha is stated, as kohya's and diffusers' loaders take alpha = rank${modules}`;
    }
  });
  return clauses.join('; ');
}

/** Modules the training moved far more than the others of their target: a diverged layer, or a mis-scaled one. */
function UpdateOutliers({ modules }: { modules: readonly LoraModuleUpdate[] }) {
  const outliers = updateOutliers(modules);
  if (outliers.length === 0) {
    return null;
  }
  return (
    <p className="values-error" role="note" data-testid="lora-updates-outliers">
      {plural(outliers.length, 'module')} changed over {OUTLIER_FACTOR}× as much as the median of{' '}
      {outliers.length === 1 ? 'its' : 'their'} target:{' '}
      {outliers
        .slice(0, 3)
        .map(
          (o) =>
            `${o.module.module} (‖ΔW‖ ${formatValue(o.module.norm)}, ${formatValue(o.ratio)}× the ${o.module.target} median)`,
        )
        .join('; ')}
      {outliers.length > 3 ? '; …' : ''}. A layer moved this much more than its peers diverged in training or carries
      another scale; check it before merging the adapter.
    </p>
  );
}

/** How LyCORIS modules are measured, when the adapter has any: in the loaders' terms, ΔW still never formed. */
function LycorisWords({ modules }: { modules: readonly LoraModuleUpdate[] }) {
  const lokr = modules.filter((module) => module.lycoris === 'lokr').length;
  const loha = modules.filter((module) => module.lycoris === 'loha').length;
  const locon = modules.filter((module) => module.lycoris === 'locon').length;
  if (lokr + loha + locon === 0) {
    return null;
  }
  const pairs = modules.length - lokr - loha - locon;
  const parts = [
    ...(pairs > 0 ? [`${plural(pairs, 'LoRA module')}: ΔW = scale · ${UPDATE_FORMS.pair}`] : []),
    ...(lokr > 0
      ? [`${plural(lokr, 'LoKr module')}: ΔW = scale · ${UPDATE_FORMS.lokr}, whose norms are W1's times W2's`]
      : []),
    ...(loha > 0
      ? [`${plural(loha, 'LoHa module')}: ΔW = scale · ${UPDATE_FORMS.loha}, one product of rank r1 · r2`]
      : []),
    ...(locon > 0
      ? [`${plural(locon, 'Tucker LoCon module')}: ΔW = scale · ${UPDATE_FORMS.locon}, its core between its factors`]
      : []),
  ];
  return (
    <span data-testid="lora-updates-lycoris">
      {parts.join('; ')}; a LyCORIS module&apos;s rank column is the most its ΔW can have, its halves&apos; ranks
      multiplied.{' '}
    </span>
  );
}

function NormCell({ value }: { value: number }) {
  return <td className="num">{formatValue(value)}</td>;
}

export function LoraUpdatesCard({ updates }: { updates: LoraUpdates }) {
  const showRows = useAppStore((state) => state.showRows);
  const { modules } = updates;
  if (modules.length === 0 && updates.unmeasured === 0) {
    return null;
  }
  const { byLayer, bars, stacks } = updateBars(modules);
  const strongest = strongestUpdates(modules, STRONGEST_LISTED);
  const weakest = strongestUpdates(modules, modules.length).at(-1);
  return (
    <div className="lora-updates" data-testid="lora-updates">
      <h4>LoRA update per module</h4>
      {modules.length > 0 && (
        <p data-testid="lora-updates-summary">
          {modules.some((module) => module.lycoris !== undefined) ? (
            <>
              ‖ΔW‖ (Frobenius norms) for {plural(modules.length, 'module')}, from their factors&apos; Gram matrices (ΔW
              itself is not formed: a module&apos;s name opens its factors, where Compute ΔW forms it).{' '}
              <LycorisWords modules={modules} />
            </>
          ) : (
            <>
              ‖ΔW‖ = scale · ‖B·A‖ (Frobenius norms) for {plural(modules.length, 'module')}, from each factor
              pair&apos;s rank × rank Gram matrices (ΔW itself is not formed: a module&apos;s name opens its factors,
              where Compute ΔW forms it).{' '}
            </>
          )}
          Scale: {scaleWords(updates)}. Largest <span className="mono">{strongest[0].module}</span> (
          {formatValue(strongest[0].norm)})
          {weakest && weakest !== strongest[0] ? (
            <>
              , smallest <span className="mono">{weakest.module}</span> ({formatValue(weakest.norm)})
            </>
          ) : null}
          .
        </p>
      )}
      <UpdateOutliers modules={modules} />
      {updates.unappliedPatterns.length > 0 && (
        <p className="muted" data-testid="lora-updates-patterns">
          adapter_config.json alpha_pattern keys written as regular expressions are not applied (a pattern from a file
          is never run: one can take exponential time), so their modules are scaled by lora_alpha here:{' '}
          {updates.unappliedPatterns.map((key) => `"${key}"`).join(', ')}.
        </p>
      )}
      {updates.dora && (
        <p className="muted" data-testid="lora-updates-dora">
          DoRA: its magnitude vectors also rescale each output of W + ΔW, which needs the base weights; these figures
          are of ΔW = scale · B·A alone.
        </p>
      )}
      <UnmeasuredNote
        count={updates.unmeasured}
        examples={updates.unmeasuredExamples}
        verb="measured"
        testId="lora-updates-unmeasured"
      />
      {bars.length > 1 && (
        <BarChart
          testId="lora-updates-chart"
          label={byLayer ? 'LoRA update per layer' : 'LoRA update per module'}
          bars={bars.map((bar) => ({
            key: `${bar.stack ?? ''}${bar.label}`,
            label: bar.label,
            value: bar.norm,
            title: byLayer
              ? `${stacks ? bar.stack : 'layer '}${bar.label}: ‖ΔW‖ ${formatValue(bar.norm)} over ${plural(bar.modules, 'module')}`
              : `${bar.label}. ${bar.module}: ‖ΔW‖ ${formatValue(bar.norm)}`,
          }))}
          caption={
            (byLayer
              ? '‖ΔW‖ per layer, its modules together (√ of the sum of their squares; layer numbers under the bars' +
                (stacks ? `; the bars run through ${stacks}` : '') +
                ')'
              : '‖ΔW‖ per module, numbered in name order (hover a bar for its module)') +
            `; tallest bar ${formatValue(Math.max(...bars.map((bar) => bar.norm)))}`
          }
        />
      )}
      {modules.length > 0 && (
        <div className="lora-updates-tables">
          <table className="values-compare-table" data-testid="lora-updates-targets">
            <caption>By target, largest median first</caption>
            <TableHead
              columns={[
                'target',
                numeric('modules'),
                numeric('median ‖ΔW‖'),
                numeric('max ‖ΔW‖'),
                numeric('median RMS', 'Root mean square of ΔW per weight: ‖ΔW‖ / √(out × in)'),
                numeric('median stable rank', STABLE_RANK_TITLE),
              ]}
            />
            <tbody>
              {updatesByTarget(modules).map((row) => (
                <tr key={row.target}>
                  <td className="mono lora-updates-target">{row.target}</td>
                  <td className="num">{groupDigits(row.modules)}</td>
                  <NormCell value={row.medianNorm} />
                  <NormCell value={row.maxNorm} />
                  <NormCell value={row.medianRms} />
                  <td className="num">{row.medianStableRank === null ? '—' : formatValue(row.medianStableRank)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <table className="values-compare-table" data-testid="lora-updates-strongest">
            <caption>
              Largest updates{modules.length > STRONGEST_LISTED ? ` (${STRONGEST_LISTED} of ${modules.length})` : ''}
            </caption>
            <TableHead
              columns={[
                'module',
                numeric('rank'),
                numeric('scale'),
                numeric('‖ΔW‖'),
                numeric('RMS'),
                numeric('stable rank', STABLE_RANK_TITLE),
              ]}
            />
            <tbody>
              {strongest.map((module) => (
                <tr key={module.module}>
                  <td className="mono values-scan-module">
                    <button
                      type="button"
                      className="link-button"
                      title={`Show ${module.module}'s factors in the table; Compute ΔW in their details forms the update`}
                      onClick={() => showRows(`LoRA module: ${module.module}`, module.rows)}
                    >
                      {module.module}
                    </button>
                  </td>
                  <td className="num">{module.rank}</td>
                  <td className="num">{formatValue(module.scale)}</td>
                  <NormCell value={module.norm} />
                  <NormCell value={module.rms} />
                  <td className="num">{module.stableRank === null ? '—' : formatValue(module.stableRank)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}

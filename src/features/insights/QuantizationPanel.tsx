/** How the file is quantized, per layer: family and format, bits, what stayed in high precision, and why we think so. */
import type { LayerList, QuantizationSection } from '../../core/analysis/report-sections';
import { familyTitle, PACKED_UNKNOWN_FORMAT, withFormat } from '../../core/analysis/quant/wording';
import { groupDigits, plural } from '../../core/number-format';
import { useAppStore } from '../../state/store';
import { CodeText } from '../../lib/CodeText';
import { countFigure } from '../../lib/figure';
import { DtypeTotalsTable } from '../charts/DtypeTotalsTable';
import { isPartial, sampleWords } from '../../core/analysis/sampling';
import { numeric, TableHead } from '../../lib/TableHead';

function Layers({ title, list }: { title: string; list: LayerList }) {
  if (list.count === 0) {
    return null;
  }
  return (
    <details className="layer-list">
      <summary>
        {title}: {groupDigits(list.count)}
      </summary>
      <ul>
        {list.names.map((name) => (
          <li key={name}>
            <code>{name}</code>
          </li>
        ))}
        {list.count > list.names.length && (
          <li className="muted">… and {groupDigits(list.count - list.names.length)} more</li>
        )}
      </ul>
    </details>
  );
}

export function QuantizationPanel({ section }: { section: QuantizationSection }) {
  const setQuery = useAppStore((state) => state.setQuery);
  const setPanel = useAppStore((state) => state.setPanel);
  return (
    <section className="insight quantization" aria-label="Quantization">
      <h3>
        {section.format === PACKED_UNKNOWN_FORMAT
          ? 'Packed low-bit weights, scheme not identified'
          : familyTitle(section.family, section.format)}
      </h3>
      <p data-testid="quant-summary">
        <CodeText text={section.summary} />
      </p>
      <dl className="facts">
        <Fact label="Format" value={section.format} />
        <Fact label="Bits per weight value" value={section.bits === null ? '—' : String(section.bits)} />
        <Fact
          label="Group size"
          value={section.groupSize === null ? (section.granularity ?? '—') : String(section.groupSize)}
        />
        {section.blockSize && <Fact label="Block" value={`${section.blockSize[0]} × ${section.blockSize[1]}`} />}
        <Fact label="Weight storage dtype" value={section.weightDtype ?? '—'} />
        <Fact
          label="Effective bits per weight (incl. scales, zeros, maps)"
          value={section.bitsPerWeight === null ? '—' : section.bitsPerWeight.toFixed(3)}
          testId="quant-bpw"
        />
        <Fact
          label="Whole file bits per parameter"
          value={section.overallBitsPerParam === null ? '—' : section.overallBitsPerParam.toFixed(3)}
        />
        <Fact
          label="Parameters (logical)"
          {...countFigure(section.logicalParams, 'parameters')}
          testId="quant-params"
        />
        <Fact
          label="Stored elements"
          {...countFigure(section.storedElements, 'elements')}
          testId="quant-stored-elements"
        />
        <Fact label="Confidence" value={section.confidence} />
      </dl>
      {section.paramsBasis.length > 0 && (
        <div className="params-basis" data-testid="quant-params-basis">
          <h4>How the parameters were counted</h4>
          <ul>
            {section.paramsBasis.map((line) => (
              <li key={line}>{line}</li>
            ))}
          </ul>
        </div>
      )}
      {section.config && (
        <p className={section.config.agrees ? 'muted' : 'error-text'}>
          config.json says {section.config.method ?? '?'}
          {section.config.bits !== null && `, ${section.config.bits} bits`}
          {section.config.groupSize !== null && `, group ${section.config.groupSize}`} —{' '}
          {section.config.agrees ? 'agrees with the header' : 'disagrees with the header'}.
        </p>
      )}
      {section.perLayerConfigs && section.perLayerConfigs.length > 0 && (
        <>
          <h4>Per-layer configs</h4>
          {section.configSample && isPartial(section.configSample) && (
            <p className="muted" data-testid="quant-config-sample">
              Read over the network within a bounded budget: {sampleWords(section.configSample)}. The table counts only
              the {plural(section.configSample.read, 'layer')} whose config was read; the other layers&apos; formats
              were guessed from their weight dtypes.
            </p>
          )}
          <table className="plain-table" aria-label="Per-layer quantization configs">
            <TableHead columns={['Config', numeric('Layers'), 'Examples']} />
            <tbody>
              {section.perLayerConfigs.map((group) => (
                <tr key={group.config}>
                  <td>
                    <code>{group.config}</code>
                  </td>
                  <td className="num">{groupDigits(group.count)}</td>
                  <td>
                    {group.examples.slice(0, 3).map((example) => (
                      <button
                        key={example}
                        type="button"
                        className="link-button"
                        onClick={() => {
                          setQuery({ filter: example, rows: null });
                          setPanel('tensors');
                        }}
                      >
                        {example}
                      </button>
                    ))}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
      <Layers title="Quantized layers" list={section.quantizedLayers} />
      <Layers title="Kept in high precision" list={section.highPrecisionLayers} />
      {section.others && section.others.length > 0 && (
        <p>
          Also present:{' '}
          {section.others
            .map(
              (other) =>
                `${withFormat(familyTitle(other.family), other.family, other.format)} on ${plural(other.layers, 'layer')}`,
            )
            .join('; ')}
        </p>
      )}
      <h4>Precision</h4>
      <DtypeTotalsTable label="Precision by dtype" rows={section.precision.byDtype} withShare />
      {section.needsConfig && section.needsConfig.length > 0 && (
        <>
          <h4>What the header cannot tell (config.json would)</h4>
          <ul>
            {section.needsConfig.map((item) => (
              <li key={item}>{item}</li>
            ))}
          </ul>
        </>
      )}
      <Evidence items={section.evidence} />
    </section>
  );
}

export function Fact({
  label,
  value,
  title,
  testId,
}: {
  label: string;
  value: string;
  title?: string;
  testId?: string;
}) {
  return (
    <div className="fact" title={title}>
      <dt>{label}</dt>
      <dd data-testid={testId}>{value}</dd>
    </div>
  );
}

export function Evidence({ items }: { items: string[] }) {
  if (items.length === 0) {
    return null;
  }
  return (
    <details className="evidence">
      <summary>Evidence ({items.length})</summary>
      <ul>
        {items.map((item, index) => (
          <li key={`${index}-${item}`}>
            <CodeText text={item} />
          </li>
        ))}
      </ul>
    </details>
  );
}

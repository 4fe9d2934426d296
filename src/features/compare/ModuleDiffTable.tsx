/**
 * The diff per module (a top-level module, or one numbered layer: `layers.5`): tensors per group and parameters on
 * each side. Modules number a few hundred at most (capped in core), so they sort and filter here on the page, in
 * the same virtualized table. Clicking a module shows its tensors.
 */
import { useMemo, useState } from 'react';
import type { ModuleDiff } from '../../core/compare/diff';
import { compileFilter } from '../../core/table-query';
import { formatCount, groupDigits } from '../../core/number-format';
import { useAppStore } from '../../state/store';
import { MODULE_STATUS_LABELS, signed } from './labels';
import { ElidedName } from '../table/ElidedName';
import { QueryToolbar } from '../table/TableToolbar';
import { nextSort, VirtualTable, type VirtualColumn } from '../table/VirtualTable';

type ModuleKey =
  | 'index'
  | 'name'
  | 'status'
  | 'tensors'
  | 'onlyA'
  | 'onlyB'
  | 'dtype'
  | 'shape'
  | 'identical'
  | 'elementsA'
  | 'elementsB'
  | 'delta';

const STATUS_ORDER: Record<ModuleDiff['status'], number> = { 'only-a': 0, 'only-b': 1, changed: 2, identical: 3 };

function sortValue(module: ModuleDiff, key: ModuleKey): number | string {
  switch (key) {
    case 'name':
      return module.name;
    case 'status':
      return STATUS_ORDER[module.status];
    case 'delta':
      return module.elementsB - module.elementsA;
    case 'index':
      return 0;
    default:
      return module[key];
  }
}

export function ModuleDiffTable({ modules }: { modules: readonly ModuleDiff[] }) {
  const [filter, setFilter] = useState('');
  const [onlyChanged, setOnlyChanged] = useState(false);
  const [sort, setSort] = useState<{ sortKey: ModuleKey; descending: boolean }>({
    sortKey: 'index',
    descending: false,
  });
  const setCompareQuery = useAppStore((state) => state.setCompareQuery);
  const setCompareView = useAppStore((state) => state.setCompareView);
  const compiled = useMemo(() => compileFilter(filter), [filter]);

  const order = useMemo(() => {
    const test = compiled.ok ? compiled.test : () => true;
    const rows: number[] = [];
    modules.forEach((module, index) => {
      if ((!onlyChanged || module.status !== 'identical') && test(module.name)) {
        rows.push(index);
      }
    });
    if (sort.sortKey !== 'index') {
      const sign = sort.descending ? -1 : 1;
      const key = sort.sortKey;
      rows.sort((x, y) => {
        const vx = sortValue(modules[x], key);
        const vy = sortValue(modules[y], key);
        return vx === vy ? x - y : sign * (vx < vy ? -1 : 1);
      });
    } else if (sort.descending) {
      rows.reverse();
    }
    return rows;
  }, [modules, compiled, onlyChanged, sort]);

  const columns = useMemo((): Array<VirtualColumn<ModuleKey>> => {
    const count = (key: 'tensors' | 'onlyA' | 'onlyB' | 'dtype' | 'shape' | 'identical', header: string) => ({
      id: key,
      header,
      numeric: true,
      widthCh: Math.max(header.length + 2, 6),
      cell: (i: number) => groupDigits(modules[i][key]),
    });
    return [
      {
        id: 'name',
        header: 'Module (aligned)',
        flexible: true,
        widthCh: 24,
        cell: (i) => <ElidedName name={modules[i].name} />,
        text: (i) => modules[i].name,
      },
      {
        id: 'status',
        header: 'Status',
        widthCh: 12,
        cell: (i) => (
          <span className={`diff-status diff-${modules[i].status}`}>{MODULE_STATUS_LABELS[modules[i].status]}</span>
        ),
      },
      count('tensors', 'Tensors'),
      count('onlyA', 'Only A'),
      count('onlyB', 'Only B'),
      count('dtype', 'Dtype ≠'),
      count('shape', 'Shape ≠'),
      count('identical', 'Same'),
      {
        id: 'elementsA',
        header: 'Elements A',
        numeric: true,
        widthCh: 10,
        cell: (i) => formatCount(modules[i].elementsA),
      },
      {
        id: 'elementsB',
        header: 'Elements B',
        numeric: true,
        widthCh: 10,
        cell: (i) => formatCount(modules[i].elementsB),
      },
      {
        id: 'delta',
        header: 'Δ elements',
        numeric: true,
        widthCh: 16,
        cell: (i) => signed(modules[i].elementsB - modules[i].elementsA, groupDigits),
      },
    ];
  }, [modules]);

  return (
    <div className="tensor-table-wrap">
      <QueryToolbar
        filter={{
          value: filter,
          onCommit: setFilter,
          label: 'Filter modules',
          placeholder: 'Filter modules: text or /regex/',
          error: compiled.ok ? null : compiled.error,
          immediate: true,
        }}
        count={{
          total: modules.length,
          noun: ['module', 'modules'],
          shown: order.length,
          busy: false,
          testId: 'module-row-count',
        }}
      >
        <label className="inline">
          <input type="checkbox" checked={onlyChanged} onChange={(event) => setOnlyChanged(event.target.checked)} />{' '}
          only modules that differ
        </label>
      </QueryToolbar>
      <VirtualTable
        label="Compared modules"
        columns={columns}
        order={order}
        sort={sort}
        onSort={(key) =>
          setSort(
            nextSort(sort, key, key !== 'name' && key !== 'status') as { sortKey: ModuleKey; descending: boolean },
          )
        }
        className="module-diff-table"
        testId="module-table-scroll"
        rowTitle={(i) => `Show the tensors of ${modules[i].name}`}
        onActivate={(i) => {
          setCompareQuery({ module: modules[i].name, groups: [] });
          setCompareView('tensors');
        }}
        emptyText="No modules match."
      />
    </div>
  );
}

/** The repository's model files (safetensors and PyTorch .bin), with sizes; any of them opens with one click (its model, if sharded). */
import { useMemo } from 'react';
import { formatBytes, groupDigits } from '../../core/number-format';
import { useAppStore } from '../../state/store';
import type { RepoInfo, SourceChoices } from '../../core/result';
import { numeric, TableHead } from '../../lib/TableHead';

export function RepoFiles({ repo, choices }: { repo: RepoInfo; choices: SourceChoices | undefined }) {
  const switchModel = useAppStore((state) => state.switchModel);
  const choiceOf = useMemo(() => {
    const map = new Map<string, string>();
    for (const choice of choices?.items ?? []) {
      for (const file of choice.files) {
        map.set(file, choice.key);
      }
      if (choice.indexFile !== undefined) {
        map.set(choice.indexFile, choice.key);
      }
    }
    return map;
  }, [choices]);
  return (
    <details className="repo-files" data-testid="repo-files">
      <summary>
        Repository <strong>{repo.display}</strong>: {groupDigits(repo.files.length)} model file
        {repo.files.length === 1 ? '' : 's'}
        {repo.truncated && ' (listing truncated)'}
      </summary>
      <table className="plain-table" aria-label="Repository files">
        <TableHead columns={['File', numeric('Size'), '']} />
        <tbody>
          {repo.files.map((file) => {
            const key = choiceOf.get(file.path);
            const open = key !== undefined && key === choices?.selected;
            return (
              <tr key={file.path} data-path={file.path}>
                <td>{file.path}</td>
                <td className="num">{formatBytes(file.size)}</td>
                <td>
                  {open ? (
                    <span className="muted">open</span>
                  ) : (
                    key !== undefined && (
                      <button type="button" className="link-button" onClick={() => void switchModel(key)}>
                        Open
                      </button>
                    )
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </details>
  );
}

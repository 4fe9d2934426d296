/**
 * The module-tree node pattern: a name prefix in which a run of numbered siblings is written `{first-last}`
 * (`model.layers.{0-60}.mlp.`). The module tree writes these patterns; the table filter and the tree's own tests
 * read them through this matcher, without loading the tree builder.
 */
import { isUnderscorePath } from './underscore-paths';

/**
 * Builds a test for names covered by a node pattern (`{a-b}` matches a decimal index in that range). A pattern that
 * ends with a separator (`.`, or `_` in a path written with underscores: `lora_unet_down_blocks_{0-2}_`) covers the
 * names below it; any other is one name.
 */
export function modulePatternMatcher(pattern: string): (name: string) => boolean {
  if (pattern === '') {
    return () => true;
  }
  const ranges: Array<[number, number]> = [];
  const source = pattern
    .split(/(\{\d+-\d+\})/)
    .map((part) => {
      const match = /^\{(\d+)-(\d+)\}$/.exec(part);
      if (match) {
        ranges.push([Number(match[1]), Number(match[2])]);
        return '(\\d+)';
      }
      return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    })
    .join('');
  const below = pattern.endsWith('.') || (pattern.endsWith('_') && isUnderscorePath(pattern));
  const regex = new RegExp(`^${source}${below ? '' : '$'}`);
  return (name) => {
    const match = regex.exec(name);
    if (!match) {
      return false;
    }
    return ranges.every(([low, high], i) => {
      const value = Number(match[i + 1]);
      return value >= low && value <= high;
    });
  };
}

/**
 * The header engine's entry points: from the first bytes of a file (or the exact header JSON) to a ParseOutcome
 * with the columnar tensor table and every finding. Pure: no IO, no DOM.
 */
import { MAX_HEADER_LENGTH, MAX_HEADER_LENGTH_OVERRIDE, MIN_FILE_SIZE } from '../limits';
import { makeFinding } from '../findings/make-finding';
import type { Finding, ParseOutcome, ParsedHeader } from '../model';
import { metadataColumns, tensorName } from '../model';
import { resolveDuplicateNames } from './duplicate-names';
import { checkEntries, indexExactIntegers } from './entry-checks';
import { formatCount, quoteName } from './message-format';
import { HeaderScanner } from './header-scanner';
import { invisibleNamesFinding } from './invisible-names';
import { ScanFailure, findInvalidUtf8 } from './json-cursor';
import { checkLayout } from './layout';
import { LENGTH_PREFIX_BYTES, readLengthPrefix, readLengthPrefixExact } from './length-prefix';
import {
  bomFinding,
  duplicateFieldFinding,
  duplicateMetadataFinding,
  duplicateMetadataKeysFinding,
  duplicateNameFindings,
  emptyHeaderFinding,
  entryFindings,
  fatalScanFinding,
  groupIssues,
  headerLengthExceedsFileFinding,
  headerNotPaddedFinding,
  headerTooLargeFinding,
  layoutFindings,
  leadingWhitespaceFinding,
  metadataNotObjectFinding,
  metadataNotStringFinding,
  nulPaddingFinding,
  unsafeIntegerFinding,
} from './messages';
import { sniffNotSafetensors } from '../formats/not-safetensors';

export { readLengthPrefix } from './length-prefix';

export interface ParseOptions {
  /** The user's explicit "parse anyway" for headers above MAX_HEADER_LENGTH (still bounded by the override). */
  allowOversizedHeader?: boolean;
}

/** Headers are padded so tensor data starts on this boundary (the reference writer's choice). */
const HEADER_ALIGNMENT = 8;

function rejected(headerLength: number | null, fileSize: number | null, findings: Finding[]): ParseOutcome {
  return { kind: 'rejected', file: { headerLength, fileSize, findings } };
}

/**
 * Parses a file from its first bytes: the 8-byte prefix plus the N header bytes (fewer when the file is short
 * or not safetensors; the findings then say so). `fileSize` is null when unknown.
 */
export function parseFileHead(bytes: Uint8Array, fileSize: number | null, options: ParseOptions = {}): ParseOutcome {
  const sniffed = sniffNotSafetensors(bytes, fileSize);
  if (sniffed) {
    return rejected(bytes.length >= MIN_FILE_SIZE ? readLengthPrefix(bytes).length : null, fileSize, [sniffed]);
  }
  if (bytes.length < MIN_FILE_SIZE) {
    return rejected(null, fileSize, [
      makeFinding(
        'too-short',
        `Only ${formatCount(bytes.length)} bytes of the file could be read; a safetensors file starts with an 8-byte header length. Try loading it again.`,
      ),
    ]);
  }
  const prefix = readLengthPrefix(bytes);
  const headerLength = prefix.length;
  // Messages quote the prefix digit for digit; past 2^53 only the bigint holds it.
  const statedLength = prefix.exact ? headerLength : readLengthPrefixExact(bytes);
  const findings: Finding[] = [];
  const available = bytes.length - MIN_FILE_SIZE;
  const exceedsFileSize = fileSize !== null && MIN_FILE_SIZE + headerLength > fileSize;
  if (!prefix.exact || headerLength > MAX_HEADER_LENGTH) {
    const parseAnyway =
      options.allowOversizedHeader === true && prefix.exact && headerLength <= MAX_HEADER_LENGTH_OVERRIDE;
    findings.push(headerTooLargeFinding(statedLength, parseAnyway));
    if (!parseAnyway) {
      if (exceedsFileSize) {
        findings.push(headerLengthExceedsFileFinding(statedLength, fileSize, available));
      }
      return rejected(headerLength, fileSize, findings);
    }
  }
  // Fewer bytes than N with the file big enough means the source ended early: the same problem for the user.
  if (exceedsFileSize || available < headerLength) {
    findings.push(headerLengthExceedsFileFinding(headerLength, fileSize, available));
    return rejected(headerLength, fileSize, findings);
  }
  const outcome = parseSafetensorsHeader(bytes.subarray(MIN_FILE_SIZE, MIN_FILE_SIZE + headerLength), {
    headerLength,
    fileSize,
  });
  if (findings.length > 0) {
    const target = outcome.kind === 'parsed' ? outcome.header.findings : outcome.file.findings;
    target.unshift(...findings);
  }
  return outcome;
}

/**
 * Parses exactly the N header JSON bytes (without the 8-byte prefix). Never throws on malformed input: fatal problems
 * (invalid UTF-8 or JSON, not an object, too deep) give `rejected`; everything else gives `parsed` with the
 * table and all findings.
 */
export function parseSafetensorsHeader(
  headerBytes: Uint8Array,
  info: { headerLength: number; fileSize: number | null },
): ParseOutcome {
  const scanner = new HeaderScanner(headerBytes);
  try {
    scanner.scanDocument();
  } catch (error) {
    if (!(error instanceof ScanFailure)) {
      throw error;
    }
    return rejected(info.headerLength, info.fileSize, [fatalFinding(error, headerBytes, scanner)]);
  }
  const columns = scanner.builder.finish();
  const findings: Finding[] = [];
  if (scanner.bomLength > 0) {
    findings.push(bomFinding());
  }
  if (scanner.leadingWhitespaceBytes > 0) {
    findings.push(leadingWhitespaceFinding(scanner.leadingWhitespaceBytes));
  }
  if (scanner.nulPaddingBytes > 0) {
    findings.push(nulPaddingFinding(scanner.nulPaddingBytes));
  }

  const exactByRow = indexExactIntegers(scanner.exactIntegers);
  const { effective, groups } = resolveDuplicateNames(
    columns,
    scanner.builder.nameHash,
    scanner.unknownDtypes,
    exactByRow,
  );
  findings.push(...duplicateNameFindings(groups, columns));
  const issueGroups = groupIssues(scanner.issues, columns);
  const duplicateFields = issueGroups.get('duplicate-key');
  if (duplicateFields) {
    findings.push(duplicateFieldFinding(duplicateFields));
  }
  if (scanner.metadataOccurrences > 1) {
    findings.push(duplicateMetadataFinding(scanner.metadataOccurrences));
  }
  if (scanner.metadataDuplicateKeys.length > 0) {
    findings.push(duplicateMetadataKeysFinding(scanner.metadataDuplicateKeys));
  }
  const invisible = invisibleNamesFinding(columns, scanner.metadata);
  if (invisible) {
    findings.push(invisible);
  }

  if (scanner.exactIntegers.length > 0) {
    const first = scanner.exactIntegers[0];
    const what = first.field === 'dim' ? `dimension ${first.index + 1}` : `data_offsets ${first.field}`;
    findings.push(
      unsafeIntegerFinding(
        [...new Set(scanner.exactIntegers.map((integer) => integer.row))],
        scanner.exactIntegers.length,
        `${quoteName(tensorName(columns, first.row))} ${what} = ${formatCount(first.value)}`,
      ),
    );
  }

  const checks = checkEntries(columns, effective, exactByRow, scanner.builder.rowsNeedingExactMath);
  findings.push(...entryFindings(issueGroups, checks));
  const layout = checkLayout({
    columns,
    effective,
    exactByRow,
    headerLength: info.headerLength,
    fileSize: info.fileSize,
  });
  findings.push(...layoutFindings(layout, columns, info.fileSize));

  if (scanner.metadataInvalid) {
    findings.push(metadataNotObjectFinding(scanner.metadataInvalid.kind, scanner.metadataInvalid.excerpt));
  }
  const nonStringMetadata = scanner.metadata.filter((entry) => entry.kind !== 'string');
  if (nonStringMetadata.length > 0) {
    findings.push(metadataNotStringFinding(nonStringMetadata));
  }
  if (info.headerLength % HEADER_ALIGNMENT !== 0) {
    findings.push(headerNotPaddedFinding(info.headerLength));
  }
  if (columns.count === 0) {
    findings.push(emptyHeaderFinding(scanner.metadataState !== 'absent'));
  }

  const header: ParsedHeader = {
    ...(effective ? { shadowedRows: shadowedRows(effective) } : { namesDistinct: true as const }),
    headerLength: info.headerLength,
    dataStart: LENGTH_PREFIX_BYTES + info.headerLength,
    fileSize: info.fileSize,
    tensors: columns,
    unknownDtypes: scanner.unknownDtypes,
    metadataState: scanner.metadataState,
    metadata: metadataColumns(scanner.metadata),
    dataBytes: layout.dataEnd,
    findings,
  };
  return { kind: 'parsed', header };
}

/** Rows the reference never sees: every earlier entry of a repeated name. */
function shadowedRows(effective: Uint8Array): Uint32Array {
  const rows: number[] = [];
  for (let row = 0; row < effective.length; row++) {
    if (effective[row] === 0) {
      rows.push(row);
    }
  }
  return Uint32Array.from(rows);
}

/**
 * The reference validates UTF-8 over the whole header before any JSON, so a later invalid byte outranks an
 * earlier JSON error: report what it would report.
 */
function fatalFinding(failure: ScanFailure, headerBytes: Uint8Array, scanner: HeaderScanner): Finding {
  if (failure.code !== 'invalid-utf8') {
    const invalidAt = findInvalidUtf8(headerBytes);
    if (invalidAt >= 0) {
      const byte = headerBytes[invalidAt].toString(16).padStart(2, '0');
      const reason = `byte 0x${byte} does not continue or start a UTF-8 character`;
      return fatalScanFinding(new ScanFailure('invalid-utf8', invalidAt, reason, false), headerBytes, null);
    }
  }
  return fatalScanFinding(failure, headerBytes, failure.code === 'not-an-object' ? scanner.topLevelKind : null);
}

/**
 * What a torch.save archive's `byteorder` record means (torch/serialization.py): `little` or none, little-endian
 * storages; `big`, storages torch.load swaps on a little-endian machine; anything else, a file torch.load refuses.
 */
import { makeFinding } from '../../findings/make-finding';
import type { Finding } from '../../model';
import type { ByteOrderRecord } from './pickle-summary';

/** Whether a `byteorder` record was read and holds exactly `text`. */
export function says(record: ByteOrderRecord | undefined, text: 'little' | 'big'): boolean {
  return record !== undefined && 'text' in record && record.text === text;
}

/** A `byteorder` record other than `little`: big-endian data, or a record torch.load refuses. */
export function byteOrderFindings(record: ByteOrderRecord | undefined): Finding[] {
  if (record === undefined || says(record, 'little')) {
    return [];
  }
  if (says(record, 'big')) {
    return [
      makeFinding(
        'checkpoint-big-endian',
        'This archive was saved on a big-endian machine (its byteorder record says big, as torch.save writes on ' +
          's390x): every number in its storages is stored big-endian. torch.load swaps the bytes on a little-endian ' +
          'machine, and the values read here are swapped the same way; the conversion script writes safetensors, ' +
          'which is always little-endian.',
      ),
    ];
  }
  const what =
    'text' in record ? `holds ${JSON.stringify(record.text.slice(0, 40))}` : `cannot be read: ${record.problem}`;
  return [
    makeFinding(
      'checkpoint-byte-order-invalid',
      `The archive's byteorder record ${what}, where torch writes little or big: torch.load refuses the file ` +
        '("Unknown endianness type"). Its tensors are listed from data.pkl; their values are read as little-endian.',
    ),
  ];
}

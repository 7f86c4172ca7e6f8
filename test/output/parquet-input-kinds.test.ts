import type { SchemaElement, SchemaTree } from 'hyparquet';
import { describe, expect, it } from 'vitest';
import { kindOf } from '../../src/output/parquet-input-columns.js';

/** A schema node as hyparquet's parquetSchema gives it. */
function node(element: Partial<SchemaElement> & { name: string }, children: SchemaTree[] = []): SchemaTree {
  return { element: { repetition_type: 'OPTIONAL', ...element } as SchemaElement, children, count: 1, path: [element.name] };
}
const leaf = (name: string, type: NonNullable<SchemaElement['type']>, extra: Partial<SchemaElement> = {}) => node({ ...extra, name, type });

describe('the kind an input column keeps in --format parquet', () => {
  it('INT96, the timestamps Impala, Hive and older Spark write, is a TIMESTAMP (it was ISO text)', () => {
    expect(kindOf(leaf('t', 'INT96'))).toBe('TIMESTAMP');
  });

  it('reads lists in the standard three levels and the older two, and a repeated leaf as a list of it', () => {
    const three = node({ name: 'l', converted_type: 'LIST' }, [
      node({ name: 'list', repetition_type: 'REPEATED' }, [leaf('element', 'INT32')]),
    ]);
    expect(kindOf(three)).toEqual({ list: 'INT64' });
    const two = node({ name: 'l', converted_type: 'LIST' }, [
      leaf('array', 'BYTE_ARRAY', { repetition_type: 'REPEATED', converted_type: 'UTF8' }),
    ]);
    expect(kindOf(two)).toEqual({ list: 'STRING' });
    expect(kindOf(leaf('r', 'DOUBLE', { repetition_type: 'REPEATED' }))).toEqual({ list: 'DOUBLE' });
  });

  it('writes a map, a list of another shape and a repeated group as JSON; a struct as a struct of its fields', () => {
    const map = node({ name: 'm', converted_type: 'MAP' }, [
      node({ name: 'key_value', repetition_type: 'REPEATED' }, [
        leaf('key', 'BYTE_ARRAY', { repetition_type: 'REQUIRED' }),
        leaf('value', 'INT32'),
      ]),
    ]);
    expect(kindOf(map)).toBe('JSON');
    const wide = node({ name: 'l', converted_type: 'LIST' }, [
      node({ name: 'list', repetition_type: 'REPEATED' }, [leaf('a', 'INT32'), leaf('b', 'INT32')]),
    ]);
    expect(kindOf(wide)).toBe('JSON');
    expect(kindOf(node({ name: 'g', repetition_type: 'REPEATED' }, [leaf('a', 'INT32')]))).toBe('JSON');
    expect(kindOf(node({ name: 's' }, [leaf('a', 'BOOLEAN'), leaf('d', 'INT32', { converted_type: 'DATE' })]))).toEqual({
      struct: [
        { name: 'a', kind: 'BOOLEAN' },
        { name: 'd', kind: 'DATE' },
      ],
    });
  });

  it('writes a struct nested past 16 levels as JSON there', () => {
    let deep = leaf('x', 'INT64');
    for (let level = 0; level < 20; level++) deep = node({ name: `s${level}` }, [deep]);
    let kind = kindOf(deep);
    let depth = 0;
    while (typeof kind !== 'string' && 'struct' in kind) {
      kind = kind.struct[0]!.kind;
      depth++;
    }
    expect([depth, kind]).toEqual([16, 'JSON']);
  });
});

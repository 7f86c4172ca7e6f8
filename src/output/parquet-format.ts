import { ByteWriter, ParquetWriter, type Writer } from 'hyparquet-writer';
import type { InputRow } from '../input/row.js';
import type { RowRecord } from '../record/record.js';
import type { ByteSink, FormatContext, FormatWriter } from './format-writer.js';
import { toolInfo } from './manifest.js';
import { parquetTableColumns, type TableColumn } from './parquet-columns.js';
import { schemaElements } from './parquet-kinds.js';

/** A row group is written once it holds this many rows, or about this many bytes of text: memory holds one row group. */
const ROW_GROUP_ROWS = 16_384;
const ROW_GROUP_BYTES = 32 * 1024 * 1024;
/** What a record costs beside its reply and message, for the byte estimate. */
const RECORD_OVERHEAD_BYTES = 256;

/**
 * `--format parquet`: output.parquet and errors.parquet, typed (see parquet-columns.ts), snappy
 * compressed, written a row group at a time into files that appear complete or not at all.
 */
export async function parquetWriter(context: FormatContext, [output, errors]: readonly [ByteSink, ByteSink]): Promise<FormatWriter> {
  const [outputColumns, errorColumns] = await parquetTableColumns(context);
  const tables = [new ParquetTable(outputColumns, output), new ParquetTable(errorColumns, errors)] as const;
  return {
    add: (row, record, ok) => tables[ok ? 0 : 1].add(row, record),
    end: () => {
      for (const table of tables) table.end();
    },
  };
}

/** One Parquet file being written: the rows of the current row group, column by column. */
class ParquetTable {
  private readonly writer: ParquetWriter;
  private columns: unknown[][];
  private rows = 0;
  private bytes = 0;

  constructor(
    private readonly schema: readonly TableColumn[],
    sink: ByteSink,
  ) {
    this.columns = schema.map(() => []);
    this.writer = new ParquetWriter({
      writer: sinkWriter(sink),
      schema: [{ name: 'root', num_children: schema.length }, ...schema.flatMap((column) => schemaElements(column.name, column.kind))],
      codec: 'SNAPPY',
      createdBy: `chatbatch version ${toolInfo().version}`,
    });
  }

  add(row: InputRow, record: RowRecord): void {
    for (let i = 0; i < this.schema.length; i++) this.columns[i]!.push(this.schema[i]!.value(row, record));
    this.rows++;
    this.bytes += RECORD_OVERHEAD_BYTES + (record.reply?.length ?? 0) + (record.message?.length ?? 0);
    if (this.rows >= ROW_GROUP_ROWS || this.bytes >= ROW_GROUP_BYTES) this.flush();
  }

  end(): void {
    this.flush();
    this.writer.finish();
  }

  private flush(): void {
    if (this.rows === 0) return;
    const columnData = this.schema.map((column, i) => ({ name: column.name, data: this.columns[i]! as never }));
    this.writer.write({ columnData, rowGroupSize: this.rows });
    this.columns = this.schema.map(() => []);
    this.rows = 0;
    this.bytes = 0;
  }
}

/**
 * hyparquet-writer's ByteWriter, emptied into `sink` after each row group and at the end (as its
 * own fileWriter does): `offset` keeps counting the file's bytes, `index` restarts at 0.
 */
function sinkWriter(sink: ByteSink): Writer {
  const writer = new ByteWriter();
  const drain = (): void => {
    sink.write(Buffer.from(new Uint8Array(writer.buffer, 0, writer.index)));
    writer.index = 0;
  };
  return Object.assign(writer, { flush: drain, finish: drain });
}

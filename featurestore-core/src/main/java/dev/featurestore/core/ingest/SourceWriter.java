package dev.featurestore.core.ingest;

import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericRecord;

/**
 * Reads a row source to its end: converts every row to the current schema, adds an unknown
 * column when auto evolution is on (closing the open files and opening new ones with the wider
 * schema), and writes the rows to data files, or only counts them on a dry run. Not thread-safe.
 */
final class SourceWriter {
  private final Table table;
  private final TrackingFileIO io;
  private final IngestAutoEvolution evolution;
  private final boolean autoEvolve;
  private final IngestProgressTracker progress;
  private final boolean dryRun;

  SourceWriter(Table table, TrackingFileIO io, IngestAutoEvolution evolution, boolean autoEvolve,
      IngestProgressTracker progress, boolean dryRun) {
    this.table = table;
    this.io = io;
    this.evolution = evolution;
    this.autoEvolve = autoEvolve;
    this.progress = progress;
    this.dryRun = dryRun;
  }

  /** Writes every row of {@code rowSource}; returns the data files written (none on a dry run). */
  List<DataFile> write(RowSource rowSource) {
    List<DataFile> files = new ArrayList<>();
    RowMapper mapper = newMapper(rowSource);
    FileSink sink = dryRun ? null : newSink();
    try {
      RawRow raw = new RawRow();
      GenericRecord record = mapper.newRecord();
      while (rowSource.next(raw)) {
        String unknown;
        while ((unknown = mapper.map(raw, record, autoEvolve)) != null) {
          evolution.addColumn(unknown, valueOf(raw, unknown), raw.number, rowSource);
          mapper = newMapper(rowSource);
          record = mapper.newRecord();
          if (sink != null) {
            files.addAll(sink.finish());
            sink = newSink();
          }
        }
        if (sink != null) {
          sink.write(record);
        }
        progress.rowWritten();
      }
      if (sink != null) {
        FileSink done = sink;
        sink = null;
        files.addAll(done.finish());
      }
      return files;
    } finally {
      if (sink != null) {
        sink.abort();
      }
    }
  }

  private RowMapper newMapper(RowSource rowSource) {
    return new RowMapper(evolution.schema(), rowSource.snakeCaseNames(), evolution.nullOnlyColumns());
  }

  private FileSink newSink() {
    return FileSink.generic(table, evolution.schema(), io, 0);
  }

  private static Object valueOf(RawRow raw, String name) {
    for (int i = 0; i < raw.size; i++) {
      if (raw.names[i].equals(name)) {
        return raw.values[i];
      }
    }
    return null;
  }
}

package dev.featurestore.cdc;

import dev.featurestore.core.base.HadoopDefaultsHidden;
import dev.featurestore.core.base.IcebergParquet;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.deletes.EqualityDeleteWriter;
import org.apache.iceberg.deletes.PositionDeleteWriter;
import org.apache.iceberg.encryption.EncryptedOutputFile;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.FileWriterFactory;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.parquet.ParquetValueWriter;
import org.apache.iceberg.parquet.ParquetValueWriters;
import org.apache.iceberg.parquet.TripleWriter;
import org.apache.iceberg.types.Types;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.ColumnWriteStore;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.MessageType;

/**
 * Change-log data files written from the accepted entries themselves: Iceberg's Parquet data
 * writer (the table's writer properties, metrics, rolling, file naming) with a row model over
 * {@link Logged} instead of a {@code GenericRecord} per row. Timestamps go in as the microseconds
 * Parquet stores (no {@code OffsetDateTime} per row, which cost a tenth of the writer thread), the
 * per-batch and per-operation values as one constant each. Used for tables whose columns are the
 * change log's own and whose spec is unpartitioned ({@link #fits}); others take the generic path.
 */
final class ChangeLogRows implements FileWriterFactory<Logged> {
  private final Table table;
  private final Schema schema;
  private final Map<String, String> properties;
  private final Binary shard;
  private final long commitMicros;

  /**
   * @param table the table (or a read-only copy of it) the files are for
   * @param properties writer properties on top of the table's
   */
  ChangeLogRows(Table table, Map<String, String> properties, String shard, long commitMillis) {
    this.table = table;
    this.schema = table.schema();
    Map<String, String> all = new HashMap<>(table.properties());
    all.putAll(properties);
    this.properties = Map.copyOf(all);
    this.shard = Binary.fromConstantByteArray(shard.getBytes(StandardCharsets.UTF_8));
    this.commitMicros = Math.multiplyExact(commitMillis, 1000L);
  }

  /**
   * Whether {@code table}'s rows can be written here: only change-log columns, of their types,
   * unpartitioned, and Iceberg's Parquet writer not relocated (see {@link IcebergParquet}).
   */
  static boolean fits(Table table) {
    if (!IcebergParquet.takesParquetTypes() || !table.spec().isUnpartitioned()) {
      return false;
    }
    Schema expected = CdcTables.changeLogSchema();
    for (Types.NestedField column : table.schema().columns()) {
      Types.NestedField known = expected.findField(column.name());
      if (known == null || !known.type().equals(column.type())) {
        return false;
      }
    }
    return true;
  }

  @Override
  public DataWriter<Logged> newDataWriter(EncryptedOutputFile file, PartitionSpec spec, StructLike partition) {
    // Iceberg gives each Parquet file a new Hadoop Configuration, which parses Hadoop's default
    // XML resources (core-default.xml, and mapred- and yarn-default.xml once those classes are
    // loaded) on first use: ~2.5 ms a file, a sixth of the writer thread. Nothing in them is read
    // for a Parquet file written through a FileIO (codecs take their settings from the writer
    // properties), so the Configuration is created under core's HadoopDefaultsHidden (the same
    // loader core's RecordFileWriter uses; a core-site.xml on the class path still applies).
    Parquet.DataWriteBuilder builder;
    ClassLoader previous = HadoopDefaultsHidden.enter(HadoopDefaultsHidden.forCurrentThread());
    try {
      builder = Parquet.writeData(file);
    } finally {
      HadoopDefaultsHidden.exit(previous);
    }
    try {
      return builder
          .schema(schema)
          .setAll(properties)
          .metricsConfig(MetricsConfig.forTable(table))
          .withSpec(spec)
          .withPartition(partition)
          .withKeyMetadata(file.keyMetadata())
          .withSortOrder(table.sortOrder())
          .createWriterFunc(type -> new RowWriter(type))
          .overwrite()
          .build();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot create CDC change-log data file: " + e.getMessage(), e);
    }
  }

  @Override
  public EqualityDeleteWriter<Logged> newEqualityDeleteWriter(EncryptedOutputFile file, PartitionSpec spec,
      StructLike partition) {
    throw new UnsupportedOperationException("a change log has no delete files");
  }

  @Override
  public PositionDeleteWriter<Logged> newPositionDeleteWriter(EncryptedOutputFile file, PartitionSpec spec,
      StructLike partition) {
    throw new UnsupportedOperationException("a change log has no delete files");
  }

  /** One row per entry, one column writer per column of the file's Parquet schema. */
  private final class RowWriter implements ParquetValueWriter<Logged> {
    private final Column[] columns;
    private final List<TripleWriter<?>> triples = new ArrayList<>();

    RowWriter(MessageType type) {
      columns = new Column[type.getFieldCount()];
      for (int i = 0; i < columns.length; i++) {
        String name = type.getFields().get(i).getName();
        columns[i] = column(name, type.getColumnDescription(new String[] {name}));
        triples.addAll(columns[i].columns());
      }
    }

    @Override
    public void write(int repetitionLevel, Logged logged) {
      for (Column c : columns) {
        c.put(repetitionLevel, logged);
      }
    }

    @Override
    public List<TripleWriter<?>> columns() {
      return triples;
    }

    @Override
    public void setColumnStore(ColumnWriteStore store) {
      for (Column c : columns) {
        c.setColumnStore(store);
      }
    }
  }

  private Column column(String name, ColumnDescriptor desc) {
    return switch (name) {
      case "op" -> new Column(desc) {
        @Override
        void put(int rl, Logged l) {
          column.writeBinary(rl, OPS[l.entry.operation().ordinal()]);
        }
      };
      case "seq" -> new Column(desc) {
        @Override
        void put(int rl, Logged l) {
          column.writeLong(rl, l.seq());
        }
      };
      case "shard" -> new Column(desc) {
        @Override
        void put(int rl, Logged l) {
          column.writeBinary(rl, shard);
        }
      };
      case "txn" -> new Column(desc) {
        @Override
        void put(int rl, Logged l) {
          string(rl, l.entry.transactionId().orElse(null));
        }
      };
      case "commit_time" -> new Column(desc) {
        @Override
        void put(int rl, Logged l) {
          column.writeLong(rl, commitMicros);
        }
      };
      case "event_time" -> new Column(desc) {
        @Override
        void put(int rl, Logged l) {
          column.writeLong(rl, l.acceptedMillis * 1000L);
        }
      };
      case CdcTables.COLLECTION -> new Column(desc) {
        private String last;
        private Binary lastBinary;

        @Override
        void put(int rl, Logged l) {
          String collection = l.entry.collection();
          if (collection != last) { // the same String object: usually one per stream
            last = collection;
            lastBinary = utf8(collection);
          }
          column.writeBinary(rl, lastBinary);
        }
      };
      case CdcTables.DOC_ID -> new Column(desc) {
        @Override
        void put(int rl, Logged l) {
          string(rl, l.entry.docId());
        }
      };
      case "before" -> new Column(desc) {
        @Override
        void put(int rl, Logged l) {
          string(rl, l.beforeJson);
        }
      };
      case "after" -> new Column(desc) {
        @Override
        void put(int rl, Logged l) {
          string(rl, l.afterJson);
        }
      };
      default -> throw new IllegalStateException("Cannot write CDC change log: not a change-log column: " + name);
    };
  }

  private static final Binary[] OPS = new Binary[CdcOperation.values().length];

  static {
    for (CdcOperation op : CdcOperation.values()) {
      OPS[op.ordinal()] = utf8(op.code());
    }
  }

  private static Binary utf8(String s) {
    return Binary.fromConstantByteArray(s.getBytes(StandardCharsets.UTF_8));
  }

  /** One column: Iceberg's column writer for its descriptor, and what to write from an entry. */
  private abstract static class Column extends ParquetValueWriters.PrimitiveWriter<Object> {
    private final boolean optional;
    private final String name;

    Column(ColumnDescriptor desc) {
      super(desc);
      this.optional = desc.getMaxDefinitionLevel() > 0;
      this.name = desc.getPath()[0];
    }

    abstract void put(int rl, Logged l);

    /** A string value, or null (a column the schema makes required refuses it, as the generic writer does). */
    final void string(int rl, String value) {
      if (value != null) {
        column.writeBinary(rl, utf8(value));
      } else if (optional) {
        column.writeNull(rl, 0);
      } else {
        throw new IllegalArgumentException("Cannot write CDC change log: null in required column: " + name);
      }
    }
  }
}

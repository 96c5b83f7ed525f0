package dev.featurestore.core.ingest;

import dev.featurestore.core.base.IcebergParquet;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.parquet.InternalWriter;
import org.apache.iceberg.deletes.EqualityDeleteWriter;
import org.apache.iceberg.deletes.PositionDeleteWriter;
import org.apache.iceberg.encryption.EncryptedOutputFile;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.FileWriterFactory;
import org.apache.iceberg.parquet.Parquet;

/**
 * Parquet data writers for {@link PrimitiveRow}s of Iceberg's internal representation (timestamps
 * as micros, dates as days, fixed as {@code ByteBuffer}): {@link PrimitiveRowWriter} (Iceberg's
 * {@link InternalWriter} for the columns not kept in slots), configured as Iceberg's generic writer
 * factory configures its writers (the table's properties, metrics config and sort order). Writing
 * micros directly skips the generic writer's {@code OffsetDateTime} to micros conversion of every
 * timestamp, and the slots a boxed value per column and row. With Iceberg's Parquet relocated
 * ({@link IcebergParquet}) Iceberg's {@link InternalWriter} writes the rows (a {@link PrimitiveRow}
 * boxes its slots on read). Data files only.
 */
final class InternalFileWriterFactory implements FileWriterFactory<StructLike> {
  private final Table table;
  private final Schema schema;
  private final Map<String, String> writerProperties;

  InternalFileWriterFactory(Table table, Schema schema, Map<String, String> writerProperties) {
    this.table = table;
    this.schema = schema;
    this.writerProperties = writerProperties;
  }

  @Override
  public DataWriter<StructLike> newDataWriter(EncryptedOutputFile file, PartitionSpec spec, StructLike partition) {
    try {
      return Parquet.writeData(file)
          .schema(schema)
          .setAll(table.properties())
          .setAll(writerProperties)
          .metricsConfig(MetricsConfig.forTable(table))
          .createWriterFunc(IcebergParquet.takesParquetTypes() ? PrimitiveRowWriter::create : InternalWriter::createWriter)
          .withSpec(spec)
          .withPartition(partition)
          .withKeyMetadata(file.keyMetadata())
          .withSortOrder(table.sortOrder())
          .overwrite()
          .build();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public EqualityDeleteWriter<StructLike> newEqualityDeleteWriter(EncryptedOutputFile file, PartitionSpec spec,
      StructLike partition) {
    throw new UnsupportedOperationException("Cannot write equality deletes: data files only");
  }

  @Override
  public PositionDeleteWriter<StructLike> newPositionDeleteWriter(EncryptedOutputFile file, PartitionSpec spec,
      StructLike partition) {
    throw new UnsupportedOperationException("Cannot write position deletes: data files only");
  }
}

package dev.featurestore.core.base;

import static org.assertj.core.api.Assertions.assertThat;

import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.TableDefinition;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.OutputFileFactory;
import dev.featurestore.core.storage.ParquetInput;
import org.apache.iceberg.types.Types;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * RecordFileWriter opens Iceberg's Parquet writers under {@link HadoopDefaultsHidden} (no parse
 * of Hadoop's default files per data file): the files are written in the table's codec and read back
 * row for row, and the caller's context class loader is back afterwards.
 */
class RecordFileWriterTest {
  @TempDir Path dir;

  @Test
  void hidingLoader_hidesHadoopsDefaultFilesOnly() throws Exception {
    Class.forName("org.apache.hadoop.mapred.JobConf"); // adds mapred-default.xml to every Configuration
    assertThat(new Configuration().get("fs.defaultFS")).as("core-default.xml read normally").isEqualTo("file:///");
    assertThat(new Configuration().get("mapreduce.job.maps")).as("mapred-default.xml read normally").isEqualTo("2");
    ClassLoader previous = HadoopDefaultsHidden.enter(HadoopDefaultsHidden.forCurrentThread());
    try {
      assertThat(new Configuration().get("fs.defaultFS")).isNull();
      assertThat(new Configuration().get("mapreduce.job.maps")).isNull();
      assertThat(Thread.currentThread().getContextClassLoader().getResource("org/apache/hadoop/conf/Configuration.class"))
          .isNotNull();
    } finally {
      HadoopDefaultsHidden.exit(previous);
    }
    assertThat(Thread.currentThread().getContextClassLoader()).isSameAs(previous);
  }

  @ParameterizedTest
  @ValueSource(strings = {"zstd", "gzip", "snappy", "uncompressed"})
  void writesEveryCodec_readBackRowForRow(String codec) throws IOException {
    try (FeatureStore store = FeatureStore.openLocal(dir)) {
      Schema schema = new Schema(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.optional(2, "name", Types.StringType.get()));
      FeatureTable featureTable = store.createTable(TableDefinition.builder("t.codec_" + codec, schema)
          .property("write.parquet.compression-codec", codec).build());
      Table table = featureTable.unwrap(Table.class);
      ClassLoader before = Thread.currentThread().getContextClassLoader();
      RecordFileWriter writer = new RecordFileWriter(table, table.schema(), FileFormat.PARQUET, Map.of(),
          OutputFileFactory.builderFor(table, 1, 1).format(FileFormat.PARQUET).build(), table.io());
      List<Record> written = new ArrayList<>();
      for (long id = 0; id < 1_000; id++) {
        GenericRecord record = GenericRecord.create(table.schema());
        record.setField("id", id);
        record.setField("name", "name-" + id);
        writer.write(record);
        written.add(record.copy());
      }
      List<DataFile> files = writer.finish();
      assertThat(Thread.currentThread().getContextClassLoader()).isSameAs(before);
      var append = table.newAppend();
      files.forEach(append::appendFile);
      append.commit();

      try (ParquetFileReader reader = ParquetFileReader.open(ParquetInput.of(table.io().newInputFile(files.get(0).location())))) {
        CompressionCodecName expected = CompressionCodecName.valueOf(codec.toUpperCase(java.util.Locale.ROOT));
        assertThat(reader.getFooter().getBlocks().get(0).getColumns().get(0).getCodec()).isEqualTo(expected);
      }
      List<Record> read = new ArrayList<>();
      try (CloseableIterable<Record> rows = IcebergGenerics.read(table).build()) {
        rows.forEach(read::add);
      }
      assertThat(read).containsExactlyInAnyOrderElementsOf(written);
    }
  }
}

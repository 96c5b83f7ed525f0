package dev.featurestore.core.inspect;

import dev.featurestore.core.storage.ParquetInput;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.types.Types;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.Type;

/**
 * The columns a Parquet data file holds bloom filters for, from its footer (a column chunk with a
 * bloom filter offset in any row group). Named as the table's current schema names the field id
 * (an older schema's name for a dropped column, the file's own path if no schema has the id).
 */
final class BloomColumns {
  private BloomColumns() {}

  static List<String> of(Table table, String location) {
    try (ParquetFileReader reader = ParquetFileReader.open(ParquetInput.of(table.io().newInputFile(location)))) {
      MessageType fileSchema = reader.getFooter().getFileMetaData().getSchema();
      Set<String> names = new LinkedHashSet<>();
      for (BlockMetaData block : reader.getFooter().getBlocks()) {
        for (ColumnChunkMetaData column : block.getColumns()) {
          if (column.getBloomFilterOffset() >= 0) {
            names.add(nameOf(table, fileSchema, column.getPath().toArray()));
          }
        }
      }
      return new ArrayList<>(names);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read Parquet footer: " + location, e);
    }
  }

  private static String nameOf(Table table, MessageType fileSchema, String[] path) {
    Type leaf = fileSchema.getType(path);
    if (leaf.getId() != null) {
      int id = leaf.getId().intValue();
      String current = table.schema().findColumnName(id);
      if (current != null) {
        return current;
      }
      for (Schema schema : table.schemas().values()) {
        String old = schema.findColumnName(id);
        if (old != null) {
          return old;
        }
      }
    }
    return String.join(".", path);
  }

  /** The column added to the file tables: {@code bloom_filter_columns list<string>}, with ids after the table's. */
  static Types.NestedField field(Schema metadataSchema) {
    int max = metadataSchema.highestFieldId();
    return Types.NestedField.optional(max + 1, "bloom_filter_columns",
        Types.ListType.ofRequired(max + 2, Types.StringType.get()),
        "columns with Parquet bloom filters in this file (from its footer)");
  }
}

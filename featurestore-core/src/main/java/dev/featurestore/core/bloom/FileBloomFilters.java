package dev.featurestore.core.bloom;

import dev.featurestore.BloomFilter;
import dev.featurestore.DataFileBloomFilters;
import dev.featurestore.InvalidArgumentException;
import dev.featurestore.NotFoundException;
import dev.featurestore.StorageException;
import dev.featurestore.core.base.BloomKeys;
import dev.featurestore.core.base.ValueConverters;
import dev.featurestore.core.storage.ParquetInput;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.apache.iceberg.Schema;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.types.Types;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.ColumnPath;
import org.apache.parquet.schema.MessageType;

/** A data file's bloom filters, read once from its footer; columns by field id against the table's schema. */
final class FileBloomFilters implements DataFileBloomFilters {
  private final String location;
  private final int rowGroups;
  private final Schema schema;
  private final Map<Integer, List<Optional<BloomFilter>>> byFieldId; // every primitive column of the file in the schema

  private FileBloomFilters(String location, int rowGroups, Schema schema,
      Map<Integer, List<Optional<BloomFilter>>> byFieldId) {
    this.location = location;
    this.rowGroups = rowGroups;
    this.schema = schema;
    this.byFieldId = byFieldId;
  }

  static FileBloomFilters read(InputFile file, Schema schema) {
    if (!file.exists()) {
      throw new NotFoundException("Cannot read bloom filters: no data file: " + file.location());
    }
    try (ParquetFileReader reader = ParquetFileReader.open(ParquetInput.of(file))) {
      MessageType fileSchema = reader.getFooter().getFileMetaData().getSchema();
      List<BlockMetaData> blocks = reader.getFooter().getBlocks();
      Map<Integer, List<Optional<BloomFilter>>> filters = new LinkedHashMap<>();
      for (int b = 0; b < blocks.size(); b++) {
        for (ColumnChunkMetaData chunk : blocks.get(b).getColumns()) {
          Integer id = fieldId(fileSchema, chunk.getPath());
          if (id == null || schema.findField(id) == null) {
            continue; // a column the table dropped, or written without ids
          }
          org.apache.parquet.column.values.bloomfilter.BloomFilter parquet = reader.readBloomFilter(chunk);
          List<Optional<BloomFilter>> perGroup = filters.computeIfAbsent(id,
              k -> new ArrayList<>(Collections.nCopies(blocks.size(), Optional.empty())));
          perGroup.set(b, Optional.ofNullable(parquet).map(BloomKeys::toValue));
        }
      }
      filters.replaceAll((id, list) -> List.copyOf(list));
      return new FileBloomFilters(file.location(), blocks.size(), schema, filters);
    } catch (IOException e) {
      throw new StorageException("Cannot read bloom filters of " + file.location() + ": " + e.getMessage(), e);
    }
  }

  private static Integer fieldId(MessageType fileSchema, ColumnPath path) {
    org.apache.parquet.schema.Type type = fileSchema.getType(path.toArray());
    return type.getId() == null ? null : type.getId().intValue();
  }

  @Override
  public String location() {
    return location;
  }

  @Override
  public int rowGroupCount() {
    return rowGroups;
  }

  @Override
  public List<String> columns() {
    List<String> names = new ArrayList<>();
    for (Types.NestedField field : org.apache.iceberg.types.TypeUtil.indexById(schema.asStruct()).values().stream()
        .sorted(java.util.Comparator.comparingInt(Types.NestedField::fieldId)).toList()) {
      List<Optional<BloomFilter>> filters = byFieldId.get(field.fieldId());
      if (filters != null && filters.stream().anyMatch(Optional::isPresent)) {
        names.add(schema.findColumnName(field.fieldId()));
      }
    }
    return List.copyOf(names);
  }

  @Override
  public List<Optional<BloomFilter>> filters(String column) {
    return filtersOf(field(column, "read bloom filters"), "read bloom filters");
  }

  @Override
  public List<Integer> rowGroupsMightContain(String column, Object key) {
    String action = "test bloom filters";
    Types.NestedField field = field(column, action);
    InvalidArgumentException.requireNonNull(key, action, "key");
    List<Optional<BloomFilter>> filters = filtersOf(field, action);
    Object value = ValueConverters.internalKey(field.type(), column, key, action);
    OptionalLong hash = BloomKeys.hash(field.type(), value);
    List<Integer> groups = new ArrayList<>();
    for (int i = 0; i < filters.size(); i++) {
      Optional<BloomFilter> filter = filters.get(i);
      if (filter.isEmpty() || hash.isEmpty() || filter.get().mightContainHash(hash.getAsLong())) {
        groups.add(i);
      }
    }
    return List.copyOf(groups);
  }

  private Types.NestedField field(String column, String action) {
    InvalidArgumentException.requireNonNull(column, action, "column");
    Types.NestedField field = schema.findField(column);
    if (field == null) {
      throw new NotFoundException("Cannot " + action + ": unknown column: " + column);
    }
    return field;
  }

  private List<Optional<BloomFilter>> filtersOf(Types.NestedField field, String action) {
    List<Optional<BloomFilter>> filters = byFieldId.get(field.fieldId());
    if (filters == null) {
      throw new NotFoundException("Cannot " + action + ": data file " + location + " has no column: "
          + schema.findColumnName(field.fieldId()));
    }
    return filters;
  }

  @Override
  public String toString() {
    return "DataFileBloomFilters{" + location + ", rowGroups=" + rowGroups + ", columns=" + columns() + "}";
  }
}

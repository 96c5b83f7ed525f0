package dev.featurestore.core.bloom;

import static java.util.Objects.requireNonNull;

import dev.featurestore.BloomFilter;
import dev.featurestore.BloomFilterUpdate;
import dev.featurestore.DataFileBloomFilters;
import dev.featurestore.InvalidArgumentException;
import dev.featurestore.NotFoundException;
import dev.featurestore.core.base.BloomKeys;
import dev.featurestore.StorageException;
import dev.featurestore.core.base.TableHandle;
import dev.featurestore.core.storage.ParquetInput;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.InputFile;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;

/**
 * Entry point of bloom filters: changing a table's bloom-filter columns, and reading the filters
 * Parquet stored in a data file's row groups as {@link BloomFilter} values.
 *
 * <pre>{@code
 * BloomFilters.update(handle).enable("entity_id", 100_000).commit();
 * List<Optional<BloomFilter>> perRowGroup = BloomFilters.read(io.newInputFile(path), "entity_id");
 * }</pre>
 */
public final class BloomFilters {
  private BloomFilters() {}

  /** A pending change of the table's bloom-filter columns. */
  public static BloomFilterUpdate update(TableHandle handle) {
    return new BloomColumnsChange(requireNonNull(handle, "handle is null"));
  }

  /**
   * The bloom filter of {@code column} in each row group of a Parquet file, in row-group order;
   * empty for a row group without one.
   *
   * @throws IllegalArgumentException if the file has no such column
   * @throws StorageException if the file cannot be read
   */
  public static List<Optional<BloomFilter>> read(InputFile file, String column) {
    requireNonNull(file, "file is null");
    requireNonNull(column, "column is null");
    try (ParquetFileReader reader = ParquetFileReader.open(ParquetInput.of(file))) {
      List<Optional<BloomFilter>> filters = new ArrayList<>();
      for (BlockMetaData block : reader.getFooter().getBlocks()) {
        ColumnChunkMetaData chunk = block.getColumns().stream()
            .filter(c -> c.getPath().toDotString().equals(column))
            .findFirst()
            .orElseThrow(() -> new IllegalArgumentException(
                "Cannot read bloom filter: no column in file " + file.location() + ": " + column));
        org.apache.parquet.column.values.bloomfilter.BloomFilter parquet = reader.readBloomFilter(chunk);
        filters.add(Optional.ofNullable(parquet).map(BloomFilters::toValue));
      }
      return filters;
    } catch (IOException e) {
      throw new StorageException("Cannot read bloom filters of " + file.location() + ": " + e.getMessage(), e);
    }
  }

  /** Parquet's filter as our value type: the bitset bytes are the same layout. */
  static BloomFilter toValue(org.apache.parquet.column.values.bloomfilter.BloomFilter parquet) {
    return BloomKeys.toValue(parquet);
  }

  /**
   * The bloom filters of a data file of the table, every column, read from its footer; columns are
   * matched to the current schema by field id.
   *
   * @throws NotFoundException if there is no file at {@code location}
   */
  public static DataFileBloomFilters readAll(TableHandle handle, String location) {
    requireNonNull(handle, "handle is null");
    InvalidArgumentException.requireNonNull(location, "read bloom filters", "data file");
    Table table = handle.translating("refresh table " + handle.id(), handle::refreshed);
    return handle.translating("read bloom filters of " + location,
        () -> FileBloomFilters.read(table.io().newInputFile(location), table.schema()));
  }
}

package dev.featurestore.spark;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.featurestore.InvalidArgumentException;
import dev.featurestore.StorageException;
import dev.featurestore.TrainingSetDefinition;
import dev.featurestore.core.base.TrainingSetLineage;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.iceberg.types.Types;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SaveMode;
import org.apache.spark.sql.SparkSession;

/**
 * A point-in-time correct training set built by Spark from a {@link TrainingSetDefinition}: the
 * same definition, semantics and output columns as the embedded DuckDB engine's training set (see
 * the definition), as a {@link Dataset} to use in a Spark job or to write out with its lineage.
 *
 * <pre>{@code
 * SparkTrainingSet set = spark.trainingSet(definition);
 * set.dataset().groupBy("label").count().show();
 * SparkExport written = set.exportParquet("s3a://ml/train/2026-12-01");
 * }</pre>
 *
 * <p>Each table is read at the snapshot its query resolved to when the training set was built
 * (see {@link SparkFeatureStore#read}); {@link #lineage()} names those snapshots.
 */
public final class SparkTrainingSet {
  /** The lineage file an export writes beside its Parquet files. */
  public static final String LINEAGE_FILE = "_featurestore_lineage.json";

  private static final ObjectMapper JSON = new ObjectMapper();

  private final SparkSession spark;
  private final TrainingSetDefinition definition;
  private final Dataset<Row> rows;
  private final ObjectNode lineage;

  private SparkTrainingSet(SparkSession spark, TrainingSetDefinition definition, Dataset<Row> rows, ObjectNode lineage) {
    this.spark = spark;
    this.definition = definition;
    this.rows = rows;
    this.lineage = lineage;
  }

  static SparkTrainingSet build(SparkSession spark, SparkReads reads, TrainingSetDefinition definition) {
    InvalidArgumentException.requireNonNull(definition, "build training set", "definition");
    List<SparkReads.Read> tables = new ArrayList<>();
    tables.add(reads.read(definition.labels().version()));
    List<Dataset<Row>> features = new ArrayList<>();
    for (TrainingSetDefinition.Features f : definition.features()) {
      SparkReads.Read read = reads.read(f.version());
      tables.add(read);
      features.add(read.rows());
    }
    Dataset<Row> rows = AsOfJoin.join(definition, tables.get(0).rows(), features);
    ObjectNode lineage = JSON.createObjectNode();
    lineage.put("engine", "spark " + spark.version());
    ArrayNode list = lineage.putArray("tables");
    for (int i = 0; i < tables.size(); i++) {
      SparkReads.Read read = tables.get(i);
      ObjectNode table = list.addObject();
      table.put("name", i == 0 ? TrainingSetLineage.LABELS_RELATION
          : TrainingSetLineage.relation(definition.features().get(i - 1)));
      table.put("table", read.table().toString());
      table.put("snapshot_id", read.snapshotId());
      table.put("filter", String.valueOf(read.filter()));
      ArrayNode columns = table.putArray("columns");
      if (read.columns().isPresent()) {
        read.columns().get().forEach(columns::add);
      } else {
        read.resolved().schema().columns().stream().map(Types.NestedField::name).forEach(columns::add);
      }
    }
    lineage.set("parameters", TrainingSetLineage.parameters(definition));
    return new SparkTrainingSet(spark, definition, rows, lineage);
  }

  public TrainingSetDefinition definition() {
    return definition;
  }

  /** The training set's rows: every label column, then {@code <name>__<column>} per feature column. */
  public Dataset<Row> dataset() {
    return rows;
  }

  /**
   * The lineage as JSON: the engine, each table's relation name, id, resolved snapshot id, filter
   * and columns, and the definition's parameters (as DuckDB's exports record them).
   */
  public String lineage() {
    return lineage.toString();
  }

  /**
   * Writes the training set as Parquet files under {@code path} (any location Spark writes to:
   * a local directory, {@code hdfs://}, {@code s3a://}), and beside them {@value #LINEAGE_FILE}
   * with the {@link #lineage()} and the export time. Replaces nothing.
   *
   * @throws dev.featurestore.AlreadyExistsException if {@code path} exists
   * @throws StorageException if the lineage file cannot be written
   */
  public SparkExport exportParquet(String path) {
    InvalidArgumentException.requireNonNull(path, "export training set", "path");
    Path target = new Path(path);
    try {
      FileSystem fs = target.getFileSystem(spark.sparkContext().hadoopConfiguration());
      if (fs.exists(target)) {
        throw new dev.featurestore.AlreadyExistsException("Cannot export training set: location exists: " + path);
      }
      rows.write().mode(SaveMode.ErrorIfExists).parquet(path);
      long count = spark.read().parquet(path).count();
      ObjectNode written = lineage.deepCopy();
      written.put("exported_at", Instant.now().toString());
      String json = written.toString();
      try (OutputStream out = fs.create(new Path(target, LINEAGE_FILE), false)) {
        out.write(json.getBytes(StandardCharsets.UTF_8));
      }
      return new SparkExport(target.toString(), count, json);
    } catch (IOException e) {
      throw new StorageException("Cannot export training set: " + e.getMessage() + ": " + path, e);
    }
  }

  @Override
  public String toString() {
    return "SparkTrainingSet{" + definition + "}";
  }
}

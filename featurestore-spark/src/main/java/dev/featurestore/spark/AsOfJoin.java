package dev.featurestore.spark;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.expr;
import static org.apache.spark.sql.functions.last;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.struct;
import static org.apache.spark.sql.functions.when;

import dev.featurestore.TrainingSetDefinition;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.expressions.Window;
import org.apache.spark.sql.expressions.WindowSpec;
import org.apache.spark.sql.types.DataType;

/**
 * The point-in-time join of {@link TrainingSetDefinition} in Spark, without a cross product: per
 * feature table, the distinct (entity, time) keys of the labels and the feature rows are put in
 * one relation, partitioned by entity and ordered by time with feature rows before label keys at
 * the same time, and each label key takes the last feature row before it ({@code last(...,
 * ignoreNulls)} over a struct of the whole row, so a null feature value is kept as null rather
 * than replaced by an older one). The matches are joined back to the labels on their key. Keys or
 * times that are null match nothing. A TTL nulls a match older than {@code label time - TTL}.
 * Rows end ordered by the label's entity and time, nulls last (as DuckDB orders).
 */
final class AsOfJoin {
  private static final String KEY = "__fs_key";
  private static final String TIME = "__fs_time";
  private static final String SIDE = "__fs_side";
  private static final String ROW = "__fs_row";
  private static final String MATCH = "__fs_match";
  private static final String MATCH_TIME = "__fs_match_time";

  private AsOfJoin() {}

  /** {@code labels} with the feature columns of each table of {@code features}, in definition order. */
  static Dataset<Row> join(TrainingSetDefinition definition, Dataset<Row> labels, List<Dataset<Row>> features) {
    TrainingSetDefinition.Labels l = definition.labels();
    String entity = SparkReads.quoted(l.entityColumn());
    String time = SparkReads.quoted(l.timeColumn());
    DataType keyType = labels.schema().apply(l.entityColumn()).dataType();
    DataType timeType = labels.schema().apply(l.timeColumn()).dataType();
    List<Column> output = new ArrayList<>();
    for (String column : labels.columns()) {
      output.add(col(SparkReads.quoted(column)));
    }
    Dataset<Row> result = labels;
    for (int i = 0; i < definition.features().size(); i++) {
      TrainingSetDefinition.Features f = definition.features().get(i);
      String match = MATCH + i;
      Dataset<Row> matches = matches(labels.select(col(entity).as(KEY), col(time).as(TIME)),
          features.get(i), f, keyType, timeType).withColumnRenamed(MATCH, match)
          .withColumnRenamed(KEY, KEY + i).withColumnRenamed(TIME, TIME + i);
      result = result.join(matches, result.col(entity).equalTo(matches.col(KEY + i))
          .and(result.col(time).equalTo(matches.col(TIME + i))), "left");
      for (String column : f.columns()) {
        Column value = col(match + "." + ROW + "." + SparkReads.quoted(column));
        if (f.ttl().isPresent()) {
          value = when(col(match + "." + MATCH_TIME).geq(col(time).minus(interval(f.ttl().get()))), value);
        }
        output.add(value.as(TrainingSetDefinition.outputColumn(f, column)));
      }
    }
    return result.select(output.toArray(Column[]::new)).orderBy(col(entity).asc_nulls_last(), col(time).asc_nulls_last());
  }

  /** Per distinct label key: the struct (time, row) of the feature row it matches, or null. */
  private static Dataset<Row> matches(Dataset<Row> labelKeys, Dataset<Row> features, TrainingSetDefinition.Features f,
      DataType keyType, DataType timeType) {
    Column featureTime = col(SparkReads.quoted(f.timeColumn())).cast(timeType);
    List<Column> values = new ArrayList<>();
    for (String column : f.columns()) {
      values.add(col(SparkReads.quoted(column)).as(column));
    }
    Dataset<Row> keys = labelKeys.where(col(KEY).isNotNull().and(col(TIME).isNotNull())).distinct()
        .select(col(KEY), col(TIME), lit(1).as(SIDE), lit(null).cast(rowType(features, featureTime, values)).as(MATCH));
    Dataset<Row> rows = features
        .select(col(SparkReads.quoted(f.entityColumn())).cast(keyType).as(KEY), featureTime.as(TIME), lit(0).as(SIDE),
            struct(featureTime.as(MATCH_TIME), struct(values.toArray(Column[]::new)).as(ROW)).as(MATCH))
        .where(col(KEY).isNotNull().and(col(TIME).isNotNull()));
    WindowSpec before = Window.partitionBy(KEY).orderBy(col(TIME), col(SIDE))
        .rowsBetween(Window.unboundedPreceding(), Window.currentRow());
    return keys.unionByName(rows)
        .withColumn(MATCH, last(col(MATCH), true).over(before))
        .where(col(SIDE).equalTo(1))
        .select(col(KEY), col(TIME), col(MATCH));
  }

  private static DataType rowType(Dataset<Row> features, Column featureTime, List<Column> values) {
    return features.select(struct(featureTime.as(MATCH_TIME), struct(values.toArray(Column[]::new)).as(ROW)))
        .schema().fields()[0].dataType();
  }

  /** {@code ttl} as a Spark day-time interval, truncated to microseconds as DuckDB's is. */
  private static Column interval(Duration ttl) {
    long micros = ttl.toNanos() / 1000;
    long days = micros / 86_400_000_000L;
    BigDecimal seconds = BigDecimal.valueOf(micros % 86_400_000_000L, 6);
    return expr("make_dt_interval(" + days + ", 0, 0, " + seconds.toPlainString() + ")");
  }
}

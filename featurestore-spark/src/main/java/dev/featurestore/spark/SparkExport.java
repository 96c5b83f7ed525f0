package dev.featurestore.spark;

/**
 * A training set written by Spark.
 *
 * @param location where the Parquet files are
 * @param rows how many rows they hold
 * @param lineage the lineage JSON written beside them ({@link SparkTrainingSet#LINEAGE_FILE})
 */
public record SparkExport(String location, long rows, String lineage) {}

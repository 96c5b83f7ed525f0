package dev.featurestore.core.base;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.featurestore.TrainingSetDefinition;

/**
 * The parameters of a training set as its exports record them in their lineage, the same on every
 * engine (DuckDB's Parquet footer, Spark's lineage file): {@code kind}, the labels' relation, key
 * and time columns, and per feature table its name, relation ({@code f_<name>}), key, time, TTL
 * (ISO-8601 or null) and columns. The tables' resolved snapshots are added beside it by the engine.
 */
public final class TrainingSetLineage {
  private TrainingSetLineage() {}

  /** The relation name of the labels in generated SQL and lineage. */
  public static final String LABELS_RELATION = "labels";

  /** The relation name of a feature table in generated SQL and lineage: {@code f_<name>}. */
  public static String relation(TrainingSetDefinition.Features features) {
    return "f_" + features.name();
  }

  /** The parameters of {@code definition} as a JSON object. */
  public static ObjectNode parameters(TrainingSetDefinition definition) {
    requireNonNull(definition, "definition is null");
    ObjectNode root = JsonNodeFactory.instance.objectNode();
    root.put("kind", "training_set");
    TrainingSetDefinition.Labels labels = definition.labels();
    root.putObject("labels").put("relation", LABELS_RELATION).put("entity", labels.entityColumn())
        .put("time", labels.timeColumn());
    ArrayNode list = root.putArray("features");
    for (TrainingSetDefinition.Features f : definition.features()) {
      ObjectNode node = list.addObject();
      node.put("name", f.name()).put("relation", relation(f)).put("entity", f.entityColumn()).put("time", f.timeColumn());
      if (f.ttl().isEmpty()) {
        node.putNull("ttl");
      } else {
        node.put("ttl", f.ttl().get().toString());
      }
      ArrayNode columns = node.putArray("columns");
      f.columns().forEach(columns::add);
    }
    return root;
  }
}

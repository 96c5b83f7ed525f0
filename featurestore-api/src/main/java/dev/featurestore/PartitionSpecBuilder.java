package dev.featurestore;


import java.util.HashSet;
import java.util.Set;
import java.util.function.Function;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.transforms.Transform;
import org.apache.iceberg.transforms.Transforms;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * Builds a partition spec for a schema, checking every step where it is taken: the column must
 * exist, the transform must suit the column's type (no {@code day} on a {@code long}, no
 * {@code truncate} on a {@code double}), bucket counts and truncate widths must be positive, and
 * partition field names must be unique.
 *
 * <pre>{@code
 * TableDefinition def = TableDefinition.builder("features.events", schema)
 *     .partitionBy(s -> PartitionSpecBuilder.of(s).day("event_time").bucket("entity_id", 16).build())
 *     .build();
 * }</pre>
 *
 * <p>Default field names follow Iceberg: {@code <column>} for identity, {@code <column>_year},
 * {@code _month}, {@code _day}, {@code _hour}, {@code _bucket}, {@code _trunc} and {@code _null}
 * (void). Every check throws {@link InvalidArgumentException} with a message that names the column
 * and what to change. Not thread-safe; single-use.
 */
public final class PartitionSpecBuilder {
  private final Schema schema;
  private final PartitionSpec.Builder builder;
  private final Set<String> names = new HashSet<>();

  private PartitionSpecBuilder(Schema schema) {
    this.schema = InvalidArgumentException.requireNonNull(schema, "build partition spec", "schema");
    this.builder = PartitionSpec.builderFor(schema);
  }

  /** A builder for a spec over {@code schema}. */
  public static PartitionSpecBuilder of(Schema schema) {
    return new PartitionSpecBuilder(schema);
  }

  /** A function for {@link TableDefinition.Builder#partitionBy(Function)}: {@code spec.apply(builder).build()}. */
  public static Function<Schema, PartitionSpec> spec(Function<PartitionSpecBuilder, PartitionSpecBuilder> fields) {
    InvalidArgumentException.requireNonNull(fields, "build partition spec", "fields");
    return s -> fields.apply(of(s)).build();
  }

  public PartitionSpecBuilder identity(String column) {
    return identity(column, column);
  }

  public PartitionSpecBuilder identity(String column, String name) {
    check(column, name, "identity", Transforms.identity());
    run(column, "identity", () -> builder.identity(column, name));
    return this;
  }

  public PartitionSpecBuilder year(String column) {
    return year(column, column + "_year");
  }

  public PartitionSpecBuilder year(String column, String name) {
    check(column, name, "year", Transforms.year());
    run(column, "year", () -> builder.year(column, name));
    return this;
  }

  public PartitionSpecBuilder month(String column) {
    return month(column, column + "_month");
  }

  public PartitionSpecBuilder month(String column, String name) {
    check(column, name, "month", Transforms.month());
    run(column, "month", () -> builder.month(column, name));
    return this;
  }

  public PartitionSpecBuilder day(String column) {
    return day(column, column + "_day");
  }

  public PartitionSpecBuilder day(String column, String name) {
    check(column, name, "day", Transforms.day());
    run(column, "day", () -> builder.day(column, name));
    return this;
  }

  public PartitionSpecBuilder hour(String column) {
    return hour(column, column + "_hour");
  }

  public PartitionSpecBuilder hour(String column, String name) {
    check(column, name, "hour", Transforms.hour());
    run(column, "hour", () -> builder.hour(column, name));
    return this;
  }

  public PartitionSpecBuilder bucket(String column, int buckets) {
    return bucket(column, buckets, column + "_bucket");
  }

  public PartitionSpecBuilder bucket(String column, int buckets, String name) {
    if (buckets <= 0) {
      throw new InvalidArgumentException("Cannot partition column " + column + " by bucket: bucket count must be positive: " + buckets);
    }
    check(column, name, "bucket", Transforms.bucket(buckets));
    run(column, "bucket", () -> builder.bucket(column, buckets, name));
    return this;
  }

  public PartitionSpecBuilder truncate(String column, int width) {
    return truncate(column, width, column + "_trunc");
  }

  public PartitionSpecBuilder truncate(String column, int width, String name) {
    if (width <= 0) {
      throw new InvalidArgumentException("Cannot partition column " + column + " by truncate: width must be positive: " + width);
    }
    check(column, name, "truncate", Transforms.truncate(width));
    run(column, "truncate", () -> builder.truncate(column, width, name));
    return this;
  }

  /** The void transform: a field that is always null (what a dropped field becomes in v1 tables). */
  public PartitionSpecBuilder alwaysNull(String column) {
    return alwaysNull(column, column + "_null");
  }

  public PartitionSpecBuilder alwaysNull(String column, String name) {
    check(column, name, "void", Transforms.alwaysNull());
    run(column, "void", () -> builder.alwaysNull(column, name));
    return this;
  }

  /** The spec; unpartitioned if no field was added. */
  public PartitionSpec build() {
    return builder.build();
  }

  private void check(String column, String name, String transform, Transform<?, ?> probe) {
    InvalidArgumentException.requireNonNull(column, "add partition field", "column");
    InvalidArgumentException.requireNonNull(name, "add partition field", "name");
    Types.NestedField field = schema.findField(column);
    if (field == null) {
      throw new InvalidArgumentException("Cannot partition by unknown column: " + column);
    }
    Type type = field.type();
    if (!type.isPrimitiveType() || !probe.canTransform(type)) {
      throw new InvalidArgumentException("Cannot partition column " + column + " by " + transform
          + ": transform not valid for type: " + type + " (" + hint(transform) + ")");
    }
    if (name.isBlank()) {
      throw new InvalidArgumentException("Cannot partition column " + column + " by " + transform + ": name is blank");
    }
    if (!names.add(name)) {
      throw new InvalidArgumentException("Cannot add partition field: duplicate name: " + name);
    }
  }

  private static String hint(String transform) {
    return switch (transform) {
      case "year", "month", "day" -> transform + " needs a date or timestamp column";
      case "hour" -> "hour needs a timestamp column";
      case "bucket" -> "bucket needs an int, long, decimal, date, time, timestamp, string, uuid, fixed or binary column";
      case "truncate" -> "truncate needs an int, long, decimal, string or binary column";
      default -> transform + " needs a primitive column";
    };
  }

  private void run(String column, String transform, Runnable add) {
    try {
      add.run();
    } catch (IllegalArgumentException e) {
      // Iceberg's own checks (redundant time transforms, names clashing with other columns)
      throw new InvalidArgumentException("Cannot partition column " + column + " by " + transform + ": " + e.getMessage(), e);
    }
  }
}

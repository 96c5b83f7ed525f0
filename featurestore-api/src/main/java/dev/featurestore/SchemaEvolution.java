package dev.featurestore;


import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.TypeUtil;

/**
 * A pending schema change, collected step by step, previewed with {@link #apply()} and landed
 * with {@link #commit()}. No data file is rewritten: columns are tracked by field id, so renamed
 * columns keep their data, and old snapshots still read with their own schema.
 *
 * <pre>{@code
 * table.evolveSchema()
 *     .addColumn("feature_c", Types.DoubleType.get(), "7-day mean")
 *     .renameColumn("clicks", "clicks_7d")
 *     .widenColumn("count", Types.LongType.get())
 *     .commit();
 * }</pre>
 *
 * <p>Each step is checked when it is added; a bad step throws {@link ValidationException} (for
 * example {@code Cannot rename missing column: clicks}) and leaves the pending change usable.
 * Names of nested fields use dots ({@code address.city}). A pending change is single-use: a second
 * {@code commit()} throws {@link InvalidStateException} ({@code Cannot commit schema change: already committed}).
 */
public interface SchemaEvolution {
  /** Adds a nullable column with a doc string (may be null) at the end of the schema. */
  SchemaEvolution addColumn(String name, Type type, String doc);

  /** Adds a nullable column without doc. */
  default SchemaEvolution addColumn(String name, Type type) {
    return addColumn(name, type, null);
  }

  /**
   * Adds a required column with a default, at the end of the schema (format v3 column defaults):
   * rows written before the change read {@code defaultValue} (the column's {@code initial-default}),
   * and an ingest row that leaves the column out gets it written (its {@code write-default}). The
   * value converts as an ingested value does (an {@code int} widens for a {@code long}, an ISO
   * string or a {@code java.time} value for a date or timestamp). Primitive types only.
   *
   * <pre>{@code
   * table.evolveSchema().addRequiredColumn("tier", Types.StringType.get(), "standard", "pricing tier").commit();
   * }</pre>
   *
   * @throws ValidationException if the table's format version is below 3 ({@code Cannot add
   *     required column tier: column defaults need format version 3: 2}) or the column exists
   * @throws InvalidArgumentException if the default is null, does not convert, or the type is nested
   */
  SchemaEvolution addRequiredColumn(String name, Type type, Object defaultValue, String doc);

  /** {@link #addRequiredColumn(String, Type, Object, String)} without doc. */
  default SchemaEvolution addRequiredColumn(String name, Type type, Object defaultValue) {
    return addRequiredColumn(name, type, defaultValue, null);
  }

  /** Renames a column; its field id, and so its data, is kept. */
  SchemaEvolution renameColumn(String name, String newName);

  /**
   * Widens a column's type: int to long, float to double, or a decimal to a larger precision with
   * the same scale. See {@link #isValidTypePromotion(Type, Type)}.
   */
  SchemaEvolution widenColumn(String name, Type.PrimitiveType newType);

  /** Makes a required column optional (nullable). */
  SchemaEvolution makeOptional(String name);

  /** Sets or replaces a column's doc string. */
  SchemaEvolution updateDoc(String name, String doc);

  /** Drops a column; old snapshots still read it. */
  SchemaEvolution dropColumn(String name);

  /** The schema this change would produce, without committing. */
  Schema apply();

  /**
   * Commits the change and returns the new schema.
   *
   * @throws ValidationException if the change conflicts with the current schema
   * @throws CommitConflictException if concurrent changes kept winning
   */
  Schema commit();

  /**
   * Whether Iceberg allows promoting {@code from} to {@code to} without rewriting data: int to
   * long, float to double, decimal(P, S) to decimal(P', S) with P' >= P. The same type is a valid
   * (no-op) promotion.
   */
  static boolean isValidTypePromotion(Type from, Type to) {
    InvalidArgumentException.requireNonNull(from, "check type promotion", "from");
    InvalidArgumentException.requireNonNull(to, "check type promotion", "to");
    if (from.equals(to)) {
      return true;
    }
    if (!from.isPrimitiveType() || !to.isPrimitiveType()) {
      return false;
    }
    return TypeUtil.isPromotionAllowed(from, to.asPrimitiveType());
  }
}

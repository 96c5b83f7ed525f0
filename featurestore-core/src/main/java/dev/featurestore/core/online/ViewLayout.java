package dev.featurestore.core.online;

import dev.featurestore.InvalidArgumentException;
import dev.featurestore.InvalidStateException;
import dev.featurestore.OnlineViewDefinition;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * The columns of a view by Iceberg field id: the key, the event time and the features. Names are
 * only how a definition finds the ids the first time; afterwards a column is followed by its id,
 * so a rename keeps its place.
 */
record ViewLayout(int keyId, KeyKind keyKind, int timeId, List<Integer> featureIds) {
  enum KeyKind { INTEGER, TEXT }

  ViewLayout {
    featureIds = List.copyOf(featureIds);
  }

  /** Resolves a definition's column names against {@code schema}. */
  static ViewLayout resolve(OnlineViewDefinition def, Schema schema) {
    String what = "open online view " + def.name();
    Types.NestedField key = column(schema, def.key(), what, "key");
    Types.NestedField time = column(schema, def.eventTime(), what, "event-time");
    KeyKind kind = keyKind(key.type())
        .orElseThrow(() -> new InvalidArgumentException("Cannot " + what + ": key column must be int, long, string or uuid: "
            + key.name() + " " + key.type()));
    if (!isTime(time.type())) {
      throw new InvalidArgumentException("Cannot " + what + ": event-time column must be timestamp or timestamptz: "
          + time.name() + " " + time.type());
    }
    List<Integer> ids = new ArrayList<>();
    if (def.features().isEmpty()) {
      for (Types.NestedField field : schema.columns()) {
        if (field.fieldId() != key.fieldId() && field.fieldId() != time.fieldId() && field.type().isPrimitiveType()) {
          ids.add(field.fieldId());
        }
      }
    } else {
      for (String name : def.features()) {
        Types.NestedField field = column(schema, name, what, "feature");
        if (!field.type().isPrimitiveType()) {
          throw new InvalidArgumentException("Cannot " + what + ": a feature must be a primitive column: " + name + " " + field.type());
        }
        if (field.fieldId() == key.fieldId() || field.fieldId() == time.fieldId()) {
          throw new InvalidArgumentException("Cannot " + what + ": key and event time are not features: " + name);
        }
        ids.add(field.fieldId());
      }
    }
    return new ViewLayout(key.fieldId(), kind, time.fieldId(), ids);
  }

  private static Types.NestedField column(Schema schema, String name, String what, String role) {
    for (Types.NestedField c : schema.columns()) {
      if (c.name().equals(name)) {
        return c;
      }
    }
    throw new InvalidArgumentException("Cannot " + what + ": no top-level " + role + " column: " + name);
  }

  static java.util.Optional<KeyKind> keyKind(Type type) {
    switch (type.typeId()) {
      case INTEGER:
      case LONG:
        return java.util.Optional.of(KeyKind.INTEGER);
      case STRING:
      case UUID:
        return java.util.Optional.of(KeyKind.TEXT);
      default:
        return java.util.Optional.empty();
    }
  }

  private static boolean isTime(Type type) {
    return type.typeId() == Type.TypeID.TIMESTAMP;
  }

  /** Every field id the view reads. */
  Set<Integer> readIds() {
    Set<Integer> ids = new java.util.LinkedHashSet<>();
    ids.add(keyId);
    ids.add(timeId);
    ids.addAll(featureIds);
    return ids;
  }

  /** The feature ids still in {@code schema} (a dropped feature is no longer served). */
  List<Integer> presentFeatures(Schema schema) {
    return featureIds.stream().filter(id -> schema.findField(id) != null).collect(Collectors.toList());
  }

  /** Fails if the key or the event time is gone from {@code schema}, or changed to a type the view cannot hold. */
  void check(Schema schema, String what) {
    Types.NestedField key = schema.findField(keyId);
    Types.NestedField time = schema.findField(timeId);
    if (key == null || keyKind(key.type()).orElse(null) != keyKind) {
      throw new InvalidStateException("Cannot " + what + ": the key column (field id " + keyId + ") is gone from the table or changed type: "
          + (key == null ? "dropped" : key.name() + " " + key.type()));
    }
    if (time == null || !isTime(time.type())) {
      throw new InvalidStateException("Cannot " + what + ": the event-time column (field id " + timeId
          + ") is gone from the table or changed type: " + (time == null ? "dropped" : time.name() + " " + time.type()));
    }
  }

  /** A stable text of the layout, stored in the view: another layout means a rebuild. */
  String fingerprint() {
    return "key=" + keyId + ":" + keyKind + ";time=" + timeId + ";features="
        + featureIds.stream().map(String::valueOf).collect(Collectors.joining(","));
  }

  static ViewLayout parse(String fingerprint) {
    String[] parts = fingerprint.split(";");
    String[] key = parts[0].substring("key=".length()).split(":");
    int time = Integer.parseInt(parts[1].substring("time=".length()));
    String features = parts[2].substring("features=".length());
    List<Integer> ids = new ArrayList<>();
    if (!features.isEmpty()) {
      for (String id : features.split(",")) {
        ids.add(Integer.parseInt(id));
      }
    }
    return new ViewLayout(Integer.parseInt(key[0]), KeyKind.valueOf(key[1]), time, ids);
  }
}

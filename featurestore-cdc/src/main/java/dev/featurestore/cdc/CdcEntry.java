package dev.featurestore.cdc;


import dev.featurestore.InvalidArgumentException;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * One change of one document, as it is logged: its sequence id within its shard, the operation,
 * the collection and doc id it applies to, the before and after images (documents as maps of
 * JSON-like values: strings, numbers, booleans, nulls, lists and nested maps) and an optional
 * transaction id.
 *
 * <pre>{@code
 * CdcEntry entry = CdcEntry.builder()
 *     .operation(CdcOperation.UPDATE)
 *     .collection("users").docId("42")
 *     .before(Map.of("id", 42, "name", "Ann"))
 *     .after(Map.of("id", 42, "name", "Anna"))
 *     .transactionId("tx-9")
 *     .build();
 * long seq = pipeline.append(entry);
 * }</pre>
 *
 * <p>Rules, checked by {@link Builder#build()} and by the pipeline's {@code createEntry}:
 * <ul>
 *   <li>{@code Cannot create CDC entry: missing collection}
 *   <li>{@code Cannot create CDC entry: missing doc id: insert into users} (insert and update need
 *       a doc id; a delete may name its document by a before image with an {@code id} or
 *       {@code _id} field instead: {@code Cannot create CDC entry: delete without a doc id or a
 *       before image with an id: users})
 *   <li>{@code Cannot create CDC entry: insert without an after image: users/42} (the same for update)
 * </ul>
 *
 * @param sequenceId the sequence id within the shard; 0 means "not assigned yet" (the pipeline
 *     assigns the next one)
 * @param shardId the shard; empty means "the pipeline's shard"
 */
public record CdcEntry(
    long sequenceId, CdcOperation operation, String collection, String docId, String shardId,
    Optional<Map<String, Object>> before, Optional<Map<String, Object>> after, Optional<String> transactionId) {

  public CdcEntry {
    InvalidArgumentException.requireNonNull(operation, "create CDC entry", "operation");
    InvalidArgumentException.requireNonNull(collection, "create CDC entry", "collection");
    InvalidArgumentException.requireNonNull(docId, "create CDC entry", "docId");
    InvalidArgumentException.requireNonNull(shardId, "create CDC entry", "shardId");
    InvalidArgumentException.requireNonNull(before, "create CDC entry", "before");
    InvalidArgumentException.requireNonNull(after, "create CDC entry", "after");
    InvalidArgumentException.requireNonNull(transactionId, "create CDC entry", "transactionId");
    if (sequenceId < 0) {
      throw new InvalidArgumentException("Cannot create CDC entry: negative sequence id: " + sequenceId);
    }
  }

  public static Builder builder() {
    return new Builder();
  }

  /** A builder initialized from this entry. */
  public Builder toBuilder() {
    Builder b = new Builder().sequenceId(sequenceId).operation(operation).collection(collection).docId(docId)
        .shardId(shardId).transactionId(transactionId.orElse(null));
    before.ifPresent(b::before);
    after.ifPresent(b::after);
    return b;
  }

  CdcEntry withSequence(long seq, String shard) {
    return new CdcEntry(seq, operation, collection, docId, shard, before, after, transactionId);
  }

  /**
   * Validates the parts and builds an entry; used by the builder and by the pipeline.
   *
   * @throws InvalidArgumentException with one of the messages in the class comment
   */
  static CdcEntry of(long seq, CdcOperation op, String collection, String docId, String shard,
      Map<String, ?> before, Map<String, ?> after, String transactionId) {
    String id = check(op, collection, docId, before, after);
    return new CdcEntry(seq, op, collection, id, shard == null ? "" : shard, image(before), image(after),
        Optional.ofNullable(transactionId));
  }

  /**
   * Checks the parts of an entry against the rules of the class comment; returns its doc id (a
   * delete without one takes its before image's {@code id} or {@code _id}).
   *
   * @throws InvalidArgumentException with one of the messages in the class comment
   */
  static String check(CdcOperation op, String collection, String docId, Map<String, ?> before, Map<String, ?> after) {
    if (op == null) {
      throw new InvalidArgumentException("Cannot create CDC entry: unknown operation: null");
    }
    if (collection == null || collection.isBlank()) {
      throw new InvalidArgumentException("Cannot create CDC entry: missing collection");
    }
    String id = docId == null || docId.isBlank() ? null : docId;
    if (id == null) {
      if (op == CdcOperation.DELETE) {
        Object fromBefore = before == null ? null : before.get("id") != null ? before.get("id") : before.get("_id");
        if (fromBefore == null) {
          throw new InvalidArgumentException(
              "Cannot create CDC entry: delete without a doc id or a before image with an id: " + collection);
        }
        id = String.valueOf(fromBefore);
      } else {
        throw new InvalidArgumentException("Cannot create CDC entry: missing doc id: " + op.code()
            + " into " + collection);
      }
    }
    if (op != CdcOperation.DELETE && after == null) {
      throw new InvalidArgumentException("Cannot create CDC entry: " + op.code() + " without an after image: "
          + collection + "/" + id);
    }
    return id;
  }

  @SuppressWarnings("unchecked")
  private static Optional<Map<String, Object>> image(Map<String, ?> image) {
    if (image == null) {
      return Optional.empty();
    }
    return Optional.of(Collections.unmodifiableMap(new LinkedHashMap<>((Map<String, Object>) image)));
  }

  /** Builds an entry from its parts; {@link #build()} checks them. */
  public static final class Builder {
    private long sequenceId;
    private CdcOperation operation;
    private String collection;
    private String docId;
    private String shardId = "";
    private Map<String, ?> before;
    private Map<String, ?> after;
    private String transactionId;

    private Builder() {}

    /** 0 (the default) lets the pipeline assign the next sequence id of its shard. */
    public Builder sequenceId(long sequenceId) {
      if (sequenceId < 0) {
        throw new InvalidArgumentException("Cannot create CDC entry: negative sequence id: " + sequenceId);
      }
      this.sequenceId = sequenceId;
      return this;
    }

    public Builder operation(CdcOperation operation) {
      this.operation = InvalidArgumentException.requireNonNull(operation, "create CDC entry", "operation");
      return this;
    }

    /** {@code insert}, {@code update} or {@code delete}; see {@link CdcOperation#parse(String)}. */
    public Builder operation(String operation) {
      this.operation = CdcOperation.parse(operation);
      return this;
    }

    public Builder collection(String collection) {
      this.collection = collection;
      return this;
    }

    public Builder docId(String docId) {
      this.docId = docId;
      return this;
    }

    /** Empty (the default) means the pipeline's shard; any other value must equal it. */
    public Builder shardId(String shardId) {
      this.shardId = InvalidArgumentException.requireNonNull(shardId, "create CDC entry", "shardId");
      return this;
    }

    public Builder before(Map<String, ?> before) {
      this.before = before;
      return this;
    }

    public Builder after(Map<String, ?> after) {
      this.after = after;
      return this;
    }

    public Builder transactionId(String transactionId) {
      this.transactionId = transactionId;
      return this;
    }

    /** @throws InvalidArgumentException if the parts break a rule of {@link CdcEntry} */
    public CdcEntry build() {
      return of(sequenceId, operation, collection, docId, shardId, before, after, transactionId);
    }
  }
}

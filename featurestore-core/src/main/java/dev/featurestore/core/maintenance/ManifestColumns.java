package dev.featurestore.core.maintenance;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.zip.DataFormatException;
import java.util.zip.Inflater;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.GenericManifestFile;
import org.apache.iceberg.InternalData;
import org.apache.iceberg.ManifestContent;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.ManifestReader;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.types.TypeUtil;

/**
 * Reads the few columns an expiry needs from manifest lists (each manifest's path, length, content,
 * ids and file counts) and manifests (each live entry's path, content and size).
 *
 * <p>Manifest lists and manifests are Avro container files whose header holds the writer's schema
 * as JSON. Avro's own reader parses that schema again for every file, which was most of the cost
 * of an expiry (a table with 1,000 snapshots has as many manifest lists, with the same schema).
 * This reader parses each distinct schema once per expiry, finds the columns by Iceberg field id,
 * and decodes only them. A file it cannot read this way (a codec other than null or deflate, a
 * schema without the expected field ids, an encrypted manifest) is read with Iceberg's readers.
 * Thread-safe.
 */
final class ManifestColumns {
  /** Receives one live entry of a manifest. */
  interface LiveEntry {
    void accept(String location, FileContent content, long sizeInBytes);
  }

  private static final byte[] MAGIC = {'O', 'b', 'j', 1};
  private static final int SYNC_SIZE = 16;

  // manifest list columns (Iceberg field ids)
  private static final int PATH = 500;
  private static final int LENGTH = 501;
  private static final int SPEC_ID = 502;
  private static final int ADDED_SNAPSHOT_ID = 503;
  private static final int ADDED_FILES = 504;
  private static final int EXISTING_FILES = 505;
  private static final int DELETED_FILES = 506;
  private static final int SEQUENCE_NUMBER = 515;
  private static final int MIN_SEQUENCE_NUMBER = 516;
  private static final int CONTENT = 517;
  private static final int KEY_METADATA = 519;
  private static final int FIRST_ROW_ID = 520;
  private static final int[] LIST_REQUIRED = {PATH, LENGTH, SPEC_ID};
  private static final int[] LIST_OPTIONAL = {ADDED_SNAPSHOT_ID, ADDED_FILES, EXISTING_FILES, DELETED_FILES,
      SEQUENCE_NUMBER, MIN_SEQUENCE_NUMBER, CONTENT, KEY_METADATA, FIRST_ROW_ID};

  // manifest entry columns
  private static final int STATUS = 0;
  private static final int DATA_FILE = 2;
  private static final int FILE_CONTENT = 134;
  private static final int FILE_PATH = 100;
  private static final int FILE_SIZE = 104;
  private static final int DELETED = 2; // entry status

  private static final org.apache.iceberg.Schema LIST_PROJECTION = TypeUtil.select(ManifestFile.schema(),
      java.util.Set.of(PATH, LENGTH, SPEC_ID, ADDED_SNAPSHOT_ID, ADDED_FILES, EXISTING_FILES, DELETED_FILES,
          SEQUENCE_NUMBER, MIN_SEQUENCE_NUMBER, CONTENT, KEY_METADATA, FIRST_ROW_ID));
  private static final List<String> ENTRY_COLUMNS = List.of("file_path", "file_size_in_bytes", "content");

  private final FileIO io;
  private final Map<Integer, PartitionSpec> specs;
  /** Decoding plans by writer schema JSON; empty: not readable here. */
  private final Map<String, Optional<Plan>> listPlans = new ConcurrentHashMap<>();
  private final Map<String, Optional<Plan>> entryPlans = new ConcurrentHashMap<>();
  private final AtomicInteger readByIceberg = new AtomicInteger();

  ManifestColumns(FileIO io, Map<Integer, PartitionSpec> specs) {
    this.io = io;
    this.specs = specs;
  }

  /** How many manifest lists and manifests were read with Iceberg's readers (not readable here). */
  int readByIceberg() {
    return readByIceberg.get();
  }

  /** The manifests a snapshot lists. */
  List<ManifestFile> manifests(Snapshot snapshot) {
    String location = snapshot.manifestListLocation();
    if (location == null) {
      return snapshot.allManifests(io); // format v1 without a manifest list: in the metadata
    }
    List<ManifestFile> manifests = new ArrayList<>();
    if (read(location, listPlans, ManifestColumns::listPlan, record -> manifests.add(listed(record)))) {
      return manifests;
    }
    readByIceberg.incrementAndGet();
    try (CloseableIterable<GenericManifestFile> list = InternalData.read(FileFormat.AVRO, io.newInputFile(location))
        .setRootType(GenericManifestFile.class)
        .project(LIST_PROJECTION)
        .build()) {
      list.forEach(manifests::add);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read manifest list: " + location, e);
    }
    return manifests;
  }

  /** Calls {@code action} for each live (added or existing) entry of the manifest. */
  void liveEntries(ManifestFile manifest, LiveEntry action) {
    if (manifest.keyMetadata() == null && read(manifest.path(), entryPlans, ManifestColumns::entryPlan, record -> {
      if ((Integer) record.get(0) != DELETED) {
        GenericRecord file = (GenericRecord) record.get(1);
        Object content = file.get(2);
        action.accept(file.get(0).toString(), content == null ? FileContent.DATA : FileContent.fromId((Integer) content),
            (Long) file.get(1));
      }
    })) {
      return;
    }
    readByIceberg.incrementAndGet();
    try (ManifestReader<? extends ContentFile<?>> reader = manifest.content() == ManifestContent.DATA
        ? ManifestFiles.read(manifest, io, specs).select(ENTRY_COLUMNS)
        : ManifestFiles.readDeleteManifest(manifest, io, specs).select(ENTRY_COLUMNS)) {
      for (ContentFile<?> file : reader) { // live entries only
        action.accept(file.location(), file.content(), file.fileSizeInBytes());
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read manifest: " + manifest.path(), e);
    }
  }

  /** How to decode the columns from files of one writer schema. */
  private record Plan(Schema writer, Schema reader) {}

  private interface PlanFactory {
    Optional<Plan> plan(Schema writer);
  }

  private interface RecordAction {
    void accept(GenericRecord record);
  }

  /**
   * Decodes every record of the Avro file at {@code location} with the plan for its schema.
   * Returns false, having decoded nothing, if the file cannot be read here.
   */
  private boolean read(String location, Map<String, Optional<Plan>> plans, PlanFactory factory, RecordAction action) {
    byte[] bytes;
    try (InputStream in = io.newInputFile(location).newStream()) {
      bytes = in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read file: " + location, e);
    }
    try {
      if (bytes.length < MAGIC.length || !Arrays.equals(bytes, 0, MAGIC.length, MAGIC, 0, MAGIC.length)) {
        return false;
      }
      BinaryDecoder in = DecoderFactory.get().binaryDecoder(bytes, MAGIC.length, bytes.length - MAGIC.length, null);
      Map<String, byte[]> header = new HashMap<>();
      for (long n = in.readMapStart(); n != 0; n = in.mapNext()) {
        for (long i = 0; i < n; i++) {
          String key = in.readString();
          ByteBuffer value = in.readBytes(null);
          byte[] copy = new byte[value.remaining()];
          value.get(copy);
          header.put(key, copy);
        }
      }
      byte[] sync = new byte[SYNC_SIZE];
      in.readFixed(sync, 0, SYNC_SIZE);
      byte[] codecName = header.get("avro.codec");
      String codec = codecName == null ? "null" : new String(codecName, java.nio.charset.StandardCharsets.UTF_8);
      byte[] schemaJson = header.get("avro.schema");
      if (schemaJson == null || !(codec.equals("null") || codec.equals("deflate"))) {
        return false;
      }
      Optional<Plan> plan = plans.computeIfAbsent(new String(schemaJson, java.nio.charset.StandardCharsets.UTF_8),
          json -> factory.plan(new Schema.Parser().parse(json)));
      if (plan.isEmpty()) {
        return false;
      }
      GenericDatumReader<GenericRecord> reader = new GenericDatumReader<>(plan.get().writer(), plan.get().reader());
      GenericRecord record = null;
      BinaryDecoder block = null;
      byte[] blockSync = new byte[SYNC_SIZE];
      while (!in.isEnd()) {
        long count = in.readLong();
        ByteBuffer data = in.readBytes(null);
        in.readFixed(blockSync, 0, SYNC_SIZE);
        if (!Arrays.equals(sync, blockSync)) {
          throw new IOException("Invalid sync marker");
        }
        byte[] raw = codec.equals("deflate") ? inflate(data) : toArray(data);
        block = DecoderFactory.get().binaryDecoder(raw, block);
        for (long i = 0; i < count; i++) {
          record = reader.read(record, block);
          action.accept(record);
        }
      }
      return true;
    } catch (IOException | RuntimeException e) {
      throw new UncheckedIOException("Cannot read Avro file: " + location,
          e instanceof IOException io ? io : new IOException(e));
    }
  }

  private static byte[] toArray(ByteBuffer data) {
    byte[] array = new byte[data.remaining()];
    data.get(array);
    return array;
  }

  private static byte[] inflate(ByteBuffer data) throws IOException {
    Inflater inflater = new Inflater(true); // Avro's deflate: raw, no zlib header
    try {
      inflater.setInput(data);
      ByteArrayOutputStream out = new ByteArrayOutputStream(Math.max(64, data.remaining() * 4));
      byte[] buffer = new byte[8192];
      while (!inflater.finished()) {
        int n = inflater.inflate(buffer);
        if (n == 0 && (inflater.needsInput() || inflater.needsDictionary())) {
          break; // input exhausted
        }
        out.write(buffer, 0, n);
      }
      return out.toByteArray();
    } catch (DataFormatException e) {
      throw new IOException("Invalid deflate block", e);
    } finally {
      inflater.end();
    }
  }

  /** Manifest list: the fields by id, in the order of LIST_REQUIRED then LIST_OPTIONAL (absent: null). */
  private static Optional<Plan> listPlan(Schema writer) {
    if (writer.getType() != Schema.Type.RECORD) {
      return Optional.empty();
    }
    List<Schema.Field> fields = new ArrayList<>();
    for (int id : LIST_REQUIRED) {
      Schema.Field field = fieldWithId(writer, id);
      if (field == null) {
        return Optional.empty();
      }
      fields.add(new Schema.Field(field, field.schema()));
    }
    for (int id : LIST_OPTIONAL) {
      Schema.Field field = fieldWithId(writer, id);
      // an absent column reads as null: an optional field of the reader with a null default
      fields.add(field != null ? new Schema.Field(field, field.schema())
          : new Schema.Field("absent_" + id, Schema.createUnion(Schema.create(Schema.Type.NULL),
              Schema.create(Schema.Type.INT)), null, Schema.Field.NULL_DEFAULT_VALUE));
    }
    return Optional.of(new Plan(writer, record(writer, fields)));
  }

  /** Manifest entry: status, then data_file with path, size and content (absent in v1: null). */
  private static Optional<Plan> entryPlan(Schema writer) {
    if (writer.getType() != Schema.Type.RECORD) {
      return Optional.empty();
    }
    Schema.Field status = fieldWithId(writer, STATUS);
    Schema.Field dataFile = fieldWithId(writer, DATA_FILE);
    if (status == null || dataFile == null || dataFile.schema().getType() != Schema.Type.RECORD) {
      return Optional.empty();
    }
    Schema fileSchema = dataFile.schema();
    Schema.Field path = fieldWithId(fileSchema, FILE_PATH);
    Schema.Field size = fieldWithId(fileSchema, FILE_SIZE);
    Schema.Field content = fieldWithId(fileSchema, FILE_CONTENT);
    if (path == null || size == null || status.schema().getType() != Schema.Type.INT
        || size.schema().getType() != Schema.Type.LONG
        || (content != null && content.schema().getType() != Schema.Type.INT)) {
      return Optional.empty();
    }
    List<Schema.Field> fileFields = new ArrayList<>();
    fileFields.add(new Schema.Field(path, path.schema()));
    fileFields.add(new Schema.Field(size, size.schema()));
    fileFields.add(content != null ? new Schema.Field(content, content.schema())
        : new Schema.Field("absent_content", Schema.createUnion(Schema.create(Schema.Type.NULL),
            Schema.create(Schema.Type.INT)), null, Schema.Field.NULL_DEFAULT_VALUE));
    Schema fileReader = record(fileSchema, fileFields);
    return Optional.of(new Plan(writer, record(writer, List.of(new Schema.Field(status, status.schema()),
        new Schema.Field(dataFile, fileReader)))));
  }

  private static Schema record(Schema like, List<Schema.Field> fields) {
    return Schema.createRecord(like.getName(), like.getDoc(), like.getNamespace(), false, fields);
  }

  private static Schema.Field fieldWithId(Schema record, int id) {
    for (Schema.Field field : record.getFields()) {
      Object fieldId = field.getObjectProp("field-id");
      if (fieldId instanceof Number number && number.intValue() == id) {
        return field;
      }
    }
    return null;
  }

  private static ManifestFile listed(GenericRecord r) {
    return new Listed(r.get(0).toString(), (Long) r.get(1), (Integer) r.get(2), (Long) r.get(3),
        (Integer) r.get(4), (Integer) r.get(5), (Integer) r.get(6), longOr(r.get(7), 0), longOr(r.get(8), 0),
        r.get(9) == null ? ManifestContent.DATA : ManifestContent.fromId((Integer) r.get(9)),
        r.get(10) == null ? null : copy((ByteBuffer) r.get(10)), (Long) r.get(11));
  }

  private static long longOr(Object value, long otherwise) {
    return value == null ? otherwise : (Long) value;
  }

  private static ByteBuffer copy(ByteBuffer buffer) {
    ByteBuffer copy = ByteBuffer.allocate(buffer.remaining());
    copy.put(buffer.duplicate()).flip();
    return copy;
  }

  /** A manifest as its list describes it, with the columns read here (others null). */
  private record Listed(String path, long length, int partitionSpecId, Long snapshotId, Integer addedFilesCount,
      Integer existingFilesCount, Integer deletedFilesCount, long sequenceNumber, long minSequenceNumber,
      ManifestContent content, ByteBuffer keyMetadata, Long firstRowId) implements ManifestFile {
    @Override
    public Long addedRowsCount() {
      return null;
    }

    @Override
    public Long existingRowsCount() {
      return null;
    }

    @Override
    public Long deletedRowsCount() {
      return null;
    }

    @Override
    public List<PartitionFieldSummary> partitions() {
      return null;
    }

    @Override
    public ManifestFile copy() {
      return this;
    }
  }
}

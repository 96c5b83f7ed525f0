package dev.featurestore.core.storage.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.QueryResult;
import dev.featurestore.Row;
import dev.featurestore.StorageException;
import dev.featurestore.SyntheticFeatures;
import dev.featurestore.TableDefinition;
import dev.featurestore.core.storage.ForwardingInputFile;
import dev.featurestore.core.testing.InputInterceptingFileIO;
import java.lang.reflect.Field;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.SeekableInputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** Storage failing under a running operation: what the caller is told, and what is left open. */
class StorageFaultsTest {
  @RegisterExtension static S3TestServer s3 = new S3TestServer();
  @TempDir Path root;

  @Test
  void connectionResets_pastEveryRetry_sayRetriedHowOftenAndTransient() {
    s3.gate().faults(new ProviderGate.Faults(1.0, 0, 0, 0, 0, 1)); // every connection reset
    assertThatThrownBy(() -> ObjectStorageIO.open(s3.b2ThroughGate(), Map.of(ObjectStorageIO.MAX_ATTEMPTS, "3")))
        .isInstanceOf(StorageException.class)
        .hasMessageStartingWith("Cannot open object storage: connection failed after 3 attempts (")
        .hasMessageContaining("), a transient network or server failure: retry later: ")
        .hasMessageEndingWith(": " + s3.gate().endpoint());
  }

  @Test
  void scanFailingMidway_leavesNoInputStreamOpen() throws Exception {
    FileIO bucketIO = ObjectStorageIO.open(s3.b2ThroughGate(), Map.of(ObjectStorageIO.MAX_ATTEMPTS, "2"));
    CountingFileIO io = new CountingFileIO(bucketIO);
    try (FeatureStore store = FeatureStore.builder().root(root).objectStorage(s3.b2ThroughGate()).fileIO(io).build()) {
      FeatureTable table = store.createTable(
          TableDefinition.builder(SyntheticFeatures.TABLE_ID, SyntheticFeatures.schema()).build());
      for (int i = 0; i < 6; i++) {
        table.ingest().synthetic(500, i).commit();
      }
      assertThat(io.unclosed()).isEmpty();
      int failures = 0;
      for (long seed = 1; seed <= 12; seed++) {
        s3.gate().faults(new ProviderGate.Faults(0.35, 0, 0, 0, 0, seed));
        for (boolean filtered : new boolean[] {false, true}) {
          Throwable thrown = catchThrowable(() -> {
            try (QueryResult rows = filtered
                ? table.query().filter(Expressions.greaterThan("feature_a", 0.5)).execute()
                : table.query().execute()) {
              for (Row ignored : rows) {
                // read on
              }
            }
          });
          if (thrown != null) {
            failures++;
          }
          // Iceberg plans on its worker pool and a failed plan returns before the other manifest
          // readers end: wait for them (a bound, not a timing assertion); a leaked stream never closes
          for (int wait = 0; wait < 200 && !io.unclosed().isEmpty(); wait++) {
            Thread.sleep(50);
          }
          assertThat(io.unclosed()).as("streams of the bucket's FileIO open after a scan (seed %s, filtered %s, failed: %s)",
              seed, filtered, thrown).isEmpty();
        }
        s3.gate().faults(ProviderGate.Faults.none());
      }
      assertThat(failures).as("scans that failed midway").isPositive();
    } finally {
      bucketIO.close();
    }
  }

  /**
   * Records the input streams a FileIO hands out, to tell which were never closed (by the reader
   * or by the stream itself). A stream counts as closed when its own {@code closed} flag says so:
   * Iceberg's S3InputStream and the library's stream both keep one.
   */
  static final class CountingFileIO extends InputInterceptingFileIO {
    final List<Object> streams = new java.util.concurrent.CopyOnWriteArrayList<>();
    final Map<Object, String> openedAt = new java.util.concurrent.ConcurrentHashMap<>();

    CountingFileIO(FileIO delegate) {
      super(delegate, Ownership.OWNED);
    }

    List<String> unclosed() {
      List<String> open = new ArrayList<>();
      for (Object stream : streams) {
        if (!closedFlag(stream)) {
          open.add(stream.getClass().getSimpleName() + " of " + openedAt.get(stream));
        }
      }
      return open;
    }

    private static boolean closedFlag(Object stream) {
      for (Class<?> c = stream.getClass(); c != null; c = c.getSuperclass()) {
        try {
          Field closed = c.getDeclaredField("closed");
          closed.setAccessible(true);
          return closed.getBoolean(stream);
        } catch (NoSuchFieldException e) {
          // look in the superclass
        } catch (IllegalAccessException e) {
          throw new IllegalStateException(e);
        }
      }
      throw new IllegalStateException("no closed flag on " + stream.getClass());
    }

    @Override
    protected InputFile intercept(InputFile file) {
      return new ForwardingInputFile(file) {
        @Override
        public SeekableInputStream newStream() {
          SeekableInputStream in = super.newStream();
          streams.add(in);
          openedAt.put(in, location());
          return in;
        }
      };
    }
  }
}

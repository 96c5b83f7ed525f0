package dev.featurestore.core.catalog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.featurestore.FeatureStore;
import dev.featurestore.SyntheticFeatures;
import dev.featurestore.TableAlreadyExistsException;
import dev.featurestore.TableDefinition;
import dev.featurestore.core.storage.ForwardingFileIO;
import dev.featurestore.core.storage.ForwardingPositionOutputStream;
import dev.featurestore.core.storage.LocalFileIO;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableMetadataParser;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.PositionOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A create that loses the race for the catalog row deletes the first metadata file it wrote, and
 * no other: while it loses, the table's folder may hold the first metadata file of the table as
 * another process dropped and created it again, whose table uuid is not the winner's it saw.
 */
class LostCreateCleanupTest {
  @TempDir Path root;

  private static TableDefinition definition() {
    return TableDefinition.builder(SyntheticFeatures.TABLE_ID, SyntheticFeatures.schema()).build();
  }

  @Test
  void lostCreate_deletesItsOwnFirstMetadataFile_andLeavesAnotherTablesFirstFile() throws Exception {
    AtomicReference<String> losersFile = new AtomicReference<>();
    AtomicReference<String> foreignFile = new AtomicReference<>();
    RacingFileIO io = new RacingFileIO();
    try (FeatureStore store = FeatureStore.builder().root(root).fileIO(io).build()) {
      // when the loser is about to write its first metadata file (past the catalog check and the
      // folder listing): another thread creates the table, and a first metadata file of another
      // table uuid appears (what a drop and a new create leave)
      io.onFirstMetadataFile(false, location -> {
        losersFile.set(location);
        CompletableFuture.runAsync(() -> store.createTable(definition())).join();
        String foreign = location.substring(0, location.lastIndexOf('/') + 1) + "00000-" + UUID.randomUUID()
            + ".metadata.json";
        TableMetadataParser.write(TableMetadata.newTableMetadata(SyntheticFeatures.schema(),
            PartitionSpec.unpartitioned(), location.substring(0, location.lastIndexOf("/metadata/")), Map.of()),
            io.newOutputFile(foreign));
        foreignFile.set(foreign);
      });

      assertThatThrownBy(() -> store.createTable(definition()))
          .isInstanceOf(TableAlreadyExistsException.class)
          .hasMessage("Cannot create table: table already exists: features.feature_events");

      assertThat(losersFile.get()).isNotNull();
      assertThat(LocalFileIO.toPath(losersFile.get())).as("the loser's own first metadata file").doesNotExist();
      assertThat(LocalFileIO.toPath(foreignFile.get())).as("another table's first metadata file").exists();
      String winners = ((HasTableOperations) store.table(SyntheticFeatures.TABLE_ID).unwrap(Table.class)).operations()
          .current().metadataFileLocation();
      assertThat(winners).isNotEqualTo(losersFile.get());
      assertThat(LocalFileIO.toPath(winners)).exists();
    }
  }

  /**
   * The loser's first metadata file, complete, found by another process's create before the loser's
   * catalog insert: that create registers it as an interrupted create and wins, so the file is the
   * table's and the loser keeps it.
   */
  @Test
  void lostCreate_whoseFileTheWinnerRegistered_keepsIt() throws Exception {
    AtomicReference<String> losersFile = new AtomicReference<>();
    RacingFileIO io = new RacingFileIO();
    try (FeatureStore store = FeatureStore.builder().root(root).fileIO(io).build()) {
      io.onFirstMetadataFile(true, location -> {
        losersFile.set(location);
        CompletableFuture.runAsync(() -> store.createTable(definition())).join();
      });

      assertThatThrownBy(() -> store.createTable(definition()))
          .isInstanceOf(TableAlreadyExistsException.class)
          .hasMessage("Cannot create table: table already exists: features.feature_events");

      Table table = store.table(SyntheticFeatures.TABLE_ID).unwrap(Table.class);
      assertThat(((HasTableOperations) table).operations().current().metadataFileLocation()).isEqualTo(losersFile.get());
      assertThat(LocalFileIO.toPath(losersFile.get())).exists();
      table.refresh();
      assertThat(table.currentSnapshot()).isNull();
    }
    try (FeatureStore store = FeatureStore.openLocal(root)) {
      assertThat(store.table(SyntheticFeatures.TABLE_ID).ingest().synthetic(10, 1).commit().rows()).isEqualTo(10);
    }
  }

  /**
   * The local FileIO, calling a hook once, on the thread writing a first metadata file: when it
   * opens the file (nothing written yet) or once the file is complete.
   */
  private static final class RacingFileIO extends ForwardingFileIO {
    private static final long serialVersionUID = 1L;
    private final transient AtomicReference<Consumer<String>> hook = new AtomicReference<>();
    private volatile boolean afterWrite;

    RacingFileIO() {
      super(new LocalFileIO(), Ownership.OWNED);
      initialize(Map.of());
    }

    void onFirstMetadataFile(boolean whenComplete, Consumer<String> action) {
      afterWrite = whenComplete;
      hook.set(action);
    }

    @Override
    public OutputFile newOutputFile(String location) {
      String name = location.substring(location.lastIndexOf('/') + 1);
      OutputFile file = super.newOutputFile(location);
      if (!name.startsWith("00000-") || !name.endsWith(".metadata.json")) {
        return file;
      }
      Consumer<String> action = hook.getAndSet(null);
      if (action == null) {
        return file;
      }
      if (!afterWrite) {
        action.accept(location);
        return file;
      }
      return new OutputFile() {
        @Override
        public PositionOutputStream create() {
          return hooked(file.create());
        }

        @Override
        public PositionOutputStream createOrOverwrite() {
          return hooked(file.createOrOverwrite());
        }

        private PositionOutputStream hooked(PositionOutputStream out) {
          return new ForwardingPositionOutputStream(out) {
            @Override
            public void close() throws IOException {
              boolean first = !isClosed();
              super.close();
              if (first) {
                action.accept(location);
              }
            }
          };
        }

        @Override
        public String location() {
          return file.location();
        }

        @Override
        public InputFile toInputFile() {
          return file.toInputFile();
        }
      };
    }
  }
}

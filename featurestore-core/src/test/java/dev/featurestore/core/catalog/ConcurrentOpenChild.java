package dev.featurestore.core.catalog;

import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.SyntheticFeatures;
import dev.featurestore.TableAlreadyExistsException;
import dev.featurestore.TableDefinition;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.apache.iceberg.Table;

/**
 * The child JVM of {@link ConcurrentOpenTest}: for every store root read from standard input,
 * opens the store and opens or creates {@link SyntheticFeatures#TABLE_ID} (load it, else create
 * it, and if another process created it meanwhile load that one), then prints
 * {@code OK <root> <table uuid>} or {@code FAIL <root> <exception>}.
 */
public final class ConcurrentOpenChild {
  private ConcurrentOpenChild() {}

  public static void main(String[] args) throws Exception {
    System.out.println("READY");
    System.out.flush();
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    for (String root; (root = in.readLine()) != null; ) {
      try (FeatureStore store = FeatureStore.openLocal(Path.of(root))) {
        FeatureTable table = store.findTable(SyntheticFeatures.TABLE_ID).orElseGet(() -> {
          try {
            return store.createTable(TableDefinition.builder(SyntheticFeatures.TABLE_ID, SyntheticFeatures.schema()).build());
          } catch (TableAlreadyExistsException e) {
            return store.table(SyntheticFeatures.TABLE_ID);
          }
        });
        System.out.println("OK " + root + " " + table.unwrap(Table.class).uuid());
      } catch (RuntimeException e) {
        System.out.println("FAIL " + root + " " + e.toString().replace('\n', ' '));
      }
      System.out.flush();
    }
  }
}

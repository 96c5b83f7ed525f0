package dev.featurestore.cdc;

import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureStoreException;
import dev.featurestore.ObjectStorage;
import dev.featurestore.StorageProvider;
import dev.featurestore.core.storage.s3.S3TestServer;
import java.io.PrintStream;
import java.nio.file.Path;

/**
 * The process {@link CdcFlakyStorageTest} kills: streams {@link CdcCrashChild}'s deterministic
 * entries to a store on the test's S3 gate (faults on), printing {@code ACK <seq>} for each
 * accepted one and flushing every fifth (a failed flush is typed and tolerated), until killed.
 *
 * <p>args: store-dir wal-dir gate-endpoint key-prefix
 */
public final class CdcFlakyStorageChild {
  private CdcFlakyStorageChild() {}

  public static void main(String[] args) {
    Path storeDir = Path.of(args[0]);
    Path walDir = Path.of(args[1]);
    ObjectStorage storage = ObjectStorage.builder(StorageProvider.B2).endpoint(args[2]).region(S3TestServer.REGION)
        .bucket(S3TestServer.BUCKET).credentials(S3TestServer.KEY_ID, S3TestServer.SECRET).keyPrefix(args[3]).build();
    PrintStream out = System.out;
    FeatureStore store = FeatureStore.builder().root(storeDir).objectStorage(storage).build();
    CdcPipeline cdc = null;
    while (cdc == null) {
      try {
        cdc = CdcFlakyStorageTest.pipeline(store, walDir).build();
      } catch (FeatureStoreException e) {
        // the storage failed the open: try again
      }
    }
    out.println("STARTED " + cdc.lastAcceptedSequence());
    out.flush();
    for (long seq = cdc.lastAcceptedSequence() + 1; ; seq++) {
      long got = CdcCrashChild.submit(cdc, seq);
      if (got != seq) {
        throw new IllegalStateException("sequence " + got + " != " + seq);
      }
      out.println("ACK " + got);
      out.flush();
      if (seq % 5 == 0) {
        try {
          cdc.flush();
        } catch (FeatureStoreException e) {
          // typed: the entries stay pending
        }
      }
    }
  }
}

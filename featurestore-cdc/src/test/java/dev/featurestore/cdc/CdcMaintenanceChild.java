package dev.featurestore.cdc;

import dev.featurestore.FeatureStore;
import dev.featurestore.MaintenancePolicy;
import dev.featurestore.MaintenanceRun;
import dev.featurestore.MetricsListener;
import dev.featurestore.core.storage.ForwardingFileIO;
import dev.featurestore.core.storage.LocalFileIO;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.iceberg.io.FileInfo;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;

/**
 * A process streaming into both tables with eager background maintenance, for
 * {@link CdcMaintenanceCrashTest}. Args: store root, log directory, shard, mode, batches.
 * Prints {@code PID <pid>}, {@code ACK <seq>} for every accepted entry (entry {@code s} updates document
 * {@code d<s % 40>}), {@code RUN <table> <token> <pid> <startMicros> <endMicros> <outcome>} for
 * every maintenance check that ran holding the lease and touched a file, and then, by mode:
 * <ul>
 *   <li>{@code compacting}: {@code PAUSED compacting} when a compaction's data files are written and
 *       its commit's manifest list is about to be, and waits there for the SIGKILL;
 *   <li>{@code carrying}: the current state's compaction is held 1 s at its first output file (the stream
 *       commits meanwhile, so it has deletes to carry over), then {@code PAUSED carrying} when it writes the
 *       carried-over deletes (holding the table's commit lock, before its commit), and waits for the SIGKILL;
 *   <li>{@code expiring}: {@code PAUSED expiring} at expiry's first file deletion (after its commit), and waits
 *       (compaction and manifest rewrite are off, so only expiry deletes);
 *   <li>{@code lease}: {@code PAUSED lease} once it holds both tables' maintenance leases, and keeps writing;
 *   <li>{@code race}: writes {@code batches} batches to the change log only, closes (releasing its lease) and
 *       prints {@code DONE}.
 * </ul>
 */
public final class CdcMaintenanceChild {
  private CdcMaintenanceChild() {}

  public static void main(String[] args) throws Exception {
    Path root = Path.of(args[0]);
    Path wal = Path.of(args[1]);
    String shard = args[2];
    String mode = args[3];
    int batches = Integer.parseInt(args[4]);
    long pid = ProcessHandle.current().pid();
    print("PID " + pid);
    PausingIO io = new PausingIO(mode);
    FeatureStore store = FeatureStore.builder().root(root).fileIO(io).metricsListener(new MetricsListener() {
      @Override
      public void onMaintenance(MaintenanceRun run) {
        boolean held = run.lease() == MaintenanceRun.Lease.ACQUIRED || run.lease() == MaintenanceRun.Lease.TAKEN_OVER
            || run.lease() == MaintenanceRun.Lease.HELD;
        // called on the maintenance thread at the end of the check, before its lease can be released
        long end = PausingIO.micros();
        long first = PausingIO.firstIoOfThisCheck();
        if (held && run.outcome() != MaintenanceRun.Outcome.SKIPPED && first > 0) {
          print("RUN " + run.table() + " " + run.leaseToken() + " " + pid + " " + first + " " + end + " " + run.outcome());
        }
      }
    }).build();
    MaintenancePolicy.Builder policy = CdcMaintenanceTest.eager().toBuilder().leaseDuration(Duration.ofSeconds(30))
        .maxSnapshotAge(Duration.ZERO);
    if (mode.equals("carrying")) {
      policy.rewriteManifestsWhenAtLeast(100_000); // the current state's compaction is what runs
    }
    if (mode.equals("expiring")) {
      policy.compactWhenSmallFilesAtLeast(100_000).rewriteManifestsWhenAtLeast(100_000);
    }
    if (mode.equals("race")) {
      policy.checkEvery(Duration.ofMillis(50)); // handed over when its holder closes
    }
    CdcPipeline.Builder builder = CdcPipeline.builder(store).changeLog(CdcTestSupport.LOG).shardId(shard)
        .writeAheadLog(wal).flushInterval(Duration.ZERO).maintenance(policy.build()).commitRetries(20);
    if (!mode.equals("race")) {
      builder.currentState(CdcTestSupport.STATE); // two shards rewriting one current state would only race each other
    }
    CdcPipeline cdc = builder.build();
    boolean leasePrinted = false;
    for (int batch = 0; mode.equals("race") ? batch < batches : true; batch++) {
      for (int j = 0; j < 10; j++) {
        long next = cdc.lastAcceptedSequence() + 1;
        long seq = cdc.update("users", "d" + (next % 40), Map.of("s", next));
        print("ACK " + seq);
      }
      cdc.flush();
      if (mode.equals("lease") && !leasePrinted && cdc.maintenance().stream().allMatch(s -> s.leaseHeld())
          && batch > 20) {
        print("PAUSED lease");
        leasePrinted = true;
      }
    }
    cdc.close();
    store.close();
    print("DONE");
  }

  static synchronized void print(String line) {
    System.out.println(line);
    System.out.flush();
  }

  /** The local FileIO, stopping the maintenance thread at the mode's point until the process is killed. */
  static final class PausingIO extends ForwardingFileIO {
    private final String mode;
    private final AtomicBoolean compacting = new AtomicBoolean();
    private final AtomicBoolean held = new AtomicBoolean();

    PausingIO(String mode) {
      super(new LocalFileIO(), Ownership.OWNED);
      this.mode = mode;
    }

    /**
     * The wall-clock time of the maintenance thread's first file access in the current check (0 if
     * none yet). A check's work starts no earlier: the lease is taken in the catalog database before
     * any file is touched, so this start, unlike one estimated as "end - elapsed" (the elapsed time
     * includes waiting for the lease), can never fall before the previous holder released it.
     */
    private static final ThreadLocal<long[]> FIRST_IO = ThreadLocal.withInitial(() -> new long[1]);

    /** Epoch microseconds from the system clock: one clock for both processes, finer than milliseconds. */
    static long micros() {
      java.time.Instant now = java.time.Instant.now();
      return now.getEpochSecond() * 1_000_000 + now.getNano() / 1_000;
    }

    /** The current check's first file access on this thread, and resets it for the next check. */
    static long firstIoOfThisCheck() {
      long[] first = FIRST_IO.get();
      long value = first[0];
      first[0] = 0;
      return value;
    }

    private static boolean maintenanceThread() {
      boolean maintenance = Thread.currentThread().getName().startsWith("featurestore-maintenance-");
      if (maintenance) {
        long[] first = FIRST_IO.get();
        if (first[0] == 0) {
          first[0] = micros();
        }
      }
      return maintenance;
    }

    @Override
    public InputFile newInputFile(String path) {
      maintenanceThread();
      return super.newInputFile(path);
    }

    @Override
    public InputFile newInputFile(String path, long length) {
      maintenanceThread();
      return super.newInputFile(path, length);
    }

    @Override
    public OutputFile newOutputFile(String path) {
      maintenanceThread();
      if (mode.equals("carrying") && maintenanceThread() && path.contains("/cdc/docs/")) {
        if (path.contains("compact-") && held.compareAndSet(false, true)) {
          try {
            Thread.sleep(1_000); // the stream commits while the compaction rewrites
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        } else if (held.get() && path.endsWith(".puffin")) {
          pause("carrying");
        }
      }
      if (mode.equals("compacting") && maintenanceThread()) {
        if (path.contains("compact-")) {
          compacting.set(true);
        } else if (compacting.get() && path.contains("/metadata/snap-")) {
          pause("compacting");
        }
      }
      return super.newOutputFile(path);
    }

    @Override
    public void deleteFile(String path) {
      maintenanceThread();
      pauseIfExpiring(path);
      super.deleteFile(path);
    }

    @Override
    public void deleteFiles(Iterable<String> paths) {
      maintenanceThread();
      paths.forEach(this::pauseIfExpiring);
      super.deleteFiles(paths);
    }

    @Override
    public Iterable<FileInfo> listPrefix(String prefix) {
      maintenanceThread();
      return super.listPrefix(prefix);
    }

    @Override
    public void deletePrefix(String prefix) {
      maintenanceThread();
      super.deletePrefix(prefix);
    }

    private void pauseIfExpiring(String path) {
      // expiry deletes on the store's worker threads; with compaction off nothing else deletes here
      if (mode.equals("expiring") && !path.endsWith(".metadata.json")) {
        pause("expiring");
      }
    }

    private static void pause(String point) {
      print("PAUSED " + point);
      try {
        Thread.sleep(Long.MAX_VALUE); // the parent kills the process here
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}

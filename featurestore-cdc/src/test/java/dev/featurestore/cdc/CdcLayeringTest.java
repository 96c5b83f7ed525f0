package dev.featurestore.cdc;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import dev.featurestore.core.storage.ForwardingFileIO;
import dev.featurestore.core.storage.ProcessFileLock;
import java.util.Set;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.FileIO;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The layering of featurestore-cdc: it builds on the API ({@code dev.featurestore}) and on
 * core's floor ({@code core.base}: error translation, commit marks, the lease), core's file
 * writer ({@code core.write}), the one base for FileIO wrappers ({@code core.storage.ForwardingFileIO}, with its {@code Ownership}),
 * the one way to lock a local file ({@code core.storage.ProcessFileLock}, for the write-ahead log's shard lock)
 * and nothing else of core (no table concern, no store implementation). Its own implementation classes are package-private: the public surface is
 * the pipeline, its builder, its settings enums and its result and exception types.
 */
class CdcLayeringTest {
  private static final Set<String> PUBLIC = Set.of("CdcPipeline", "CdcPipeline$Builder", "CdcEntry", "CdcEntry$Builder",
      "CdcOperation", "CdcMode", "CdcCompression", "FsyncPolicy", "Backpressure", "WalRecovery", "CdcMetrics",
      "FlushResult", "DeadLetter", "CdcStatus", "CdcStatus$WalShard", "CdcBackpressureException", "WalCorruptionException",
      "CdcLeaseException", "CurrentStateLayout");
  private static final DescribedPredicate<JavaClass> FORWARDING_FILE_IO =
      JavaClass.Predicates.equivalentTo(ForwardingFileIO.class).or(JavaClass.Predicates.equivalentTo(ForwardingFileIO.Ownership.class))
          .or(JavaClass.Predicates.equivalentTo(ProcessFileLock.class))
          .or(JavaClass.Predicates.equivalentTo(ProcessFileLock.Open.class));
  private static JavaClasses cdc;

  @BeforeAll
  static void importClasses() {
    cdc = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
        .importPackages("dev.featurestore.cdc");
  }

  @Test
  void cdc_usesOnlyTheApiAndCoresFloor() {
    noClasses().that().resideInAPackage("dev.featurestore.cdc..")
        .should().dependOnClassesThat(JavaClass.Predicates.resideInAPackage("dev.featurestore.core..")
            .and(JavaClass.Predicates.resideOutsideOfPackages("dev.featurestore.core.base..", "dev.featurestore.core.write.."))
            .and(DescribedPredicate.not(FORWARDING_FILE_IO)))
        .check(cdc);
  }

  @Test
  void cdc_dependsOnNoStoreImplementationOrConcern() {
    noClasses().that().resideInAPackage("dev.featurestore.cdc..")
        .should().dependOnClassesThat().resideInAnyPackage(
            "dev.featurestore.core", "dev.featurestore.core.ingest..", "dev.featurestore.core.schema..",
            "dev.featurestore.core.snapshot..", "dev.featurestore.core.query..", "dev.featurestore.core.stats..",
            "dev.featurestore.core.maintenance..", "dev.featurestore.core.partition..", "dev.featurestore.core.pruning..",
            "dev.featurestore.core.bloom..", "dev.featurestore.core.lookup..", "dev.featurestore.core.tiering..",
            "dev.featurestore.core.objects..", "dev.featurestore.core.dashboard..", "dev.featurestore.core.metrics..",
            "dev.featurestore.core.catalog..", "dev.featurestore.duckdb..")
        .orShould().dependOnClassesThat(JavaClass.Predicates.resideInAPackage("dev.featurestore.core.storage..")
            .and(DescribedPredicate.not(FORWARDING_FILE_IO)))
        .check(cdc);
  }

  @Test
  void fileLocks_areTakenThroughProcessFileLock() {
    noClasses().that().resideInAPackage("dev.featurestore.cdc..")
        .should().callMethod(java.nio.channels.FileChannel.class, "tryLock")
        .orShould().callMethod(java.nio.channels.FileChannel.class, "lock")
        .because("closing any channel on a locked file drops the process's lock: core.storage.ProcessFileLock refuses"
            + " a second claim in this JVM before it opens one")
        .check(cdc);
  }

  @Test
  void implementationClasses_arePackagePrivate() {
    classes().that().resideInAPackage("dev.featurestore.cdc").and().areTopLevelClasses().and().arePublic()
        .should().haveNameMatching("dev\\.featurestore\\.cdc\\.(" + String.join("|", PUBLIC).replace("$", "\\$") + ")")
        .check(cdc);
  }

  /** A FileIO holding another FileIO: a wrapper (the warm-up's in-memory FileIO holds none). */
  private static final DescribedPredicate<JavaClass> WRAPS_A_FILE_IO = new DescribedPredicate<>("wrap a FileIO") {
    @Override
    public boolean test(JavaClass c) {
      return c.isAssignableTo(FileIO.class)
          && c.getAllFields().stream().anyMatch(f -> f.getRawType().isAssignableTo(FileIO.class));
    }
  };

  @Test
  void fileIOWrappers_extendTheForwardingBase() {
    classes().that(WRAPS_A_FILE_IO).should().beAssignableTo(ForwardingFileIO.class).check(cdc);
  }

  @Test
  void tableScans_startInCoresScanPlanning() {
    noClasses().that().resideInAPackage("dev.featurestore.cdc..")
        .should().callMethod(Table.class, "newScan")
        .because("core.base.ScanPlanning decides where a scan is planned")
        .check(cdc);
  }
}

package dev.featurestore.core.architecture;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.assignableTo;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import dev.featurestore.core.storage.ProcessFileLock;
import dev.featurestore.core.base.ScanPlanning;
import dev.featurestore.core.storage.ForwardingFileIO;
import dev.featurestore.core.storage.ForwardingPositionOutputStream;
import dev.featurestore.core.storage.ForwardingSeekableInputStream;
import java.nio.channels.FileChannel;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.PositionOutputStream;
import org.apache.iceberg.io.SeekableInputStream;
import org.apache.iceberg.io.SupportsPrefixOperations;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The layering of the code, written down once so it cannot drift silently; docs/architecture.md
 * draws it.
 *
 * <ul>
 *   <li>The API ({@code dev.featurestore}, {@code dev.featurestore.spi}) knows nothing of the
 *       implementation, nor of Iceberg core, Parquet, Hadoop, AWS, DuckDB or SQLite.
 *   <li>Storage and catalog are the bottom layer: they know no table concern.
 *   <li>The floor ({@code core.base}: the table handle, error translation, commit marks and the
 *       other pieces every concern shares) sits above storage and catalog and below the concerns:
 *       it knows no concern and not the composition root.
 *   <li>Each table concern (ingest, schema, partition, bloom, snapshot, query, stats, maintenance, lookup,
 *       tiering, objects, dashboard, inspect) stands alone: no concern
 *       depends on another, and none on the store implementation (the composition root); what they
 *       share lives in the floor.
 *   <li>Streams that wrap a FileIO stream extend the one forwarding base in storage
 *       ({@code ForwardingSeekableInputStream}, {@code ForwardingPositionOutputStream}); only
 *       storage implements Iceberg's stream types from scratch.
 *   <li>Likewise every FileIO outside storage is a wrapper extending {@code ForwardingFileIO}:
 *       only storage implements Iceberg's FileIO from scratch.
 *   <li>Whether a FileIO can list by prefix is asked of {@code storage.PrefixOperations}, not
 *       with {@code instanceof} (every wrapper implements the interface, whatever it wraps).
 *   <li>Every table scan starts in {@code base.ScanPlanning}, which picks where it is planned
 *       (small local plans on the calling thread, not behind Iceberg's polling worker pool).
 * </ul>
 */
class LayeringTest {
  private static JavaClasses classes;

  @BeforeAll
  static void importClasses() {
    classes = new ClassFileImporter()
        .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
        .importPackages("dev.featurestore");
  }

  @Test
  void api_dependsOnNoImplementation() {
    noClasses().that().resideInAnyPackage("dev.featurestore", "dev.featurestore.spi")
        .should().dependOnClassesThat().resideInAnyPackage(
            "dev.featurestore.core..", "org.apache.hadoop..", "org.apache.parquet..",
            "software.amazon..", "org.duckdb..", "org.sqlite..", "org.apache.iceberg.data..",
            "org.apache.iceberg.jdbc..", "org.apache.iceberg.parquet..", "org.apache.iceberg.aws..")
        .check(classes);
  }

  @Test
  void storageAndCatalog_knowNoTableConcern() {
    noClasses().that().resideInAnyPackage("dev.featurestore.core.storage..", "dev.featurestore.core.catalog..")
        .should().dependOnClassesThat().resideInAnyPackage(
            "dev.featurestore.core.ingest..", "dev.featurestore.core.schema..", "dev.featurestore.core.snapshot..",
            "dev.featurestore.core.query..", "dev.featurestore.core.stats..", "dev.featurestore.core.maintenance..",
            "dev.featurestore.core.partition..", "dev.featurestore.core.bloom..",
            "dev.featurestore.core.lookup..", "dev.featurestore.core.tiering..", "dev.featurestore.core.objects..",
            "dev.featurestore.core.dashboard..", "dev.featurestore.core.inspect..",
            "dev.featurestore.core.online..")
        .check(classes);
  }

  @Test
  void floor_knowsNoConcernNorTheCompositionRoot() {
    noClasses().that().resideInAPackage("dev.featurestore.core.base..")
        .should().dependOnClassesThat().resideInAnyPackage(
            "dev.featurestore.core", "dev.featurestore.core.ingest..", "dev.featurestore.core.schema..",
            "dev.featurestore.core.snapshot..", "dev.featurestore.core.query..", "dev.featurestore.core.stats..",
            "dev.featurestore.core.maintenance..", "dev.featurestore.core.partition..",
            "dev.featurestore.core.bloom..", "dev.featurestore.core.lookup..", "dev.featurestore.core.tiering..",
            "dev.featurestore.core.objects..", "dev.featurestore.core.dashboard..", "dev.featurestore.core.inspect..",
            "dev.featurestore.core.online..")
        .check(classes);
  }

  @Test
  void tableConcerns_areIndependentOfEachOther() {
    slices().matching(
            "dev.featurestore.core.(ingest|schema|snapshot|query|stats|maintenance|partition|bloom|lookup|tiering|objects|dashboard|inspect|online)..")
        .should().notDependOnEachOther()
        .check(classes);
  }

  @Test
  void tableConcerns_dependOnNoCompositionRoot() {
    noClasses().that().resideInAnyPackage(
            "dev.featurestore.core.ingest..", "dev.featurestore.core.schema..", "dev.featurestore.core.snapshot..",
            "dev.featurestore.core.query..", "dev.featurestore.core.stats..", "dev.featurestore.core.maintenance..",
            "dev.featurestore.core.partition..", "dev.featurestore.core.bloom..",
            "dev.featurestore.core.lookup..", "dev.featurestore.core.tiering..", "dev.featurestore.core.objects..",
            "dev.featurestore.core.dashboard..", "dev.featurestore.core.inspect..",
            "dev.featurestore.core.online..")
        .should().dependOnClassesThat().resideInAPackage("dev.featurestore.core")
        .check(classes);
  }

  /**
   * The root package {@code dev.featurestore.core} is the composition root: it wires the
   * concerns together and shares nothing with them (the floor does), so it is left out;
   * everything below it must be free of cycles, and the API must not depend on anything.
   */
  @Test
  void noPackageCycles_belowTheCompositionRoot() {
    slices().matching("dev.featurestore.core.(*)..").should().beFreeOfCycles().check(classes);
  }

  @Test
  void streamWrappers_outsideStorage_extendTheForwardingBase() {
    classes().that(assignableTo(SeekableInputStream.class).or(assignableTo(PositionOutputStream.class)))
        .and().resideOutsideOfPackage("dev.featurestore.core.storage")
        .should().beAssignableTo(ForwardingSeekableInputStream.class)
        .orShould().beAssignableTo(ForwardingPositionOutputStream.class)
        .check(classes);
  }

  @Test
  void fileIOWrappers_outsideStorage_extendTheForwardingBase() {
    classes().that().areAssignableTo(FileIO.class)
        .and().resideOutsideOfPackage("dev.featurestore.core.storage..")
        .should().beAssignableTo(ForwardingFileIO.class)
        .check(classes);
  }

  @Test
  void tableScans_startInScanPlanning() {
    noClasses().that().doNotHaveFullyQualifiedName(ScanPlanning.class.getName())
        .should().callMethod(Table.class, "newScan")
        .because("ScanPlanning decides where a scan is planned (see its Javadoc)")
        .check(classes);
  }

  @Test
  void fileLocks_areTakenThroughProcessFileLock() {
    noClasses().that().doNotHaveFullyQualifiedName(ProcessFileLock.class.getName())
        .should().callMethod(FileChannel.class, "tryLock").orShould().callMethod(FileChannel.class, "lock")
        .because("closing any channel on a locked file drops the process's lock: ProcessFileLock refuses a second"
            + " claim in this JVM before it opens one (see its Javadoc)")
        .check(classes);
  }

  /** Every wrapper says it supports prefix operations: whether a FileIO can list is asked of {@code PrefixOperations}. */
  @Test
  void listingCapability_isAskedOfPrefixOperations() {
    classes().that().resideOutsideOfPackage("dev.featurestore.core.storage")
        .should(new ArchCondition<JavaClass>("not test instanceof SupportsPrefixOperations") {
          @Override
          public void check(JavaClass c, ConditionEvents events) {
            c.getInstanceofChecks().stream()
                .filter(check -> check.getRawType().isEquivalentTo(SupportsPrefixOperations.class))
                .forEach(check -> events.add(SimpleConditionEvent.violated(c, c.getName() + " tests instanceof SupportsPrefixOperations in " + check.getOwner().getFullName() + " " + check.getSourceCodeLocation())));
          }
        })
        .check(classes);
  }
}

package dev.featurestore.cdc;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The layering of featurestore-cdc: it builds on the API ({@code dev.featurestore}) and on
 * core's floor ({@code core.base}: error translation, commit marks, the lease), core's file
 * writer ({@code core.write}) and nothing else of core (no table concern, no store
 * implementation). Its own implementation classes are package-private: the public surface is
 * the pipeline, its builder, its settings enums and its result and exception types.
 */
class CdcLayeringTest {
  private static final Set<String> PUBLIC = Set.of("CdcPipeline", "CdcPipeline$Builder", "CdcEntry", "CdcEntry$Builder",
      "CdcOperation", "CdcMode", "CdcCompression", "FsyncPolicy", "Backpressure", "WalRecovery", "CdcMetrics",
      "FlushResult", "DeadLetter", "CdcStatus", "CdcStatus$WalShard", "CdcBackpressureException", "WalCorruptionException",
      "CdcLeaseException", "CurrentStateLayout");
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
            .and(JavaClass.Predicates.resideOutsideOfPackages("dev.featurestore.core.base..", "dev.featurestore.core.write..")))
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
            "dev.featurestore.core.storage..", "dev.featurestore.core.catalog..", "dev.featurestore.duckdb..")
        .check(cdc);
  }

  @Test
  void implementationClasses_arePackagePrivate() {
    classes().that().resideInAPackage("dev.featurestore.cdc").and().areTopLevelClasses().and().arePublic()
        .should().haveNameMatching("dev\\.featurestore\\.cdc\\.(" + String.join("|", PUBLIC).replace("$", "\\$") + ")")
        .check(cdc);
  }
}

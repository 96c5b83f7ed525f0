package dev.featurestore.duckdb.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import dev.featurestore.FeatureStoreException;
import java.util.Set;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The layering of featurestore-duckdb, written down so it cannot drift:
 *
 * <ul>
 *   <li>It builds on the API and on core's floor ({@code core.base}: the version resolver, error
 *       translation) plus a few public storage facades (the file cache, the cold tier, the bucket
 *       uploader and key checks), never on a table concern (query, ingest, snapshot ...) or the
 *       store implementation.
 *   <li>Nothing in the API or core knows the adapter.
 *   <li>Its public surface is interfaces, records, exceptions and a few named entry points; every
 *       implementation class is package-private.
 *   <li>Every exception it declares is a {@link FeatureStoreException}.
 * </ul>
 */
class DuckLayeringTest {
  private static final String DUCKDB = "dev.featurestore.duckdb..";

  /** The core classes outside the floor the adapter may use: public facades of the storage layer. */
  private static final Set<String> CORE_FACADES = Set.of(
      "dev.featurestore.core.storage.LocalFileCache",
      "dev.featurestore.core.storage.OwnedDirectory",
      "dev.featurestore.core.storage.TieredFileIO",
      "dev.featurestore.core.storage.s3.Bucket",
      "dev.featurestore.core.storage.s3.ObjectUploader");

  /** The public classes that are neither interfaces, records nor exceptions: entry points and builders. */
  private static final Set<String> PUBLIC_ENTRY_POINTS = Set.of(
      "dev.featurestore.duckdb.DuckQueries",
      "dev.featurestore.duckdb.DuckQueries$Builder",
      "dev.featurestore.duckdb.TrainingSet",
      "dev.featurestore.duckdb.TrainingSet$Builder",
      "dev.featurestore.duckdb.TableVersion", // deprecated, removed in the next release
      "dev.featurestore.duckdb.DuckIngestEngine"); // public only for the service loader

  private static JavaClasses classes;

  @BeforeAll
  static void importClasses() {
    classes = new ClassFileImporter()
        .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
        .importPackages("dev.featurestore");
  }

  private static DescribedPredicate<JavaClass> coreOutsideFloorAndFacades() {
    return DescribedPredicate.describe("core classes outside core.base and the storage facades " + CORE_FACADES,
        c -> c.getPackageName().startsWith("dev.featurestore.core")
            && !c.getPackageName().startsWith("dev.featurestore.core.base")
            && !CORE_FACADES.contains(c.getName()) && !CORE_FACADES.contains(enclosing(c)));
  }

  private static String enclosing(JavaClass c) {
    int dollar = c.getName().indexOf('$');
    return dollar < 0 ? c.getName() : c.getName().substring(0, dollar);
  }

  @Test
  void usesOnlyTheApiTheFloorAndStorageFacades() {
    noClasses().that().resideInAPackage(DUCKDB)
        .should().dependOnClassesThat(coreOutsideFloorAndFacades())
        .check(classes);
  }

  @Test
  void apiAndCore_doNotKnowTheAdapter() {
    noClasses().that().resideInAnyPackage("dev.featurestore", "dev.featurestore.spi", "dev.featurestore.core..")
        .should().dependOnClassesThat().resideInAPackage(DUCKDB)
        .check(classes);
  }

  @Test
  void implementationClasses_arePackagePrivate() {
    classes().that().resideInAPackage(DUCKDB).and().haveModifier(JavaModifier.PUBLIC)
        .should(com.tngtech.archunit.lang.conditions.ArchConditions.be(DescribedPredicate.describe(
            "an interface, a record, an exception or one of " + PUBLIC_ENTRY_POINTS,
            c -> c.isInterface() || c.isRecord() || c.isAssignableTo(FeatureStoreException.class)
                || PUBLIC_ENTRY_POINTS.contains(c.getName()))))
        .check(classes);
  }

  @Test
  void exceptions_areFeatureStoreExceptions() {
    classes().that().resideInAPackage(DUCKDB).and().areAssignableTo(Throwable.class)
        .should().beAssignableTo(FeatureStoreException.class)
        .check(classes);
  }

  @Test
  void tableScans_startInCoresScanPlanning() {
    noClasses().that().resideInAPackage(DUCKDB)
        .should().callMethod(Table.class, "newScan")
        .because("core.base.ScanPlanning decides where a scan is planned")
        .check(classes);
  }
}

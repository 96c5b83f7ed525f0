package dev.featurestore.spark.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The layering of featurestore-spark, written down so it cannot drift: it builds on the API, on
 * core's floor ({@code core.base}) and on the public pieces engines open a store with (the catalog
 * property builders and {@code EngineJdbcCatalog}, the version hints, the local FileIO, the object
 * storage FileIO settings), never on a table concern or the store implementation; nothing in the
 * API or core knows it; implementation classes are package-private.
 */
class SparkLayeringTest {
  private static final String SPARK = "dev.featurestore.spark..";

  private static final Set<String> CORE_ENGINE_HOOKS = Set.of(
      "dev.featurestore.core.catalog.EmbeddedCatalog",
      "dev.featurestore.core.catalog.SharedCatalogs",
      "dev.featurestore.core.catalog.EngineJdbcCatalog",
      "dev.featurestore.core.catalog.VersionHint",
      "dev.featurestore.core.storage.LocalFileIO",
      "dev.featurestore.core.storage.s3.ObjectStorageIO");

  private static final Set<String> PUBLIC_ENTRY_POINTS = Set.of(
      "dev.featurestore.spark.SparkFeatureStore",
      "dev.featurestore.spark.SparkTrainingSet",
      "dev.featurestore.spark.SparkTableMaintenance");

  private static JavaClasses classes;

  @BeforeAll
  static void importClasses() {
    classes = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
        .importPackages("dev.featurestore");
  }

  @Test
  void usesOnlyTheApiTheFloorAndTheEngineHooks() {
    noClasses().that().resideInAPackage(SPARK)
        .should().dependOnClassesThat(DescribedPredicate.describe(
            "core classes outside core.base and " + CORE_ENGINE_HOOKS,
            (JavaClass c) -> c.getPackageName().startsWith("dev.featurestore.core")
                && !c.getPackageName().startsWith("dev.featurestore.core.base")
                && !CORE_ENGINE_HOOKS.contains(c.getName().replaceAll("\\$.*", ""))))
        .check(classes);
  }

  @Test
  void apiAndCore_doNotKnowSpark() {
    noClasses().that().resideInAnyPackage("dev.featurestore", "dev.featurestore.spi", "dev.featurestore.core..")
        .should().dependOnClassesThat().resideInAPackage(SPARK)
        .check(classes);
  }

  @Test
  void implementationClasses_arePackagePrivate() {
    classes().that().resideInAPackage(SPARK).and().haveModifier(JavaModifier.PUBLIC)
        .should(com.tngtech.archunit.lang.conditions.ArchConditions.be(DescribedPredicate.describe(
            "a record or one of " + PUBLIC_ENTRY_POINTS,
            (JavaClass c) -> c.isRecord() || PUBLIC_ENTRY_POINTS.contains(c.getName()))))
        .check(classes);
  }
}

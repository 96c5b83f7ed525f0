package dev.featurestore.cli;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import dev.featurestore.core.base.ScanPlanning;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The command line stays on the public surface: the API, cdc's and duckdb's public types, and of
 * core only the dashboard report (a documented public entry point) and the scan entry point
 * ({@code ScanPlanning}: every table scan starts there); Iceberg types only through the
 * documented {@code unwrap} escape hatch. Only the main class is public.
 */
class CliLayeringTest {
  private static JavaClasses cli;

  @BeforeAll
  static void importClasses() {
    cli = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
        .importPackages("dev.featurestore.cli");
  }

  @Test
  void cli_usesOfCoreOnlyTheDashboardReportAndTheScanEntryPoint() {
    noClasses().that().resideInAPackage("dev.featurestore.cli..")
        .should().dependOnClassesThat(JavaClass.Predicates.resideInAPackage("dev.featurestore.core..")
            .and(com.tngtech.archunit.base.DescribedPredicate.not(JavaClass.Predicates.type(dev.featurestore.core.dashboard.DashboardReport.class)))
            .and(com.tngtech.archunit.base.DescribedPredicate.not(JavaClass.Predicates.type(ScanPlanning.class))))
        .check(cli);
  }

  @Test
  void tableScans_startInCoresScanPlanning() {
    noClasses().that().resideInAPackage("dev.featurestore.cli..")
        .should().callMethod(Table.class, "newScan")
        .because("core.base.ScanPlanning decides where a scan is planned")
        .check(cli);
  }

  @Test
  void onlyTheMainClass_isPublic() {
    classes().that().resideInAPackage("dev.featurestore.cli").and().arePublic()
        .should().haveFullyQualifiedName(FeatureStoreCli.class.getName())
        .check(cli);
  }
}

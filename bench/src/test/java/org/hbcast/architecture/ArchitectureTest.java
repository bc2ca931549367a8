package org.hbcast.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The layering of the modules, checked on the compiled library and bench (tests excluded): which
 * packages may use which, and where Open MPI's bindings ({@code mpi.*}) may be touched, so that
 * another binding could replace them. Modules and their packages: mpi-layer {@code org.hbcast.stage}
 * (the stage contract and the one loop, free of MPI), {@code org.hbcast.schedule} (the shapes of
 * pipelined trees, pure functions) and {@code org.hbcast.mpi}; gpu-layer
 * {@code org.hbcast.engine} (moves chunks whatever the memory), {@code org.hbcast.transport.shm},
 * {@code org.hbcast.transport.cuda} and {@code org.hbcast.device}; hierarchy {@code org.hbcast} (the API only), {@code org.hbcast.plan} (the
 * vocabulary of plans), {@code org.hbcast.tuning} (cost model, calibration, tables),
 * {@code org.hbcast.select} (choosing plans, in-run selection), {@code org.hbcast.call} (one call's
 * contract: arguments, counts, headers) and {@code org.hbcast.orchestration} (setting up and driving a
 * call's stages); bench {@code org.hbcast.bench..} and {@code org.hbcast.agent}.
 */
class ArchitectureTest {
    private static final String MPI_LAYER = "org.hbcast.mpi..";
    private static final String STAGE = "org.hbcast.stage..";
    private static final String ENGINE = "org.hbcast.engine..";
    private static final String[] GPU_LAYER = {ENGINE, "org.hbcast.transport..", "org.hbcast.device.."};
    private static final String API = "org.hbcast";
    private static final String TUNING = "org.hbcast.tuning..";
    private static final String[] HIERARCHY = {
        "org.hbcast.plan..", TUNING, "org.hbcast.select..", "org.hbcast.call..", "org.hbcast.orchestration.."
    };
    private static final String[] BENCH = {"org.hbcast.bench..", "org.hbcast.agent.."};
    private static JavaClasses classes;

    /** The package patterns of {@code parts}, each a pattern or an array of them. */
    private static String[] all(Object... parts) {
        java.util.List<String> out = new java.util.ArrayList<>();
        for (Object p : parts) {
            if (p instanceof String[] many) {
                out.addAll(java.util.List.of(many));
            } else {
                out.add((String) p);
            }
        }
        return out.toArray(new String[0]);
    }

    @BeforeAll
    static void importClasses() {
        classes = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("org.hbcast");
        // Every module's classes are there, so no rule passes for want of classes to check.
        for (String name : new String[] {
            "org.hbcast.mpi.HeaderRelay",
            "org.hbcast.settings.Setting",
            "org.hbcast.stage.StageLoop",
            "org.hbcast.schedule.TwoTree",
            "org.hbcast.transport.shm.CallBoard",
            "org.hbcast.HierarchicalBcast",
            "org.hbcast.orchestration.PlanDriver",
            "org.hbcast.tuning.CostModel",
            "org.hbcast.bench.UserProbe"
        }) {
            assertTrue(classes.contain(name), name + " was not imported");
        }
    }

    @Test
    void theMpiLayerUsesNoOtherModule() {
        noClasses()
                .that()
                .resideInAnyPackage(MPI_LAYER, STAGE)
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(all(GPU_LAYER, API, HIERARCHY, BENCH))
                .because("mpi-layer is the bottom layer")
                .check(classes);
    }

    @Test
    void theStageContractAndItsLoopKnowNoTransport() {
        noClasses()
                .that()
                .resideInAPackage(STAGE)
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(all(MPI_LAYER, "mpi..", GPU_LAYER, "jcuda.."))
                .because("the tree, the node's transports and the staging copies all implement the stage contract")
                .check(classes);
    }

    @Test
    void theSchedulesArePureFunctionsOfTheJdkAlone() {
        classes()
                .that()
                .resideInAPackage("org.hbcast.schedule..")
                .and()
                .haveSimpleNameNotEndingWith("Test")
                .should()
                .onlyDependOnClassesThat()
                .resideInAnyPackage("org.hbcast.schedule..", "java..")
                .because("the tree shapes are pure: the stage, the cost model and the simulator all play them out")
                .check(classes);
    }

    @Test
    void theEngineKnowsNeitherCudaNorSharedMemory() {
        noClasses()
                .that()
                .resideInAPackage(ENGINE)
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage("org.hbcast.transport..", "org.hbcast.device..", "jcuda..")
                .because("the ring moves chunks over its link interface, whatever memory they are in")
                .check(classes);
    }

    @Test
    void theTransportsCallCudaThroughCudaCallsOnly() {
        noClasses()
                .that()
                .resideInAPackage("org.hbcast.transport..")
                .should()
                .dependOnClassesThat()
                .resideInAPackage("jcuda..")
                .because("the transports make their CUDA calls through CudaCalls, so that an in-process fake can"
                        + " test their protocol without a GPU; JCudaCalls is the one production implementation")
                .check(classes);
    }

    @Test
    void theGpuLayerTakesOnlyTheStageContractFromTheMpiLayer() {
        noClasses()
                .that()
                .resideInAnyPackage(GPU_LAYER)
                .should()
                .dependOnClassesThat()
                .resideInAPackage(MPI_LAYER)
                .because("inside a node nothing goes over MPI; the caller gives a transport its wire")
                .check(classes);
    }

    @Test
    void theGpuLayerUsesNeitherTheHierarchyNorBench() {
        noClasses()
                .that()
                .resideInAnyPackage(GPU_LAYER)
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(all(API, HIERARCHY, BENCH))
                .because("gpu-layer moves bytes; what to move is the hierarchy's business")
                .check(classes);
    }

    @Test
    void theLibraryNeverUsesBench() {
        noClasses()
                .that()
                .resideInAnyPackage(all(MPI_LAYER, STAGE, GPU_LAYER, API, HIERARCHY))
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(BENCH)
                .because("bench measures the library, never the other way")
                .check(classes);
    }

    @Test
    void theSettingsRegistryNeedsTheJdkAlone() {
        classes()
                .that()
                .resideInAPackage("org.hbcast.settings..")
                // mpi-layer's test-jar is on this module's class path; its tests are not the registry.
                .and()
                .haveSimpleNameNotEndingWith("Test")
                .should()
                .onlyDependOnClassesThat()
                .resideInAnyPackage("org.hbcast.settings..", "java..")
                .because("every module reads its settings through it, from the bottom layer up")
                .check(classes);
    }

    @Test
    void openMpisBindingsAreTouchedOnlyByTheMpiLayerAndTheOrchestration() {
        noClasses()
                .that()
                .resideInAnyPackage(all(GPU_LAYER, STAGE, TUNING, "org.hbcast.plan..", "org.hbcast.settings.."))
                .should()
                .dependOnClassesThat()
                .resideInAPackage("mpi..")
                .because("everything that touches mpi.* stays in few places, so another binding could replace it")
                .check(classes);
    }

    @Test
    void theApiPackageHoldsTheApiOnly() {
        classes()
                .that()
                .resideInAPackage(API)
                .and()
                .areTopLevelClasses()
                .should()
                .haveSimpleNameStartingWith("HierarchicalBcast")
                .orShould()
                .haveSimpleName("BcastOptions")
                .because("org.hbcast is what programs call; the library's work lives in packages named by job")
                .check(classes);
    }

    @Test
    void nothingBelowTheApiUsesIt() {
        noClasses()
                .that()
                .resideInAnyPackage(all(HIERARCHY, MPI_LAYER, STAGE, GPU_LAYER))
                .should()
                .dependOnClassesThat()
                .resideInAPackage(API)
                .because("the API sits on top: a package below that used it would make a cycle")
                .check(classes);
    }

    @Test
    void thePackagesHaveNoCycles() {
        slices().matching("org.hbcast.(*)..").should().beFreeOfCycles().check(classes);
    }

    @Test
    void theGpuLayersPackagesHaveNoCycles() {
        slices().matching("org.hbcast.transport.(*)..")
                .should()
                .beFreeOfCycles()
                .check(classes);
    }

    @Test
    void benchsPackagesHaveNoCycles() {
        slices().matching("org.hbcast.bench.(*)..").should().beFreeOfCycles().check(classes);
    }
}

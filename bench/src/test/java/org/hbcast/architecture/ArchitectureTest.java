package org.hbcast.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaCodeUnit;
import com.tngtech.archunit.core.domain.JavaField;
import com.tngtech.archunit.core.domain.JavaMember;
import com.tngtech.archunit.core.domain.JavaMethodCall;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.domain.JavaType;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.hbcast.transport.NodeTransport;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The layering of the modules, checked on the compiled library and bench (tests excluded): which
 * packages may use which, and where Open MPI's bindings ({@code mpi.*}) may be touched, so that
 * another binding could replace them. Modules and their packages: mpi-layer {@code org.hbcast.stage}
 * (the stage contract and the one loop, free of MPI), {@code org.hbcast.schedule} (the shapes of
 * pipelined trees, pure functions), {@code org.hbcast.mpi}, the MPI port {@code org.hbcast.mpi.port}
 * (JDK types only) and its Open MPI binding {@code org.hbcast.mpi.openmpi}; gpu-layer
 * {@code org.hbcast.engine} (moves chunks whatever the memory), {@code org.hbcast.transport.shm},
 * {@code org.hbcast.transport.cuda} and {@code org.hbcast.device}; hierarchy {@code org.hbcast} (the API only), {@code org.hbcast.plan} (the
 * vocabulary of plans), {@code org.hbcast.tuning} (cost model, calibration, tables),
 * {@code org.hbcast.select} (choosing plans, in-run selection), {@code org.hbcast.call} (one call's
 * contract: arguments, counts), {@code org.hbcast.header} (the call header) and {@code org.hbcast.orchestration} (setting up and driving a
 * call's stages); bench {@code org.hbcast.bench..} and {@code org.hbcast.agent}.
 */
class ArchitectureTest {
    private static final String MPI_LAYER = "org.hbcast.mpi..";
    /** The MPI port: what the library asks of an MPI library, in JDK types. */
    private static final String PORT = "org.hbcast.mpi.port..";
    /** The port's one binding, over Open MPI's Java bindings. */
    private static final String OPEN_MPI_BINDING = "org.hbcast.mpi.openmpi..";

    private static final String STAGE = "org.hbcast.stage..";
    private static final String ENGINE = "org.hbcast.engine..";
    private static final String[] GPU_LAYER = {ENGINE, "org.hbcast.transport..", "org.hbcast.device.."};
    private static final String API = "org.hbcast";
    private static final String TUNING = "org.hbcast.tuning..";
    private static final String[] HIERARCHY = {
        "org.hbcast.plan..",
        TUNING,
        "org.hbcast.select..",
        "org.hbcast.call..",
        "org.hbcast.header..",
        "org.hbcast.orchestration.."
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
                // mpi-layer's test-jar (the MPI test harness and its programs, which are MPI programs like a
                // user's) is on this module's class path too: as a jar, which the option above does not
                // recognise as tests once the reactor has packaged it.
                .withImportOption(location -> !location.contains("-tests.jar"))
                .importPackages("org.hbcast");
        // Every module's classes are there, so no rule passes for want of classes to check.
        for (String name : new String[] {
            "org.hbcast.header.HeaderRelay",
            "org.hbcast.mpi.port.MpiComm",
            "org.hbcast.mpi.openmpi.OpenMpi",
            "org.hbcast.agent.Redirect",
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
    void onlyJCudaCallsAsksTheDriverApi() {
        noClasses()
                .that()
                .haveNameNotMatching("org\\.hbcast\\.device\\.JCudaCalls(\\$.*)?")
                .and()
                .resideOutsideOfPackage("jcuda..")
                .should()
                .dependOnClassesThat()
                .resideInAPackage("jcuda.driver..")
                .because("what CUDA says of a program's memory (pointer attributes, allocation ids) is asked"
                        + " through CudaCalls, so that the fake GPU models every kind of memory")
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

    /** Calls that make or attach a node transport's shared parts: its lifecycle, or the factories it wraps. */
    private static final DescribedPredicate<JavaMethodCall> CONNECTS_A_NODE_TRANSPORT =
            new DescribedPredicate<>("set up, connect or unlink a node transport") {
                private final Set<String> factories = Set.of(
                        "org.hbcast.transport.shm.ShmInbox",
                        "org.hbcast.transport.shm.ShmRingLinks",
                        "org.hbcast.transport.shm.ShmFanout",
                        "org.hbcast.transport.shm.CallBoard",
                        "org.hbcast.transport.cuda.CudaRingMember",
                        "org.hbcast.transport.cuda.GpuGroupMember");

                @Override
                public boolean test(JavaMethodCall call) {
                    String name = call.getName();
                    if (call.getTargetOwner().isAssignableTo(NodeTransport.class)) {
                        return Set.of("setUp", "connect", "unlink").contains(name);
                    }
                    return factories.contains(call.getTargetOwner().getName())
                            && Set.of("create", "open", "connect").contains(name);
                }
            };

    @Test
    void onlyTheSetUpPathConnectsNodeTransports() {
        noClasses()
                .that()
                .resideInAnyPackage(all(API, HIERARCHY))
                .and()
                .doNotHaveFullyQualifiedName("org.hbcast.orchestration.NodeHandshake")
                .should()
                .callMethodWhere(CONNECTS_A_NODE_TRANSPORT)
                .because("every node transport is set up, connected and unlinked the same way, by one path"
                        + " (NodeHandshake), so that all ranks fail together and no name outlives a crash")
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

    /**
     * Where {@code mpi.*} may appear: the port's Open MPI binding, the public API classes that take and
     * throw the bindings' types in their signatures (listed: {@link org.hbcast.HierarchicalBcast} and
     * {@link org.hbcast.BcastRequest}), the
     * agent, which intercepts the bindings' own calls, and bench's programs, which measure the library
     * as MPI programs do. Everything else goes through the port.
     */
    @Test
    void openMpisBindingsAreTouchedOnlyByTheirBindingTheApiTheAgentAndBench() {
        noClasses()
                .that()
                .resideOutsideOfPackages(OPEN_MPI_BINDING, "org.hbcast.agent..", "org.hbcast.bench..")
                .and()
                .doNotBelongToAnyOf(org.hbcast.HierarchicalBcast.class, org.hbcast.BcastRequest.class)
                .should()
                .dependOnClassesThat()
                .resideInAPackage("mpi..")
                .because("every MPI call of the library goes through its port (org.hbcast.mpi.port), so that"
                        + " another binding (a foreign-function one over the MPI 5 ABI) can replace Open MPI's")
                .check(classes);
    }

    @Test
    void thePortNeedsTheJdkAlone() {
        classes()
                .that()
                .resideInAPackage(PORT)
                .should()
                .onlyDependOnClassesThat()
                .resideInAnyPackage(PORT, "java..")
                .because("a binding of any MPI library implements the port; it must not bring Open MPI's along")
                .check(classes);
    }

    @Test
    void theLibraryReachesMpiThroughThePortNotTheOpenMpiBinding() {
        noClasses()
                .that()
                .resideInAnyPackage(all(MPI_LAYER, STAGE, GPU_LAYER, HIERARCHY))
                .and()
                .resideOutsideOfPackage(OPEN_MPI_BINDING)
                .should()
                .dependOnClassesThat()
                .resideInAPackage(OPEN_MPI_BINDING)
                .because("the binding is chosen at the public API; below it, the library knows only the port")
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
                .haveSimpleNameStartingWith("Bcast")
                .orShould()
                .haveSimpleName("GpuNatives")
                .orShould()
                .haveSimpleName("package-info")
                .because("org.hbcast is what programs call; the library's work lives in packages named by job")
                .check(classes);
    }

    /**
     * The fixed API (DESIGN.md) names one type of the library below {@code org.hbcast}: the gpu-layer's
     * device buffer, which the device overload of {@code bcast} takes.
     */
    private static final Set<String> FIXED_API_TYPES = Set.of("org.hbcast.device.DeviceBuffer");

    /** Whether a program may meet {@code type} in the API: the JDK's, the bindings', the API's own. */
    private static boolean shownByTheApi(JavaClass type) {
        String pkg = type.getPackageName();
        return type.isPrimitive()
                || pkg.startsWith("java.")
                || pkg.equals("mpi")
                || pkg.equals(API)
                || FIXED_API_TYPES.contains(type.getName());
    }

    @Test
    void theApiShowsOnlyApiTypes() {
        ArchCondition<JavaClass> onlyApiTypes =
                new ArchCondition<>(
                        "take and return only JDK types, mpi.* types, org.hbcast types and the fixed API's device buffer") {
                    @Override
                    public void check(JavaClass c, ConditionEvents events) {
                        for (JavaMember m : c.getMembers()) {
                            if (!m.getModifiers().contains(JavaModifier.PUBLIC)
                                    || m.getModifiers().contains(JavaModifier.SYNTHETIC)) {
                                continue;
                            }
                            List<JavaType> shown = new ArrayList<>();
                            if (m instanceof JavaCodeUnit u) {
                                shown.add(u.getReturnType());
                                shown.addAll(u.getParameterTypes());
                            } else if (m instanceof JavaField f) {
                                shown.add(f.getType());
                            }
                            for (JavaType t : shown) {
                                for (JavaClass raw : t.getAllInvolvedRawTypes()) {
                                    if (!shownByTheApi(raw)) {
                                        events.add(SimpleConditionEvent.violated(
                                                m, m.getFullName() + " shows the library's " + raw.getName()));
                                    }
                                }
                            }
                        }
                    }
                };
        classes()
                .that()
                .resideInAPackage(API)
                .and()
                .arePublic()
                .should(onlyApiTypes)
                .because("a program sees the API only: what an instance tells comes as read-only views of"
                        + " org.hbcast, so the library's own types stay free to change")
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

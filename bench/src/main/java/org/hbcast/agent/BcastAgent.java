package org.hbcast.agent;

import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

import java.io.IOException;
import java.lang.instrument.Instrumentation;
import java.net.URL;
import java.util.Enumeration;
import net.bytebuddy.agent.builder.AgentBuilder;
import net.bytebuddy.asm.Advice;
import org.hbcast.GpuNatives;

/**
 * The Java agent ({@code -javaagent:hbcast-agent.jar}) that gives an unmodified MPI Java program
 * hbcast: it weaves small pieces of advice into Open MPI's bindings when they load, so that
 * {@code Comm.bcast} goes to a {@link org.hbcast.HierarchicalBcast} of the communicator where hbcast
 * supports the call, {@code Comm.free} and {@code Comm.disconnect} close that instance, and
 * {@code MPI.Finalize} closes the rest (see {@link Redirect}). Everything else runs in the bindings
 * as before.
 */
public final class BcastAgent {
    private BcastAgent() {}

    public static void premain(String arguments, Instrumentation instrumentation) {
        install(instrumentation);
    }

    public static void agentmain(String arguments, Instrumentation instrumentation) {
        install(instrumentation);
    }

    private static void install(Instrumentation instrumentation) {
        prepareProgramsJCuda();
        new AgentBuilder.Default()
                .disableClassFormatChanges()
                .with(AgentBuilder.RedefinitionStrategy.RETRANSFORMATION)
                .type(named("mpi.Comm"))
                .transform((builder, type, loader, module, domain) -> builder.visit(
                                Advice.to(BcastAdvice.class).on(named("bcast").and(takesArguments(4))))
                        .visit(Advice.to(FreeAdvice.class)
                                .on(named("free").or(named("disconnect")).and(takesArguments(0)))))
                .type(named("mpi.MPI"))
                .transform((builder, type, loader, module, domain) -> builder.visit(
                        Advice.to(FinalizeAdvice.class).on(named("Finalize").and(takesArguments(0)))))
                .installOn(instrumentation);
    }

    /**
     * Puts JCuda's natives in place before {@code main} when the program brings JCuda itself: its
     * ranks may call JCuda before their first {@code bcast}, and JCuda's own loader races between
     * ranks starting together ({@link GpuNatives}). A program without JCuda is left alone.
     */
    private static void prepareProgramsJCuda() {
        if (!programBringsJCuda()) {
            return;
        }
        try {
            GpuNatives.prepare();
        } catch (IllegalStateException e) {
            System.err.println("hbcast agent: JCuda's natives could not be put in place (" + e.getMessage()
                    + "); ranks that load JCuda together may load a half-written library");
        }
    }

    /** Whether JCuda is on the class path from somewhere other than this agent's own jar. */
    private static boolean programBringsJCuda() {
        try {
            URL agentJar =
                    BcastAgent.class.getProtectionDomain().getCodeSource().getLocation();
            Enumeration<URL> copies = ClassLoader.getSystemResources("jcuda/LibUtils.class");
            while (copies.hasMoreElements()) {
                if (agentJar == null || !copies.nextElement().toString().contains(agentJar.getPath())) {
                    return true;
                }
            }
            return false;
        } catch (IOException | SecurityException e) {
            return false;
        }
    }

    /** Woven into {@code Comm.bcast(Object, int, Datatype, int)}: skips the bindings' body when hbcast took the call. */
    static final class BcastAdvice {
        private BcastAdvice() {}

        @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class)
        static boolean enter(
                @Advice.This Object comm,
                @Advice.Argument(0) Object buf,
                @Advice.Argument(1) int count,
                @Advice.Argument(2) Object type,
                @Advice.Argument(3) int root)
                throws Exception {
            return Redirect.bcast(comm, buf, count, type, root);
        }
    }

    /**
     * Woven into {@code Comm.free()} and {@code Comm.disconnect()}: closes the communicator's instance
     * first (all are collective).
     */
    static final class FreeAdvice {
        private FreeAdvice() {}

        @Advice.OnMethodEnter
        static void enter(@Advice.This Object comm) throws Exception {
            Redirect.freeing(comm);
        }
    }

    /** Woven into {@code MPI.Finalize()}: closes every instance left, then reports. */
    static final class FinalizeAdvice {
        private FinalizeAdvice() {}

        @Advice.OnMethodEnter
        static void enter() throws Exception {
            Redirect.finalizing();
        }
    }
}

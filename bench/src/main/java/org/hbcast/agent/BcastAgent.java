package org.hbcast.agent;

import static net.bytebuddy.matcher.ElementMatchers.nameStartsWith;
import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.not;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

import java.io.IOException;
import java.lang.instrument.Instrumentation;
import java.net.URL;
import java.util.Enumeration;
import net.bytebuddy.agent.builder.AgentBuilder;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.implementation.bytecode.assign.Assigner;
import org.hbcast.GpuNatives;

/**
 * The Java agent ({@code -javaagent:hbcast-agent.jar}) that gives an unmodified MPI Java program
 * hbcast: it weaves small pieces of advice into Open MPI's bindings when they load, so that
 * {@code Comm.bcast} goes to a {@link org.hbcast.HierarchicalBcast} of the communicator where hbcast
 * supports the call, {@code Comm.iBcast} to its non-blocking call (the program's {@code mpi.Request}
 * then tests and waits through hbcast: {@code test}, {@code waitFor}, {@code testStatus},
 * {@code waitStatus}, {@code getStatus}, {@code isNull}, {@code waitAll}, {@code testAll}; not yet
 * {@code waitAny} or {@code testAny}), {@code Comm.free} and {@code Comm.disconnect} close that instance, and
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
                // Every class that loads passes this transformer, hbcast's own in the program's first
                // create among them: ByteBuddy's default ignore rule (synthetic types) parsed each
                // class file, and its compilation ran the JIT through the program's first bcast.
                // A name is known without parsing.
                .ignore(not(nameStartsWith("mpi.")))
                .type(named("mpi.Comm"))
                .transform((builder, type, loader, module, domain) -> builder.visit(
                                Advice.to(BcastAdvice.class).on(named("bcast").and(takesArguments(4))))
                        .visit(Advice.to(IBcastAdvice.class).on(named("iBcast").and(takesArguments(4))))
                        .visit(Advice.to(FreeAdvice.class)
                                .on(named("free").or(named("disconnect")).and(takesArguments(0)))))
                .type(named("mpi.Request"))
                .transform((builder, type, loader, module, domain) -> builder.visit(
                                Advice.to(TestAdvice.class).on(named("test").and(takesArguments(0))))
                        .visit(Advice.to(WaitAdvice.class).on(named("waitFor").and(takesArguments(0))))
                        .visit(Advice.to(TestStatusAdvice.class)
                                .on(named("testStatus").and(takesArguments(0))))
                        .visit(Advice.to(WaitStatusAdvice.class)
                                .on(named("waitStatus").or(named("getStatus")).and(takesArguments(0))))
                        .visit(Advice.to(IsNullAdvice.class).on(named("isNull").and(takesArguments(0))))
                        .visit(Advice.to(FreeRequestAdvice.class)
                                .on(named("free").or(named("cancel")).and(takesArguments(0))))
                        .visit(Advice.to(WaitAllAdvice.class)
                                .on(named("waitAll").and(takesArguments(1))))
                        .visit(Advice.to(TestAllAdvice.class)
                                .on(named("testAll").and(takesArguments(1)))))
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

    /** Woven into {@code Comm.iBcast(Buffer, int, Datatype, int)}: hbcast's request where hbcast took the call. */
    static final class IBcastAdvice {
        private IBcastAdvice() {}

        @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class)
        static Object enter(
                @Advice.This Object comm,
                @Advice.Argument(0) Object buf,
                @Advice.Argument(1) int count,
                @Advice.Argument(2) Object type,
                @Advice.Argument(3) int root)
                throws Exception {
            return Redirect.iBcast(comm, buf, count, type, root);
        }

        @Advice.OnMethodExit
        static void exit(
                @Advice.Enter Object mine,
                @Advice.Return(readOnly = false, typing = Assigner.Typing.DYNAMIC) Object request) {
            if (mine != null) {
                request = mine;
            }
        }
    }

    /** Woven into {@code Request.test()}: a redirected broadcast's own test. */
    static final class TestAdvice {
        private TestAdvice() {}

        @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class)
        static Boolean enter(@Advice.This Object request) throws Exception {
            return Redirect.test(request);
        }

        @Advice.OnMethodExit
        static void exit(@Advice.Enter Boolean mine, @Advice.Return(readOnly = false) boolean done) {
            if (mine != null) {
                done = mine;
            }
        }
    }

    /** Woven into {@code Request.testStatus()}: null until a redirected broadcast completes, then an empty status. */
    static final class TestStatusAdvice {
        private TestStatusAdvice() {}

        @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class)
        static Boolean enter(@Advice.This Object request) throws Exception {
            return Redirect.test(request);
        }

        @Advice.OnMethodExit
        static void exit(
                @Advice.Enter Boolean mine,
                @Advice.Return(readOnly = false, typing = Assigner.Typing.DYNAMIC) Object status) {
            if (mine != null) {
                status = mine ? Redirect.emptyStatus() : null;
            }
        }
    }

    /** Woven into {@code Request.waitFor()}: waits for a redirected broadcast. */
    static final class WaitAdvice {
        private WaitAdvice() {}

        @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class)
        static boolean enter(@Advice.This Object request) throws Exception {
            return Redirect.await(request);
        }
    }

    /** Woven into {@code Request.waitStatus()} and {@code getStatus()}: waits, then an empty status. */
    static final class WaitStatusAdvice {
        private WaitStatusAdvice() {}

        @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class)
        static boolean enter(@Advice.This Object request) throws Exception {
            return Redirect.await(request);
        }

        @Advice.OnMethodExit
        static void exit(
                @Advice.Enter boolean mine,
                @Advice.Return(readOnly = false, typing = Assigner.Typing.DYNAMIC) Object status) {
            if (mine) {
                status = Redirect.emptyStatus();
            }
        }
    }

    /** Woven into {@code Request.isNull()}: a redirected broadcast is the null request once complete. */
    static final class IsNullAdvice {
        private IsNullAdvice() {}

        @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class)
        static Boolean enter(@Advice.This Object request) {
            return Redirect.isNull(request);
        }

        @Advice.OnMethodExit
        static void exit(@Advice.Enter Boolean mine, @Advice.Return(readOnly = false) boolean isNull) {
            if (mine != null) {
                isNull = mine;
            }
        }
    }

    /**
     * Woven into {@code Request.free()} and {@code cancel()}: nothing for a redirected broadcast (MPI
     * cannot cancel a collective; a freed one still completes, in issue order, inside later calls).
     */
    static final class FreeRequestAdvice {
        private FreeRequestAdvice() {}

        @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class)
        static boolean enter(@Advice.This Object request) {
            return Redirect.isNull(request) != null;
        }
    }

    /** Woven into {@code Request.waitAll(Request[])}: the redirected broadcasts complete first. */
    static final class WaitAllAdvice {
        private WaitAllAdvice() {}

        @Advice.OnMethodEnter
        static void enter(@Advice.Argument(0) Object[] requests) throws Exception {
            Redirect.awaitAll(requests);
        }
    }

    /** Woven into {@code Request.testAll(Request[])}: true only when the redirected broadcasts completed too. */
    static final class TestAllAdvice {
        private TestAllAdvice() {}

        @Advice.OnMethodEnter
        static boolean enter(@Advice.Argument(0) Object[] requests) throws Exception {
            return Redirect.testAll(requests);
        }

        @Advice.OnMethodExit
        static void exit(@Advice.Enter boolean mine, @Advice.Return(readOnly = false) boolean all) {
            all = all && mine;
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

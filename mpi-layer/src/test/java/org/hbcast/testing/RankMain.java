package org.hbcast.testing;

import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import java.util.List;
import mpi.MPI;

/**
 * The one program every rank of an {@link OnRanks} test or {@link MpiLaunch#body} launch runs: loads
 * the test class, runs the named method with a {@link Ranks} inside {@link MpiTestProgram}'s frame
 * (which writes the rank's result and prints its verdict).
 *
 * <p>Arguments: {@code CLASS METHOD FINISH THREADS [key=value ...]}. An instance method is called
 * on an instance made by the class's constructor without parameters, a new one on each rank.
 */
public final class RankMain {
    private RankMain() {}

    public static void main(String[] args) throws Exception {
        if (args.length < 4) {
            throw new IllegalArgumentException(
                    "usage: RankMain CLASS METHOD FINISH THREADS [key=value ...], got " + Arrays.toString(args));
        }
        Method method = method(Class.forName(args[0]), args[1]);
        MpiTestProgram.Finish finish = MpiTestProgram.Finish.valueOf(args[2]);
        Ranks.Threads threads = Ranks.Threads.valueOf(args[3]);
        String[] rest = Arrays.copyOfRange(args, 4, args.length);
        MpiTestProgram.Body body = (world, more, report) -> {
            invoke(method, new Ranks(world, report, Ranks.parse(more, 0)));
            return method.getDeclaringClass().getSimpleName() + "." + method.getName();
        };
        switch (threads) {
            case SINGLE -> MpiTestProgram.run(rest, body, finish);
            case SERIALIZED -> MpiTestProgram.runThreaded(rest, MPI.THREAD_SERIALIZED, body, finish);
            case MULTIPLE -> MpiTestProgram.runThreaded(rest, MPI.THREAD_MULTIPLE, body, finish);
        }
    }

    /** The method {@code name} of {@code owner} taking a {@link Ranks}; fails unless there is exactly one. */
    static Method method(Class<?> owner, String name) {
        List<Method> found = Arrays.stream(owner.getDeclaredMethods())
                .filter(m -> m.getName().equals(name)
                        && m.getParameterCount() == 1
                        && m.getParameterTypes()[0] == Ranks.class)
                .toList();
        if (found.size() != 1) {
            throw new IllegalArgumentException(
                    owner.getName() + " has " + found.size() + " methods " + name + "(Ranks), expected one");
        }
        Method m = found.get(0);
        m.setAccessible(true);
        return m;
    }

    private static void invoke(Method method, Ranks ranks) throws Exception {
        Object target = null;
        if (!Modifier.isStatic(method.getModifiers())) {
            Constructor<?> c = method.getDeclaringClass().getDeclaredConstructor();
            c.setAccessible(true);
            target = c.newInstance();
        }
        try {
            method.invoke(target, ranks);
        } catch (InvocationTargetException e) {
            if (e.getCause() instanceof Exception ex) {
                throw ex;
            }
            if (e.getCause() instanceof Error err) {
                throw err;
            }
            throw e;
        }
    }
}

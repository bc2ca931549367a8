package org.hbcast.testing;

import java.io.Serializable;
import java.lang.invoke.SerializedLambda;
import java.lang.reflect.Method;

/**
 * A test method to run on every rank: a reference to a static method taking {@link Ranks} (e.g.
 * {@code SettingsTest::follow}). It is serializable only so that {@link MpiLaunch#body} can read which
 * method it names; the ranks find that method by name and run it.
 */
@FunctionalInterface
public interface RankBody extends Serializable {
    void run(Ranks ranks) throws Exception;

    /** The class and name of the method {@code body} refers to. */
    static Method target(RankBody body) {
        SerializedLambda lambda;
        try {
            Method replace = body.getClass().getDeclaredMethod("writeReplace");
            replace.setAccessible(true);
            lambda = (SerializedLambda) replace.invoke(body);
        } catch (ReflectiveOperationException | ClassCastException e) {
            throw new IllegalArgumentException("a rank body must be a method reference or a lambda, not " + body, e);
        }
        if (lambda.getCapturedArgCount() != 0) {
            throw new IllegalArgumentException("a rank body runs in other JVMs and can capture nothing: "
                    + lambda.getImplClass() + "." + lambda.getImplMethodName());
        }
        try {
            Class<?> owner = Class.forName(
                    lambda.getImplClass().replace('/', '.'),
                    false,
                    body.getClass().getClassLoader());
            return RankMain.method(owner, lambda.getImplMethodName());
        } catch (ClassNotFoundException e) {
            throw new IllegalArgumentException("cannot find the class of " + lambda.getImplClass(), e);
        }
    }
}

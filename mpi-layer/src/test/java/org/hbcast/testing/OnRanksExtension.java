package org.hbcast.testing;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.Extension;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.InvocationInterceptor;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.jupiter.api.extension.ReflectiveInvocationContext;
import org.junit.jupiter.api.extension.TestTemplateInvocationContext;
import org.junit.jupiter.api.extension.TestTemplateInvocationContextProvider;
import org.junit.platform.commons.support.AnnotationSupport;

/**
 * The JUnit side of {@link OnRanks}: one invocation per annotation and layout, each of which, in
 * place of calling the method here, launches it on the ranks and asserts on their results.
 */
final class OnRanksExtension implements TestTemplateInvocationContextProvider {

    @Override
    public boolean supportsTestTemplate(ExtensionContext context) {
        return context.getTestMethod()
                .map(m -> !AnnotationSupport.findRepeatableAnnotations(m, OnRanks.class)
                        .isEmpty())
                .orElse(false);
    }

    @Override
    public Stream<TestTemplateInvocationContext> provideTestTemplateInvocationContexts(ExtensionContext context) {
        Method method = context.getRequiredTestMethod();
        RankMain.method(method.getDeclaringClass(), method.getName());
        List<OnRanks> all = AnnotationSupport.findRepeatableAnnotations(method, OnRanks.class);
        return all.stream()
                .flatMap(on -> Stream.of(on.value())
                        .map(layout -> (TestTemplateInvocationContext) new Launch(method, on, layout)));
    }

    /** One launch: a layout of one {@link OnRanks}. */
    private record Launch(Method method, OnRanks on, String layout) implements TestTemplateInvocationContext {
        @Override
        public String getDisplayName(int invocationIndex) {
            StringBuilder sb = new StringBuilder("[").append(layout).append(']');
            for (String e : on.env()) {
                sb.append(' ').append(e);
            }
            for (String a : on.args()) {
                sb.append(' ').append(a);
            }
            return sb.toString();
        }

        @Override
        public List<Extension> getAdditionalExtensions() {
            return List.of(new RanksPlaceholder(), new LaunchInstead(this));
        }

        MpiOutcome run() {
            MpiLaunch launch = MpiLaunch.method(method)
                    .layout(layout)
                    .timeout(Duration.ofSeconds(on.timeoutS()))
                    .finish(on.finish())
                    .threads(on.threads())
                    .args(on.args());
            for (String e : on.env()) {
                int eq = e.indexOf('=');
                if (eq <= 0) {
                    throw new IllegalArgumentException("env wants NAME=value, got '" + e + "'");
                }
                launch.env(e.substring(0, eq), e.substring(eq + 1));
            }
            if (on.recovery()) {
                launch.recovery();
            }
            if (!on.netem().isEmpty()) {
                launch.netem(on.netem());
            }
            return launch.run();
        }
    }

    /** The method's {@link Ranks} parameter, which the JUnit side never uses: the method runs on the ranks. */
    private static final class RanksPlaceholder implements ParameterResolver {
        @Override
        public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
            return parameter.getParameter().getType() == Ranks.class;
        }

        @Override
        public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
            return null;
        }
    }

    /** Launches the method on the ranks in place of calling it here. */
    private record LaunchInstead(Launch launch) implements InvocationInterceptor {
        @Override
        public void interceptTestTemplateMethod(
                Invocation<Void> invocation,
                ReflectiveInvocationContext<Method> invocationContext,
                ExtensionContext extensionContext) {
            invocation.skip();
            launch.run().assertAllRanksOk();
        }
    }
}

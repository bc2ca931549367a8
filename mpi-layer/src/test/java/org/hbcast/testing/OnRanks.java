package org.hbcast.testing;

import java.lang.annotation.ElementType;
import java.lang.annotation.Repeatable;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.TestTemplate;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Runs the annotated test method on every rank of a real MPI job, once per layout: the JUnit side
 * launches {@link RankMain} through {@link MpiLaunch} (its timeout, fresh cache directory, result
 * files and leak check), each rank calls the method with its {@link Ranks}, and the test passes when
 * every rank ran exactly the cases it planned ({@link Ranks#plan}) and none failed.
 *
 * <pre>{@code
 * @OnRanks(value = {"4", "2,2", "bed 2x2"}, env = "HBCAST_TIMEOUT_S=20")
 * void everyPlanDelivers(Ranks ranks) throws Exception {
 *     ranks.plan(PLANS.size());
 *     for (String plan : PLANS) ranks.check(plan, () -> ...);
 * }
 * }</pre>
 *
 * Repeatable: each annotation adds its layouts with its own settings. The method runs on the ranks
 * only, never in the JUnit JVM; an instance method gets a new instance of its class on each rank.
 * Launches that need more than this (a rank's own environment, checks of figures on the JUnit side)
 * use {@link MpiLaunch#body} in a plain test.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
@Repeatable(OnRanks.Each.class)
@TestTemplate
@ExtendWith(OnRanksExtension.class)
public @interface OnRanks {
    /** The layouts, one launch each, as {@link MpiLaunch#layout} takes them: "4", "2,2", "nodes 3", "bed 2x2", "bed 3,2,1". */
    String[] value();

    /** {@code NAME=value} in every rank's environment. */
    String[] env() default {};

    /** {@code key=value} arguments the ranks read with {@link Ranks#arg}. */
    String[] args() default {};

    /** The launch's hard timeout, seconds. */
    int timeoutS() default 180;

    /** {@link MpiLaunch#recovery}: the job runs on when a rank dies. */
    boolean recovery() default false;

    /** How the ranks end. */
    MpiTestProgram.Finish finish() default MpiTestProgram.Finish.FINALIZE;

    /** How MPI is initialised. */
    Ranks.Threads threads() default Ranks.Threads.SINGLE;

    /** {@link MpiLaunch#netem} for test-bed layouts; empty: none. */
    String netem() default "";

    /** The container of repeated {@link OnRanks}. */
    @Retention(RetentionPolicy.RUNTIME)
    @Target(ElementType.METHOD)
    @TestTemplate
    @ExtendWith(OnRanksExtension.class)
    @interface Each {
        OnRanks[] value();
    }
}

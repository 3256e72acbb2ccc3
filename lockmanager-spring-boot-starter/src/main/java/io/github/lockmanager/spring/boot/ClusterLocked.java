package io.github.lockmanager.spring.boot;

import io.github.lockmanager.LockLevel;
import io.github.lockmanager.LockMode;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Runs the method under a cluster-wide lock of the auto-configured {@link io.github.lockmanager.LockManager}: the
 * lock is taken on the calling thread before the method runs and released when it returns or throws (for
 * asynchronous results, when their work ends: see below). On a
 * {@code @Scheduled} method it makes the job run on one node at a time.
 *
 * <pre>{@code
 * @ClusterLocked(key = "order-#{#order.id}", onBusy = OnBusy.WAIT, waitFor = "10s")
 * public void ship(Order order) { ... }
 *
 * @Scheduled(cron = "0 0 2 * * *")
 * @ClusterLocked(key = "nightly-report", onBusy = OnBusy.SKIP, holdAtLeast = "5m")
 * public void nightlyReport() { ... }
 * }</pre>
 *
 * <p>Applied by Spring AOP to beans of the application context, so it works only on calls that go through the bean's
 * proxy: a call from the same object ({@code this.ship(order)}) is not locked, nor is a method that is private,
 * final or static. The lock is taken outside {@code @Transactional} on the same method: the transaction begins after
 * the lock is held and ends before it is released.
 *
 * <p>A method returning a {@code CompletionStage} or {@code CompletableFuture} holds its lock until the returned stage
 * completes, and one returning a {@code Mono} or {@code Flux} (with lockmanager-reactor on the class path) from
 * subscription until it completes, fails or is cancelled, which a lost lock also does. Such a lock belongs to a task
 * named for the method ({@link io.github.lockmanager.TaskLock}), so it is exclusive and not re-entered; a wait for it
 * holds no thread; a busy lock fails the returned work ({@code THROW}) or makes it empty ({@code SKIP}). Any other
 * {@code Future} or reactive {@code Publisher} is refused at startup, since its work would outlive the lock.
 *
 * <p>Nested calls on the same thread with the same key re-enter the lock and cost no store call. Every setting is
 * checked when the bean's proxy is made, so a mistake fails startup naming the method.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface ClusterLocked {

    /**
     * The lock key: text with {@code #{...}} SpEL expressions over the method's parameters ({@code #name}, or
     * {@code #p0}/{@code #a0} by position; names need the {@code -parameters} compiler flag, which Spring Boot's build
     * plugins set) and beans ({@code @beanName}). An expression that evaluates to {@code null} fails the call. Empty:
     * the class's name and the method's, {@code com.example.ReportJob.run}.
     */
    String key() default "";

    /** The key's level; none (the default) for the manager's default level. At most one. */
    LockLevel[] level() default {};

    /** {@link LockMode#SHARED} lets other shared holders in; exclusive by default. The intention modes are refused. */
    LockMode mode() default LockMode.EXCLUSIVE;

    /**
     * A number of permits from 1 to {@value io.github.lockmanager.LockManager#MAX_PERMITS}: the call takes one of that
     * many permits of the key, so that at most that many calls run at once across the cluster
     * ({@link io.github.lockmanager.LockSpec#permits}); 0 (the default) takes the lock in {@link #mode()}.
     * Goes with the default mode only. Every method naming one key must give it the same number.
     */
    int permits() default 0;

    /** What a call does when another holder has the key. */
    OnBusy onBusy() default OnBusy.THROW;

    /**
     * With {@link OnBusy#WAIT}: the longest wait, as {@code 10s}, {@code 500ms} or {@code PT1M}; empty waits without a
     * deadline. Waits as {@link io.github.lockmanager.LockManager#waitForLock(io.github.lockmanager.LockSpec, Duration)} does (a holder on
     * another node is polled up to the manager's {@code wait-poll-interval}). A wait that ends without the lock throws as {@link OnBusy#THROW} does.
     */
    String waitFor() default "";

    /**
     * How long after the lock was taken the key stays locked even if the method has returned, as {@code 30s} or
     * {@code PT5M}; empty (the default) releases it when the method returns. For a {@code @Scheduled} job whose
     * nodes' triggers fire a little apart: with {@link OnBusy#SKIP} and a time shorter than the job's period, a
     * node that comes late finds the key still locked and skips instead of running the job again. See
     * {@link io.github.lockmanager.LockResource#closeHeldAtLeast}; at most one day.
     */
    String holdAtLeast() default "";

    /**
     * The lock's own lease, as {@code 2m} or {@code PT10S}: how long the key stays locked after this node stops
     * renewing it (crashed, paused, cut off); empty (the default) takes the manager's {@code lockmanager.lease}. See
     * {@link io.github.lockmanager.LockSpec#lease(java.time.Duration)};
     * from 100 ms to one day.
     */
    String lease() default "";

    /** What a call does when the key is held by another thread or node. */
    enum OnBusy {
        /**
         * Throws {@link io.github.lockmanager.utils.UncheckedLockException} whose cause, an
         * {@link io.github.lockmanager.AlreadyLockedException}, names the holder; the method does not run.
         */
        THROW,
        /**
         * Returns without running the method: {@code null}, or an empty {@code Optional} for a method returning one.
         * Refused at startup on a method returning a primitive. The scheduled job's choice: another node runs it.
         */
        SKIP,
        /** Waits for the key (see {@link #waitFor()}); an interrupt ends the wait with an exception. */
        WAIT
    }
}

package io.github.lockmanager.spring.boot;

import io.github.lockmanager.AlreadyLockedException;
import io.github.lockmanager.LockSpec;
import io.github.lockmanager.LockManager;
import io.github.lockmanager.reactor.ReactiveLocks;
import io.github.lockmanager.spring.boot.ClusterLocked.OnBusy;
import org.aopalliance.intercept.MethodInvocation;
import org.springframework.aop.ProxyMethodInvocation;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * A call of a {@link ClusterLocked} method that returns a {@code Mono} or {@code Flux}: the method runs when the
 * returned publisher is subscribed, under a task lock held until it completes, fails or is cancelled
 * ({@link ReactiveLocks}). A busy lock fails it ({@code THROW}) or makes it empty ({@code SKIP}). Loaded only when
 * Reactor and lockmanager-reactor are on the class path.
 */
final class ReactiveLockedCall {
    private ReactiveLockedCall() {
    }

    static Object invoke(LockedMethod locked, LockManager manager, String key, MethodInvocation invocation) {
        MethodInvocation later = invocation instanceof ProxyMethodInvocation proxy ? proxy.invocableClone() : invocation;
        ReactiveLocks locks = ReactiveLocks.of(manager);
        LockSpec spec = locked.spec(manager, key);
        if (Mono.class.isAssignableFrom(invocation.getMethod().getReturnType())) {
            Mono<Object> run = locks.withLock(spec, locked.maxWait(), locked.task(), held -> Mono.defer(() ->
                    Mono.from(proceed(later))));
            return locked.onBusy() == OnBusy.SKIP ? run.onErrorResume(AlreadyLockedException.class, e -> Mono.empty())
                    : run;
        }
        Flux<Object> run = locks.withLockMany(spec, locked.maxWait(), locked.task(), held -> Flux.defer(() ->
                Flux.from(proceed(later))));
        return locked.onBusy() == OnBusy.SKIP ? run.onErrorResume(AlreadyLockedException.class, e -> Flux.empty()) : run;
    }

    @SuppressWarnings("unchecked")
    private static org.reactivestreams.Publisher<Object> proceed(MethodInvocation invocation) {
        try {
            Object returned = invocation.proceed();
            return returned == null ? Mono.empty() : (org.reactivestreams.Publisher<Object>) returned;
        } catch (Throwable t) {
            return Mono.error(t);
        }
    }
}

package io.github.lockmanager.spring.boot;

import io.github.lockmanager.LockException;
import io.github.lockmanager.LockManager;
import io.github.lockmanager.LockResource;
import io.github.lockmanager.utils.UncheckedLockException;
import org.aopalliance.aop.Advice;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractPointcutAdvisor;
import org.springframework.aop.support.AopUtils;
import org.springframework.aop.support.StaticMethodMatcherPointcut;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.expression.BeanFactoryResolver;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.MethodClassKey;
import org.springframework.core.Ordered;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.core.annotation.AnnotatedElementUtils;

import java.lang.reflect.Method;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * Puts {@link ClusterLocked} methods under their locks. Its order puts it outside the transaction advisor, whose order
 * is the lowest precedence, so a locked transaction commits before its lock is released.
 */
final class ClusterLockedAdvisor extends AbstractPointcutAdvisor {
    private static final long serialVersionUID = 1L;
    private static final Logger log = LoggerFactory.getLogger(ClusterLockedAdvisor.class);

    private final transient ConcurrentMap<MethodClassKey, Optional<LockedMethod>> methods = new ConcurrentHashMap<>();
    private final transient Pointcut pointcut = new StaticMethodMatcherPointcut() {
        @Override
        public boolean matches(Method method, Class<?> targetClass) {
            return lockedMethod(method, targetClass) != null;
        }
    };
    private final transient Interceptor interceptor;

    ClusterLockedAdvisor(ObjectProvider<LockManager> manager, BeanFactory beans) {
        this.interceptor = new Interceptor(manager, new BeanFactoryResolver(beans));
        setOrder(Ordered.LOWEST_PRECEDENCE - 100);
    }

    @Override
    public Pointcut getPointcut() {
        return pointcut;
    }

    @Override
    public Advice getAdvice() {
        return interceptor;
    }

    /** The settings of {@code method} as called on {@code targetClass}; {@code null} if it is not locked. */
    private LockedMethod lockedMethod(Method method, Class<?> targetClass) {
        return methods.computeIfAbsent(new MethodClassKey(method, targetClass), key -> {
            Method specific = AopUtils.getMostSpecificMethod(method, targetClass);
            ClusterLocked settings = AnnotatedElementUtils.findMergedAnnotation(specific, ClusterLocked.class);
            return Optional.ofNullable(settings).map(s -> LockedMethod.of(specific, targetClass, s));
        }).orElse(null);
    }

    private final class Interceptor implements MethodInterceptor {
        private final ObjectProvider<LockManager> manager;
        private final BeanFactoryResolver beans;
        private final ParameterNameDiscoverer names = new DefaultParameterNameDiscoverer();

        Interceptor(ObjectProvider<LockManager> manager, BeanFactoryResolver beans) {
            this.manager = manager;
            this.beans = beans;
        }

        @Override
        public Object invoke(MethodInvocation invocation) throws Throwable {
            Object target = invocation.getThis();
            Class<?> targetClass = target != null ? AopUtils.getTargetClass(target)
                    : invocation.getMethod().getDeclaringClass();
            LockedMethod locked = lockedMethod(invocation.getMethod(), targetClass);
            if (locked == null) {
                return invocation.proceed();
            }
            String key = locked.key(target, invocation.getArguments(), names, beans);
            if (locked.returns() == LockedMethod.Returns.STAGE) {
                return StageLockedCall.invoke(locked, manager.getObject(), key, invocation);
            }
            if (locked.returns() == LockedMethod.Returns.REACTIVE) {
                return ReactiveLockedCall.invoke(locked, manager.getObject(), key, invocation);
            }
            LockResource lock;
            try {
                lock = locked.acquire(manager.getObject(), key);
            } catch (LockException e) {
                throw new UncheckedLockException(e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new UncheckedLockException(new LockException("interrupted while " + locked + " waited for lock '"
                        + key + "'; the method did not run", e));
            }
            if (lock == null) {
                log.debug("{} skipped: lock '{}' is held elsewhere", locked, key);
                return locked.skipped();
            }
            try {
                return invocation.proceed();
            } finally {
                locked.release(lock);
            }
        }
    }
}

package io.github.lockmanager.spring.boot;

import io.github.lockmanager.LockSpec;
import io.github.lockmanager.AlreadyLockedException;
import io.github.lockmanager.LockException;
import io.github.lockmanager.LockLevel;
import io.github.lockmanager.LockManager;
import io.github.lockmanager.LockMode;
import io.github.lockmanager.LockResource;
import io.github.lockmanager.TaskOptions;
import io.github.lockmanager.engine.LockManagerBuilder;
import io.github.lockmanager.spi.LockKey;
import io.github.lockmanager.spring.boot.ClusterLocked.OnBusy;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.context.expression.MethodBasedEvaluationContext;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.expression.BeanResolver;
import org.springframework.expression.Expression;
import org.springframework.expression.ParserContext;
import org.springframework.expression.common.CompositeStringExpression;
import org.springframework.expression.common.LiteralExpression;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import org.springframework.util.ClassUtils;

import java.lang.reflect.Method;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Future;

/** One {@link ClusterLocked} method, its settings checked and its key expression parsed once. */
final class LockedMethod {
    private static final Duration FOREVER = ChronoUnit.FOREVER.getDuration();

    private static final SpelExpressionParser PARSER = new SpelExpressionParser();
    private static final String PUBLISHER = "org.reactivestreams.Publisher";
    private static final String MONO = "reactor.core.publisher.Mono";
    private static final String FLUX = "reactor.core.publisher.Flux";
    private static final String REACTIVE_LOCKS = "io.github.lockmanager.reactor.ReactiveLocks";

    private final Method method;
    private final String name;
    private final List<Expression> keyParts;
    private final LockLevel level;
    private final LockMode mode;
    /** 0, or the number of permits of which a call takes one. */
    private final int permits;
    private final OnBusy onBusy;
    /** {@code null}: a wait without a deadline. */
    private final Duration waitFor;
    /** {@code null}: released when the method returns. */
    private final Duration holdAtLeast;
    /** {@code null}: the manager's lease. */
    private final Duration lease;
    /** What the method returns, which decides who owns the lock and when it is released. */
    private final Returns returns;

    /** How a call's lock is held: by its thread until it returns, or by a task until its returned work ends. */
    enum Returns {
        VALUE, STAGE, REACTIVE
    }

    private LockedMethod(Method method, Class<?> targetClass, ClusterLocked settings) {
        this.method = method;
        this.name = ClassUtils.getQualifiedMethodName(method, targetClass);
        this.mode = settings.mode();
        this.onBusy = settings.onBusy();
        check(mode == LockMode.EXCLUSIVE || mode == LockMode.SHARED, "mode must be EXCLUSIVE or SHARED, was " + mode
                + ": intention modes are taken on a path's ancestors by a LockSpec.path lock");
        this.permits = settings.permits();
        check(permits >= 0 && permits <= LockManager.MAX_PERMITS, "permits must be from 1 to "
                + LockManager.MAX_PERMITS + ", or 0 for none, was " + permits);
        check(permits == 0 || mode == LockMode.EXCLUSIVE, "permits go with the default mode only, and mode is "
                + mode);
        check(settings.level().length <= 1, "level takes at most one value, was "
                + List.of(settings.level()));
        this.level = settings.level().length == 1 ? settings.level()[0] : null;
        this.waitFor = settings.waitFor().isEmpty() ? null : duration("waitFor", settings.waitFor());
        this.holdAtLeast = settings.holdAtLeast().isEmpty() ? null : duration("holdAtLeast", settings.holdAtLeast());
        check(holdAtLeast == null || (!holdAtLeast.isNegative()
                        && holdAtLeast.compareTo(LockResource.MAX_HOLD_AT_LEAST) <= 0),
                "holdAtLeast must be between 0 and " + LockResource.MAX_HOLD_AT_LEAST + ", was " + holdAtLeast);
        this.lease = settings.lease().isEmpty() ? null : duration("lease", settings.lease());
        check(lease == null || (lease.compareTo(LockManagerBuilder.MIN_LEASE) >= 0
                        && lease.compareTo(LockManagerBuilder.MAX_INTERVAL) <= 0),
                "lease must be between " + LockManagerBuilder.MIN_LEASE + " and " + LockManagerBuilder.MAX_INTERVAL
                        + ", was " + lease);
        check(onBusy == OnBusy.WAIT || settings.waitFor().isEmpty(),
                "waitFor applies to onBusy = WAIT only, and onBusy is " + onBusy);
        Class<?> returns = method.getReturnType();
        this.returns = returns == CompletionStage.class || returns == CompletableFuture.class ? Returns.STAGE
                : isReactor(returns) ? Returns.REACTIVE : Returns.VALUE;
        check(this.returns != Returns.VALUE || (!Future.class.isAssignableFrom(returns)
                        && !CompletionStage.class.isAssignableFrom(returns) && !isPublisher(returns)),
                "it returns " + returns.getName() + ", whose work would go on after the method returned; a lock is "
                        + "held until the work ends for CompletionStage, CompletableFuture, Mono and Flux (the last two "
                        + "with lockmanager-reactor on the class path) only");
        check(this.returns != Returns.REACTIVE || holdAtLeast == null,
                "holdAtLeast applies to methods returning a value or a CompletionStage, not to " + returns.getSimpleName());
        check(onBusy != OnBusy.SKIP || !returns.isPrimitive() || returns == void.class,
                "onBusy = SKIP has no value to return from a method returning " + returns.getName()
                        + "; return void, an object or an Optional");
        String key = settings.key().isEmpty() ? ClassUtils.getUserClass(targetClass).getName() + "." + method.getName()
                : settings.key();
        this.keyParts = parseKey(key);
        if (literalKey() != null) {
            try {
                LockKey.requireName(literalKey());
            } catch (IllegalArgumentException e) {
                throw new IllegalStateException(this + ": " + e.getMessage(), e);
            }
        }
    }

    /** Checks {@code settings} and parses its key; {@link IllegalStateException} naming the method if wrong. */
    static LockedMethod of(Method method, Class<?> targetClass, ClusterLocked settings) {
        return new LockedMethod(method, targetClass, settings);
    }

    /** The key of one call. */
    String key(Object target, Object[] arguments, ParameterNameDiscoverer names, BeanResolver beans) {
        String literal = literalKey();
        if (literal != null) {
            return literal;
        }
        MethodBasedEvaluationContext context = new MethodBasedEvaluationContext(target, method, arguments, names);
        context.setBeanResolver(beans);
        StringBuilder key = new StringBuilder();
        for (Expression part : keyParts) {
            Object value = part.getValue(context);
            if (value == null) {
                throw new IllegalArgumentException("the key of @ClusterLocked " + name + " cannot be made: '"
                        + part.getExpressionString() + "' is null in this call");
            }
            key.append(value);
        }
        return key.toString();
    }

    /**
     * The lock of {@code key} for this call, or {@code null} when it is held elsewhere and the method skips.
     *
     * @throws AlreadyLockedException held elsewhere, when the method throws or its wait ended without it
     */
    LockResource acquire(LockManager manager, String key) throws LockException, InterruptedException {
        LockSpec spec = spec(manager, key);
        return switch (onBusy) {
            case THROW -> manager.lock(spec);
            case SKIP -> takeOrSkip(manager, spec);
            case WAIT -> manager.waitForLock(spec, maxWait());
        };
    }

    /** What a call with {@code key} locks: the method's mode or permits, at its level, with its lease. */
    LockSpec spec(LockManager manager, String key) {
        LockSpec spec = permits > 0 ? LockSpec.permits(key, permits)
                : mode == LockMode.SHARED ? LockSpec.shared(key) : LockSpec.of(key);
        spec = spec.at(level != null ? level : manager.getDefaultLevel());
        return lease != null ? spec.lease(lease) : spec;
    }

    private static LockResource takeOrSkip(LockManager manager, LockSpec spec) throws LockException {
        try {
            return manager.lock(spec);
        } catch (AlreadyLockedException e) {
            return null;
        }
    }

    /** Gives back the call's hold, keeping the key locked for {@code holdAtLeast} if it is set. */
    void release(LockResource lock) {
        if (holdAtLeast == null) {
            lock.close();
        } else {
            lock.closeHeldAtLeast(holdAtLeast);
        }
    }

    Returns returns() {
        return returns;
    }

    /** How long a call waits for its lock: zero unless {@code onBusy} is WAIT. */
    Duration maxWait() {
        return onBusy != OnBusy.WAIT ? Duration.ZERO : waitFor != null ? waitFor : FOREVER;
    }

    OnBusy onBusy() {
        return onBusy;
    }

    /** The task a call's lock belongs to: named for the method. */
    TaskOptions task() {
        String task = name.length() <= TaskOptions.MAX_NAME_LENGTH ? name
                : name.substring(name.length() - TaskOptions.MAX_NAME_LENGTH);
        return TaskOptions.named(task);
    }

    /** What a skipped call returns. */
    Object skipped() {
        return method.getReturnType() == Optional.class ? Optional.empty() : null;
    }

    /** The key of every call, if it has no expression. */
    private String literalKey() {
        return keyParts.size() == 1 && keyParts.get(0) instanceof LiteralExpression literal
                ? literal.getExpressionString() : null;
    }

    private List<Expression> parseKey(String key) {
        Expression parsed;
        try {
            parsed = PARSER.parseExpression(key, ParserContext.TEMPLATE_EXPRESSION);
        } catch (RuntimeException e) {
            throw new IllegalStateException(this + ": its key '" + key + "' is not a valid template: " + e.getMessage(),
                    e);
        }
        return parsed instanceof CompositeStringExpression composite ? List.of(composite.getExpressions())
                : List.of(parsed);
    }

    private Duration duration(String attribute, String value) {
        try {
            return DurationStyle.detectAndParse(value);
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException(this + ": " + attribute + " '" + value + "' is not a duration such as "
                    + "10s, 500ms or PT1M", e);
        }
    }

    private static boolean isReactor(Class<?> type) {
        return (type.getName().equals(MONO) || type.getName().equals(FLUX)) && ClassUtils.isPresent(REACTIVE_LOCKS,
                LockedMethod.class.getClassLoader());
    }

    private static boolean isPublisher(Class<?> type) {
        ClassLoader loader = type.getClassLoader();
        if (loader == null || !ClassUtils.isPresent(PUBLISHER, loader)) {
            return false;
        }
        return ClassUtils.resolveClassName(PUBLISHER, loader).isAssignableFrom(type);
    }

    @Override
    public String toString() {
        return "@ClusterLocked " + name;
    }

    /** Refuses a setting, naming the method. */
    private void check(boolean condition, String problem) {
        if (!condition) {
            throw new IllegalStateException(this + ": " + problem);
        }
    }
}

package io.github.lockmanager.bench;

import javax.sql.DataSource;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A data source that counts the round trips its callers make: every statement execution, commit and rollback.
 * Used to put the peers' protocols and ours side by side; it changes nothing else.
 */
final class CountingDataSource {
    private final DataSource target;
    private final AtomicLong roundTrips = new AtomicLong();

    CountingDataSource(DataSource target) {
        this.target = target;
    }

    long roundTrips() {
        return roundTrips.get();
    }

    DataSource dataSource() {
        return (DataSource) Proxy.newProxyInstance(DataSource.class.getClassLoader(), new Class<?>[]{DataSource.class},
                (proxy, method, args) -> {
                    Object result = invoke(target, method, args);
                    return result instanceof Connection ? connection((Connection) result) : result;
                });
    }

    private Connection connection(Connection c) {
        return (Connection) Proxy.newProxyInstance(Connection.class.getClassLoader(), new Class<?>[]{Connection.class},
                (proxy, method, args) -> {
                    String name = method.getName();
                    if (name.equals("commit") || name.equals("rollback") && (args == null || args.length == 0)) {
                        roundTrips.incrementAndGet();
                    }
                    Object result = invoke(c, method, args);
                    return result instanceof Statement ? statement((Statement) result, method.getReturnType()) : result;
                });
    }

    private Object statement(Statement s, Class<?> type) {
        InvocationHandler counting = (proxy, method, args) -> {
            if (method.getName().startsWith("execute")) {
                roundTrips.incrementAndGet();
            }
            return invoke(s, method, args);
        };
        return Proxy.newProxyInstance(Statement.class.getClassLoader(), new Class<?>[]{type}, counting);
    }

    private static Object invoke(Object target, Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}

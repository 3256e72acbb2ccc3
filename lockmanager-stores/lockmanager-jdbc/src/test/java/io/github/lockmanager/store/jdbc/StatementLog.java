package io.github.lockmanager.store.jdbc;

import javax.sql.DataSource;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Keeps the text of every statement prepared on a real database's connections, which it passes through unchanged:
 * for tests of what the store asks of the database where the database shows no trace of it (also in other
 * modules' tests).
 */
public final class StatementLog {
    private final List<String> prepared = new CopyOnWriteArrayList<>();

    public DataSource wrap(DataSource dataSource) {
        return (DataSource) Proxy.newProxyInstance(StatementLog.class.getClassLoader(),
                new Class<?>[] {DataSource.class}, (proxy, method, args) -> {
                    Object result = invoke(dataSource, method, args);
                    return result instanceof Connection ? wrap((Connection) result) : result;
                });
    }

    Connection wrap(Connection connection) {
        return (Connection) Proxy.newProxyInstance(StatementLog.class.getClassLoader(),
                new Class<?>[] {Connection.class}, (proxy, method, args) -> {
                    if (method.getName().equals("prepareStatement")) {
                        prepared.add((String) args[0]);
                    }
                    return invoke(connection, method, args);
                });
    }

    /** The statements prepared so far whose text contains {@code part}. */
    public List<String> containing(String part) {
        return prepared.stream().filter(sql -> sql.contains(part)).toList();
    }

    private static Object invoke(Object target, Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}

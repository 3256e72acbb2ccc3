package io.github.lockmanager.engine;

import java.util.concurrent.ThreadFactory;

/**
 * Daemon threads with a fixed name: an operator reading a thread dump sees which node's manager they serve,
 * and a forgotten manager does not keep the JVM alive (its locks then expire after one lease).
 */
final class NamedThreadFactory implements ThreadFactory {
    private final String name;

    NamedThreadFactory(String name) {
        this.name = name;
    }

    @Override
    public Thread newThread(Runnable r) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }
}

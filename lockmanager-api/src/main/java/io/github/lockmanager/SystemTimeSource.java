package io.github.lockmanager;

import java.time.Instant;

enum SystemTimeSource implements TimeSource {
    INSTANCE;

    @Override
    public long nanoTime() {
        return System.nanoTime();
    }

    /**
     * To the millisecond, which is what every store keeps: {@link System#currentTimeMillis()} is a compiler
     * intrinsic, while {@link Instant#now()} calls into the VM, which costs more than an in-memory lock.
     */
    @Override
    public Instant now() {
        return Instant.ofEpochMilli(System.currentTimeMillis());
    }

    @Override
    public String toString() {
        return "TimeSource.system()";
    }
}

package io.github.lockmanager;

import java.time.Instant;

enum SystemTimeSource implements TimeSource {
    INSTANCE;

    @Override
    public long nanoTime() {
        return System.nanoTime();
    }

    @Override
    public Instant now() {
        return Instant.now();
    }

    @Override
    public String toString() {
        return "TimeSource.system()";
    }
}

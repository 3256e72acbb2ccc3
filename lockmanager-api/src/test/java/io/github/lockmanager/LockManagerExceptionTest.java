package io.github.lockmanager;

import io.github.lockmanager.LockManagerException.ErrorCode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;

import static org.assertj.core.api.Assertions.assertThat;

class LockManagerExceptionTest {
    @AfterEach
    void clearInterrupt() {
        Thread.interrupted();
    }

    @Test
    void propagateKeepsTheCodeOfANestedLockManagerException() {
        LockManagerException original = new LockManagerException(ErrorCode.CONNECTION_ERROR, "down");
        RuntimeException wrapped = new RuntimeException(new UncheckedIOException(new IOException(original)));
        assertThat(LockManagerException.propagate(wrapped)).isSameAs(original);
        assertThat(LockManagerException.propagate(original)).isSameAs(original);
    }

    @Test
    void propagateTurnsAnythingElseIntoAnInternalError() {
        IllegalStateException cause = new IllegalStateException("bug");
        LockManagerException e = LockManagerException.propagate(cause);
        assertThat(e.getErrorCode()).isEqualTo(ErrorCode.INTERNAL_ERROR);
        assertThat(e.getCause()).isSameAs(cause);
        assertThat(e.getMessage()).startsWith("[INTERNAL_ERROR]");
    }

    @Test
    void propagateNeverSwallowsAnInterrupt() {
        LockManagerException.propagate(new RuntimeException(new InterruptedException()));
        assertThat(Thread.currentThread().isInterrupted()).isTrue();
    }
}

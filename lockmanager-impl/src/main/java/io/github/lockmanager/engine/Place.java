package io.github.lockmanager.engine;

import io.github.lockmanager.LockLevel;
import io.github.lockmanager.LockMode;

/**
 * Where the table keeps a non-exclusive acquisition: one per key, level, owner and mode ({@link Owner#id()}: a thread's
 * id, or a task's own negative number). Made once per acquisition, since a thread may be collected before its
 * acquisition leaves the table.
 */
record Place(LockLevel level, String name, long ownerId, LockMode mode) {
}

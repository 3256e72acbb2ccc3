package io.github.lockmanager.engine;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.locks.ReentrantLock;

/**
 * When parked task waiters try again: all of them in one heap ordered by time, with one timer of the
 * {@link TaskThreads} armed for the earliest. A parked waiter costs its two fields ({@link Waiter#wakeDue},
 * {@link Waiter#wakeSlot}) and a slot here, where a timer of its own would cost a scheduled task, its adapter and a
 * lambda, about 130 bytes. Thread-safe: the lock guards the heap and is never held while a waiter is woken.
 */
final class WakeTimes {
    private static final int INITIAL_SLOTS = 16;

    /** Where the timer runs: the task threads' {@link TaskThreads#schedule}. */
    interface Timer {
        /** @throws IllegalStateException if the timer has stopped */
        ScheduledFuture<?> schedule(Runnable work, long delayNanos);
    }

    private final Timer timer;
    private final ReentrantLock lock = new ReentrantLock();
    private Waiter[] heap = new Waiter[INITIAL_SLOTS];
    private int size;
    /** The timer armed for the head, when it is due, and which arming it was (a late tick of an older one is told). */
    private ScheduledFuture<?> tick;
    private long tickDue;
    private long armings;

    WakeTimes(Timer timer) {
        this.timer = timer;
    }

    /**
     * Wakes {@code waiter} in {@code delayNanos}, instead of any time set before.
     *
     * @throws IllegalStateException if the task threads have stopped (the manager is closing)
     */
    void wakeIn(Waiter waiter, long delayNanos) {
        long due = System.nanoTime() + Math.max(0, delayNanos);
        lock.lock();
        try {
            if (waiter.wakeSlot >= 0) {
                removeAt(waiter.wakeSlot);
            }
            waiter.wakeDue = due;
            add(waiter);
            if (heap[0] == waiter) {
                armFor(due);
            }
        } finally {
            lock.unlock();
        }
    }

    /** Forgets the time set for {@code waiter}, if any. An armed timer left with nothing due re-arms for the next. */
    void cancel(Waiter waiter) {
        lock.lock();
        try {
            if (waiter.wakeSlot >= 0) {
                removeAt(waiter.wakeSlot);
            }
        } finally {
            lock.unlock();
        }
    }

    /** How many waiters have a time set, for tests. */
    int size() {
        lock.lock();
        try {
            return size;
        } finally {
            lock.unlock();
        }
    }

    /** Arms the timer for {@code due} unless it fires before that already. Under the lock. */
    private void armFor(long due) {
        if (tick != null && tickDue - due <= 0) {
            return;
        }
        if (tick != null) {
            tick.cancel(false);
        }
        long arming = ++armings;
        tickDue = due;
        // none armed if scheduling fails (the manager is closing): a later time must not think one is
        tick = null;
        tick = timer.schedule(() -> fire(arming), due - System.nanoTime());
    }

    private void fire(long arming) {
        List<Waiter> due = new ArrayList<>();
        lock.lock();
        try {
            if (arming == armings) {
                tick = null;
            }
            long now = System.nanoTime();
            while (size > 0 && heap[0].wakeDue - now <= 0) {
                due.add(removeAt(0));
            }
            if (size > 0) {
                armFor(heap[0].wakeDue);
            }
        } catch (IllegalStateException closing) {
            // the task threads have stopped: the manager's close ends every task wait
        } finally {
            lock.unlock();
        }
        for (Waiter waiter : due) {
            waiter.wake();
        }
    }

    private void add(Waiter waiter) {
        if (size == heap.length) {
            heap = Arrays.copyOf(heap, size * 2);
        }
        siftUp(size++, waiter);
    }

    private Waiter removeAt(int slot) {
        Waiter removed = heap[slot];
        removed.wakeSlot = -1;
        Waiter last = heap[--size];
        heap[size] = null;
        if (slot < size) {
            siftDown(slot, last);
            if (heap[slot] == last) {
                siftUp(slot, last);
            }
        }
        if (heap.length > INITIAL_SLOTS && size < heap.length / 4) {
            // a burst of waiters gone: the heap does not keep its slots
            heap = Arrays.copyOf(heap, Math.max(INITIAL_SLOTS, heap.length / 2));
        }
        return removed;
    }

    private void siftUp(int slot, Waiter waiter) {
        while (slot > 0) {
            int parent = (slot - 1) >>> 1;
            Waiter above = heap[parent];
            if (above.wakeDue - waiter.wakeDue <= 0) {
                break;
            }
            place(slot, above);
            slot = parent;
        }
        place(slot, waiter);
    }

    private void siftDown(int slot, Waiter waiter) {
        int half = size >>> 1;
        while (slot < half) {
            int child = 2 * slot + 1;
            int right = child + 1;
            if (right < size && heap[right].wakeDue - heap[child].wakeDue < 0) {
                child = right;
            }
            if (waiter.wakeDue - heap[child].wakeDue <= 0) {
                break;
            }
            place(slot, heap[child]);
            slot = child;
        }
        place(slot, waiter);
    }

    private void place(int slot, Waiter waiter) {
        heap[slot] = waiter;
        waiter.wakeSlot = slot;
    }
}
